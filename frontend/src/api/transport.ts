// How agent turns reach the UI. In the browser and inside the Linux desktop
// window a turn is a POST whose answer is an SSE body: the window's asset
// server runs the same HTTP handler and answers through a pipe WebKit reads as
// it fills, so events arrive as they are written (checked in the real window
// under Xvfb, see app/desktoptest). Streaming through the asset server is not
// promised on macOS or Windows; createWailsTransport is the hook for a
// transport over Go bindings and Wails runtime events there.

import { errorFromResponse, ApiError } from "./http";
import { readEventStream } from "./sse";
import type { AgentEvent, ApproveRequest, ChatRequest, TurnResult } from "./types";

export type EventHandler = (e: AgentEvent) => void;

/**
 * A way to run agent turns. Both methods resolve when the stream ends
 * (whether or not a `done`/`error` event came: the caller decides what a
 * stream without one means), reject with ApiError when the request is refused
 * before streaming, and reject with an AbortError when signal aborts.
 */
export interface ChatTransport {
  readonly kind: "sse" | "wails";
  chat(docId: string, body: ChatRequest, onEvent: EventHandler, signal?: AbortSignal): Promise<void>;
  approve(docId: string, body: ApproveRequest, onEvent: EventHandler, signal?: AbortSignal): Promise<void>;
}

async function postStream(path: string, body: object, onEvent: EventHandler, signal?: AbortSignal): Promise<void> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify({ ...body, stream: true }),
      signal,
    });
  } catch (e) {
    if (e instanceof DOMException && e.name === "AbortError") throw e;
    throw new ApiError(0, "Cannot reach the Docent server. Is `docent --serve` still running?", "network");
  }
  if (!res.ok) throw await errorFromResponse(res);
  const type = res.headers.get("Content-Type") ?? "";
  if (type.includes("application/json")) {
    // A server that answered without streaming: the body is the result.
    const result = (await res.json()) as TurnResult;
    onEvent({ type: "done", result });
    return;
  }
  if (!res.body) return;
  await readEventStream(res.body, (m) => {
    if (!m.data) return;
    let ev: AgentEvent;
    try {
      ev = JSON.parse(m.data) as AgentEvent;
    } catch {
      return; // not an event: ignore rather than break the turn
    }
    if (ev && typeof ev === "object" && typeof ev.type === "string") onEvent(ev);
  });
}

const enc = encodeURIComponent;

/** The browser transport: POST + text/event-stream parsed by hand. */
export const sseTransport: ChatTransport = {
  kind: "sse",
  chat: (docId, body, onEvent, signal) => postStream(`/api/documents/${enc(docId)}/chat`, body, onEvent, signal),
  approve: (docId, body, onEvent, signal) =>
    postStream(`/api/documents/${enc(docId)}/chat/approve`, body, onEvent, signal),
};

/** What the Wails v2 runtime puts on window.runtime (the part we would use). */
export interface WailsRuntime {
  EventsOn(name: string, cb: (...data: unknown[]) => void): () => void;
  EventsOff?(name: string, ...more: string[]): void;
}

declare global {
  interface Window {
    runtime?: Partial<WailsRuntime>;
  }
}

/**
 * HOOK for the desktop transport: runs turns through Go bindings and Wails
 * runtime events (one channel per turn, named by the caller, as
 * agent-protocol.md describes). Not implemented: it returns null and the SSE
 * transport is used, which streams in the Linux webview because its asset
 * server runs the same HTTP handler and does not buffer the body.
 */
export function createWailsTransport(_runtime: WailsRuntime): ChatTransport | null {
  return null;
}

let chosen: ChatTransport | null = null;

/** The transport for this window: Wails when available and implemented, else SSE. */
export function chatTransport(): ChatTransport {
  if (chosen) return chosen;
  const rt = typeof window !== "undefined" ? window.runtime : undefined;
  if (rt && typeof rt.EventsOn === "function") {
    chosen = createWailsTransport(rt as WailsRuntime);
  }
  chosen ??= sseTransport;
  return chosen;
}
