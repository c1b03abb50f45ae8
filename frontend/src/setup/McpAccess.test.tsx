import { renderToString } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { McpAccessView, mcpURL } from "./McpAccess";

vi.mock("../api/routes.gen", () => ({ api: {} }));

describe("MCP settings card", () => {
  it("gives the address clients connect to on this server", () => {
    expect(mcpURL("http://192.168.1.20:8765")).toBe("http://192.168.1.20:8765/mcp");
    expect(mcpURL("http://127.0.0.1:8765/")).toBe("http://127.0.0.1:8765/mcp");
  });

  it("says whether clients may write, and the switch shows it", () => {
    const on = renderToString(<McpAccessView settings={{ read_only: true }} url="http://h/mcp" busy={false} onReadOnly={() => {}} />);
    expect(on).toContain("read-only, clients can search and read but change nothing");
    expect(on).toMatch(/data-testid="mcp-read-only"[^>]*checked|checked=""[^>]*data-testid="mcp-read-only"/);
    const off = renderToString(<McpAccessView settings={{ read_only: false }} url="http://h/mcp" busy={false} onReadOnly={() => {}} />);
    expect(off).toContain("clients may read and change");
    expect(off).not.toMatch(/checked/);
    expect(off).toContain("http://h/mcp");
  });
});
