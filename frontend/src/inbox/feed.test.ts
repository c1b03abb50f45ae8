import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeEventSource } from "../api/fakeEventSource";
import { InboxFeed, POLL_MS } from "./feed";
import type { InboxActivity, InboxFile } from "./types";

const file = (rel: string, over: Partial<InboxFile> = {}): InboxFile => ({
  path: `/scans/${rel}`,
  rel,
  size: 10,
  modified: "2026-11-28T10:00:00Z",
  status: "stored",
  tags: [],
  updated_at: "2026-11-28T10:00:00Z",
  ...over,
});

/** fetch answering GET /api/inbox with the activities queued, in order (the last one again when they run out). */
function fakeServer(...answers: InboxActivity[]) {
  const urls: string[] = [];
  const fetch = vi.fn(async (url: string) => {
    urls.push(url);
    const a = answers.length > 1 ? answers.shift()! : answers[0];
    return new Response(JSON.stringify(a), { status: 200, headers: { "Content-Type": "application/json" } });
  });
  vi.stubGlobal("fetch", fetch);
  return urls;
}

/** Resolves once the feed has finished every load it started. */
async function settled(feed: InboxFeed) {
  for (let i = 0; i < 20 && feed.loading(); i++) await new Promise((r) => setTimeout(r, 0));
  expect(feed.loading(), "the feed is still loading").toBe(false);
}

function start(opts: { source?: "fake" | null } = {}) {
  const sources: FakeEventSource[] = [];
  const feed = new InboxFeed({
    source:
      opts.source === null
        ? null
        : (url) => {
            const s = new FakeEventSource(url);
            sources.push(s);
            return s as unknown as EventSource;
          },
  });
  let changes = 0;
  feed.subscribe(() => changes++);
  const stop = feed.start();
  return { feed, sources, stop, changes: () => changes };
}

const activity = (files: InboxFile[], over: Partial<InboxActivity> = {}): InboxActivity => ({ folder: "/scans", watching: true, polling: false, files, ...over });

beforeEach(() => vi.useRealTimers());
afterEach(() => vi.unstubAllGlobals());

describe("InboxFeed", () => {
  it("loads the activity, then applies each inbox event without loading again", async () => {
    const urls = fakeServer(activity([file("a.pdf", { status: "waiting" })]));
    const { feed, sources, changes } = start();
    await settled(feed);
    expect(urls).toEqual(["/api/inbox?limit=200"]);
    expect(feed.activity?.files.map((f) => f.status)).toEqual(["waiting"]);

    const before = changes();
    sources[0].emit("inbox", file("a.pdf", { stage: "reading", document_id: "doc_a" }));
    sources[0].emit("inbox", file("b.pdf", { status: "waiting" }));
    expect(feed.activity?.files.map((f) => [f.rel, f.status, f.stage])).toEqual([
      ["b.pdf", "waiting", undefined],
      ["a.pdf", "stored", "reading"],
    ]);
    expect(changes()).toBeGreaterThan(before);
    expect(urls).toHaveLength(1);
  });

  it("loads again when a listed file's document or row changes, and ignores other documents", async () => {
    const urls = fakeServer(
      activity([file("a.pdf", { document_id: "doc_a", stage: "extracting" })]),
      activity([file("a.pdf", { document_id: "doc_a", stage: "done", kind: "sch_1", kind_name: "Invoice", extraction_id: "ext_1" })]),
    );
    const { feed, sources } = start();
    await settled(feed);
    sources[0].emit("document", { id: "doc_other", status: "ready" });
    sources[0].emit("row", { document_id: "doc_other", schema_id: "sch_1", extraction_id: "ext_9" });
    await settled(feed);
    expect(urls).toHaveLength(1);
    sources[0].emit("row", { document_id: "doc_a", schema_id: "sch_1", extraction_id: "ext_1" });
    await settled(feed);
    expect(urls).toHaveLength(2);
    expect(feed.activity?.files[0]).toMatchObject({ stage: "done", kind_name: "Invoice" });
  });

  it("keeps an event that arrives while a load is under way", async () => {
    let answer: (r: Response) => void = () => {};
    vi.stubGlobal(
      "fetch",
      vi.fn(() => new Promise<Response>((r) => (answer = r))),
    );
    const { feed, sources } = start();
    sources[0].emit("inbox", file("new.pdf", { status: "waiting" }));
    answer(new Response(JSON.stringify(activity([file("old.pdf")])), { status: 200 }));
    await settled(feed);
    expect(feed.activity?.files.map((f) => f.rel)).toEqual(["new.pdf", "old.pdf"]);
  });

  it("loads again when the stream comes back, since events were missed", async () => {
    const urls = fakeServer(activity([]), activity([file("a.pdf")]));
    const { feed, sources } = start();
    await settled(feed);
    sources[0].open();
    sources[0].fail(false);
    sources[0].open();
    await settled(feed);
    expect(urls).toHaveLength(2);
    expect(feed.activity?.files.map((f) => f.rel)).toEqual(["a.pdf"]);
  });

  it("polls when there is no stream, and stops when stopped", async () => {
    vi.useFakeTimers();
    const urls = fakeServer(activity([]), activity([file("a.pdf")]));
    const { feed, stop } = start({ source: null });
    expect(feed.live).toBe("polling");
    await vi.advanceTimersByTimeAsync(0);
    expect(urls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(urls).toHaveLength(2);
    expect(feed.activity?.files.map((f) => f.rel)).toEqual(["a.pdf"]);
    stop();
    await vi.advanceTimersByTimeAsync(POLL_MS * 3);
    expect(urls).toHaveLength(2);
  });

  it("keeps the server's error for the page to show", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => new Response(JSON.stringify({ error: "the database is locked", code: "unavailable" }), { status: 503 })),
    );
    const { feed } = start();
    await settled(feed);
    expect(feed.error).toMatchObject({ message: "the database is locked", code: "unavailable", status: 503 });
    expect(feed.activity).toBeNull();
  });
});
