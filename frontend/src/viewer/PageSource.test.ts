import { describe, expect, it } from "vitest";
import { sourceText } from "./PageSource";

describe("sourceText", () => {
  it("names OCR with its engine, languages and confidence, a vision model, and nothing for a text layer", () => {
    expect(sourceText({ page: 1, source: "text_layer" })).toBe("");
    expect(sourceText({ page: 1, source: "ocr", engine: "tesseract 5.3.0", lang: "deu+eng", confidence: 0.874 })).toBe(
      "Text read by OCR (tesseract 5.3.0, deu+eng, 87 % confident)",
    );
    expect(sourceText({ page: 2, source: "vision", engine: "ollama/qwen2.5vl:7b", note: "repetition cut" })).toBe(
      "Text read by the vision model ollama/qwen2.5vl:7b: repetition cut",
    );
  });
});
