import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { JournalEntry, ThreadMessage, ToolCall, TurnResult } from "../api/types";
import { messagesFromThread } from "./history";
import { Messages } from "./Messages";
import { initialConversation, reducer, type Action, type AssistantMessageView, type ConversationState, type ToolCallView } from "./reducer";

function stateWith(calls: ToolCallView[], historyTurnId?: string): ConversationState {
  const m: AssistantMessageView = {
    kind: "assistant",
    id: "a1",
    rounds: [{ index: 0, thinking: "", thinkingPhase: "none", thinkingStartedAt: null, thinkingEndedAt: null, text: "", textDone: true, toolCalls: calls, executed: true, usage: null }],
    status: "done",
    model: null,
    error: null,
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    speed: {},
    text: "Done.",
    historyTurnId,
  };
  return { threadId: "thr_1", messages: [m], status: "idle", pending: null, workingState: null, extractionRevision: 0, nextId: 2 };
}

const render = (s: ConversationState) =>
  renderToString(<Messages state={s} approvalFor={() => undefined} onDocLink={() => false} onRetry={() => {}} />);

describe("turn undo", () => {
  const deleted: ToolCallView = {
    id: "d1",
    name: "delete_document",
    arguments: {},
    needsApproval: true,
    decision: { approved: true },
    summary: { title: "Delete document “old.txt”", ops: ["delete"] } as ToolCallView["summary"],
    result: { success: true, preview: "deleted old.txt (doc_01J)" },
  };

  it("announces an approved delete with Undo for the turn", () => {
    const html = render(stateWith([deleted], "turn_01J"));
    expect(html).toContain('data-testid="turn-undo"');
    expect(html).toContain('role="alert"');
    const bar = html.slice(html.indexOf('data-testid="turn-undo"'));
    expect(bar).toContain("Done: Delete document “old.txt”.");
    expect(bar).not.toContain("doc_01J"); // named as the card names it, not by the preview's id
    expect(html).toContain('data-testid="turn-undo-button"');
    expect(html).toContain("#/history?actor=turn_01J");
    // The approved card has its own Undo.
    expect(html).toContain('data-testid="call-undo-button"');
  });

  it("offers Undo quietly for other changes, and nothing for a turn that changed nothing", () => {
    const tagged: ToolCallView = { id: "t1", name: "create_tag", arguments: {}, needsApproval: false, result: { success: true } };
    const html = render(stateWith([tagged], "turn_01K"));
    expect(html).toContain('role="status"');
    expect(html).toContain("This turn changed your data.");
    expect(html).not.toContain("call-undo-button"); // ran without an approval: no card Undo
    expect(render(stateWith([tagged]))).not.toContain("turn-undo");
  });
});

describe("turn undo in a reopened thread", () => {
  const at = (s: number) => `2026-11-26T10:00:${String(s).padStart(2, "0")}.000Z`;
  // Three turns, each with a call the agent named call_r0_0 (ids are unique
  // within a turn only): an approved delete, an automatic read, an
  // automatic tag whose change was undone since.
  const stored: ThreadMessage[] = [
    { seq: 0, role: "user", content: "delete the archive tag", created_at: at(0) },
    {
      seq: 1,
      role: "assistant",
      content: "",
      tool_calls: [{ id: "call_r0_0", name: "delete_tag", arguments: { tag_id: "tag_1" }, summary: { title: "Delete tag “archive”", ops: ["delete"] } as ToolCall["summary"] }],
      data: { round_index: 0, turn_id: "paused_1", needs_approval: ["call_r0_0"] },
      created_at: at(1),
    },
    { seq: 2, role: "tool", content: '{"deleted":true}', tool_call_id: "call_r0_0", data: { success: true, arguments: { tag_id: "tag_1" } }, created_at: at(3) },
    { seq: 3, role: "assistant", content: "Deleted.", data: { round_index: 1 }, created_at: at(4) },
    { seq: 4, role: "user", content: "which tags are there?", created_at: at(10) },
    { seq: 5, role: "assistant", content: "", tool_calls: [{ id: "call_r0_0", name: "list_tags", arguments: {} }], data: { round_index: 0 }, created_at: at(11) },
    { seq: 6, role: "tool", content: "[]", tool_call_id: "call_r0_0", data: { success: true, arguments: {} }, created_at: at(11) },
    { seq: 7, role: "assistant", content: "None.", data: { round_index: 1 }, created_at: at(12) },
    { seq: 8, role: "user", content: "make a tag paid", created_at: at(20) },
    { seq: 9, role: "assistant", content: "", tool_calls: [{ id: "call_r0_0", name: "create_tag", arguments: { name: "paid" } }], data: { round_index: 0 }, created_at: at(22) },
    { seq: 10, role: "tool", content: '{"id":"tag_2"}', tool_call_id: "call_r0_0", data: { success: true, arguments: { name: "paid" } }, created_at: at(22) },
    { seq: 11, role: "assistant", content: "Made it.", data: { round_index: 1 }, created_at: at(23) },
  ] as ThreadMessage[];
  const entry = (id: number, turn: string, s: number, over: Partial<JournalEntry> = {}): JournalEntry => ({
    id,
    at: at(s),
    edge: "agent",
    actor: "thr_1",
    turn_id: turn,
    call_id: "call_r0_0",
    op: "change",
    object_kind: "tag",
    object_id: "tag_x",
    summary: "changed a tag",
    size: 10,
    ...over,
  });
  const history = [entry(2, "hturn_3", 21, { undone_by: 3 }), entry(1, "hturn_1", 2)];

  const loaded = (h?: JournalEntry[]): ConversationState => ({
    ...initialConversation(),
    threadId: "thr_1",
    messages: messagesFromThread(stored, "thr_1-", { history: h }),
  });
  const answers = (html: string) => html.split('data-testid="assistant-message"').slice(1);

  it("gives a turn whose changes stand its Undo back, and the approved card its own", () => {
    const [deleted, read, undone] = answers(render(loaded(history)));
    expect(deleted).toContain('data-testid="turn-undo-button"');
    expect(deleted).toContain("Done: Delete tag “archive”.");
    expect(deleted).toContain('data-testid="call-undo-button"');
    expect(deleted).toContain("#/history?actor=hturn_1");
    // The read reused the delete's call id; it changed nothing.
    expect(read).not.toContain("turn-undo");
    // Undone since (in the History page, say): nothing left to undo.
    expect(undone).not.toContain("turn-undo");
    expect(undone).not.toContain("call-undo-button");
  });

  it("offers no card Undo for a call that ran without approval, and none at all without the history", () => {
    const open = [entry(2, "hturn_3", 22)];
    const [, , made] = answers(render(loaded(open)));
    expect(made).toContain("This turn changed your data.");
    expect(made).not.toContain("call-undo-button");
    expect(render(loaded(undefined))).not.toContain("turn-undo");
  });
});

describe("the toast after a destructive approval", () => {
  const result = (over: Partial<TurnResult>): TurnResult => ({
    text: "",
    thinking: "",
    thread_id: "thr_1",
    working_state: {},
    executed_rounds: [],
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    ...over,
  });
  // A call of tool name whose summary declares ops (as the registry does).
  const live = (name: string, ops: ("create" | "delete")[]): ConversationState => {
    const call = { id: "x1", name, arguments: {}, summary: { title: "Delete tag “archive”", ops } as ToolCall["summary"] };
    const steps: Action[] = [
      { type: "send", text: "delete the archive tag" },
      { type: "event", now: 1, event: { type: "tool_calls", round_index: 0, tool_calls: [call], needs_approval: ["x1"] } },
      { type: "event", now: 2, event: { type: "done", result: result({ turn_id: "paused_1", tool_calls: [call] }) } },
      { type: "approve", approvals: [{ call_id: "x1", approved: true }] },
      { type: "event", now: 3, event: { type: "tool_result", round_index: 0, call_id: "x1", name, success: true } },
      { type: "event", now: 4, event: { type: "done", result: result({ text: "Deleted.", history_turn_id: "turn_01J" }) } },
    ];
    return steps.reduce(reducer, initialConversation());
  };

  it("announces a delete just approved, with Undo, until the next message", () => {
    const s = live("delete_tag", ["delete"]);
    const html = render(s);
    const toast = html.slice(html.indexOf('class="undo-toast"'));
    expect(html).toContain('data-testid="undo-toast"');
    expect(toast).toContain('role="alert"');
    expect(toast).toContain("Done: Delete tag “archive”.");
    expect(toast).toContain('data-testid="undo-toast-button"');
    // The bar under the answer stays, without announcing it a second time.
    expect(html).toMatch(/role="status" data-testid="turn-undo"/);
    expect(render(reducer(s, { type: "send", text: "thanks" }))).not.toContain("undo-toast");
  });

  it("raises none for a change that deletes nothing, nor in a reopened thread", () => {
    expect(render(live("create_tag", ["create"]))).not.toContain("undo-toast");
    // What the summary declares decides, not the tool's name.
    expect(render(live("delete_tag", []))).not.toContain("undo-toast");
    expect(render(live("retire_tag", ["delete"]))).toContain("undo-toast");
    const history: JournalEntry[] = [
      { id: 1, at: "2026-11-26T10:00:02.000Z", edge: "agent", actor: "thr_1", turn_id: "turn_01J", call_id: "x1", op: "delete tag", object_kind: "tag", object_id: "tag_1", summary: "deleted tag", size: 1 },
    ];
    const stored = [
      { seq: 0, role: "user", content: "delete it", created_at: "2026-11-26T10:00:00.000Z" },
      { seq: 1, role: "assistant", content: "", tool_calls: [{ id: "x1", name: "delete_tag", arguments: {} }], data: { round_index: 0, turn_id: "p", needs_approval: ["x1"] }, created_at: "2026-11-26T10:00:01.000Z" },
      { seq: 2, role: "tool", content: "{}", tool_call_id: "x1", data: { success: true, arguments: {} }, created_at: "2026-11-26T10:00:03.000Z" },
    ] as ThreadMessage[];
    const html = render({ ...initialConversation(), messages: messagesFromThread(stored, "h", { history }) });
    expect(html).toContain('data-testid="turn-undo-button"');
    expect(html).not.toContain("undo-toast");
  });
});
