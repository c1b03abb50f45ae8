// How agent turns reach the UI, chosen once at start. In a browser a turn is
// a POST whose answer is an SSE body. In the desktop window (Wails) it is a
// call of the bound Go methods and its events are Wails runtime events
// (wails.ts): the window's asset server streams a response body on Linux but
// is not promised to elsewhere. Both hand the same events to the same
// reducer.

import { errorFromResponse, ApiError } from "./http";
import { readEventStream } from "./sse";
import type { AgentEvent, TurnResult } from "./types";
import type { ChatTransport, EventHandler, WailsRuntime } from "./turns";
import { wailsTransport, wailsTurns, type WailsTurns } from "./wails";
import { approveURL, askURL, chatURL } from "./routes.gen";

export type { ChatTransport, EventHandler, WailsRuntime };

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

/** The browser transport: POST + text/event-stream parsed by hand. */
export const sseTransport: ChatTransport = {
  kind: "sse",
  chat: (docId, body, onEvent, signal) => postStream(chatURL(docId), body, onEvent, signal),
  approve: (docId, body, onEvent, signal) =>
    postStream(approveURL(docId), body, onEvent, signal),
  ask: (body, onEvent, signal) => postStream(askURL(), body, onEvent, signal),
};

/**
 * The desktop transport: turns run through the Go methods bound as
 * window.go.desktop.Turns and their events are Wails runtime events, one
 * channel per turn, named by the caller (docs/protocol.md). Null without
 * the bindings: SSE is used then.
 */
export function createWailsTransport(runtime: WailsRuntime, turns: WailsTurns | null = wailsTurns()): ChatTransport | null {
  return turns ? wailsTransport(runtime, turns) : null;
}

let chosen: ChatTransport | null = null;

/** The transport for this window: Wails in the desktop app, else SSE. */
export function chatTransport(): ChatTransport {
  if (chosen) return chosen;
  const rt = typeof window !== "undefined" ? window.runtime : undefined;
  if (rt && typeof rt.EventsOn === "function") {
    chosen = createWailsTransport(rt as WailsRuntime);
  }
  chosen ??= sseTransport;
  return chosen;
}
