// The library's event stream (GET /api/documents/events): a `document`
// event when a document's status, stage or kind changes, a `row` event when
// an extraction is stored (a row appears in its schema's table), an `inbox`
// event when an inbox file changes. Pages that show these things subscribe
// and update without a reload. In the desktop window, whose asset server
// does not promise streamed responses, and when the browser gives the
// stream up, the subscriber is told so and polls instead.

import type { InboxFile, LibraryEvent, RowEvent } from "../inbox/types";
import { isDesktop } from "../lib/desktop";
import type { DocumentInfo } from "./types";
import { libraryEventsURL } from "./routes.gen";

export const LIBRARY_EVENTS_URL = libraryEventsURL();

export interface LibraryStreamOptions {
  /** The stream cannot serve (no EventSource, the desktop window, or refused for good): poll instead. */
  onUnavailable?: () => void;
  /** The stream is back after a break: events may have been missed, so load again. */
  onReconnect?: () => void;
  /** Opens the stream; null when there is none. Tests pass a fake; the default is the browser's EventSource outside the desktop window. */
  source?: ((url: string) => EventSource) | null;
}

function defaultSource(): ((url: string) => EventSource) | null {
  if (typeof EventSource === "undefined" || isDesktop()) return null;
  return (url) => new EventSource(url, { withCredentials: true });
}

const object = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** One message of the stream as an event, or null when it is not one (it is ignored then, rather than breaking the page). */
export function parseLibraryEvent(type: string, data: string): LibraryEvent | null {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    return null;
  }
  if (!object(v)) return null;
  switch (type) {
    case "document":
      return typeof v.id === "string" ? { type, document: v as unknown as DocumentInfo } : null;
    case "row":
      return typeof v.schema_id === "string" && typeof v.document_id === "string" ? { type, row: v as unknown as RowEvent } : null;
    case "inbox":
      return typeof v.path === "string" && typeof v.status === "string" ? { type, file: v as unknown as InboxFile } : null;
    default:
      return null;
  }
}

/** Hands every event of the library's stream to onEvent until the returned function is called. */
export function subscribeLibrary(onEvent: (e: LibraryEvent) => void, opts: LibraryStreamOptions = {}): () => void {
  const open = opts.source === undefined ? defaultSource() : opts.source;
  if (!open) {
    opts.onUnavailable?.();
    return () => {};
  }
  const es = open(LIBRARY_EVENTS_URL);
  let opened = false;
  let broken = false;
  es.onopen = () => {
    if (opened && broken) opts.onReconnect?.();
    opened = true;
    broken = false;
  };
  es.onerror = () => {
    broken = true;
    // CONNECTING: the browser retries by itself. CLOSED: it gave up (a
    // refused request, a server without the route).
    if (es.readyState === 2) opts.onUnavailable?.();
  };
  for (const type of ["document", "row", "inbox"]) {
    es.addEventListener(type, (m) => {
      const ev = parseLibraryEvent(type, (m as MessageEvent<string>).data);
      if (ev) onEvent(ev);
    });
  }
  return () => es.close();
}
