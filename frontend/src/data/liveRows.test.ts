import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeEventSource } from "../api/fakeEventSource";
import { followRows, ROWS_POLL_MS, ROWS_THROTTLE_MS } from "./liveRows";

function follow(schemaId: string, withStream = true) {
  const sources: FakeEventSource[] = [];
  const refresh = vi.fn();
  const stop = followRows(schemaId, refresh, {
    source: withStream
      ? (url) => {
          const s = new FakeEventSource(url);
          sources.push(s);
          return s as unknown as EventSource;
        }
      : null,
  });
  return { sources, refresh, stop };
}

const row = (schema_id: string, n = 1) => ({ document_id: `doc_${n}`, schema_id, extraction_id: `ext_${n}` });

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("followRows", () => {
  it("fetches the table again when a row of its schema arrives, not for another schema's", () => {
    const { sources, refresh } = follow("sch_inv");
    sources[0].emit("row", row("sch_other"));
    sources[0].emit("inbox", { path: "/s/a.pdf", status: "waiting" });
    expect(refresh).not.toHaveBeenCalled();
    sources[0].emit("row", row("sch_inv"));
    expect(refresh).toHaveBeenCalledTimes(1);
  });

  it("fetches once more after a burst of rows, not once per row", async () => {
    const { sources, refresh } = follow("sch_inv");
    for (let i = 0; i < 50; i++) sources[0].emit("row", row("sch_inv", i));
    expect(refresh).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(ROWS_THROTTLE_MS);
    expect(refresh).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(ROWS_THROTTLE_MS * 4);
    expect(refresh).toHaveBeenCalledTimes(2);
  });

  it("fetches again when the stream comes back after a break", () => {
    const { sources, refresh } = follow("sch_inv");
    sources[0].open();
    sources[0].fail(false);
    sources[0].open();
    expect(refresh).toHaveBeenCalledTimes(1);
  });

  it("polls without a stream, until stopped", async () => {
    const { refresh, stop } = follow("sch_inv", false);
    await vi.advanceTimersByTimeAsync(ROWS_POLL_MS * 2);
    expect(refresh).toHaveBeenCalledTimes(2);
    stop();
    await vi.advanceTimersByTimeAsync(ROWS_POLL_MS * 2);
    expect(refresh).toHaveBeenCalledTimes(2);
  });
});
