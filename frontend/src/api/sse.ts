// A parser for `text/event-stream` bodies read from fetch(): EventSource
// cannot POST, so the agent's streams are read by hand. It follows the
// WHATWG event-stream rules that matter here: lines end in LF, CRLF or a lone
// CR; a line starting with ":" is a comment (the server's keepalive); `data:`
// lines accumulate, joined with "\n", until a blank line dispatches them.

export interface SSEMessage {
  /** The `event:` field, "message" when absent. */
  event: string;
  /** The joined `data:` lines. */
  data: string;
  /** The `id:` field, "" when absent. */
  id: string;
}

export class SSEParser {
  private buffer = "";
  private data: string[] = [];
  private event = "";
  private id = "";
  private decoder = new TextDecoder();

  /** Feeds bytes (or text) and returns the messages completed by them. */
  push(chunk: Uint8Array | string): SSEMessage[] {
    this.buffer += typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    return this.drain(false);
  }

  /** Ends the stream: a trailing message without its blank line is dropped, as the spec says. */
  end(): SSEMessage[] {
    this.buffer += this.decoder.decode();
    const out = this.drain(true);
    this.data = [];
    this.event = "";
    return out;
  }

  private drain(final: boolean): SSEMessage[] {
    const out: SSEMessage[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (c !== "\n" && c !== "\r") continue;
      if (c === "\r" && i === this.buffer.length - 1 && !final) {
        break; // a CR at the end may be the first half of CRLF: wait for more
      }
      const line = this.buffer.slice(start, i);
      if (c === "\r" && this.buffer[i + 1] === "\n") i++;
      start = i + 1;
      const msg = this.line(line);
      if (msg) out.push(msg);
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  private line(line: string): SSEMessage | null {
    if (line === "") {
      if (this.data.length === 0) {
        this.event = "";
        return null;
      }
      const msg = { event: this.event || "message", data: this.data.join("\n"), id: this.id };
      this.data = [];
      this.event = "";
      return msg;
    }
    if (line.startsWith(":")) return null; // comment: keepalive
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.data.push(value);
        break;
      case "event":
        this.event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.id = value;
        break;
      default:
        break; // retry and unknown fields are ignored
    }
    return null;
  }
}

/** Reads a response body to its end, calling onMessage for every message. */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  onMessage: (m: SSEMessage) => void,
): Promise<void> {
  const parser = new SSEParser();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const m of parser.push(value)) onMessage(m);
    }
    for (const m of parser.end()) onMessage(m);
  } finally {
    reader.releaseLock();
  }
}
