import { describe, expect, it } from "vitest";
import { visionChoices } from "./VisionModel";

describe("visionChoices", () => {
  it("lists the models that see first, marks what the providers say, and keeps the saved model", () => {
    const got = visionChoices(
      [
        { id: "ollama/qwen3:8b", provider: "ollama", capabilities: ["completion", "tools", "thinking"] },
        { id: "openai/gpt-4o-mini", provider: "openai" },
        { id: "ollama/qwen2.5vl:7b", provider: "ollama", capabilities: ["completion", "vision"] },
        { id: "ollama/gemma3:4b", provider: "ollama", capabilities: ["completion", "vision"] },
      ],
      "ollama/llava:13b",
    );
    expect(got).toEqual([
      { id: "ollama/gemma3:4b", mark: "vision" },
      { id: "ollama/qwen2.5vl:7b", mark: "vision" },
      { id: "ollama/llava:13b", mark: "" },
      { id: "openai/gpt-4o-mini", mark: "" },
      { id: "ollama/qwen3:8b", mark: "no vision" },
    ]);
  });

  it("does not list the saved model twice, nor an empty one", () => {
    const models = [{ id: "ollama/qwen2.5vl:7b", provider: "ollama", capabilities: ["vision"] }];
    expect(visionChoices(models, "ollama/qwen2.5vl:7b")).toHaveLength(1);
    expect(visionChoices(models, "")).toHaveLength(1);
  });
});
