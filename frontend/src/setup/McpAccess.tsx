// Docent's MCP server as Settings shows it: how an MCP client (Claude
// Desktop, Claude Code, Cursor) reaches this app's /mcp, and the switch
// that lists only read-only tools to it (GET/PUT /api/settings/mcp).
// `docent mcp --read-only` is the command line's own switch; this one is
// the server's.

import { api } from "../api/routes.gen";
import { ErrorBox } from "../components/common";
import { useAsync, useSave } from "../lib/useAsync";
import type { McpSettings } from "../api/types";

/** The address MCP clients connect to, on the server this page came from. */
export function mcpURL(origin: string): string {
  return origin.replace(/\/+$/, "") + "/mcp";
}

export function McpAccessView({ settings, url, busy, onReadOnly }: { settings: McpSettings; url: string; busy: boolean; onReadOnly: (on: boolean) => void }) {
  return (
    <section className="card" data-testid="mcp-settings">
      <h2>MCP clients</h2>
      <p className="muted">
        Assistants that speak MCP (Claude Desktop, Claude Code, Cursor) use Docent's tools on these documents: locally with <code>docent mcp</code>, or
        at <code data-testid="mcp-url">{url}</code> with this server's access token (README, "MCP"). Each write a client makes is yours, as if you had
        approved it here.
      </p>
      <label>
        <input type="checkbox" checked={settings.read_only} disabled={busy} onChange={(e) => onReadOnly(e.target.checked)} data-testid="mcp-read-only" />{" "}
        Read-only: clients at <code>/mcp</code> get only the tools that read, and writes of clients already connected are refused
      </label>
      <p className="muted" data-testid="mcp-state">
        Now: {settings.read_only ? "read-only, clients can search and read but change nothing." : "clients may read and change, asking you before each write."}
      </p>
    </section>
  );
}

export function McpAccess() {
  const s = useAsync(api.getMcpSettings, []);
  const { busy, err, save } = useSave(s);
  if (!s.data) return s.error ? <ErrorBox error={s.error} onRetry={s.reload} /> : null;
  const setReadOnly = (on: boolean) => save(api.putMcpSettings({ read_only: on }));
  return (
    <>
      <McpAccessView settings={s.data} url={mcpURL(window.location.origin)} busy={busy} onReadOnly={setReadOnly} />
      {err !== null && <ErrorBox title="Not saved" error={err} />}
    </>
  );
}
