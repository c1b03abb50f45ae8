// The data view's rows, without React: a cache of fixed-size pages of one
// query's rows, fetched as the window over them moves, and the arithmetic of
// that window. Kept apart so a test can drive 10,000 rows without a browser.

import type { DataColumn, DataRow, DataRows } from "../api/types";
import { rowNeedsReview } from "../evidence/evidence";
import { errorInput, type ErrorInput } from "../lib/errors";

/** Fetches rows [offset, offset+limit) of the current query. */
export type FetchPage = (offset: number, limit: number, signal: AbortSignal) => Promise<DataRows>;

/** Height of every row, in CSS pixels: the window is computed from it. */
export const ROW_HEIGHT = 32;
/** Rows rendered above and below the visible ones. */
export const OVERSCAN = 8;
/** Rows per request. */
export const PAGE_SIZE = 100;

/** The rows [start, end) to render for a scroll position. */
export function windowOf(scrollTop: number, viewportHeight: number, total: number, rowHeight = ROW_HEIGHT, overscan = OVERSCAN) {
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const visible = Math.ceil(Math.max(0, viewportHeight) / rowHeight) + 1;
  const start = Math.max(0, Math.min(total, first - overscan));
  const end = Math.max(start, Math.min(total, first + visible + overscan));
  return { start, end };
}

interface Page {
  gen: number;
  rows: DataRow[];
}

/**
 * The rows of one query, page by page. setQuery starts over (a new sort or
 * filter); refresh fetches again but keeps showing what it has until the
 * new pages come (after an edit or a re-run). Answers of an older query or
 * generation are dropped.
 */
export class RowStore {
  readonly pageSize: number;
  total: number | null = null;
  columns: DataColumn[] = [];
  error: ErrorInput | null = null;
  /** Requests made, for tests and the benchmark. */
  requests = 0;
  private fetchPage: FetchPage;
  private pages = new Map<number, Page>();
  private inflight = new Map<number, { gen: number; ctl: AbortController }>();
  private gen = 0;
  private listeners = new Set<() => void>();
  private version = 0;

  constructor(fetchPage: FetchPage, pageSize = PAGE_SIZE) {
    this.fetchPage = fetchPage;
    this.pageSize = pageSize;
  }

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  /** Changes whenever anything the table shows changes (for useSyncExternalStore). */
  getVersion = (): number => this.version;

  private emit() {
    this.version++;
    this.listeners.forEach((fn) => fn());
  }

  private abortAll() {
    this.inflight.forEach((x) => x.ctl.abort());
    this.inflight.clear();
  }

  /** A new query: forgets every row. */
  setQuery(fetchPage: FetchPage): void {
    this.fetchPage = fetchPage;
    this.abortAll();
    this.pages.clear();
    this.total = null;
    this.error = null;
    this.gen++;
    this.emit();
  }

  /** The same query again: the rows stay until their pages are fetched anew. */
  refresh(): void {
    this.abortAll();
    this.error = null;
    this.gen++;
    this.emit();
  }

  /** Fetches the pages of rows [start, end) that are missing or stale (page 0 when nothing is known yet). */
  ensure(start: number, end: number): void {
    if (this.error) return; // until refresh() or setQuery(): no retry loop
    let last = Math.floor(Math.max(start, end - 1) / this.pageSize);
    if (this.total !== null) last = Math.min(last, Math.max(0, Math.ceil(this.total / this.pageSize) - 1));
    for (let p = Math.floor(start / this.pageSize); p <= last; p++) {
      if (this.pages.get(p)?.gen === this.gen || this.inflight.get(p)?.gen === this.gen) continue;
      void this.load(p);
    }
  }

  private async load(p: number): Promise<void> {
    const gen = this.gen;
    const ctl = new AbortController();
    this.inflight.set(p, { gen, ctl });
    this.requests++;
    try {
      const ans = await this.fetchPage(p * this.pageSize, this.pageSize, ctl.signal);
      if (gen !== this.gen) return;
      this.pages.set(p, { gen, rows: ans.rows ?? [] });
      this.total = ans.total ?? 0;
      if (ans.columns?.length || !this.columns.length) this.columns = ans.columns ?? [];
      this.error = null;
      this.emit();
    } catch (e) {
      if (gen !== this.gen || ctl.signal.aborted) return;
      this.error = errorInput(e);
      this.emit();
    } finally {
      if (this.inflight.get(p)?.ctl === ctl) this.inflight.delete(p);
    }
  }

  /** Whether a page of the current query is being fetched. */
  get loading(): boolean {
    for (const x of this.inflight.values()) if (x.gen === this.gen) return true;
    return false;
  }

  /** Row i, if its page has come (possibly from before a refresh). */
  row(i: number): DataRow | undefined {
    return this.pages.get(Math.floor(i / this.pageSize))?.rows[i % this.pageSize];
  }

  /** Every row fetched so far, in order. */
  loadedRows(): DataRow[] {
    return [...this.pages.entries()].sort((a, b) => a[0] - b[0]).flatMap(([, pg]) => pg.rows);
  }

  /** How many rows of the current query are fetched. */
  loadedCount(): number {
    let n = 0;
    this.pages.forEach((pg) => (n += pg.rows.length));
    return n;
  }

  /** The fetched row of each document. */
  rowsById(): Map<string, DataRow> {
    const m = new Map<string, DataRow>();
    this.pages.forEach((pg) => pg.rows.forEach((r) => m.set(r.document_id, r)));
    return m;
  }

  /** Replaces the rows of a document (after an edit), wherever they are. */
  updateRow(documentId: string, fn: (r: DataRow) => DataRow): void {
    let changed = false;
    this.pages.forEach((pg) => {
      pg.rows = pg.rows.map((r) => {
        if (r.document_id !== documentId) return r;
        changed = true;
        return fn(r);
      });
    });
    if (changed) this.emit();
  }

  /**
   * Fetches every page not yet here (for "select all"), `chunk` rows a
   * request (a multiple of the page size; the server allows 1,000), and
   * returns every row.
   */
  async loadAll(chunk = 1000): Promise<DataRow[]> {
    const gen = this.gen;
    const changed = () => new Error("The table changed while its rows were loading; select again.");
    if (this.total === null) await this.load(0);
    if (this.error) throw new Error(this.error.message);
    const per = Math.max(1, Math.floor(chunk / this.pageSize));
    const pages = Math.ceil((this.total ?? 0) / this.pageSize);
    const ctl = new AbortController();
    for (let p = 0; p < pages; p += per) {
      if (gen !== this.gen) throw changed();
      let missing = false;
      for (let q = p; q < Math.min(pages, p + per); q++) if (this.pages.get(q)?.gen !== gen) missing = true;
      if (!missing) continue;
      this.requests++;
      const ans = await this.fetchPage(p * this.pageSize, per * this.pageSize, ctl.signal);
      if (gen !== this.gen) throw changed();
      const rows = ans.rows ?? [];
      for (let q = 0; q < per && q * this.pageSize < rows.length; q++) {
        this.pages.set(p + q, { gen, rows: rows.slice(q * this.pageSize, (q + 1) * this.pageSize) });
      }
    }
    this.emit();
    return this.loadedRows();
  }
}

// ---- the rows that need review ------------------------------------------

/** Pages of the rows that need review; invalidate() has the next request fetch them again. */
export interface ReviewPager {
  fetchPage: FetchPage;
  invalidate(): void;
}

/**
 * The rows of a query that need review (a field not found in the document
 * or found in several places), paged. The server does not select them, so
 * the first request fetches every row of the query, `chunk` rows a request
 * (the server allows 1,000), keeps those, and every page is cut from them
 * until invalidate() (after an edit or a re-run).
 */
export function reviewPager(fetchAll: FetchPage, chunk = 1000): ReviewPager {
  let cached: Promise<DataRows> | null = null;
  const load = async (): Promise<DataRows> => {
    // Not one page's request: these rows serve every page, so one page's
    // abort does not stop them.
    const ctl = new AbortController();
    const rows: DataRow[] = [];
    let columns: DataColumn[] = [];
    for (let offset = 0, total = 1; offset < total; offset += chunk) {
      const ans = await fetchAll(offset, chunk, ctl.signal);
      total = ans.total ?? 0;
      if (ans.columns?.length) columns = ans.columns;
      const got = ans.rows ?? [];
      rows.push(...got.filter(rowNeedsReview));
      if (got.length === 0) break;
    }
    return { columns, rows, total: rows.length };
  };
  return {
    fetchPage: async (offset, limit) => {
      if (!cached) {
        const p = load();
        cached = p;
        p.catch(() => {
          if (cached === p) cached = null; // the next request tries again
        });
      }
      const all = await cached;
      return { columns: all.columns, rows: all.rows.slice(offset, offset + limit), total: all.total };
    },
    invalidate: () => {
      cached = null;
    },
  };
}

// ---- values ----------------------------------------------------------

/** The value at a dotted path of an extraction's value ("lines.0.amount"). */
export function valueAt(value: unknown, path: string): unknown {
  let v: unknown = value;
  for (const seg of path.split(".")) {
    if (v === null || typeof v !== "object") return undefined;
    v = Array.isArray(v) ? v[Number(seg)] : (v as Record<string, unknown>)[seg];
  }
  return v;
}

/** A JSON pointer ("/lines/0/amount") or dotted path as a dotted path. */
export function dottedPath(p: string): string {
  if (!p.startsWith("/")) return p;
  return p
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}

/** The messages of a row's problems that fall on a column (its path or inside it). */
export function cellProblems(row: DataRow, column: string): string[] {
  const out: string[] = [];
  for (const e of row.validation_errors ?? []) {
    const p = dottedPath(e.path ?? "");
    if (p === column || p.startsWith(column + ".")) out.push(e.message ?? "invalid");
  }
  return out;
}

/** Whether a column holds arrays. */
export function isArrayType(type: string): boolean {
  return type.split("|").includes("array");
}

/** The text a cell shows (arrays are summarised elsewhere). */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

/** "3 items", "1 item", "no items". */
export function itemsLabel(n: number): string {
  return n === 0 ? "no items" : n === 1 ? "1 item" : `${n} items`;
}

/** The text an editor starts with. */
export function editText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}

/**
 * What an edited cell's text sends, by the column's type: a number where
 * the text is one, true/false, JSON for arrays and objects, null for an
 * emptied non-string cell. Text that is not of the column's type is sent
 * as the string it is, so that the schema, not this page, says what is
 * wrong with it.
 */
export function parseCellInput(text: string, type: string): unknown {
  const types = type.split("|");
  const t = text.trim();
  if (t === "" && !types.includes("string")) return null;
  if (t === "null" && types.includes("null")) return null;
  if ((types.includes("number") || types.includes("integer")) && t !== "" && Number.isFinite(Number(t))) return Number(t);
  if (types.includes("boolean") && (t === "true" || t === "false")) return t === "true";
  if (types.includes("array") || types.includes("object")) {
    try {
      return JSON.parse(t);
    } catch {
      return text;
    }
  }
  return text;
}
