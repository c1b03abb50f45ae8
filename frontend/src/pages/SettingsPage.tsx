import { useEffect, useState } from "react";
import { errorMessage } from "../api/http";
import { api } from "../api/routes";
import type { ModelList } from "../api/types";
import { ErrorBox, Spinner } from "../components/common";
import { useSettings, type ApprovalMode } from "../lib/settings";

export default function SettingsPage() {
  const [s, set] = useSettings();
  const [serverSettings, setServerSettings] = useState<"unknown" | "yes" | "no">("unknown");
  const [test, setTest] = useState<{ loading: boolean; result?: ModelList; error?: string }>({ loading: false });
  const [saved, setSaved] = useState<string | null>(null);

  // The protocol has no settings route; an optional GET/PUT /api/settings is used when present.
  useEffect(() => {
    api.getSettings().then(
      (x) => {
        setServerSettings("yes");
        const pick = (k: string) => (typeof x[k] === "string" ? (x[k] as string) : undefined);
        set({
          ollamaHost: pick("ollama_host") ?? s.ollamaHost,
          openaiBaseURL: pick("openai_base_url") ?? s.openaiBaseURL,
          defaultModel: pick("default_model") ?? s.defaultModel,
        });
      },
      () => setServerSettings("no"),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const save = async () => {
    setSaved(null);
    if (serverSettings === "yes") {
      try {
        await api.putSettings({
          ollama_host: s.ollamaHost,
          openai_base_url: s.openaiBaseURL,
          ...(s.openaiKey ? { openai_api_key: s.openaiKey } : {}),
          default_model: s.defaultModel,
        });
        setSaved("Saved on the server.");
      } catch (e) {
        setSaved(`Could not save on the server: ${errorMessage(e)}`);
      }
    } else {
      setSaved("Saved in this browser.");
    }
  };

  const testConnection = async () => {
    setTest({ loading: true });
    try {
      setTest({ loading: false, result: await api.models() });
    } catch (e) {
      setTest({ loading: false, error: errorMessage(e) });
    }
  };

  return (
    <div className="page settings-page">
      <div className="page-head">
        <h1>Settings</h1>
      </div>

      <section className="card">
        <h2>Agent approvals</h2>
        <p className="muted">What happens when the agent wants to create, change or delete something.</p>
        {(
          [
            ["ask", "Ask every time"],
            ["per_tool", "Ask, except for the tools below"],
            ["auto_all", "Auto-approve all actions"],
          ] as [ApprovalMode, string][]
        ).map(([v, label]) => (
          <label key={v} className="check">
            <input type="radio" name="approval" checked={s.approvalMode === v} onChange={() => set({ approvalMode: v })} data-testid={`approval-${v}`} />
            {label}
          </label>
        ))}
        <div className="tool-list">
          {s.autoApprovedTools.length === 0 ? (
            <p className="muted small-text">No always-approved tools. Use “Always approve” on an action card to add one.</p>
          ) : (
            <ul>
              {s.autoApprovedTools.map((t) => (
                <li key={t}>
                  <code>{t}</code>{" "}
                  <button type="button" className="btn link small" onClick={() => set({ autoApprovedTools: s.autoApprovedTools.filter((x) => x !== t) })}>
                    remove
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      </section>

      <section className="card">
        <h2>Models</h2>
        {serverSettings === "no" && (
          <div className="note" data-testid="settings-local-note">
            This server does not manage provider settings yet: Docent reads <code>OLLAMA_HOST</code>, <code>OPENAI_BASE_URL</code> and{" "}
            <code>OPENAI_API_KEY</code> from its environment when it starts. The values below are kept in this browser only, as a note for
            you; set the environment variables and restart <code>docent --serve</code> to change them.
          </div>
        )}
        <form className="form" onSubmit={(e) => { e.preventDefault(); void save(); }}>
          <label>
            Ollama host
            <input value={s.ollamaHost} onChange={(e) => set({ ollamaHost: e.target.value })} placeholder="http://127.0.0.1:11434" data-testid="settings-ollama-host" />
          </label>
          <label>
            OpenAI-compatible base URL
            <input value={s.openaiBaseURL} onChange={(e) => set({ openaiBaseURL: e.target.value })} placeholder="https://api.openai.com/v1" data-testid="settings-openai-base" />
          </label>
          <label>
            OpenAI API key
            <input type="password" value={s.openaiKey} onChange={(e) => set({ openaiKey: e.target.value })} autoComplete="off" data-testid="settings-openai-key" />
          </label>
          <label>
            Default model
            <input value={s.defaultModel} onChange={(e) => set({ defaultModel: e.target.value })} placeholder="ollama/qwen3:8b" data-testid="settings-default-model" />
          </label>
          <div className="row">
            <button type="submit" className="btn primary">
              Save
            </button>
            <button type="button" className="btn" onClick={() => void testConnection()} data-testid="test-connection">
              Test connection
            </button>
            {saved && <span className="muted">{saved}</span>}
          </div>
        </form>
        {test.loading && <Spinner label="Asking the server for its models…" />}
        {test.error && <ErrorBox error={test.error} />}
        {test.result && (
          <div className="test-result" data-testid="test-result">
            {test.result.models.length === 0 ? (
              <p>The server answered but found no models. Is Ollama running, or is an OpenAI key set?</p>
            ) : (
              <>
                <p>
                  {test.result.models.length} model{test.result.models.length === 1 ? "" : "s"} available; default{" "}
                  <code>{test.result.default || "none"}</code>.
                </p>
                <ul>
                  {test.result.models.map((m) => (
                    <li key={m.id}>
                      <code>{m.id}</code> <span className="muted">{m.provider}</span>
                    </li>
                  ))}
                </ul>
              </>
            )}
          </div>
        )}
      </section>
    </div>
  );
}
