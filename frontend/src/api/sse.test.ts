import { describe, expect, it } from "vitest";
import { readEventStream, SSEParser, type SSEMessage } from "./sse";

function feed(chunks: (string | Uint8Array)[]): SSEMessage[] {
  const p = new SSEParser();
  const out: SSEMessage[] = [];
  for (const c of chunks) out.push(...p.push(c));
  out.push(...p.end());
  return out;
}

const stream =
  ':keepalive\n\ndata: {"type":"turn_started","thread_id":"t1","model":"ollama/x"}\n\n' +
  ': another comment\n' +
  'data: {"type":"assistant_text_chunk","chunk":"héllo ✓","round_index":0}\n\n' +
  'data: {"type":"done","result":{"text":"a\\nb"}}\n\n';

describe("SSEParser", () => {
  it("parses frames and ignores keepalive comments", () => {
    const got = feed([stream]).map((m) => JSON.parse(m.data).type);
    expect(got).toEqual(["turn_started", "assistant_text_chunk", "done"]);
  });

  it("gives the same frames for every split of the stream into two chunks", () => {
    const want = feed([stream]).map((m) => m.data);
    for (let i = 0; i <= stream.length; i++) {
      expect(feed([stream.slice(0, i), stream.slice(i)]).map((m) => m.data)).toEqual(want);
    }
  });

  it("gives the same frames when bytes arrive one at a time, multi-byte characters included", () => {
    const bytes = new TextEncoder().encode(stream);
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i++) chunks.push(bytes.slice(i, i + 1));
    const got = feed(chunks);
    expect(got.map((m) => m.data)).toEqual(feed([stream]).map((m) => m.data));
    expect(JSON.parse(got[1].data).chunk).toBe("héllo ✓");
  });

  it("handles CRLF and lone CR line endings, split between chunks", () => {
    const crlf = stream.replace(/\n/g, "\r\n");
    const cr = stream.replace(/\n/g, "\r");
    const want = feed([stream]).map((m) => m.data);
    for (const s of [crlf, cr]) {
      expect(feed([s]).map((m) => m.data)).toEqual(want);
      for (let i = 0; i <= s.length; i += 3) {
        expect(feed([s.slice(0, i), s.slice(i)]).map((m) => m.data)).toEqual(want);
      }
    }
  });

  it("joins multi-line data and reads event and id fields", () => {
    const got = feed(["event: x\nid: 7\ndata: a\ndata:b\n\n"]);
    expect(got).toEqual([{ event: "x", id: "7", data: "a\nb" }]);
  });

  it("drops a trailing frame without its blank line and ignores empty frames", () => {
    expect(feed(["\n\n:c\n\ndata: {}\n"])).toEqual([]);
  });

  it("reads a ReadableStream body to its end", async () => {
    const enc = new TextEncoder();
    const parts = [stream.slice(0, 10), stream.slice(10, 50), stream.slice(50)];
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of parts) c.enqueue(enc.encode(p));
        c.close();
      },
    });
    const got: string[] = [];
    await readEventStream(body, (m) => got.push(JSON.parse(m.data).type));
    expect(got).toEqual(["turn_started", "assistant_text_chunk", "done"]);
  });
});
