// The desktop transport: in the Wails window a turn is a call of the Go
// methods bound as window.go.desktop.Turns (app/desktop/turns.go), and its
// events arrive as Wails runtime events on a channel this side names, one per
// turn (docs/protocol.md, "Events"). Each event's data is the object the SSE
// stream sends in one `data:` frame, so the same reducer shows it. The call
// resolves with the number of events emitted once the turn has ended; a
// request refused before the turn starts rejects with the HTTP API's error
// body and status, `{error, code, status}`.

import { ApiError } from "./http";
import type { ChatTransport, EventHandler, WailsRuntime } from "./turns";
import type { AgentEvent, ApproveRequest, AskRequest, ChatRequest } from "./types";

/** The methods of the bound Go struct desktop.Turns. */
export interface WailsTurns {
  Chat(documentId: string, channel: string, body: ChatRequest): Promise<number>;
  Approve(documentId: string, channel: string, body: ApproveRequest): Promise<number>;
  Ask(channel: string, body: AskRequest): Promise<number>;
  Stop(channel: string): Promise<void>;
}

declare global {
  interface Window {
    go?: { desktop?: { Turns?: Partial<WailsTurns> } };
  }
}

/** The bound Turns of this window, or null outside the desktop app. */
export function wailsTurns(): WailsTurns | null {
  const t = typeof window !== "undefined" ? window.go?.desktop?.Turns : undefined;
  return t && typeof t.Chat === "function" && typeof t.Approve === "function" && typeof t.Ask === "function" && typeof t.Stop === "function"
    ? (t as WailsTurns)
    : null;
}

let seq = 0;

/** A channel name no other turn of this page uses. */
export function newChannel(): string {
  seq += 1;
  return `docent:turn:${Date.now().toString(36)}:${seq}:${Math.random().toString(36).slice(2, 10)}`;
}

function abortError(): DOMException {
  return new DOMException("The turn was stopped.", "AbortError");
}

/** What a rejected bound call carries, as the ApiError that HTTP would give. */
export function apiErrorFrom(reason: unknown): ApiError {
  if (reason && typeof reason === "object") {
    const r = reason as { error?: unknown; code?: unknown; status?: unknown };
    if (typeof r.error === "string") {
      return new ApiError(typeof r.status === "number" ? r.status : 0, r.error, typeof r.code === "string" ? r.code : "");
    }
  }
  if (typeof reason === "string" && reason) return new ApiError(0, reason, "desktop");
  if (reason instanceof Error) return new ApiError(0, reason.message, "desktop");
  return new ApiError(0, "The desktop app did not run the turn.", "desktop");
}

function isEvent(v: unknown): v is AgentEvent {
  return !!v && typeof v === "object" && typeof (v as { type?: unknown }).type === "string";
}

/**
 * Runs one turn: listens on a fresh channel, calls start with it, and
 * settles when the call has returned and every event it counted has
 * arrived. An abort stops the turn in Go (which owes no done) and rejects
 * at once with an AbortError, as fetch does.
 */
function runTurn(
  runtime: WailsRuntime,
  turns: WailsTurns,
  start: (channel: string) => Promise<number>,
  onEvent: EventHandler,
  signal?: AbortSignal,
): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError());
  const channel = newChannel();
  return new Promise<void>((resolve, reject) => {
    let received = 0;
    let expected: number | null = null;
    let settled = false;
    const finish = (err?: unknown) => {
      if (settled) return;
      settled = true;
      off();
      signal?.removeEventListener("abort", onAbort);
      if (err === undefined) resolve();
      else reject(err);
    };
    const off = runtime.EventsOn(channel, (data: unknown) => {
      if (settled) return;
      received += 1;
      if (isEvent(data)) onEvent(data);
      if (expected !== null && received >= expected) finish();
    });
    const onAbort = () => {
      turns.Stop(channel).catch(() => {
        /* the turn ended meanwhile */
      });
      finish(abortError());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    let call: Promise<number>;
    try {
      call = start(channel);
    } catch (e) {
      finish(apiErrorFrom(e));
      return;
    }
    call.then(
      (n) => {
        // Events are sent before the answer; should one still be on its
        // way, the last to arrive settles the turn.
        expected = typeof n === "number" && n > 0 ? n : 0;
        if (received >= expected) finish();
      },
      (e: unknown) => finish(apiErrorFrom(e)),
    );
  });
}

/** The transport over the bound Turns and runtime events. */
export function wailsTransport(runtime: WailsRuntime, turns: WailsTurns): ChatTransport {
  return {
    kind: "wails",
    chat: (docId, body, onEvent, signal) =>
      runTurn(runtime, turns, (ch) => turns.Chat(docId, ch, body), onEvent, signal),
    approve: (docId, body, onEvent, signal) =>
      runTurn(runtime, turns, (ch) => turns.Approve(docId, ch, body), onEvent, signal),
    ask: (body, onEvent, signal) => runTurn(runtime, turns, (ch) => turns.Ask(ch, body), onEvent, signal),
  };
}
