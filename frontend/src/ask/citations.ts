// Citations of an answer, without React: where the `[n]` markers stand in
// its text, what a person is told each one cites, where a cited passage or
// a row read by a query opens, and what a stored message says it cited.

import type { Citation, CitedRow, EvidenceBox, FieldEvidence } from "../api/types";
import { formatCount } from "../lib/format";
import { href } from "../lib/router";

export type { Citation, CitedRow };

/** A piece of answer text: plain text, or one marker citing one or more numbers (`[1, 2]`). */
export type Segment = { text: string } | { cite: number[]; raw: string };

// `[1]`, `[1, 2]`, `[1,2,3]`; `[1][2]` is two markers. A number with a
// leading zero, a sign or a fraction is not a marker.
const MARKER = /\[\s*([1-9]\d{0,5}(?:\s*,\s*[1-9]\d{0,5})*)\s*\]/g;

/** The text cut into plain pieces and markers, in order; text without markers is one piece. */
export function parseMarkers(text: string): Segment[] {
  const out: Segment[] = [];
  let last = 0;
  for (const m of text.matchAll(MARKER)) {
    const at = m.index ?? 0;
    if (at > last) out.push({ text: text.slice(last, at) });
    out.push({ cite: m[1].split(",").map((s) => Number(s.trim())), raw: m[0] });
    last = at + m[0].length;
  }
  if (last < text.length || out.length === 0) out.push({ text: text.slice(last) });
  return out;
}

/** Every number the text cites, once each, in the order first cited. */
export function citedNumbers(text: string): number[] {
  const seen = new Set<number>();
  for (const s of parseMarkers(text)) if ("cite" in s) for (const n of s.cite) seen.add(n);
  return [...seen];
}

/** What a marker number stands for in an answer. */
export type Resolved =
  | { kind: "citation"; citation: Citation }
  /** Cites nothing the thread produced (the server's unknown_citations, or a number it did not list). */
  | { kind: "unknown"; n: number }
  /** The answer is still streaming: what it cites is not known yet. */
  | { kind: "pending"; n: number };

/** The citations of one answer, by number. */
export interface AnswerCitations {
  citations: Citation[];
  unknown: number[];
  /** True once the turn is over: a number cited without a citation is then unknown. */
  final: boolean;
}

export function resolve(a: AnswerCitations, n: number): Resolved {
  const c = a.citations.find((x) => x.n === n);
  if (c) return { kind: "citation", citation: c };
  if (a.final || a.unknown.includes(n)) return { kind: "unknown", n };
  return { kind: "pending", n };
}

/** A count and its noun: "1 row", "3 rows". */
export function plural(n: number, one: string, many = one + "s"): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** The documents a query read, by name, each once, in order. */
export function documentsRead(c: Citation): string[] {
  return [...new Set((c.sources ?? []).map((s) => s.document).filter(Boolean))];
}

/** The views a query read, each once. */
export function viewsRead(c: Citation): string[] {
  return [...new Set((c.sources ?? []).map((s) => s.view).filter(Boolean))];
}

/** Where a citation comes from, in words and without ids: "invoice-3.pdf, page 2", "a query of invoice, 3 rows read". */
export function citationPlace(c: Citation): string {
  if (c.kind === "passage") {
    const doc = c.document || "a document";
    return c.page ? `${doc}, page ${c.page}` : doc;
  }
  const views = viewsRead(c);
  const rows = c.sources?.length ?? 0;
  return `a query of ${views.length ? views.join(", ") : "your data"}, ${plural(rows, "row")} read`;
}

/** A chip's accessible name: "Source 1: invoice-3.pdf, page 2". */
export function chipLabel(r: Resolved): string {
  switch (r.kind) {
    case "citation":
      return `Source ${r.citation.n}: ${citationPlace(r.citation)}`;
    case "unknown":
      return `Marker ${r.n} cites nothing this conversation produced`;
    case "pending":
      return `Source ${r.n}`;
  }
}

function isBox(b: unknown): b is EvidenceBox {
  return Array.isArray(b) && b.length === 4 && b.every((n) => typeof n === "number" && Number.isFinite(n));
}

// A quote in a link is for text documents (which have no boxes); a long one is cut.
const QUOTE_MAX = 200;

/**
 * The document page at a cited place: `#/documents/ID?page=N&box=x0,y0,x1,y1&quote=…`.
 * The page draws the box (or marks the quote in a text document); the
 * link can be shared and the back button returns to the answer.
 */
export function placeHref(docId: string, at: { page?: number; bbox?: unknown; quote?: string }): string {
  const q = new URLSearchParams();
  if (at.page && at.page >= 1) q.set("page", String(at.page));
  if (isBox(at.bbox)) q.set("box", at.bbox.map((n) => String(Math.round(n * 10000) / 10000)).join(","));
  if (at.quote) q.set("quote", at.quote.slice(0, QUOTE_MAX));
  const s = q.toString();
  return href("documents", docId) + (s ? `?${s}` : "");
}

/** A box from a link's `box=x0,y0,x1,y1`, or undefined when it is not four fractions of the page. */
export function parseBox(s: string | null): EvidenceBox | undefined {
  if (!s) return undefined;
  const n = s.split(",").map((x) => (x.trim() === "" ? NaN : Number(x)));
  if (n.length !== 4 || !n.every((x) => Number.isFinite(x) && x >= 0 && x <= 1)) return undefined;
  return n;
}

/** Where a passage citation opens. */
export function passageHref(c: Citation): string | null {
  return c.kind === "passage" && c.document_id ? placeHref(c.document_id, c) : null;
}

/**
 * The place a row read by a query opens at: the evidence of the value the
 * query used that has a place (a box first, then a page), and the field's
 * name; null when no value has one (the row then opens its document).
 */
export function rowEvidence(row: CitedRow): { field: string; evidence: FieldEvidence } | null {
  const entries = Object.entries(row.evidence ?? {}).filter(([, e]) => e && e.status !== "ungrounded");
  const withBox = entries.find(([, e]) => isBox(e.bbox) && e.page);
  const withPage = entries.find(([, e]) => e.page);
  const best = withBox ?? withPage;
  return best ? { field: best[0], evidence: best[1] } : null;
}

/** Where a row read by a query opens: its document at the evidence of its value when there is one. */
export function rowHref(row: CitedRow): string {
  const at = rowEvidence(row);
  return at ? placeHref(row.document_id, at.evidence) : href("documents", row.document_id);
}

function isCitation(v: unknown): v is Citation {
  if (!v || typeof v !== "object") return false;
  const c = v as Record<string, unknown>;
  return typeof c.n === "number" && (c.kind === "passage" || c.kind === "query");
}

/**
 * The citations a stored assistant message carries in its data (a reopened
 * thread): what is well formed of `citations` and `unknown_citations`.
 */
export function citationsOfData(data: unknown): { citations?: Citation[]; unknown?: number[] } {
  if (!data || typeof data !== "object") return {};
  const d = data as Record<string, unknown>;
  const out: { citations?: Citation[]; unknown?: number[] } = {};
  if (Array.isArray(d.citations)) {
    const cs = d.citations.filter(isCitation);
    if (cs.length) out.citations = cs;
  }
  if (Array.isArray(d.unknown_citations)) {
    const ns = d.unknown_citations.filter((n): n is number => typeof n === "number" && Number.isInteger(n));
    if (ns.length) out.unknown = ns;
  }
  return out;
}

/** A cell of a query's result as text. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Math.round(v * 1e6) / 1e6);
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}
