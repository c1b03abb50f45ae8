import { describe, expect, it } from "vitest";
import type { AgentEvent, ThreadMessage, TurnResult } from "../api/types";
import {
  allDecided,
  approvalsFor,
  canSend,
  currentAssistant,
  initialConversation,
  reducer,
  type Action,
  type AssistantMessageView,
  type ConversationState,
} from "./reducer";
import { messagesFromThread, pendingFromThread, userSeqs } from "./history";

function run(s: ConversationState, ...actions: Action[]): ConversationState {
  return actions.reduce(reducer, s);
}

let clock = 1000;
function ev(event: AgentEvent, now = (clock += 100)): Action {
  return { type: "event", event, now };
}

function result(over: Partial<TurnResult> = {}): TurnResult {
  return {
    text: "",
    thinking: "",
    thread_id: "th1",
    working_state: {},
    executed_rounds: [],
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    ...over,
  };
}

function sent(text = "hello"): ConversationState {
  return run(initialConversation(), { type: "send", text });
}

function assistant(s: ConversationState): AssistantMessageView {
  return currentAssistant(s)!;
}

describe("reducer: a plain turn", () => {
  it("adds a user and a streaming assistant message, and refuses a second send while streaming", () => {
    const s = sent("hi");
    expect(s.messages.map((m) => m.kind)).toEqual(["user", "assistant"]);
    expect(s.status).toBe("streaming");
    expect(canSend(s)).toBe(false);
    expect(run(s, { type: "send", text: "again" })).toBe(s);
  });

  it("handles every event of a round in protocol order", () => {
    let s = sent();
    s = run(s, ev({ type: "turn_started", thread_id: "th1", model: "ollama/qwen3:8b" }, 1000));
    expect(s.threadId).toBe("th1");
    expect(assistant(s).model).toBe("ollama/qwen3:8b");

    s = run(s, ev({ type: "thinking_chunk", chunk: "Let me ", round_index: 0 }, 1100));
    let r = assistant(s).rounds[0];
    expect(r.thinkingPhase).toBe("streaming");
    expect(r.thinkingStartedAt).toBe(1100);
    s = run(s, ev({ type: "thinking_chunk", chunk: "think", round_index: 0 }, 1200));
    expect(assistant(s).rounds[0].thinking).toBe("Let me think");
    expect(assistant(s).rounds[0].thinkingStartedAt).toBe(1100);

    s = run(s, ev({ type: "thinking_done", thinking: "Let me think.", round_index: 0 }, 1500));
    r = assistant(s).rounds[0];
    expect(r.thinkingPhase).toBe("done");
    expect(r.thinking).toBe("Let me think.");
    expect(r.thinkingEndedAt! - r.thinkingStartedAt!).toBe(400);

    s = run(
      s,
      ev({ type: "assistant_text_chunk", chunk: "Hel", round_index: 0 }),
      ev({ type: "assistant_text_chunk", chunk: "lo", round_index: 0 }),
    );
    expect(assistant(s).rounds[0].text).toBe("Hello");
    expect(assistant(s).rounds[0].textDone).toBe(false);

    s = run(s, ev({ type: "assistant_text_done", full_text: "Hello!", round_index: 0 }));
    expect(assistant(s).rounds[0].text).toBe("Hello!");
    expect(assistant(s).rounds[0].textDone).toBe(true);

    s = run(s, ev({ type: "usage", round_index: 0, prompt_tokens: 100, completion_tokens: 20 }));
    expect(assistant(s).rounds[0].usage).toEqual({ prompt_tokens: 100, completion_tokens: 20 });

    s = run(s, ev({ type: "done", result: result({ text: "Hello!", usage: { prompt_tokens: 100, completion_tokens: 20 } }) }));
    expect(s.status).toBe("idle");
    expect(assistant(s).status).toBe("done");
    expect(assistant(s).text).toBe("Hello!");
    expect(assistant(s).usage).toEqual({ prompt_tokens: 100, completion_tokens: 20 });
    expect(canSend(s)).toBe(true);
  });

  it("keeps the turn's history id when its calls changed something, for Undo", () => {
    const changed = run(sent(), ev({ type: "done", result: result({ text: "Deleted.", history_turn_id: "turn_01J" }) }));
    expect(assistant(changed).historyTurnId).toBe("turn_01J");
    const unchanged = run(sent(), ev({ type: "done", result: result({ text: "Hi" }) }));
    expect(assistant(unchanged).historyTurnId).toBeUndefined();
  });

  it("lets the done text win over coalesced chunks that lost a piece", () => {
    let s = sent();
    s = run(
      s,
      ev({ type: "assistant_text_chunk", chunk: "The total is", round_index: 0 }),
      ev({ type: "assistant_text_done", full_text: "The total is 42 EUR.", round_index: 0 }),
      ev({ type: "assistant_text_chunk", chunk: " late", round_index: 0 }),
    );
    expect(assistant(s).rounds[0].text).toBe("The total is 42 EUR.");
  });

  it("treats several chunks merged into one exactly like the separate chunks", () => {
    const fine = run(
      sent(),
      ev({ type: "thinking_chunk", chunk: "a", round_index: 0 }, 1),
      ev({ type: "thinking_chunk", chunk: "b", round_index: 0 }, 2),
      ev({ type: "assistant_text_chunk", chunk: "x", round_index: 0 }, 3),
      ev({ type: "assistant_text_chunk", chunk: "y", round_index: 0 }, 4),
    );
    const coalesced = run(
      sent(),
      ev({ type: "thinking_chunk", chunk: "ab", round_index: 0 }, 1),
      ev({ type: "assistant_text_chunk", chunk: "xy", round_index: 0 }, 4),
    );
    expect(assistant(coalesced).rounds[0].thinking).toBe(assistant(fine).rounds[0].thinking);
    expect(assistant(coalesced).rounds[0].text).toBe(assistant(fine).rounds[0].text);
    // Thinking ends when the text starts, even without thinking_done.
    expect(assistant(coalesced).rounds[0].thinkingPhase).toBe("done");
  });

  it("sums usage over the rounds of a turn", () => {
    const s = run(
      sent(),
      ev({ type: "usage", round_index: 0, prompt_tokens: 10, completion_tokens: 1 }),
      ev({ type: "usage", round_index: 1, prompt_tokens: 20, completion_tokens: 2 }),
      ev({ type: "done", result: result({ usage: { prompt_tokens: 30, completion_tokens: 3 } }) }),
    );
    expect(assistant(s).usage).toEqual({ prompt_tokens: 30, completion_tokens: 3 });
  });

  it("takes usage and text from done when nothing streamed (a JSON answer)", () => {
    const s = run(sent(), ev({ type: "done", result: result({ text: "Hi", usage: { prompt_tokens: 5, completion_tokens: 2 } }) }));
    expect(assistant(s).rounds[0].text).toBe("Hi");
    expect(assistant(s).usage).toEqual({ prompt_tokens: 5, completion_tokens: 2 });
  });
});

describe("reducer: tools", () => {
  it("shows calls, their results and the executed round", () => {
    let s = run(
      sent(),
      ev({
        type: "tool_calls",
        round_index: 0,
        tool_calls: [
          { id: "c1", name: "get_ocr_text", arguments: { page_num: 1 } },
          { id: "c2", name: "list_schemas", arguments: {} },
        ],
        needs_approval: [],
      }),
      ev({ type: "tool_result", round_index: 0, call_id: "c1", name: "get_ocr_text", success: true, result: { text: "x" }, preview: "Page 1: 1 character" }),
      ev({ type: "tool_result", round_index: 0, call_id: "c2", name: "list_schemas", success: false, error: "boom" }),
      ev({
        type: "round_executed",
        round_index: 0,
        thinking: "",
        tool_calls: [
          { id: "c1", name: "get_ocr_text", arguments: { page_num: 1 }, success: true, preview: "Page 1: 1 character" },
          { id: "c2", name: "list_schemas", arguments: {}, success: false, preview: "", error: "boom" },
        ],
      }),
    );
    const r = assistant(s).rounds[0];
    expect(r.executed).toBe(true);
    expect(r.toolCalls.map((c) => c.needsApproval)).toEqual([false, false]);
    expect(r.toolCalls[0].result).toEqual({ success: true, result: { text: "x" }, preview: "Page 1: 1 character" });
    expect(r.toolCalls[1].result).toEqual({ success: false, error: "boom" });

    s = run(s, ev({ type: "assistant_text_done", full_text: "Done.", round_index: 1 }));
    expect(assistant(s).rounds.map((x) => x.index)).toEqual([0, 1]);
  });

  it("bumps the extraction revision after run_extraction succeeds and when done carries an extraction", () => {
    let s = run(
      sent(),
      ev({ type: "tool_calls", round_index: 0, tool_calls: [{ id: "c1", name: "run_extraction", arguments: {} }], needs_approval: [] }),
    );
    const before = s.extractionRevision;
    s = run(s, ev({ type: "tool_result", round_index: 0, call_id: "c1", name: "run_extraction", success: true, result: {}, changed_extraction: true }));
    expect(s.extractionRevision).toBe(before + 1);
    const extraction = { extraction_id: "x1" } as never;
    s = run(s, ev({ type: "done", result: result({ working_state: { prompt_revid: "p1", extraction } }) }));
    expect(s.extractionRevision).toBe(before + 2);
    expect(s.workingState?.prompt_revid).toBe("p1");
  });
});

function pausedTurn(): ConversationState {
  return run(
    sent("make a schema"),
    ev({ type: "turn_started", thread_id: "th1", model: "m" }),
    ev({ type: "assistant_text_done", full_text: "", round_index: 0 }),
    ev({ type: "usage", round_index: 0, prompt_tokens: 50, completion_tokens: 5 }),
    ev({
      type: "tool_calls",
      round_index: 0,
      tool_calls: [
        { id: "a", name: "validate_schema", arguments: { schema: {} } },
        { id: "b", name: "create_schema", arguments: { name: "Invoice" } },
        { id: "c", name: "create_tag", arguments: { name: "paid" } },
      ],
      needs_approval: ["b", "c"],
    }),
    ev({
      type: "done",
      result: result({
        turn_id: "turn-1",
        tool_calls: [
          { id: "a", name: "validate_schema", arguments: { schema: {} } },
          { id: "b", name: "create_schema", arguments: { name: "Invoice" } },
          { id: "c", name: "create_tag", arguments: { name: "paid" } },
        ],
        usage: { prompt_tokens: 50, completion_tokens: 5 },
      }),
    }),
  );
}

describe("reducer: approval", () => {
  it("pauses with the turn id and the calls that need a decision, and blocks sending", () => {
    const s = pausedTurn();
    expect(s.status).toBe("paused");
    expect(assistant(s).status).toBe("paused");
    expect(s.pending).toMatchObject({ turnId: "turn-1", needsApproval: ["b", "c"] });
    expect(assistant(s).rounds[0].toolCalls.map((c) => c.needsApproval)).toEqual([false, true, true]);
    expect(canSend(s)).toBe(false);
    expect(run(s, { type: "send", text: "x" })).toBe(s);
  });

  it("collects decisions and builds approvals (calls without a decision point are approved)", () => {
    let s = pausedTurn();
    s = run(s, { type: "draft", callId: "b", decision: { approved: true, arguments: { name: "Invoice 2" } } });
    expect(allDecided(s.pending!)).toBe(false);
    s = run(s, { type: "draft", callId: "c", decision: { approved: false } });
    expect(allDecided(s.pending!)).toBe(true);
    expect(approvalsFor(s.pending!)).toEqual([
      { call_id: "a", approved: true },
      { call_id: "b", approved: true, arguments: { name: "Invoice 2" } },
      { call_id: "c", approved: false },
    ]);
  });

  it("streams the approve continuation into the same assistant message, rounds continuing", () => {
    let s = pausedTurn();
    const id = assistant(s).id;
    const count = s.messages.length;
    const approvals = [
      { call_id: "a", approved: true },
      { call_id: "b", approved: true },
      { call_id: "c", approved: false },
    ];
    s = run(s, { type: "approve", approvals });
    expect(s.status).toBe("streaming");
    expect(s.pending).toBeNull();
    expect(assistant(s).rounds[0].toolCalls.map((c) => c.decision?.approved)).toEqual([true, true, false]);

    s = run(
      s,
      ev({ type: "turn_started", thread_id: "th1", model: "m" }),
      ev({ type: "tool_result", round_index: 0, call_id: "a", name: "validate_schema", success: true, result: { valid: true } }),
      ev({ type: "tool_result", round_index: 0, call_id: "b", name: "create_schema", success: true, preview: "Created schema “Invoice” v1" }),
      ev({ type: "tool_result", round_index: 0, call_id: "c", name: "create_tag", success: false, error: "User rejected this action." }),
      ev({ type: "round_executed", round_index: 0, thinking: "", tool_calls: [] }),
      ev({ type: "assistant_text_chunk", chunk: "Created.", round_index: 1 }),
      ev({ type: "assistant_text_done", full_text: "Created the schema.", round_index: 1 }),
      ev({ type: "usage", round_index: 1, prompt_tokens: 70, completion_tokens: 7 }),
      ev({ type: "done", result: result({ text: "Created the schema.", usage: { prompt_tokens: 120, completion_tokens: 12 } }) }),
    );
    expect(s.messages.length).toBe(count);
    const m = assistant(s);
    expect(m.id).toBe(id);
    expect(m.status).toBe("done");
    expect(m.rounds.map((r) => r.index)).toEqual([0, 1]);
    expect(m.rounds[0].toolCalls.map((c) => c.result?.success)).toEqual([true, true, false]);
    expect(m.rounds[1].text).toBe("Created the schema.");
    expect(m.usage).toEqual({ prompt_tokens: 120, completion_tokens: 12 });
    expect(s.status).toBe("idle");
  });

  it("ignores approve when nothing is pending", () => {
    const s = sent();
    expect(run(s, { type: "approve", approvals: [] })).toBe(s);
  });
});

describe("reducer: failures", () => {
  it("shows an error event and allows a retry", () => {
    const s = run(
      sent(),
      ev({ type: "thinking_chunk", chunk: "hm", round_index: 0 }),
      ev({ type: "error", error: "model not found", code: "invalid" }),
    );
    expect(s.status).toBe("error");
    expect(assistant(s).status).toBe("error");
    expect(assistant(s).error).toEqual({ message: "model not found", code: "invalid" });
    expect(assistant(s).rounds[0].thinkingPhase).toBe("done");
    expect(canSend(s)).toBe(true);
    // stream_end after a terminal event changes nothing
    expect(run(s, { type: "stream_end", now: 1 })).toBe(s);
  });

  it("marks a stream that ended without done as interrupted", () => {
    const s = run(sent(), ev({ type: "assistant_text_chunk", chunk: "Par", round_index: 0 }), { type: "stream_end", now: 5 });
    expect(s.status).toBe("interrupted");
    expect(assistant(s).status).toBe("interrupted");
    expect(assistant(s).rounds[0].text).toBe("Par");
    expect(canSend(s)).toBe(true);
  });

  it("ignores events after done", () => {
    const s = run(sent(), ev({ type: "done", result: result({ text: "ok" }) }));
    expect(run(s, ev({ type: "assistant_text_chunk", chunk: "zzz", round_index: 0 }))).toBe(s);
  });

  it("ignores an event type it does not know (a newer server's)", () => {
    const s = run(sent(), ev({ type: "turn_started", thread_id: "th1", model: "m" }));
    const after = run(s, ev({ type: "compaction", round_index: 0 } as unknown as AgentEvent));
    expect(after).toBe(s);
  });

  it("records a refused request and a stop", () => {
    const failed = run(sent(), { type: "request_failed", message: "Unknown turn id", code: "not_found" });
    expect(assistant(failed).error?.message).toBe("Unknown turn id");
    // A refusal keeps its status: Docent's own request limit (429 rate_limited) is told from a hosted API's by it.
    const limited = run(sent(), { type: "request_failed", message: "too many model requests", code: "rate_limited", status: 429 });
    expect(assistant(limited).error).toEqual({ message: "too many model requests", code: "rate_limited", status: 429 });
    const stopped = run(sent(), { type: "stopped", now: 1 });
    expect(assistant(stopped).status).toBe("stopped");
    expect(canSend(stopped)).toBe(true);
  });
});

describe("reducer: resubmit and history", () => {
  it("replaces a user message and everything after it", () => {
    let s = run(sent("first"), ev({ type: "done", result: result({ text: "a" }) }));
    s = run(s, { type: "send", text: "second" }, ev({ type: "done", result: result({ text: "b" }) }));
    s = run(s, { type: "sync_seqs", userSeqs: [0, 2] });
    expect(s.messages.filter((m) => m.kind === "user").map((m) => (m.kind === "user" ? m.seq : -1))).toEqual([0, 2]);
    const second = s.messages[2];
    s = run(s, { type: "send", text: "second, edited", replaceFromMessageId: second.id });
    expect(s.messages.map((m) => (m.kind === "user" ? m.text : m.kind))).toEqual(["first", "assistant", "second, edited", "assistant"]);
  });

  it("rebuilds rounds, tool results and usage from stored thread messages", () => {
    // Typed: the data are the generated MessageData, as the Go turn stores them.
    const stored: ThreadMessage[] = [
      { seq: 0, role: "user", content: "hi", created_at: "" },
      {
        seq: 1,
        role: "assistant",
        content: "",
        thinking: "t",
        tool_calls: [{ id: "c1", name: "create_tag", arguments: { name: "x" } }],
        data: { round_index: 0, usage: { prompt_tokens: 3, completion_tokens: 1 } },
        created_at: "",
      },
      { seq: 2, role: "tool", content: '{"id":"t1"}', tool_call_id: "c1", tool_name: "create_tag", data: { success: true, arguments: { name: "x" } }, created_at: "" },
      { seq: 3, role: "assistant", content: "Made it.", data: { round_index: 1, usage: { prompt_tokens: 4, completion_tokens: 2 } }, created_at: "" },
      { seq: 4, role: "user", content: "again", created_at: "" },
    ];
    const msgs = messagesFromThread(stored);
    expect(msgs.map((m) => m.kind)).toEqual(["user", "assistant", "user"]);
    const a = msgs[1] as AssistantMessageView;
    expect(a.rounds.map((r) => r.index)).toEqual([0, 1]);
    expect(a.rounds[0].toolCalls[0].result).toEqual({ success: true, result: { id: "t1" } });
    expect(a.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3 });
    expect(a.text).toBe("Made it.");
    expect(userSeqs(stored)).toEqual([0, 4]);
  });

  it("shows a reopened turn's cost as the live turn showed it, from its answer's turn_usage", () => {
    const stored: ThreadMessage[] = [
      { seq: 0, role: "user", content: "hi", created_at: "" },
      {
        seq: 1,
        role: "assistant",
        content: "Done.",
        data: {
          round_index: 0,
          usage: { prompt_tokens: 4, completion_tokens: 2 },
          turn_usage: { prompt_tokens: 40, completion_tokens: 20, cost_usd: 0.0014, unpriced_calls: 1 },
        },
        created_at: "",
      },
      { seq: 2, role: "user", content: "again", created_at: "" },
      { seq: 3, role: "assistant", content: "Older answer, no cost kept.", data: { round_index: 0 }, created_at: "" },
    ];
    const [, first, , second] = messagesFromThread(stored) as AssistantMessageView[];
    expect(first.cost).toEqual({ cost_usd: 0.0014, unpriced_calls: 1 });
    expect(second.cost).toBeUndefined();
  });

  it("restores an approval the reopened thread still waits for, and not an abandoned one", () => {
    const proposal = {
      seq: 1,
      role: "assistant",
      content: "Shall I?",
      tool_calls: [
        { id: "c1", name: "create_tag", arguments: { name: "x" } },
        { id: "c2", name: "list_tags", arguments: {} },
      ],
      data: { round_index: 0, turn_id: "turn_1", needs_approval: ["c1"] },
      created_at: "",
    };
    const stored = [{ seq: 0, role: "user", content: "tag it", created_at: "" }, proposal];
    const msgs = messagesFromThread(stored as never);
    const pending = pendingFromThread(stored as never, msgs);
    expect(pending).toMatchObject({ turnId: "turn_1", needsApproval: ["c1"], messageId: msgs[1].id });
    expect((msgs[1] as AssistantMessageView).status).toBe("paused");
    const s = reducer(initialConversation(), { type: "loaded", threadId: "th", messages: msgs, workingState: null, pending });
    expect(s.status).toBe("paused");
    expect(canSend(s)).toBe(false);

    // The user moved on instead: the proposal is no longer the last message.
    const moved = [...stored, { seq: 2, role: "user", content: "never mind", created_at: "" }];
    const later = messagesFromThread(moved as never);
    expect(pendingFromThread(moved as never, later)).toBeNull();
    expect((later[1] as AssistantMessageView).status).toBe("interrupted");
  });
});

describe("speed", () => {
  it("keeps the first round's wait for its first token and the last tokens per second", () => {
    let s = run(sent(), ev({ type: "usage", round_index: 0, prompt_tokens: 10, completion_tokens: 5, first_token_ms: 1200, tokens_per_second: 20 }));
    s = run(s, ev({ type: "usage", round_index: 1, prompt_tokens: 12, completion_tokens: 7, first_token_ms: 300, tokens_per_second: 25 }));
    const m = s.messages.find((x) => x.kind === "assistant");
    expect(m && m.kind === "assistant" ? m.speed : null).toEqual({ first_token_ms: 1200, tokens_per_second: 25 });
  });
});

describe("history: a reloaded turn looks as it did live", () => {
  const live = (): AssistantMessageView => {
    let s = sent("hi");
    s = run(
      s,
      ev({ type: "turn_started", thread_id: "th1", model: "ollama/qwen3:8b" }, 1000),
      ev({ type: "thinking_chunk", chunk: "hmm", round_index: 0 }, 1100),
      ev({ type: "thinking_done", thinking: "hmm", round_index: 0 }, 3500),
      ev({ type: "assistant_text_done", full_text: "Hello.", round_index: 0 }, 3600),
      ev({ type: "usage", round_index: 0, prompt_tokens: 1200, completion_tokens: 30, first_token_ms: 400, tokens_per_second: 21.5 }, 3600),
      ev({ type: "done", result: result({ text: "Hello." }) }, 3700),
    );
    return assistant(s);
  };

  it("labels each turn with the thread's model when its messages do not name one", () => {
    const stored: ThreadMessage[] = [
      { seq: 0, role: "user", content: "hi", created_at: "" },
      { seq: 1, role: "assistant", content: "Hello.", thinking: "hmm", data: { round_index: 0, usage: { prompt_tokens: 1200, completion_tokens: 30 } }, created_at: "" },
    ];
    const a = messagesFromThread(stored, "h", { model: "ollama/qwen3:8b" })[1] as AssistantMessageView;
    expect(a.model).toBe(live().model);
    expect(a.usage).toEqual(live().usage);
    expect(a.rounds[0].thinkingPhase).toBe("done");
    // Without stored timing the reload says "Thought", without a time.
    expect(a.rounds[0].thinkingMs).toBeUndefined();
    expect((messagesFromThread(stored)[1] as AssistantMessageView).model).toBeNull();
  });

  it("restores the model, the thinking time and the speed when the messages store them", () => {
    const l = live();
    const stored = [
      { seq: 0, role: "user", content: "hi", created_at: "" },
      {
        seq: 1,
        role: "assistant",
        content: "Hello.",
        thinking: "hmm",
        data: { round_index: 0, usage: { prompt_tokens: 1200, completion_tokens: 30 }, model: "openai/gpt-4o-mini", thinking_ms: 2400, first_token_ms: 400, tokens_per_second: 21.5 },
        created_at: "",
      },
    ];
    const a = messagesFromThread(stored as ThreadMessage[], "h", { model: "ollama/qwen3:8b" })[1] as AssistantMessageView;
    expect(a.model).toBe("openai/gpt-4o-mini");
    expect(a.rounds[0].thinkingMs).toBe(l.rounds[0].thinkingEndedAt! - l.rounds[0].thinkingStartedAt!);
    expect(a.speed).toEqual(l.speed);
  });
});

describe("summaries: a call shows the words the server gave it, live and reloaded", () => {
  const summary = { title: "Delete schema “invoice” and its 1 version", danger: true, notes: ["No prompt uses it."], lines: ["No prompt uses it."] };

  it("keeps a tool_calls event's summary on the call, and a paused done's", () => {
    let s = sent("delete it");
    s = run(
      s,
      ev({ type: "turn_started", thread_id: "th1", model: "ollama/m" }),
      ev({ type: "tool_calls", round_index: 0, tool_calls: [{ id: "d1", name: "delete_schema", arguments: { schema_id: "invoice" }, summary }], needs_approval: ["d1"] }),
    );
    expect(assistant(s).rounds[0].toolCalls[0].summary).toEqual(summary);
    let p = run(sent("delete it"), ev({ type: "turn_started", thread_id: "th1", model: "ollama/m" }));
    p = run(p, ev({ type: "done", result: result({ turn_id: "turn_1", tool_calls: [{ id: "d1", name: "delete_schema", arguments: {}, summary }] }) }));
    expect(assistant(p).rounds[0].toolCalls[0].summary).toEqual(summary);
  });

  it("reads it from the stored calls, and from the tool message's data", () => {
    const stored = [
      { seq: 0, role: "user", content: "delete it", created_at: "" },
      { seq: 1, role: "assistant", content: "", tool_calls: [{ id: "d1", name: "delete_schema", arguments: { schema_id: "invoice" }, summary }], data: { round_index: 0 }, created_at: "" },
      { seq: 2, role: "assistant", content: "", tool_calls: [{ id: "d2", name: "delete_schema", arguments: { schema_id: "x" } }], data: { round_index: 1 }, created_at: "" },
      { seq: 3, role: "tool", content: "{}", tool_call_id: "d2", tool_name: "delete_schema", data: { round_index: 1, success: true, arguments: {}, summary }, created_at: "" },
    ];
    const a = messagesFromThread(stored as ThreadMessage[])[1] as AssistantMessageView;
    expect(a.rounds[0].toolCalls[0].summary).toEqual(summary);
    expect(a.rounds[1].toolCalls[0].summary).toEqual(summary);
  });
});

describe("a cut prompt", () => {
  it("keeps the usage event's truncation warning on the turn", () => {
    let s = sent("hi");
    s = run(s, ev({ type: "turn_started", thread_id: "thr_1", model: "ollama/m" }));
    s = run(
      s,
      ev({
        type: "usage", round_index: 0, prompt_tokens: 4096, completion_tokens: 5,
        prompt_truncated: { kept_tokens: 4096, window_tokens: 4096, estimated_tokens: 9000, dropped: "start", max_context: 4096, warning: "raise DOCENT_MAX_CONTEXT" },
      } as AgentEvent),
    );
    const a = s.messages.find((m): m is AssistantMessageView => m.kind === "assistant");
    expect(a?.truncated).toBe("raise DOCENT_MAX_CONTEXT");
  });
});

describe("a cut answer", () => {
  it("keeps the usage event's output_truncated warning on the turn", () => {
    let s = sent("hi");
    s = run(s, ev({ type: "turn_started", thread_id: "thr_1", model: "ollama/m" }));
    s = run(
      s,
      ev({
        type: "usage", round_index: 0, prompt_tokens: 40, completion_tokens: 128,
        output_truncated: { reason: "length", warning: "ask for less, or raise num_predict" },
      } as AgentEvent),
    );
    const a = s.messages.find((m): m is AssistantMessageView => m.kind === "assistant");
    expect(a?.outputTruncated).toBe("ask for less, or raise num_predict");
  });

  it("shows it again when the thread is reopened", () => {
    const stored = [
      { seq: 0, role: "user", content: "list them", created_at: "" },
      {
        seq: 1, role: "assistant", content: "one, two, th", created_at: "",
        data: { round_index: 0, usage: { prompt_tokens: 40, completion_tokens: 128 }, output_truncated: { reason: "length", warning: "ask for less, or raise num_predict" } },
      },
      { seq: 2, role: "user", content: "thanks", created_at: "" },
      { seq: 3, role: "assistant", content: "You are welcome.", created_at: "", data: { round_index: 0 } },
    ];
    const msgs = messagesFromThread(stored as ThreadMessage[]);
    expect((msgs[1] as AssistantMessageView).outputTruncated).toBe("ask for less, or raise num_predict");
    expect((msgs[3] as AssistantMessageView).outputTruncated).toBeUndefined();
  });
});
