import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { AssistantMessageView, ConversationState } from "../agent/reducer";
import { lengthProblem } from "../agent/Composer";
import { ThreadPicker } from "../agent/ThreadPicker";
import { Messages } from "../agent/Messages";
import { messagesFromThread } from "../agent/history";
import { initialConversation, reducer } from "../agent/reducer";
import type { Thread, ThreadMessage } from "../api/types";
import { Markdown } from "../components/Markdown";
import { ApiError } from "../api/http";
import { threadError } from "../pages/AskPage";
import {
  chipLabel,
  citationsOfData,
  citedNumbers,
  parseBox,
  parseMarkers,
  placeHref,
  resolve,
  rowHref,
  type AnswerCitations,
  type Citation,
  type CitedRow,
} from "./citations";
import { CitationChip, Marker, QueryPanel, SourceList } from "./Citations";

const passage: Citation = { n: 1, kind: "passage", document_id: "doc_01HX", document: "invoice-3.pdf", page: 2, quote: "Total 4.11", bbox: [0.1, 0.2, 0.3, 0.25] };
const row = (doc: string, id: string, ev: CitedRow["evidence"]): CitedRow => ({ view: "invoice", document_id: id, document: doc, extraction_id: "ext_" + id, evidence: ev });
const query: Citation = {
  n: 2,
  kind: "query",
  sql: "SELECT sum(total) FROM invoice",
  columns: ["sum(total)"],
  rows: [[12.5]],
  row_count: 1,
  sources: [
    row("a.pdf", "doc_A", { total: { status: "grounded", page: 1, quote: "$4.11", bbox: [0.5, 0.6, 0.7, 0.65] } }),
    row("b.pdf", "doc_B", { total: { status: "ungrounded" } }),
  ],
};

describe("parseMarkers", () => {
  it("cuts text into plain pieces and markers", () => {
    expect(parseMarkers("Total 12.50 [1].")).toEqual([{ text: "Total 12.50 " }, { cite: [1], raw: "[1]" }, { text: "." }]);
  });
  it("reads [1, 2] as one marker citing both, and [1][2] as two", () => {
    expect(parseMarkers("a [1, 2]")).toEqual([{ text: "a " }, { cite: [1, 2], raw: "[1, 2]" }]);
    expect(parseMarkers("[1][2]")).toEqual([
      { cite: [1], raw: "[1]" },
      { cite: [2], raw: "[2]" },
    ]);
  });
  it("leaves what is not a marker as text", () => {
    for (const t of ["[0]", "[01]", "[1.5]", "[-1]", "[a]", "[]", "[1,]", "array[i]", "no markers"]) {
      expect(parseMarkers(t)).toEqual([{ text: t }]);
    }
  });
  it("gives the numbers cited once each, in the order first cited", () => {
    expect(citedNumbers("x [2] y [1, 2] z [3][1]")).toEqual([2, 1, 3]);
  });
});

describe("resolve and chip labels", () => {
  const answer: AnswerCitations = { citations: [passage, query], unknown: [7], final: false };
  it("names a passage by its document and page, a query by what it read", () => {
    expect(chipLabel(resolve(answer, 1))).toBe("Source 1: invoice-3.pdf, page 2");
    expect(chipLabel(resolve(answer, 2))).toBe("Source 2: a query of invoice, 2 rows read");
  });
  it("marks a number the server flagged as citing nothing", () => {
    expect(resolve(answer, 7)).toEqual({ kind: "unknown", n: 7 });
    expect(chipLabel(resolve(answer, 7))).toBe("Marker 7 cites nothing this conversation produced");
  });
  it("waits while the answer streams, and calls a number without citation unknown once the turn is over", () => {
    expect(resolve(answer, 5).kind).toBe("pending");
    expect(resolve({ ...answer, final: true }, 5).kind).toBe("unknown");
  });
});

describe("where a citation opens", () => {
  it("opens a passage at its page with its box, and the box comes back from the link", () => {
    const to = placeHref("doc_01HX", passage);
    expect(to).toBe("#/documents/doc_01HX?page=2&box=0.1%2C0.2%2C0.3%2C0.25&quote=Total+4.11");
    const q = new URLSearchParams(to.split("?")[1]);
    expect(parseBox(q.get("box"))).toEqual([0.1, 0.2, 0.3, 0.25]);
  });
  it("refuses a box that is not four fractions of the page", () => {
    for (const b of [null, "", "1,2,3", "0.1,0.2,0.3,1.5", "a,b,c,d", "0.1,,0.3,0.4"]) expect(parseBox(b)).toBeUndefined();
  });
  it("opens a row at the evidence of its value, or its document when the value has no place", () => {
    expect(rowHref(query.sources![0])).toBe("#/documents/doc_A?page=1&box=0.5%2C0.6%2C0.7%2C0.65&quote=%244.11");
    expect(rowHref(query.sources![1])).toBe("#/documents/doc_B");
  });
});

describe("citationsOfData", () => {
  it("reads what is well formed of a stored message's citations", () => {
    expect(citationsOfData({ citations: [passage, { n: "x" }, null], unknown_citations: [7, "8"] })).toEqual({ citations: [passage], unknown: [7] });
    expect(citationsOfData({ round_index: 1 })).toEqual({});
    expect(citationsOfData(null)).toEqual({});
  });
});

describe("chips", () => {
  it("draws each marker of the markdown as chips, but not in code or links", () => {
    const html = renderToString(
      <Markdown text={"You spent **12.50** [1, 2]. See `[3]` and [the doc](https://example.com/[4])."} cite={(ns) => <b className="c">{ns.join("+")}</b>} />,
    );
    expect(html).toContain('<b class="c">1+2</b>');
    expect(html).toContain("<code");
    expect(html).toContain("[3]");
    expect(html).not.toContain('<b class="c">3</b>');
    expect(html).not.toContain('<b class="c">4</b>');
  });
  it("leaves markers as text without cite", () => {
    expect(renderToString(<Markdown text="Total [1]." />)).toContain("Total [1].");
  });
  it("makes a citation a button named for people, and a number citing nothing a warning that is no button", () => {
    const answer: AnswerCitations = { citations: [passage], unknown: [7], final: true };
    const html = renderToString(<Marker numbers={[1, 7]} answer={answer} />);
    expect(html).toMatch(/<button[^>]*aria-label="Source 1: invoice-3.pdf, page 2"[^>]*>1<\/button>/);
    expect(html).toMatch(/<span class="cite-chip unknown"[^>]*data-testid="cite-unknown"[^>]*>/);
    expect(html).toContain("Marker 7 cites nothing this conversation produced");
    expect(html.match(/<button/g)?.length).toBe(1);
  });
  it("shows a pending number as plain text while the answer streams", () => {
    const html = renderToString(<CitationChip r={{ kind: "pending", n: 3 }} />);
    expect(html).not.toContain("<button");
    expect(html).toContain(">3<");
  });
});

describe("sources and the query panel", () => {
  it("lists each source without ids, and what cites nothing", () => {
    const html = renderToString(<SourceList answer={{ citations: [passage, query], unknown: [7], final: true }} cited={[1, 2, 7]} />);
    expect(html).toContain("invoice-3.pdf, page 2");
    expect(html).toContain("“Total 4.11”");
    expect(html).toContain("a.pdf, b.pdf");
    expect(html).toContain("[7] cites nothing");
    expect(html.replace(/href="[^"]*"/g, "")).not.toMatch(/doc_|ext_/);
  });
  it("shows the SQL, the result and every row read, each a link to its document at its value", () => {
    const html = renderToString(<QueryPanel citation={query} onClose={() => {}} />);
    expect(html).toContain("SELECT sum(total) FROM invoice");
    expect(html).toContain("12.5");
    expect(html).toContain('href="#/documents/doc_A?page=1&amp;box=0.5%2C0.6%2C0.7%2C0.65&amp;quote=%244.11"');
    expect(html).toContain('href="#/documents/doc_B"');
    expect(html).toContain("not found in the document");
    expect(html.replace(/(href|title)="[^"]*"/g, "")).not.toMatch(/doc_|ext_/);
  });
  it("says why the rows listed are not exactly those the query read", () => {
    const note = "a join over several views: the rows it read are not known";
    expect(renderToString(<QueryPanel citation={{ ...query, sources: [], sources_note: note }} onClose={() => {}} />)).toContain(note);
  });
});

describe("answers with citations in the conversation", () => {
  const streamed = (): ConversationState => {
    let s = reducer(initialConversation(), { type: "send", text: "how much?" });
    s = reducer(s, { type: "event", now: 1, event: { type: "assistant_text_chunk", round_index: 0, chunk: "You spent 12.50 [2] and [9]." } as never });
    return s;
  };
  it("keeps done's citations on the answer and draws chips and sources", () => {
    let s = streamed();
    const live = renderToString(<Messages state={s} approvalFor={() => undefined} onDocLink={() => false} onRetry={() => {}} citeMarkers />);
    expect(live).toContain('data-testid="cite-pending"');
    s = reducer(s, {
      type: "event",
      now: 2,
      event: { type: "done", result: { text: "You spent 12.50 [2] and [9].", executed_rounds: [], usage: { prompt_tokens: 0, completion_tokens: 0 }, citations: [query], unknown_citations: [9] } } as never,
    });
    const m = s.messages[1] as AssistantMessageView;
    expect(m.citations).toEqual([query]);
    expect(m.unknownCitations).toEqual([9]);
    const html = renderToString(<Messages state={s} approvalFor={() => undefined} onDocLink={() => false} onRetry={() => {}} citeMarkers />);
    expect(html).toContain('aria-label="Source 2: a query of invoice, 2 rows read"');
    expect(html).toContain('data-testid="cite-unknown"');
    expect(html).toContain('data-testid="cite-sources"');
  });
  it("gives a reopened thread's answer the citations its stored message carries", () => {
    const at = "2024-01-01T00:00:00Z";
    const stored = [
      { seq: 0, role: "user", content: "how much?", created_at: at },
      { seq: 1, role: "assistant", content: "12.50 [2]", created_at: at, data: { round_index: 0, citations: [query], unknown_citations: [4] } },
    ] as unknown as ThreadMessage[];
    const [, a] = messagesFromThread(stored);
    expect((a as AssistantMessageView).citations).toEqual([query]);
    expect((a as AssistantMessageView).unknownCitations).toEqual([4]);
  });
  it("draws no chips in a chat answer that cites nothing", () => {
    let s = streamed();
    s = reducer(s, { type: "event", now: 2, event: { type: "done", result: { text: "x [2]", executed_rounds: [], usage: { prompt_tokens: 0, completion_tokens: 0 } } } as never });
    const html = renderToString(<Messages state={s} approvalFor={() => undefined} onDocLink={() => false} onRetry={() => {}} />);
    expect(html).not.toContain("cite-chip");
    expect(html).toContain("[2]");
  });
});

describe("the question's length", () => {
  it("refuses a question over the limit with its length, and takes one at the limit", () => {
    expect(lengthProblem("x".repeat(100_000), 100_000)).toBeNull();
    expect(lengthProblem("  " + "x".repeat(100_000) + "\n", 100_000)).toBeNull();
    expect(lengthProblem("x".repeat(100_001), 100_000)).toMatch(/100,001 characters; at most 100,000/);
    expect(lengthProblem("x".repeat(200_000), undefined)).toBeNull();
  });
});

describe("a thread that is not there", () => {
  it("is worded without the id the server's message names", () => {
    const e = threadError(new ApiError(404, "the library has no thread thr_01M8GWV27JRNAET7CHN5NQZ962", "not_found"));
    expect(e.message).not.toMatch(/thr_/);
    expect(e.message).toMatch(/may have been deleted/);
    expect(e.code).toBe("not_found");
    expect(threadError(new ApiError(409, "the thread is in use", "conflict")).message).toBe("the thread is in use");
  });
});

describe("the thread's actions on the Ask page", () => {
  it("offers Rename and Delete of the current thread without the menu of threads", () => {
    const t = { thread_id: "thr_1", document_id: "", title: "Taxis", working_state: {}, created_at: "2024-01-01T00:00:00Z", updated_at: "2024-01-01T00:00:00Z", message_count: 2 } as Thread;
    const props = { threads: [t], current: "thr_1", disabled: false, onSelect: () => {}, onRename: async () => {}, onDelete: async () => {} };
    const only = renderToString(<ThreadPicker {...props} actionsOnly />);
    expect(only).toContain('data-testid="thread-rename"');
    expect(only).toContain('data-testid="thread-delete"');
    expect(only).not.toContain("<select");
    expect(only).not.toContain('data-testid="thread-new"');
    expect(renderToString(<ThreadPicker {...props} />)).toContain("<select");
  });
});
