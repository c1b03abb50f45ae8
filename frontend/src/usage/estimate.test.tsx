import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { EstimateDialogBody, estimateText, needsConfirm } from "./estimate";
import type { AutoCreateEstimate } from "./wire";

const est = (p: Partial<AutoCreateEstimate> = {}): AutoCreateEstimate => ({
  documents: 3,
  calls: 42,
  input_tokens: 12400,
  output_tokens: 2000,
  cost_usd: 0.0372,
  priced: true,
  model: "openai/gpt-4o-mini",
  confirm_over_usd: 1,
  ...p,
});

describe("estimateText", () => {
  it("says the documents, the tokens, the model and the cost", () => {
    expect(estimateText(est())).toBe("3 documents with openai/gpt-4o-mini: about 12,400 input and 2,000 output tokens, about $0.04.");
    expect(estimateText(est({ documents: 1, cost_usd: 0.004 }))).toBe("1 document with openai/gpt-4o-mini: about 12,400 input and 2,000 output tokens, about $0.004.");
  });

  it("says a local model costs nothing", () => {
    expect(estimateText(est({ model: "ollama/qwen3:8b", cost_usd: 0 }))).toBe("3 documents with qwen3:8b (local): about 12,400 input and 2,000 output tokens, no cost (a local model).");
  });

  it("says price unknown when the model has none, never a figure", () => {
    const t = estimateText(est({ cost_usd: undefined, priced: false, model: "openai/mystery-1" }));
    expect(t).toBe("3 documents with openai/mystery-1: about 12,400 input and 2,000 output tokens, price unknown.");
    expect(t).not.toContain("$");
  });
});

describe("needsConfirm", () => {
  it("asks over the threshold, and when the price is unknown", () => {
    expect(needsConfirm(est({ cost_usd: 1.5 }))).toBe(true);
    expect(needsConfirm(est({ cost_usd: 1 }))).toBe(false);
    expect(needsConfirm(est())).toBe(false);
    expect(needsConfirm(est({ cost_usd: undefined, priced: false }))).toBe(true);
  });
  it("asks before every hosted batch with a threshold of 0, never for a local model's", () => {
    expect(needsConfirm(est({ confirm_over_usd: 0, cost_usd: 0.0001 }))).toBe(true);
    expect(needsConfirm(est({ confirm_over_usd: 0, cost_usd: 0, model: "ollama/qwen3:8b" }))).toBe(false);
  });
});

describe("the confirm dialog", () => {
  it("says the estimate and why it asks: over the threshold", () => {
    const html = renderToString(<EstimateDialogBody estimate={est({ cost_usd: 2.5 })} titleId="t" descId="d" />);
    expect(html).toContain("Start auto-create of 3 documents?");
    expect(html).toContain("about $2.50");
    expect(html).toContain("over $1.00, the amount above which Docent asks");
  });
  it("says the price is unknown and where to set one", () => {
    const html = renderToString(<EstimateDialogBody estimate={est({ cost_usd: undefined, priced: false, model: "openai/mystery-1" })} titleId="t" descId="d" />);
    expect(html).toContain("price unknown");
    expect(html).toContain("The price of openai/mystery-1 is unknown");
    expect(html).not.toMatch(/\$\d/);
  });
});
