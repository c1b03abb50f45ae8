import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "./http";
import type { WailsRuntime } from "./turns";
import type { AgentEvent, ChatRequest } from "./types";
import { apiErrorFrom, wailsTransport, type WailsTurns } from "./wails";

/** A fake of the Wails runtime's events: emit calls the channel's listeners. */
function fakeRuntime() {
  const listeners = new Map<string, Set<(...data: unknown[]) => void>>();
  const rt: WailsRuntime & { emit(name: string, data: unknown): void; count(name: string): number } = {
    EventsOn(name, cb) {
      const set = listeners.get(name) ?? new Set();
      set.add(cb);
      listeners.set(name, set);
      return () => set.delete(cb);
    },
    emit(name, data) {
      for (const cb of [...(listeners.get(name) ?? [])]) cb(data);
    },
    count(name) {
      return listeners.get(name)?.size ?? 0;
    },
  };
  return rt;
}

const started: AgentEvent = { type: "turn_started", thread_id: "th_1", model: "ollama/x" } as AgentEvent;
const chunk: AgentEvent = { type: "assistant_text_chunk", chunk: "Hi", round_index: 0 } as AgentEvent;
const done = { type: "done", result: { text: "Hi" } } as unknown as AgentEvent;

/** Bound Turns whose Chat runs script(channel) and resolves with its count. */
function fakeTurns(script: (channel: string) => Promise<number>) {
  const calls: { docId: string; channel: string; body: unknown }[] = [];
  const stops: string[] = [];
  const turns: WailsTurns = {
    Chat: (docId, channel, body) => {
      calls.push({ docId, channel, body });
      return script(channel);
    },
    Approve: (docId, channel, body) => {
      calls.push({ docId, channel, body });
      return script(channel);
    },
    Ask: (channel, body) => {
      calls.push({ docId: "", channel, body });
      return script(channel);
    },
    Stop: async (channel) => {
      stops.push(channel);
    },
  };
  return { turns, calls, stops };
}

const body: ChatRequest = { message: "What is this?" };

describe("wailsTransport", () => {
  it("hands each event on the turn's channel to onEvent and resolves when the call returns", async () => {
    const rt = fakeRuntime();
    const { turns, calls } = fakeTurns(async (ch) => {
      for (const e of [started, chunk, done]) rt.emit(ch, e);
      return 3;
    });
    const got: AgentEvent[] = [];
    await wailsTransport(rt, turns).chat("doc_1", body, (e) => got.push(e));
    expect(got).toEqual([started, chunk, done]);
    expect(calls).toEqual([{ docId: "doc_1", channel: calls[0].channel, body }]);
    expect(calls[0].channel).toMatch(/^docent:turn:/);
    expect(rt.count(calls[0].channel)).toBe(0); // unsubscribed
  });

  it("waits for events still on their way when the answer comes first", async () => {
    const rt = fakeRuntime();
    let channel = "";
    const { turns } = fakeTurns(async (ch) => {
      channel = ch;
      rt.emit(ch, started);
      return 3;
    });
    const got: string[] = [];
    let settled = false;
    const p = wailsTransport(rt, turns)
      .chat("doc_1", body, (e) => got.push(e.type))
      .then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 0));
    expect(settled).toBe(false);
    rt.emit(channel, chunk);
    rt.emit(channel, done);
    await p;
    expect(got).toEqual(["turn_started", "assistant_text_chunk", "done"]);
  });

  it("runs an Ask turn through the bound Ask, streamed on its own channel", async () => {
    const rt = fakeRuntime();
    const { turns, calls } = fakeTurns(async (ch) => {
      for (const e of [started, chunk, done]) rt.emit(ch, e);
      return 3;
    });
    const got: AgentEvent[] = [];
    await wailsTransport(rt, turns).ask({ message: "How much did I spend?" }, (e) => got.push(e));
    expect(got).toEqual([started, chunk, done]);
    expect(calls).toEqual([{ docId: "", channel: calls[0].channel, body: { message: "How much did I spend?" } }]);
    expect(rt.count(calls[0].channel)).toBe(0);
  });

  it("uses a new channel for every turn", async () => {
    const rt = fakeRuntime();
    const { turns, calls } = fakeTurns(async () => 0);
    const t = wailsTransport(rt, turns);
    await t.chat("d", body, () => {});
    await t.approve("d", { turn_id: "tu_1", approvals: [] }, () => {});
    expect(calls[0].channel).not.toBe(calls[1].channel);
  });

  it("rejects a refused turn with the HTTP API's error as an ApiError", async () => {
    const rt = fakeRuntime();
    const { turns } = fakeTurns(() => Promise.reject({ error: "document doc_x not found", code: "not_found", status: 404 }));
    const err = await wailsTransport(rt, turns)
      .chat("doc_x", body, () => {})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 404, code: "not_found", message: "document doc_x not found" });
  });

  it("stops the turn in Go and rejects with an AbortError when the signal aborts", async () => {
    const rt = fakeRuntime();
    let channel = "";
    const { turns, stops } = fakeTurns((ch) => {
      channel = ch;
      rt.emit(ch, started);
      return new Promise<number>(() => {}); // the turn runs on
    });
    const ac = new AbortController();
    const got: string[] = [];
    const p = wailsTransport(rt, turns).chat("d", body, (e) => got.push(e.type), ac.signal);
    ac.abort();
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DOMException);
    expect((err as DOMException).name).toBe("AbortError");
    expect(stops).toEqual([channel]);
    rt.emit(channel, chunk); // late events are not handed on
    expect(got).toEqual(["turn_started"]);
  });

  it("does not call Go when the signal has already aborted", async () => {
    const rt = fakeRuntime();
    const { turns, calls } = fakeTurns(async () => 0);
    const ac = new AbortController();
    ac.abort();
    await expect(wailsTransport(rt, turns).chat("d", body, () => {}, ac.signal)).rejects.toMatchObject({ name: "AbortError" });
    expect(calls).toEqual([]);
  });
});

describe("apiErrorFrom", () => {
  it("reads the error body, a bare message, or nothing", () => {
    expect(apiErrorFrom({ error: "busy", code: "conflict", status: 409 })).toMatchObject({ status: 409, code: "conflict", message: "busy" });
    expect(apiErrorFrom("method 'x' not registered")).toMatchObject({ status: 0, code: "desktop", message: "method 'x' not registered" });
    expect(apiErrorFrom(undefined).message).toMatch(/did not run/);
  });
});

describe("chatTransport", () => {
  const g = globalThis as { window?: unknown };
  afterEach(() => {
    delete g.window;
  });

  it("is SSE in a browser and Wails in the desktop window", async () => {
    g.window = {};
    vi.resetModules();
    expect((await import("./transport")).chatTransport().kind).toBe("sse");

    const { turns } = fakeTurns(async () => 0);
    g.window = { runtime: fakeRuntime(), go: { desktop: { Turns: turns } } };
    vi.resetModules();
    expect((await import("./transport")).chatTransport().kind).toBe("wails");

    g.window = { runtime: fakeRuntime() }; // runtime without the bindings
    vi.resetModules();
    expect((await import("./transport")).chatTransport().kind).toBe("sse");
  });
});
