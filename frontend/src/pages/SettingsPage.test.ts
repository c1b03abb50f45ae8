import { describe, expect, it } from "vitest";
import { unknownModelWarning } from "./SettingsPage";

describe("unknownModelWarning", () => {
  it("warns about a typed model the providers do not list, and only then", () => {
    const known = ["ollama/qwen3:8b", "openai/gpt-4o-mini"];
    expect(unknownModelWarning("ollama/qwen3:8b", known)).toBe("");
    expect(unknownModelWarning("", known)).toBe("");
    expect(unknownModelWarning("ollama/llama9", [])).toBe(""); // nothing listed: nothing to compare with
    expect(unknownModelWarning(" ollama/llama9 ", known)).toContain("ollama/llama9 is not among the models");
  });
});
