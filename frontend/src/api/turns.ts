// What a way of running agent turns is, apart from any one of them: the
// browser's SSE transport (transport.ts) and the desktop window's
// (wails.ts) both implement ChatTransport, and transport.ts chooses one.

import type { AgentEvent, ApproveRequest, AskRequest, ChatRequest } from "./types";

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
  /** One turn of an Ask thread, about the whole library (POST /api/ask). */
  ask(body: AskRequest, onEvent: EventHandler, signal?: AbortSignal): Promise<void>;
}

/** What the Wails v2 runtime puts on window.runtime (the part used here). */
export interface WailsRuntime {
  EventsOn(name: string, cb: (...data: unknown[]) => void): () => void;
  EventsOff?(name: string, ...more: string[]): void;
}

declare global {
  interface Window {
    runtime?: Partial<WailsRuntime>;
  }
}
