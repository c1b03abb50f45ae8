// Evidence of extracted values, without React: what each status looks like,
// the fields a person should check first, where a field's highlight goes on
// a rendered page, and where its quote stands in a page's text. Shared by
// the extraction panel, the viewers and the data view.

import type { EvidenceBox, EvidenceMap, EvidenceStatus, FieldEvidence } from "../api/types";
import { href } from "../lib/router";

export type { EvidenceBox, EvidenceMap, EvidenceStatus, FieldEvidence };

const STATUSES: readonly EvidenceStatus[] = ["grounded", "ambiguous", "ungrounded", "edited"];

/** A status's mark: the symbol drawn (by CSS, so that it adds no text to a cell), the words shown beside it where there is room, and its accessible name. */
export interface Mark {
  status: EvidenceStatus;
  symbol: string;
  /** Words shown next to the symbol in the extraction panel ("" for none). */
  text: string;
  /** What the status means, for aria-label and tooltips. */
  label: string;
}

const MARKS: Record<EvidenceStatus, Mark> = {
  grounded: { status: "grounded", symbol: "✓", text: "", label: "found in the document" },
  ambiguous: { status: "ambiguous", symbol: "?", text: "", label: "found in several places of the document" },
  ungrounded: { status: "ungrounded", symbol: "!", text: "not found in document", label: "not found in the document" },
  edited: { status: "edited", symbol: "✎", text: "edited by you", label: "edited by you" },
};

export function markOf(status: EvidenceStatus): Mark {
  return MARKS[status];
}

/** Whether a person should check a field with this status before trusting it. */
export function needsReview(status: EvidenceStatus | undefined): boolean {
  return status === "ungrounded" || status === "ambiguous";
}

function isBox(b: unknown): b is EvidenceBox {
  return Array.isArray(b) && b.length === 4 && b.every((n) => typeof n === "number" && Number.isFinite(n));
}

/**
 * The evidence of an extraction or a data row, as far as it is well formed:
 * entries without a known status are left out, and so are malformed boxes
 * and pages. Anything else (no evidence, older extractions) gives {}.
 */
export function evidenceOf(x: unknown): EvidenceMap {
  const raw = x && typeof x === "object" ? (x as { evidence?: unknown }).evidence : undefined;
  const out: EvidenceMap = {};
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return out;
  for (const [path, e] of Object.entries(raw as Record<string, unknown>)) {
    if (!e || typeof e !== "object") continue;
    const v = e as Record<string, unknown>;
    if (!STATUSES.includes(v.status as EvidenceStatus)) continue;
    const ev: FieldEvidence = { status: v.status as EvidenceStatus };
    if (typeof v.page === "number" && v.page >= 1) ev.page = v.page;
    if (typeof v.quote === "string") ev.quote = v.quote;
    if (isBox(v.bbox)) ev.bbox = v.bbox;
    if (Array.isArray(v.candidates)) {
      ev.candidates = v.candidates
        .filter((c): c is Record<string, unknown> => !!c && typeof c === "object" && typeof (c as { page?: unknown }).page === "number")
        .map((c) => ({ page: c.page as number, quote: typeof c.quote === "string" ? c.quote : "", ...(isBox(c.bbox) ? { bbox: c.bbox } : {}) }));
    }
    out[path] = ev;
  }
  return out;
}

/** A selected field: its path, and which of its candidate places when it is ambiguous (none: the likeliest). */
export interface FieldSelection {
  path: string;
  candidate?: number;
}

/** The page, box and quote of a field: a candidate's when one is chosen, else the evidence's own, else its best candidate's. */
export interface EvidenceTarget {
  page: number;
  bbox?: EvidenceBox;
  quote?: string;
}

export function targetOf(ev: FieldEvidence | undefined, candidate?: number): EvidenceTarget | null {
  if (!ev || ev.status === "ungrounded") return null;
  const c = ev.candidates ?? [];
  if (candidate !== undefined && c[candidate]) return { page: c[candidate].page, bbox: c[candidate].bbox, quote: c[candidate].quote || undefined };
  if (ev.page) return { page: ev.page, bbox: ev.bbox, quote: ev.quote };
  if (c[0]) return { page: c[0].page, bbox: c[0].bbox, quote: c[0].quote || undefined };
  return null;
}

/** Where a quote is shown: `page 2: “ACME GmbH”`. */
export function placeText(t: { page?: number; quote?: string }): string {
  const q = t.quote ? `“${t.quote.length > 120 ? t.quote.slice(0, 117) + "…" : t.quote}”` : "";
  if (t.page && q) return `page ${t.page}: ${q}`;
  if (t.page) return `page ${t.page}`;
  return q;
}

/** The tooltip of a field's mark: what its status means and where its value stands. */
export function evidenceTitle(ev: FieldEvidence): string {
  const mark = markOf(ev.status);
  const first = mark.label[0].toUpperCase() + mark.label.slice(1);
  if (ev.status === "ungrounded") return first;
  if (ev.status === "ambiguous") {
    const n = ev.candidates?.length ?? 0;
    const best = targetOf(ev);
    return `${n > 1 ? `Found in ${n} places of the document` : first}${best ? `; the likeliest is on ${placeText(best)}` : ""}`;
  }
  const at = placeText(ev);
  return at ? `${first}, ${at}` : first;
}

/** Why a field is in the review list. */
export function reviewReason(ev: FieldEvidence): string {
  if (ev.status === "ungrounded") return "not found in the document";
  if (ev.status === "ambiguous") {
    const n = ev.candidates?.length ?? 0;
    return n > 1 ? `found in ${n} places` : "found in several places";
  }
  return markOf(ev.status).label;
}

// ---- fields ----------------------------------------------------------

/** One leaf of an extraction's value. */
export interface Leaf {
  path: string;
  value: unknown;
}

/** The leaves of a value, in the order the value lists them ("lines.0.amount" for arrays). */
export function leavesOf(value: unknown, path = ""): Leaf[] {
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
    return entries.flatMap(([k, v]) => leavesOf(v, path ? `${path}.${k}` : k));
  }
  return path ? [{ path, value }] : [];
}

export interface ReviewItem extends Leaf {
  evidence: FieldEvidence;
}

const RANK: Record<EvidenceStatus, number> = { ungrounded: 0, ambiguous: 1, grounded: 2, edited: 2 };

/**
 * The fields that have evidence, ungrounded first, then ambiguous, then the
 * rest; each group in document order: by page, then top to bottom, then
 * left to right, and fields with no place in the document after those, in
 * the order of the value.
 */
export function orderForReview(leaves: Leaf[], evidence: EvidenceMap): ReviewItem[] {
  const items = leaves.flatMap((l, i) => (evidence[l.path] ? [{ ...l, evidence: evidence[l.path], i }] : []));
  const where = (ev: FieldEvidence): [number, number, number] => {
    const t = targetOf(ev);
    if (!t) return [Infinity, 0, 0];
    return [t.page, t.bbox ? Math.min(t.bbox[1], t.bbox[3]) : 0, t.bbox ? Math.min(t.bbox[0], t.bbox[2]) : 0];
  };
  const keyed = items.map((x) => ({ x, rank: RANK[x.evidence.status], at: where(x.evidence) }));
  keyed.sort((a, b) => {
    if (a.rank !== b.rank) return a.rank - b.rank;
    for (let k = 0; k < 3; k++) {
      if (a.at[k] !== b.at[k]) return a.at[k] === Infinity ? 1 : b.at[k] === Infinity ? -1 : a.at[k] - b.at[k];
    }
    return a.x.i - b.x.i;
  });
  return keyed.map(({ x }) => ({ path: x.path, value: x.value, evidence: x.evidence }));
}

/** The fields a person should check (ungrounded, then ambiguous), in review order. */
export function reviewList(value: unknown, evidence: EvidenceMap): ReviewItem[] {
  return orderForReview(leavesOf(value), evidence).filter((x) => needsReview(x.evidence.status));
}

/** How many fields have each status. */
export function countStatuses(evidence: EvidenceMap): Record<EvidenceStatus, number> {
  const n: Record<EvidenceStatus, number> = { grounded: 0, ambiguous: 0, ungrounded: 0, edited: 0 };
  for (const e of Object.values(evidence)) n[e.status]++;
  return n;
}

/** Whether any field of a data row (or extraction) needs review. */
export function rowNeedsReview(row: { evidence?: unknown }): boolean {
  return Object.values(evidenceOf(row)).some((e) => needsReview(e.status));
}

/**
 * The evidence a data view cell shows for a column: of the column's path
 * or of the leaves under it (an array column holds "lines.0.amount", ...),
 * the one that most needs a look (ungrounded, then ambiguous, then edited,
 * then grounded), with its path; null when none.
 */
export function cellEvidence(evidence: EvidenceMap, column: string): { path: string; evidence: FieldEvidence } | null {
  const order: Record<EvidenceStatus, number> = { ungrounded: 0, ambiguous: 1, edited: 2, grounded: 3 };
  let best: { path: string; evidence: FieldEvidence } | null = null;
  for (const [path, ev] of Object.entries(evidence)) {
    if (path !== column && !path.startsWith(column + ".")) continue;
    if (!best || order[ev.status] < order[best.evidence.status]) best = { path, evidence: ev };
  }
  return best;
}

/** The document page with a field selected: `#/documents/ID?page=N&field=PATH`. */
export function fieldHref(docId: string, path: string, page?: number): string {
  const q = new URLSearchParams();
  if (page) q.set("page", String(page));
  q.set("field", path);
  return `${href("documents", docId)}?${q.toString()}`;
}

// ---- geometry --------------------------------------------------------

export interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}

const unit = (n: number) => Math.min(1, Math.max(0, n));

/**
 * Where a box goes over a page rendered width × height pixels, relative to
 * the page's top left: left = x0·width, top = y0·height, width =
 * (x1−x0)·width, height = (y1−y0)·height. Fractions are clamped to the
 * page and corners given the wrong way round are put right.
 */
export function highlightRect(bbox: EvidenceBox, width: number, height: number): Rect {
  const [a, b, c, d] = bbox.map(unit);
  const x0 = Math.min(a, c);
  const x1 = Math.max(a, c);
  const y0 = Math.min(b, d);
  const y1 = Math.max(b, d);
  return { left: x0 * width, top: y0 * height, width: (x1 - x0) * width, height: (y1 - y0) * height };
}

// ---- text ------------------------------------------------------------

/**
 * Where a quote stands in a page's text, [start, end): the exact text
 * first, else ignoring case and how whitespace runs (a line break in the
 * page where the quote has a space); null when it is not there.
 */
export function findQuote(text: string, quote: string | undefined): [number, number] | null {
  const q = (quote ?? "").trim();
  if (!q) return null;
  const i = text.indexOf(q);
  if (i >= 0) return [i, i + q.length];
  const pattern = q
    .split(/\s+/)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("\\s+");
  const m = new RegExp(pattern, "i").exec(text);
  return m ? [m.index, m.index + m[0].length] : null;
}
