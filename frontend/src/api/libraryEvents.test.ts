import { describe, expect, it } from "vitest";
import type { LibraryEvent } from "../inbox/types";
import { FakeEventSource } from "./fakeEventSource";
import { LIBRARY_EVENTS_URL, subscribeLibrary } from "./libraryEvents";

function setup() {
  const sources: FakeEventSource[] = [];
  const events: LibraryEvent[] = [];
  const calls: string[] = [];
  const stop = subscribeLibrary((e) => events.push(e), {
    source: (url) => {
      const s = new FakeEventSource(url);
      sources.push(s);
      return s as unknown as EventSource;
    },
    onUnavailable: () => calls.push("unavailable"),
    onReconnect: () => calls.push("reconnect"),
  });
  return { sources, events, calls, stop };
}

describe("subscribeLibrary", () => {
  it("opens the library's stream and hands on its document, row and inbox events", () => {
    const { sources, events } = setup();
    expect(sources.map((s) => s.url)).toEqual([LIBRARY_EVENTS_URL]);
    const s = sources[0];
    s.open();
    s.emit("row", { document_id: "doc_1", schema_id: "sch_1", extraction_id: "ext_1" });
    s.emit("inbox", { path: "/s/a.pdf", rel: "a.pdf", size: 1, modified: "", status: "waiting" });
    s.emit("document", { id: "doc_1", name: "a.pdf", status: "ready" });
    s.emit("row", "not json");
    s.emit("inbox", { no: "path" });
    expect(events).toEqual([
      { type: "row", row: { document_id: "doc_1", schema_id: "sch_1", extraction_id: "ext_1" } },
      { type: "inbox", file: { path: "/s/a.pdf", rel: "a.pdf", size: 1, modified: "", status: "waiting" } },
      { type: "document", document: { id: "doc_1", name: "a.pdf", status: "ready" } },
    ]);
  });

  it("asks for a reload when the stream comes back after a break, not on the first open", () => {
    const { sources, calls } = setup();
    const s = sources[0];
    s.open();
    expect(calls).toEqual([]);
    s.fail(false);
    s.open();
    expect(calls).toEqual(["reconnect"]);
  });

  it("says the stream is unavailable when the browser gives up on it, and closes it when stopped", () => {
    const { sources, calls, stop } = setup();
    sources[0].fail(true);
    expect(calls).toEqual(["unavailable"]);
    const again = setup();
    again.stop();
    expect(again.sources[0].closed).toBe(true);
    stop();
  });

  it("says the stream is unavailable at once where there is no EventSource", () => {
    const calls: string[] = [];
    subscribeLibrary(() => {}, { source: null, onUnavailable: () => calls.push("unavailable") });
    expect(calls).toEqual(["unavailable"]);
  });
});
