// Rebuilds the Agent tab's messages from a stored thread (GET .../threads/{id}),
// so a reopened conversation looks like it did while it streamed.

import type { JournalEntry, MessageData, ThreadMessage, ToolCall, Usage } from "../api/types";
import { citationsOfData } from "../ask/citations";
import { emptyRound, type AssistantMessageView, type MessageView, type PendingApproval, type RoundView } from "./reducer";

function parseJSON(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function usageOf(v: unknown): Usage | null {
  if (!v || typeof v !== "object") return null;
  const o = v as Record<string, unknown>;
  return { prompt_tokens: num(o.prompt_tokens) ?? 0, completion_tokens: num(o.completion_tokens) ?? 0 };
}

/** What the thread itself says about its turns (GET .../threads/{id} beside its messages). */
export interface ThreadMeta {
  /** The model the thread runs with (thread.model): each turn's label when its messages do not name one. */
  model?: string;
  /**
   * The history's entries of the thread (GET /api/history?edge=agent&actor=THREAD):
   * a turn whose calls changed something not undone since gets its Undo
   * back, as it had live (see undoFromHistory).
   */
  history?: JournalEntry[];
}

/**
 * The entries of the history that a stored call made. Call ids are unique
 * within a turn only (call_r0_0 comes again in the next turn), so an entry
 * belongs to the call when it names the call and was written while the call
 * ran: after the message before the call's proposal (a proposal that waited
 * for approval is stored before its calls run, one that did not after) and
 * no later than the call's result.
 */
function entriesOfCall(history: JournalEntry[], callId: string, from: number, to: number): JournalEntry[] {
  return history.filter((e) => {
    if (e.edge !== "agent" || e.call_id !== callId || !e.turn_id || e.undoes) return false;
    const at = Date.parse(e.at);
    return at >= from && at <= to;
  });
}

/** Whether an entry can still be undone: not undone yet and its saved state kept. */
const undoable = (e: JournalEntry) => !e.undone_by && !e.pruned;

/**
 * Per-round facts a live turn shows that MessageData does not declare yet.
 * They are read when a server stores them on the assistant message's data
 * (beside round_index and usage) and ignored otherwise:
 *   model              the model of the round (else the thread's model)
 *   thinking_ms        how long the round thought ("Thought for 2.4 s")
 *   first_token_ms     the wait for the first token (also read from usage)
 *   tokens_per_second  the speed of the round (also read from usage)
 */
function roundFacts(data: MessageData): { model?: string; thinkingMs?: number; firstTokenMs?: number; tokensPerSecond?: number } {
  const d = data as Record<string, unknown>;
  const u = (data.usage ?? {}) as Record<string, unknown>;
  const out: { model?: string; thinkingMs?: number; firstTokenMs?: number; tokensPerSecond?: number } = {};
  if (typeof d.model === "string" && d.model) out.model = d.model;
  const t = num(d.thinking_ms);
  if (t !== null) out.thinkingMs = t;
  const f = num(d.first_token_ms) ?? num(u.first_token_ms);
  if (f !== null) out.firstTokenMs = f;
  const s = num(d.tokens_per_second) ?? num(u.tokens_per_second);
  if (s !== null) out.tokensPerSecond = s;
  return out;
}

export function messagesFromThread(stored: ThreadMessage[], idPrefix = "h", meta: ThreadMeta = {}): MessageView[] {
  const out: MessageView[] = [];
  let current: AssistantMessageView | null = null;
  // The calls of the turn that waited for a person's approval (a live turn
  // marks only those approved).
  const asked = new Set<string>();
  // When each call's round began: the time of the message before its proposal.
  const roundFrom = new Map<string, number>();
  let lastAt = -Infinity;

  const assistant = (): AssistantMessageView => {
    if (!current) {
      current = {
        kind: "assistant",
        id: `${idPrefix}${out.length}`,
        rounds: [],
        status: "done",
        model: meta.model || null,
        error: null,
        usage: { prompt_tokens: 0, completion_tokens: 0 },
        speed: {},
        text: "",
      };
      out.push(current);
    }
    return current;
  };

  for (const msg of stored) {
    // Typed, but stored by older versions too: each field is checked before use.
    const data: MessageData = msg.data ?? {};
    const before = lastAt;
    const at = Date.parse(msg.created_at);
    if (Number.isFinite(at)) lastAt = at;
    if (msg.role === "user") {
      current = null;
      asked.clear(); // call ids are unique within a turn only
      out.push({ kind: "user", id: `${idPrefix}${out.length}`, text: msg.content, mentions: [], seq: msg.seq });
      continue;
    }
    if (msg.role === "assistant") {
      const a = assistant();
      const last = a.rounds[a.rounds.length - 1];
      const index = num(data.round_index) ?? (last ? last.index + 1 : 0);
      const usage = usageOf(data.usage);
      const calls = (Array.isArray(msg.tool_calls) ? msg.tool_calls : []) as ToolCall[];
      const facts = roundFacts(data);
      for (const c of calls) roundFrom.set(c.id, before);
      if (Array.isArray(data.needs_approval)) for (const id of data.needs_approval) if (typeof id === "string") asked.add(id);
      const round: RoundView = {
        ...emptyRound(index),
        thinking: msg.thinking ?? "",
        thinkingPhase: msg.thinking ? "done" : "none",
        ...(msg.thinking && facts.thinkingMs !== undefined ? { thinkingMs: facts.thinkingMs } : {}),
        text: msg.content ?? "",
        textDone: true,
        toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments, ...(c.summary ? { summary: c.summary } : {}), needsApproval: false })),
        usage,
      };
      if (facts.model) a.model = facts.model;
      // As live: a round whose answer the server cut flags the turn.
      const cut = data.output_truncated;
      if (cut && typeof cut.warning === "string") a.outputTruncated = cut.warning;
      // As live: the first round's wait for its first token, the last round's speed.
      if (facts.firstTokenMs !== undefined && a.speed.first_token_ms === undefined) a.speed = { ...a.speed, first_token_ms: facts.firstTokenMs };
      if (facts.tokensPerSecond !== undefined) a.speed = { ...a.speed, tokens_per_second: facts.tokensPerSecond };
      a.rounds = [...a.rounds.filter((r) => r.index !== index), round].sort((x, y) => x.index - y.index);
      if (usage) {
        a.usage = {
          prompt_tokens: a.usage.prompt_tokens + usage.prompt_tokens,
          completion_tokens: a.usage.completion_tokens + usage.completion_tokens,
        };
      }
      a.text = msg.content ?? "";
      // The turn's answer carries what its calls cost, as the live turn's
      // result did (older answers nothing).
      const tu = data.turn_usage;
      if (tu && typeof tu === "object") a.cost = { cost_usd: num(tu.cost_usd) ?? undefined, unpriced_calls: num(tu.unpriced_calls) ?? undefined };
      // The turn's answer carries what it cites (older messages nothing).
      const cited = citationsOfData(data);
      if (cited.citations) a.citations = cited.citations;
      if (cited.unknown) a.unknownCitations = cited.unknown;
      continue;
    }
    if (msg.role === "tool") {
      const a = assistant();
      const body = parseJSON(msg.content);
      const errText =
        body && typeof body === "object" && typeof (body as Record<string, unknown>).error === "string"
          ? ((body as Record<string, unknown>).error as string)
          : undefined;
      const success = typeof data.success === "boolean" ? data.success : errText === undefined;
      for (const r of a.rounds) {
        const c = r.toolCalls.find((x) => x.id === msg.tool_call_id);
        if (!c) continue;
        c.result = success ? { success, result: body } : { success, error: errText ?? String(msg.content) };
        if (!c.summary && data.summary) c.summary = data.summary;
        if (data.rejected === true) c.decision = { approved: false };
        else if (data.arguments !== undefined) {
          // As live: a call that ran without waiting for a person has no decision.
          if (asked.has(c.id)) c.decision = data.edited ? { approved: true, arguments: data.arguments } : { approved: true };
          if (c.arguments === undefined) c.arguments = data.arguments;
        }
        r.executed = true;
        if (meta.history && msg.tool_call_id) {
          const open = entriesOfCall(meta.history, msg.tool_call_id, roundFrom.get(msg.tool_call_id) ?? -Infinity, at).filter(undoable);
          if (open.length > 0) {
            a.historyTurnId ??= open[0].turn_id;
            a.undoableCalls = [...(a.undoableCalls ?? []), c.id];
          }
        }
      }
    }
  }
  // A turn whose calls never got results either still waits for approval
  // (the thread's last message, carrying its turn_id: see pendingFromThread)
  // or was abandoned.
  const waiting = pendingFromThread(stored, out);
  for (const m of out) {
    if (m.kind !== "assistant") continue;
    if (waiting && m.id === waiting.messageId) {
      m.status = "paused";
      for (const r of m.rounds) for (const c of r.toolCalls) c.needsApproval = waiting.needsApproval.includes(c.id);
      continue;
    }
    const unanswered = m.rounds.some((r) => r.toolCalls.some((c) => !c.result));
    if (unanswered) m.status = "interrupted";
  }
  return out;
}

/**
 * The approval a reopened thread still waits for: its last message proposes
 * calls, has no results yet, and names the paused turn (data.turn_id). The
 * server may have expired the turn since; approving then reports that.
 */
export function pendingFromThread(stored: ThreadMessage[], messages: MessageView[]): PendingApproval | null {
  const last = stored[stored.length - 1];
  const view = messages[messages.length - 1];
  if (!last || last.role !== "assistant" || !view || view.kind !== "assistant") return null;
  const data: MessageData = last.data ?? {};
  const calls = (Array.isArray(last.tool_calls) ? last.tool_calls : []) as ToolCall[];
  if (typeof data.turn_id !== "string" || calls.length === 0) return null;
  const needs = Array.isArray(data.needs_approval) ? data.needs_approval.filter((x): x is string => typeof x === "string") : [];
  return { turnId: data.turn_id, messageId: view.id, calls, needsApproval: needs, drafts: {} };
}

/** The seq of every user message, in order (for sync_seqs). */
export function userSeqs(stored: ThreadMessage[]): number[] {
  return stored.filter((m) => m.role === "user").map((m) => m.seq);
}
