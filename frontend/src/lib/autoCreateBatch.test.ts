import { describe, expect, it } from "vitest";
import type { UploadAnswer } from "../api/types";
import type { AutoCreateEstimate } from "../usage/wire";
import { autoCreateCandidates, batchText, notStarted, type AutoCreateBatch } from "./autoCreateBatch";

type Doc = UploadAnswer["documents"][number];
const doc = (id: string, auto_create_status: string) => ({ id, name: `${id}.pdf`, auto_create_status }) as unknown as Doc;
const answer = (...documents: Doc[]): UploadAnswer => ({ documents, duplicates: [], errors: [] });

describe("autoCreateCandidates", () => {
  it("takes each uploaded document that auto-create can run on, once, and leaves out the ones it has proposed or runs", () => {
    const ids = autoCreateCandidates([
      answer(doc("a", "none")),
      answer(doc("b", "proposed")),
      null,
      answer(doc("c", "failed"), doc("a", "none")),
      answer(doc("d", "rejected"), doc("e", "pending"), doc("f", "accepted")),
    ]);
    expect(ids).toEqual(["a", "c", "d"]);
  });
});

describe("batchText", () => {
  const estimate: AutoCreateEstimate = {
    documents: 2,
    calls: 28,
    input_tokens: 4000,
    output_tokens: 600,
    cost_usd: 0.02,
    priced: true,
    model: "openai/gpt-4o-mini",
    confirm_over_usd: 1,
  };
  const b = (p: Partial<AutoCreateBatch>): AutoCreateBatch => ({ key: 1, ids: ["a", "b"], status: "estimating", ...p });

  it("says where the batch is, with its estimate", () => {
    expect(batchText(b({}))).toBe("Auto-create of 2 documents: estimating the cost…");
    expect(batchText(b({ status: "asking", estimate }))).toBe(
      "Auto-create of 2 documents waits for you: 2 documents with openai/gpt-4o-mini: about 4,000 input and 600 output tokens, about $0.02.",
    );
    expect(batchText(b({ status: "started", estimate, started: ["a", "b"] }))).toBe(
      "Auto-create started: 2 documents with openai/gpt-4o-mini: about 4,000 input and 600 output tokens, about $0.02.",
    );
    expect(batchText(b({ status: "declined", estimate }))).toBe(
      "Auto-create not started, as you chose: 2 documents with openai/gpt-4o-mini: about 4,000 input and 600 output tokens, about $0.02.",
    );
  });

  it("says how many documents did not start", () => {
    const partly = b({ status: "started", estimate, started: ["a"] });
    expect(notStarted(partly)).toEqual(["b"]);
    expect(batchText(partly)).toBe(
      "Auto-create started for 1 of 2 documents: 2 documents with openai/gpt-4o-mini: about 4,000 input and 600 output tokens, about $0.02. The other did not start:",
    );
    expect(batchText(b({ status: "failed", error: { message: "over the limit" } }))).toBe("Auto-create of 2 documents did not start:");
  });
});
