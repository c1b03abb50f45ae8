// The data view's state in its URL (#/data/SCHEMA?sort=total&order=desc&
// q=seller.name:acme&status=edited&review=1), so that a reload, the back
// button and a shared link show the same rows. Defaults are left out: a
// bare #/data/SCHEMA is the server's order, no filter, every row.

import type { DataStatus, SortOrder } from "../api/types";
import { href } from "../lib/router";

export interface DataViewState {
  sort: { path: string; order: SortOrder } | null;
  /** Column path → filter text (empty texts are left out). */
  filters: Record<string, string>;
  status: DataStatus;
  /** Only rows with a field not found in the document or found in several places. */
  review: boolean;
}

export const emptyDataView: DataViewState = { sort: null, filters: {}, status: "", review: false };

const STATUSES: DataStatus[] = ["", "valid", "invalid", "edited"];

/** The query string of a state ("" for the defaults). One q=PATH:TEXT per filtered column, in path order. */
export function dataStateToQuery(s: DataViewState): string {
  const p = new URLSearchParams();
  if (s.sort) {
    p.set("sort", s.sort.path);
    if (s.sort.order === "desc") p.set("order", "desc");
  }
  for (const path of Object.keys(s.filters).sort()) {
    const text = s.filters[path];
    if (text.trim()) p.append("q", `${path}:${text}`);
  }
  if (s.status) p.set("status", s.status);
  if (s.review) p.set("review", "1");
  return p.toString();
}

/**
 * The state a query string says; what it cannot say (an unknown status, a
 * filter without a path) is left at its default. `sort=-total` reads as
 * total descending, and `filter=` as `q=`.
 */
export function dataStateFromQuery(q: URLSearchParams | string): DataViewState {
  const p = typeof q === "string" ? new URLSearchParams(q.replace(/^\?/, "")) : q;
  let sort: DataViewState["sort"] = null;
  const raw = (p.get("sort") ?? "").trim();
  if (raw) {
    const desc = raw.startsWith("-") || p.get("order") === "desc";
    const path = raw.replace(/^-/, "");
    if (path) sort = { path, order: desc ? "desc" : "asc" };
  }
  const filters: Record<string, string> = {};
  for (const f of [...p.getAll("q"), ...p.getAll("filter")]) {
    const i = f.indexOf(":");
    if (i <= 0) continue;
    const text = f.slice(i + 1);
    if (text.trim()) filters[f.slice(0, i)] = text;
  }
  const st = (p.get("status") ?? "") as DataStatus;
  const review = ["1", "true", "yes"].includes((p.get("review") ?? "").toLowerCase());
  return { sort, filters, status: STATUSES.includes(st) ? st : "", review };
}

/** The data view's address for a schema and a state. */
export function dataViewHash(schemaId: string, s: DataViewState): string {
  const q = dataStateToQuery(s);
  return href("data", schemaId) + (q ? `?${q}` : "");
}

/** Whether two states show the same rows. */
export function sameDataView(a: DataViewState, b: DataViewState): boolean {
  return dataStateToQuery(a) === dataStateToQuery(b);
}
