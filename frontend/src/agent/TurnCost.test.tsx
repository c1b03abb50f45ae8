import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { AgentEvent, TurnUsage } from "../api/types";
import { Messages } from "./Messages";
import { initialConversation, reducer, type ConversationState } from "./reducer";

// A turn of one round that reports its tokens, then ends with usage.
function answered(usage: TurnUsage): ConversationState {
  let s = reducer(initialConversation(), { type: "send", text: "what is the total?" });
  const events: AgentEvent[] = [
    { type: "assistant_text_done", full_text: "12.50 EUR", round_index: 0 },
    { type: "usage", round_index: 0, prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens },
    { type: "done", result: { text: "12.50 EUR", thinking: "", thread_id: "th1", working_state: {}, executed_rounds: [], usage } },
  ];
  for (const event of events) {
    s = reducer(s, { type: "event", event, now: 1000 });
  }
  return s;
}

const footer = (s: ConversationState) => {
  const html = renderToString(<Messages state={s} approvalFor={() => undefined} onDocLink={() => false} onRetry={() => {}} />);
  const m = html.match(/data-testid="turn-usage"[^>]*>(.*?)<\/div>/s);
  return m ? m[1].replace(/<[^>]+>/g, "").replace(/&amp;/g, "&") : null;
};

describe("the chat answer's footer", () => {
  it("shows the turn's cost after its tokens", () => {
    expect(footer(answered({ prompt_tokens: 1000, completion_tokens: 100, cost_usd: 0.0014 }))).toBe("1,000 prompt + 100 completion tokens · $0.0014");
  });
  it("says price unknown when no call had a price, and never a figure", () => {
    expect(footer(answered({ prompt_tokens: 1000, completion_tokens: 100, unpriced_calls: 2 }))).toBe("1,000 prompt + 100 completion tokens · price unknown");
  });
  it("says which part is unknown when only some calls had a price", () => {
    expect(footer(answered({ prompt_tokens: 1000, completion_tokens: 100, cost_usd: 0.25, unpriced_calls: 1 }))).toBe(
      "1,000 prompt + 100 completion tokens · $0.25 + 1 call of unknown price",
    );
  });
  it("shows no cost for a local model's $0, nor from a server that sends none", () => {
    expect(footer(answered({ prompt_tokens: 1000, completion_tokens: 100, cost_usd: 0 }))).toBe("1,000 prompt + 100 completion tokens");
    expect(footer(answered({ prompt_tokens: 1000, completion_tokens: 100 }))).toBe("1,000 prompt + 100 completion tokens");
  });
});
