import { describe, expect, it } from "vitest";
import { embedProgressText, unknownModelWarning } from "./SettingsPage";

describe("unknownModelWarning", () => {
  it("warns about a typed model the providers do not list, and only then", () => {
    const known = ["ollama/qwen3:8b", "openai/gpt-4o-mini"];
    expect(unknownModelWarning("ollama/qwen3:8b", known)).toBe("");
    expect(unknownModelWarning("", known)).toBe("");
    expect(unknownModelWarning("ollama/llama9", [])).toBe(""); // nothing listed: nothing to compare with
    expect(unknownModelWarning(" ollama/llama9 ", known)).toContain("ollama/llama9 is not among the models");
  });
});

describe("embedProgressText", () => {
  const st = { model: "ollama/nomic-embed-text", chunks: 1200, embedded: 300, dimensions: 768, running: false };
  it("says how many chunks are embedded and why the rest wait", () => {
    expect(embedProgressText({ ...st, error: "model nomic-embed-text is not pulled" })).toBe(
      "300 of 1,200 text chunks embedded with ollama/nomic-embed-text; the rest wait: model nomic-embed-text is not pulled.",
    );
    expect(embedProgressText({ ...st, running: true })).toContain("; embedding…");
    expect(embedProgressText({ ...st, embedded: 1200 })).toBe("1,200 of 1,200 text chunks embedded with ollama/nomic-embed-text.");
  });
});
