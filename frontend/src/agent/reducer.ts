// The one reducer that turns agent-protocol events into what the Agent tab
// shows. It is pure: time comes in with the actions (`now`), ids come from a
// counter in the state, so it runs and is tested in plain node.

import type {
  AgentEvent,
  Approval,
  Citation,
  Mention,
  Summary,
  ToolCall,
  TurnResult,
  TurnUsage,
  Usage,
  WorkingState,
} from "../api/types";

/** How fast a model answered (a usage event's speed fields). */
export interface Speed {
  first_token_ms?: number;
  tokens_per_second?: number;
}

export interface ToolResultView {
  success: boolean;
  result?: unknown;
  preview?: string;
  error?: string;
}

/** What the user decided for a call (sent, or being drafted). */
export interface Decision {
  approved: boolean;
  /** Edited arguments; absent when the proposed ones run. */
  arguments?: unknown;
}

export interface ToolCallView {
  id: string;
  name: string;
  arguments: unknown;
  /** What the call will do, as the server summarised it when it was proposed. */
  summary?: Summary;
  needsApproval: boolean;
  /** The decision that was sent with approve, once sent. */
  decision?: Decision;
  result?: ToolResultView;
}

export type ThinkingPhase = "none" | "streaming" | "done";

export interface RoundView {
  index: number;
  thinking: string;
  thinkingPhase: ThinkingPhase;
  /** When the first thinking chunk arrived (ms), for the elapsed timer. */
  thinkingStartedAt: number | null;
  thinkingEndedAt: number | null;
  /** How long the round thought, when known without the live timestamps (a reopened thread whose messages store it). */
  thinkingMs?: number;
  text: string;
  textDone: boolean;
  toolCalls: ToolCallView[];
  executed: boolean;
  usage: Usage | null;
}

/**
 * streaming: events are arriving; paused: waiting for an approval decision;
 * done; error: an error event (or a refused request); interrupted: the stream
 * ended without done or error; stopped: the user pressed stop.
 */
export type TurnStatus = "streaming" | "paused" | "done" | "error" | "interrupted" | "stopped";

export interface UserMessageView {
  kind: "user";
  id: string;
  text: string;
  mentions: Mention[];
  /** Index of this message in the thread's stored messages, once known. */
  seq: number | null;
}

export interface AssistantMessageView {
  kind: "assistant";
  id: string;
  rounds: RoundView[];
  status: TurnStatus;
  model: string | null;
  /** A refused request keeps its HTTP status (a 429 rate_limited is Docent's own limit, not the model server's). */
  error: { message: string; code?: string; status?: number } | null;
  /** Token totals of the turn (all its rounds, approvals included). */
  usage: Usage;
  /** What the turn's model calls cost, as its result says (the server sums
   * them across approvals); absent until done, or from a server that does
   * not price calls. */
  cost?: Pick<TurnUsage, "cost_usd" | "unpriced_calls">;
  /** How fast the model answered: the first round's wait for its first
   * token, and the last streamed round's tokens per second. */
  speed: Speed;
  /** The model server cut the prompt to fit its context (a usage event's
   * prompt_truncated): what it says to do. */
  truncated?: string;
  /** The model server cut the answer at its output limit (a usage event's
   * output_truncated, or a stored message's): what it says to do. */
  outputTruncated?: string;
  /** The final answer, from done's result.text. */
  text: string;
  /** What the answer cites as [n] (done's result.citations, or the stored message's data). */
  citations?: Citation[];
  /** Numbers the answer cites that the thread never produced (result.unknown_citations). */
  unknownCitations?: number[];
  /** The turn's id in the history when its calls changed something
   * (done's result.history_turn_id): its changes can be undone as one. */
  historyTurnId?: string;
  /** In a reopened thread: the calls whose changes can still be undone
   * (the history says which); live, every approved call that succeeded. */
  undoableCalls?: string[];
  /** Set when the turn has just finished here (not in a reopened thread)
   * until the next message: a delete it made is announced by a toast. */
  announce?: boolean;
}

export type MessageView = UserMessageView | AssistantMessageView;

export interface PendingApproval {
  turnId: string;
  messageId: string;
  /** Every call of the paused batch (result.tool_calls). */
  calls: ToolCall[];
  /** Ids of the calls that need the user's decision. */
  needsApproval: string[];
  /** Decisions made so far, by call id. */
  drafts: Record<string, Decision>;
}

export type ConversationStatus = "idle" | "streaming" | "paused" | "error" | "interrupted";

export interface ConversationState {
  threadId: string | null;
  messages: MessageView[];
  status: ConversationStatus;
  pending: PendingApproval | null;
  workingState: WorkingState | null;
  /** Bumped whenever the document's extraction may have changed. */
  extractionRevision: number;
  nextId: number;
}

export type Action =
  | { type: "reset" }
  | { type: "loaded"; threadId: string | null; messages: MessageView[]; workingState: WorkingState | null; pending?: PendingApproval | null }
  | { type: "send"; text: string; mentions?: Mention[]; replaceFromMessageId?: string }
  | { type: "draft"; callId: string; decision: Decision | null }
  | { type: "approve"; approvals: Approval[] }
  | { type: "event"; event: AgentEvent; now: number }
  | { type: "stream_end"; now: number }
  | { type: "request_failed"; message: string; code?: string; status?: number }
  | { type: "stopped"; now: number }
  | { type: "sync_seqs"; userSeqs: number[] };

export function initialConversation(): ConversationState {
  return {
    threadId: null,
    messages: [],
    status: "idle",
    pending: null,
    workingState: null,
    extractionRevision: 0,
    nextId: 1,
  };
}

export function emptyRound(index: number): RoundView {
  return {
    index,
    thinking: "",
    thinkingPhase: "none",
    thinkingStartedAt: null,
    thinkingEndedAt: null,
    text: "",
    textDone: false,
    toolCalls: [],
    executed: false,
    usage: null,
  };
}

/** Whether a new message can be sent now (not while streaming or waiting for a decision). */
export function canSend(s: ConversationState): boolean {
  return s.status !== "streaming" && s.status !== "paused";
}

function lastAssistantIndex(s: ConversationState): number {
  for (let i = s.messages.length - 1; i >= 0; i--) if (s.messages[i].kind === "assistant") return i;
  return -1;
}

/** The assistant message that events apply to: the last one. */
export function currentAssistant(s: ConversationState): AssistantMessageView | null {
  const i = lastAssistantIndex(s);
  return i < 0 ? null : (s.messages[i] as AssistantMessageView);
}

function updateAssistant(
  s: ConversationState,
  fn: (m: AssistantMessageView) => AssistantMessageView,
): ConversationState {
  const i = lastAssistantIndex(s);
  if (i < 0) return s;
  const messages = s.messages.slice();
  messages[i] = fn(messages[i] as AssistantMessageView);
  return { ...s, messages };
}

function withRound(m: AssistantMessageView, index: number, fn: (r: RoundView) => RoundView): AssistantMessageView {
  const rounds = m.rounds.slice();
  let i = rounds.findIndex((r) => r.index === index);
  if (i < 0) {
    rounds.push(emptyRound(index));
    rounds.sort((a, b) => a.index - b.index);
    i = rounds.findIndex((r) => r.index === index);
  }
  rounds[i] = fn(rounds[i]);
  return { ...m, rounds };
}

function withCall(
  m: AssistantMessageView,
  roundIndex: number,
  callId: string,
  fn: (c: ToolCallView) => ToolCallView,
  fallback?: () => ToolCallView,
): AssistantMessageView {
  // The round the event names, else any round holding the call.
  let ri = m.rounds.findIndex((r) => r.index === roundIndex && r.toolCalls.some((c) => c.id === callId));
  if (ri < 0) ri = m.rounds.findIndex((r) => r.toolCalls.some((c) => c.id === callId));
  if (ri < 0) {
    if (!fallback) return m;
    return withRound(m, roundIndex, (r) => ({ ...r, toolCalls: [...r.toolCalls, fn(fallback())] }));
  }
  const rounds = m.rounds.slice();
  const r = rounds[ri];
  rounds[ri] = { ...r, toolCalls: r.toolCalls.map((c) => (c.id === callId ? fn(c) : c)) };
  return { ...m, rounds };
}

function finishThinking(r: RoundView, now: number): RoundView {
  if (r.thinkingPhase !== "streaming") return r;
  return { ...r, thinkingPhase: "done", thinkingEndedAt: now };
}

function isTerminal(m: AssistantMessageView | null): boolean {
  return !m || m.status !== "streaming";
}

function applyEvent(s: ConversationState, e: AgentEvent, now: number): ConversationState {
  const cur = currentAssistant(s);
  // Events only belong to a streaming turn; anything after done/error is ignored.
  if (isTerminal(cur)) return s;

  switch (e.type) {
    case "turn_started":
      return updateAssistant({ ...s, threadId: e.thread_id || s.threadId }, (m) => ({
        ...m,
        model: e.model || m.model,
      }));

    case "thinking_chunk":
      return updateAssistant(s, (m) =>
        withRound(m, e.round_index, (r) => ({
          ...r,
          thinking: r.thinkingPhase === "done" ? r.thinking : r.thinking + e.chunk,
          thinkingPhase: r.thinkingPhase === "done" ? "done" : "streaming",
          thinkingStartedAt: r.thinkingStartedAt ?? now,
        })),
      );

    case "thinking_done":
      return updateAssistant(s, (m) =>
        withRound(m, e.round_index, (r) => ({
          ...r,
          thinking: e.thinking ?? r.thinking,
          thinkingPhase: (e.thinking ?? r.thinking) ? "done" : "none",
          thinkingStartedAt: r.thinkingStartedAt,
          thinkingEndedAt: r.thinkingStartedAt !== null ? now : null,
        })),
      );

    case "assistant_text_chunk":
      return updateAssistant(s, (m) =>
        withRound(m, e.round_index, (r) =>
          r.textDone ? r : { ...finishThinking(r, now), text: r.text + e.chunk },
        ),
      );

    case "assistant_text_done":
      // The done text wins over whatever the chunks added up to.
      return updateAssistant(s, (m) =>
        withRound(m, e.round_index, (r) => ({ ...finishThinking(r, now), text: e.full_text ?? r.text, textDone: true })),
      );

    case "tool_calls": {
      const needs = new Set(e.needs_approval ?? []);
      return updateAssistant(s, (m) =>
        withRound(m, e.round_index, (r) => {
          const known = new Map(r.toolCalls.map((c) => [c.id, c]));
          const calls = (e.tool_calls ?? []).map((c) => ({
            ...known.get(c.id),
            id: c.id,
            name: c.name,
            arguments: c.arguments,
            ...(c.summary ? { summary: c.summary } : {}),
            needsApproval: needs.has(c.id),
          }));
          return { ...finishThinking(r, now), toolCalls: calls };
        }),
      );
    }

    case "tool_result": {
      const result: ToolResultView = { success: !!e.success };
      if (e.result !== undefined) result.result = e.result;
      if (e.preview !== undefined && e.preview !== "") result.preview = e.preview;
      if (e.error !== undefined && e.error !== "") result.error = e.error;
      const next = updateAssistant(s, (m) =>
        withCall(
          m,
          e.round_index,
          e.call_id,
          (c) => ({ ...c, result }),
          () => ({ id: e.call_id, name: e.name, arguments: {}, needsApproval: false }),
        ),
      );
      if (e.changed_extraction) {
        return { ...next, extractionRevision: next.extractionRevision + 1 };
      }
      return next;
    }

    case "round_executed":
      return updateAssistant(s, (m) => {
        let out = withRound(m, e.round_index, (r) => ({
          ...finishThinking(r, now),
          thinking: r.thinking || e.thinking || "",
          thinkingPhase: r.thinking || e.thinking ? "done" : "none",
          executed: true,
        }));
        // Fill in what a coalescing or reconnecting stream may have left out.
        for (const c of e.tool_calls ?? []) {
          out = withCall(
            out,
            e.round_index,
            c.id,
            (v) =>
              v.result
                ? v
                : {
                    ...v,
                    result: { success: c.success, ...(c.preview ? { preview: c.preview } : {}), ...(c.error ? { error: c.error } : {}) },
                  },
            () => ({ id: c.id, name: c.name, arguments: c.arguments, needsApproval: false }),
          );
        }
        return out;
      });

    case "usage":
      return updateAssistant(s, (m) => {
        const u = { prompt_tokens: e.prompt_tokens ?? 0, completion_tokens: e.completion_tokens ?? 0 };
        const out = withRound(m, e.round_index, (r) => ({ ...r, usage: u }));
        return {
          ...out,
          usage: {
            prompt_tokens: m.usage.prompt_tokens + u.prompt_tokens,
            completion_tokens: m.usage.completion_tokens + u.completion_tokens,
          },
          speed: {
            first_token_ms: m.speed.first_token_ms ?? e.first_token_ms,
            tokens_per_second: e.tokens_per_second ?? m.speed.tokens_per_second,
          },
          ...(e.prompt_truncated ? { truncated: e.prompt_truncated.warning } : {}),
          ...(e.output_truncated ? { outputTruncated: e.output_truncated.warning } : {}),
        };
      });

    case "done":
      return applyDone(s, e.result ?? ({} as TurnResult), now);

    case "error":
      return {
        ...updateAssistant(s, (m) => ({
          ...m,
          status: "error",
          error: { message: e.error || "The turn failed.", ...(e.code ? { code: e.code } : {}) },
          rounds: m.rounds.map((r) => finishThinking(r, now)),
        })),
        status: "error",
        pending: null,
      };

    default:
      // A server newer than this UI may send types it does not know; they
      // change nothing. Every type it knows has a case above: adding one to
      // the generated AgentEvent without a case here fails to compile.
      return unknownEvent(e, s);
  }
}

function unknownEvent(_e: never, s: ConversationState): ConversationState {
  return s;
}

function applyDone(s: ConversationState, result: TurnResult, now: number): ConversationState {
  const cur = currentAssistant(s)!;
  const sawUsage = cur.rounds.some((r) => r.usage !== null);
  let m: AssistantMessageView = {
    ...cur,
    rounds: cur.rounds.map((r) => finishThinking(r, now)),
    text: result.text ?? "",
  };
  // Rounds that a non-streaming answer (or a lost chunk) never showed.
  for (const er of result.executed_rounds ?? []) {
    m = withRound(m, er.round_index, (r) => ({ ...r, executed: true, thinking: r.thinking || er.thinking || "", thinkingPhase: r.thinking || er.thinking ? "done" : "none" }));
    for (const c of er.tool_calls ?? []) {
      m = withCall(
        m,
        er.round_index,
        c.id,
        (v) => (v.result ? v : { ...v, result: { success: c.success, ...(c.preview ? { preview: c.preview } : {}), ...(c.error ? { error: c.error } : {}) } }),
        () => ({ id: c.id, name: c.name, arguments: c.arguments, needsApproval: false }),
      );
    }
  }
  const paused = !!result.turn_id;
  if (paused) {
    const ids = new Set((result.tool_calls ?? []).map((c) => c.id));
    const present = m.rounds.some((r) => r.toolCalls.some((c) => ids.has(c.id)));
    if (!present && ids.size > 0) {
      const idx = m.rounds.length ? m.rounds[m.rounds.length - 1].index + (m.rounds[m.rounds.length - 1].executed ? 1 : 0) : 0;
      m = withRound(m, idx, (r) => ({
        ...r,
        toolCalls: (result.tool_calls ?? []).map((c) => ({ ...c, needsApproval: true })),
      }));
    }
  } else if (m.rounds.length === 0 && result.text) {
    m = withRound(m, 0, (r) => ({ ...r, text: result.text, textDone: true, thinking: result.thinking ?? "", thinkingPhase: result.thinking ? "done" : "none" }));
  }
  if (!sawUsage && result.usage) m = { ...m, usage: { prompt_tokens: result.usage.prompt_tokens, completion_tokens: result.usage.completion_tokens } };
  if (result.usage) m = { ...m, cost: { cost_usd: result.usage.cost_usd, unpriced_calls: result.usage.unpriced_calls } };
  if (result.citations?.length) m = { ...m, citations: result.citations };
  if (result.unknown_citations?.length) m = { ...m, unknownCitations: result.unknown_citations };
  m = { ...m, status: paused ? "paused" : "done" };
  if (result.history_turn_id) m = { ...m, historyTurnId: result.history_turn_id, announce: true };

  let pending: PendingApproval | null = null;
  if (paused) {
    const flagged = new Set<string>();
    for (const r of m.rounds) for (const c of r.toolCalls) if (c.needsApproval) flagged.add(c.id);
    const calls = result.tool_calls ?? [];
    pending = {
      turnId: result.turn_id!,
      messageId: m.id,
      calls,
      needsApproval: calls.filter((c) => flagged.has(c.id)).map((c) => c.id),
      drafts: {},
    };
  }

  const i = lastAssistantIndex(s);
  const messages = s.messages.slice();
  messages[i] = m;
  const ws = result.working_state ?? null;
  return {
    ...s,
    messages,
    threadId: result.thread_id || s.threadId,
    status: paused ? "paused" : "idle",
    pending,
    workingState: ws ?? s.workingState,
    extractionRevision: ws?.extraction ? s.extractionRevision + 1 : s.extractionRevision,
  };
}

function newAssistant(id: string): AssistantMessageView {
  return {
    kind: "assistant",
    id,
    rounds: [],
    status: "streaming",
    model: null,
    error: null,
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    speed: {},
    text: "",
  };
}

export function reducer(s: ConversationState, a: Action): ConversationState {
  switch (a.type) {
    case "reset":
      return { ...initialConversation(), nextId: s.nextId };

    case "loaded":
      return {
        ...initialConversation(),
        nextId: s.nextId,
        threadId: a.threadId,
        messages: a.messages,
        workingState: a.workingState,
        status: a.pending ? "paused" : "idle",
        pending: a.pending ?? null,
        extractionRevision: s.extractionRevision + 1,
      };

    case "send": {
      if (!canSend(s)) return s;
      // The toast of the previous turn has had its time.
      let messages = s.messages.map((m) => (m.kind === "assistant" && m.announce ? { ...m, announce: false } : m));
      if (a.replaceFromMessageId) {
        const i = messages.findIndex((m) => m.id === a.replaceFromMessageId);
        if (i >= 0) messages = messages.slice(0, i);
      }
      const user: UserMessageView = {
        kind: "user",
        id: `m${s.nextId}`,
        text: a.text,
        mentions: a.mentions ?? [],
        seq: null,
      };
      return {
        ...s,
        nextId: s.nextId + 2,
        messages: [...messages, user, newAssistant(`m${s.nextId + 1}`)],
        status: "streaming",
        pending: null,
      };
    }

    case "draft": {
      if (!s.pending) return s;
      const drafts = { ...s.pending.drafts };
      if (a.decision) drafts[a.callId] = a.decision;
      else delete drafts[a.callId];
      return { ...s, pending: { ...s.pending, drafts } };
    }

    case "approve": {
      if (s.status !== "paused" || !s.pending) return s;
      const byId = new Map(a.approvals.map((x) => [x.call_id, x]));
      const next = updateAssistant(s, (m) => ({
        ...m,
        status: "streaming",
        rounds: m.rounds.map((r) => ({
          ...r,
          toolCalls: r.toolCalls.map((c) => {
            if (!s.pending!.calls.some((p) => p.id === c.id)) return c;
            const d = byId.get(c.id);
            const decision: Decision = d
              ? { approved: d.approved, ...(d.arguments !== undefined ? { arguments: d.arguments } : {}) }
              : { approved: false };
            return { ...c, decision };
          }),
        })),
      }));
      return { ...next, status: "streaming", pending: null };
    }

    case "event":
      return applyEvent(s, a.event, a.now);

    case "stream_end": {
      const cur = currentAssistant(s);
      if (!cur || cur.status !== "streaming") return s;
      return {
        ...updateAssistant(s, (m) => ({
          ...m,
          status: "interrupted",
          rounds: m.rounds.map((r) => finishThinking(r, a.now)),
        })),
        status: "interrupted",
      };
    }

    case "stopped": {
      const cur = currentAssistant(s);
      if (!cur || cur.status !== "streaming") return s;
      return {
        ...updateAssistant(s, (m) => ({
          ...m,
          status: "stopped",
          rounds: m.rounds.map((r) => finishThinking(r, a.now)),
        })),
        status: "interrupted",
      };
    }

    case "request_failed": {
      const cur = currentAssistant(s);
      if (!cur || cur.status !== "streaming") return s;
      return {
        ...updateAssistant(s, (m) => ({
          ...m,
          status: "error",
          error: { message: a.message, ...(a.code ? { code: a.code } : {}), ...(a.status !== undefined ? { status: a.status } : {}) },
        })),
        status: "error",
        pending: null,
      };
    }

    case "sync_seqs": {
      let k = 0;
      const messages = s.messages.map((m) => {
        if (m.kind !== "user") return m;
        const seq = k < a.userSeqs.length ? a.userSeqs[k] : null;
        k++;
        return seq === m.seq ? m : { ...m, seq };
      });
      return { ...s, messages };
    }
  }
}

/** True when every call that needs a decision has one. */
export function allDecided(p: PendingApproval): boolean {
  return p.needsApproval.every((id) => id in p.drafts);
}

/**
 * The approvals to send for a paused batch: the user's decisions for the calls
 * that needed one; calls that did not (read-only, auto-approved) are approved,
 * since a call missing from approvals counts as rejected.
 */
export function approvalsFor(p: PendingApproval, drafts: Record<string, Decision> = p.drafts): Approval[] {
  const needs = new Set(p.needsApproval);
  return p.calls.map((c) => {
    if (!needs.has(c.id)) return { call_id: c.id, approved: true };
    const d = drafts[c.id];
    if (!d || !d.approved) return { call_id: c.id, approved: false };
    return d.arguments !== undefined
      ? { call_id: c.id, approved: true, arguments: d.arguments }
      : { call_id: c.id, approved: true };
  });
}

/** The user message a retry resends: the one before the last assistant message. */
export function lastUserMessage(s: ConversationState): UserMessageView | null {
  for (let i = s.messages.length - 1; i >= 0; i--) {
    const m = s.messages[i];
    if (m.kind === "user") return m;
  }
  return null;
}
