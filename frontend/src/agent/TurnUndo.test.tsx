import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Messages } from "./Messages";
import type { AssistantMessageView, ConversationState, ToolCallView } from "./reducer";

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
    summary: { title: "Delete document “old.txt”" } as ToolCallView["summary"],
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
