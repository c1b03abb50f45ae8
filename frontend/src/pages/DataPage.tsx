// The data view of one schema (#/data/SCHEMA_ID): a row per document whose
// latest extraction used the schema, a column per field. Sort, filter and
// the status filter go to the server; "needs review" (a field not found in
// the document or found in several places) is picked out here. All of it
// lives in the URL (dataUrl.ts). Cells are edited through the extraction's
// field patch; selected rows can be re-run or their proposals accepted; the
// export links carry the same filters.

import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import { api } from "../api/routes.gen";
import type { DataColumn, DataQuery, DataRow, DataStatus, EvidenceMap, Extraction } from "../api/types";
import { rowQuery } from "../api/types";
import { Empty, ErrorBox, Spinner } from "../components/common";
import { evidenceOf } from "../evidence/evidence";
import { href, navigate, parseHash, useRoute } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { DataGrid, type SelectAllState, type SortState } from "../data/DataGrid";
import { reviewPager, RowStore, valueAt, type FetchPage, type ReviewPager } from "../data/dataRows";
import { followRows } from "../data/liveRows";
import { dataStateFromQuery, dataViewHash, sameDataView, type DataViewState } from "../data/dataUrl";
import { errorInput, type ErrorInput } from "../lib/errors";

const STATUSES: [DataStatus, string][] = [
  ["", "All rows"],
  ["valid", "Valid"],
  ["invalid", "Invalid"],
  ["edited", "Edited"],
];

/** How long after the last keystroke a column filter applies. */
const FILTER_DELAY_MS = 300;
/** How often the table is fetched again while a re-run is under way. */
const RERUN_POLL_MS = 2000;
/** The most documents one bulk request may name (the server's limit). */
const BULK_MAX = 1000;

interface BulkReport {
  errors?: { document_id: string; error: string }[];
}

/** The ids in requests of at most BULK_MAX, one after another; the errors of all. */
async function inBatches(ids: string[], send: (batch: string[]) => Promise<unknown>): Promise<{ document_id: string; error: string }[]> {
  const errors: { document_id: string; error: string }[] = [];
  for (let i = 0; i < ids.length; i += BULK_MAX) {
    const ans = (await send(ids.slice(i, i + BULK_MAX))) as BulkReport | undefined;
    errors.push(...(ans?.errors ?? []));
  }
  return errors;
}

/** "2 could not: a.txt: no prompt; …" */
function bulkErrors(errors: { document_id: string; error: string }[], names: Map<string, string>): string | null {
  if (!errors.length) return null;
  const shown = errors.slice(0, 5).map((e) => `${names.get(e.document_id) ?? e.document_id}: ${e.error}`);
  return `${errors.length} could not: ${shown.join("; ")}${errors.length > 5 ? "; …" : ""}`;
}

/**
 * The row after a field patch answered with the extraction. The evidence
 * is the extraction's when it has some; else the row's, with the edited
 * field's marked edited.
 */
export function rowFromExtraction(row: DataRow, columns: DataColumn[], path: string, x: Extraction): DataRow {
  const values: Record<string, unknown> = { ...row.values };
  for (const c of columns) values[c.path] = valueAt(x.value, c.path);
  let evidence: EvidenceMap | undefined = row.evidence;
  if ((x as { evidence?: unknown }).evidence !== undefined) evidence = evidenceOf(x);
  else if (row.evidence) {
    evidence = { ...row.evidence };
    for (const p of Object.keys(evidence)) if (p === path || p.startsWith(path + ".")) evidence[p] = { ...evidence[p], status: "edited" };
  }
  return {
    ...row,
    evidence,
    extraction_id: x.extraction_id || row.extraction_id,
    validation_status: x.validation_status || row.validation_status,
    validation_errors: Array.isArray(x.validation_errors) ? (x.validation_errors as DataRow["validation_errors"]) : row.validation_errors,
    edited: row.edited?.includes(path) ? row.edited : [...(row.edited ?? []), path],
    values,
  };
}

export default function DataPage({ schemaId }: { schemaId: string }) {
  const schema = useAsync(() => api.getSchema(schemaId), [schemaId]);
  const schemas = useAsync(() => api.listSchemas().then((l) => l.schemas), []);
  // Sort, filters, status and review start as the URL says (a reload, the
  // back button, a link) and are written back to it as they change.
  const route = useRoute();
  const [initial] = useState(() => dataStateFromQuery(route.query));
  const [sort, setSort] = useState<SortState | null>(initial.sort);
  const [filterText, setFilterText] = useState<Record<string, string>>(initial.filters);
  const [filters, setFilters] = useState<Record<string, string>>(initial.filters);
  const [status, setStatus] = useState<DataStatus>(initial.status);
  const [review, setReview] = useState(initial.review);
  const [selected, setSelected] = useState<Map<string, DataRow>>(() => new Map());
  const [busy, setBusy] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [actionError, setActionError] = useState<ErrorInput | string | null>(null);
  const [rerunning, setRerunning] = useState(false);

  useEffect(() => {
    const t = setTimeout(() => setFilters(Object.fromEntries(Object.entries(filterText).filter(([, v]) => v.trim()))), FILTER_DELAY_MS);
    return () => clearTimeout(t);
  }, [filterText]);

  const query: DataQuery = useMemo(() => ({ sort: sort?.path, order: sort?.order, filters, status }), [sort, filters, status]);
  const queryKey = JSON.stringify([schemaId, query, review]);

  // The state in the URL: replaced, not pushed, so that back leaves the view.
  const view: DataViewState = useMemo(() => ({ sort, filters, status, review }), [sort, filters, status, review]);
  const viewRef = useRef(view);
  viewRef.current = view;
  useEffect(() => {
    const here = parseHash(window.location.hash);
    if (here.parts[0] !== "data" || here.parts[1] !== schemaId) return;
    const want = dataViewHash(schemaId, view);
    if (window.location.hash !== want) window.history.replaceState(window.history.state, "", want);
  }, [schemaId, view]);
  // A link to this view with other settings (the address changed, not by us).
  const routeQuery = route.query.toString();
  useEffect(() => {
    if (route.parts[0] !== "data" || route.parts[1] !== schemaId) return;
    const s = dataStateFromQuery(routeQuery);
    if (sameDataView(s, viewRef.current)) return;
    setSort(s.sort);
    setFilterText(s.filters);
    setFilters(s.filters);
    setStatus(s.status);
    setReview(s.review);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [routeQuery]);

  // The rows of the query; with "needs review", those of them that need it.
  const pager = useRef<ReviewPager | null>(null);
  const fetcher = (): FetchPage => {
    const all: FetchPage = (offset, limit, signal) => api.schemaRows(schemaId, { ...rowQuery(query), offset, limit }, signal);
    pager.current = review ? reviewPager(all) : null;
    return pager.current ? pager.current.fetchPage : all;
  };
  const store = useMemo(() => new RowStore(fetcher()), []); // eslint-disable-line react-hooks/exhaustive-deps
  const version = useSyncExternalStore(store.subscribe, store.getVersion, store.getVersion);
  const firstQuery = useRef(true);
  useEffect(() => {
    if (firstQuery.current) {
      firstQuery.current = false;
      return;
    }
    store.setQuery(fetcher());
    setSelected(new Map());
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [queryKey]);
  /** The same query again (after an edit or a re-run): rows stay until the new ones come. */
  const refresh = useCallback(() => {
    pager.current?.invalidate();
    store.refresh();
  }, [store]);

  // Rows that appear elsewhere (the inbox, auto-create, another window) show without a reload.
  useEffect(() => followRows(schemaId, refresh), [schemaId, refresh]);

  // While a re-run is under way (the server answers when every run has
  // ended), fetch the table now and then so that rows change as runs end.
  useEffect(() => {
    if (!rerunning) return;
    const t = setInterval(refresh, RERUN_POLL_MS);
    return () => clearInterval(t);
  }, [rerunning, refresh]);

  const onSort = useCallback((path: string) => {
    setSort((s) => (s?.path !== path ? { path, order: "asc" } : s.order === "asc" ? { path, order: "desc" } : null));
  }, []);
  const onFilter = useCallback((path: string, text: string) => setFilterText((f) => ({ ...f, [path]: text })), []);

  const onSelect = useCallback((row: DataRow, on: boolean) => {
    setSelected((s) => {
      const next = new Map(s);
      if (on) next.set(row.document_id, row);
      else next.delete(row.document_id);
      return next;
    });
  }, []);

  const total = store.total ?? 0;
  const selectAll: SelectAllState = selected.size === 0 ? "none" : total > 0 && selected.size >= total ? "all" : "some";
  const onSelectAll = useCallback(
    (on: boolean) => {
      if (!on) {
        setSelected(new Map());
        return;
      }
      const pick = (rows: DataRow[]) => setSelected(new Map(rows.map((r) => [r.document_id, r])));
      if (store.total !== null && store.loadedCount() >= store.total) {
        pick(store.loadedRows());
        return;
      }
      setBusy("select");
      store.loadAll().then(pick, (e: unknown) => setActionError(errorInput(e))).finally(() => setBusy(null));
    },
    [store],
  );

  const onSave = useCallback(
    async (row: DataRow, col: DataColumn, value: unknown) => {
      const x = await api.patchExtraction(row.document_id, row.extraction_id, { path: col.path, value });
      store.updateRow(row.document_id, (r) => rowFromExtraction(r, store.columns, col.path, x));
    },
    [store],
  );

  // The selected rows as last fetched (a re-run or an edit changes them).
  const current = useMemo(() => {
    if (selected.size === 0) return [];
    const byId = store.rowsById();
    return [...selected.values()].map((r) => byId.get(r.document_id) ?? r);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [selected, version, store]);

  const names = useMemo(() => new Map(current.map((r) => [r.document_id, r.document_name])), [current]);

  const rerun = () => {
    const ids = current.map((r) => r.document_id);
    const n = ids.length;
    setBusy("rerun");
    setActionError(null);
    setNotice(`Re-running ${n} document${n === 1 ? "" : "s"}…`);
    setRerunning(true);
    inBatches(ids, (batch) => api.rerunSchema(schemaId, { document_ids: batch }))
      .then(
        (errors) => {
          setNotice(`Re-ran ${n - errors.length} of ${n} document${n === 1 ? "" : "s"}.`);
          setActionError(bulkErrors(errors, names));
        },
        (e: unknown) => {
          setNotice(null);
          setActionError(errorInput(e));
        },
      )
      .finally(() => {
        setRerunning(false);
        setBusy(null);
        refresh();
      });
  };

  const proposals = current.filter((r) => r.auto_create_status === "proposed").map((r) => r.document_id);
  const accept = () => {
    const n = proposals.length;
    setBusy("accept");
    setActionError(null);
    setNotice(null);
    inBatches(proposals, (batch) => api.acceptAutoCreateMany({ document_ids: batch }))
      .then(
        (errors) => {
          setNotice(`Accepted ${n - errors.length} proposal${n - errors.length === 1 ? "" : "s"}.`);
          setActionError(bulkErrors(errors, names));
        },
        (e: unknown) => setActionError(errorInput(e)),
      )
      .finally(() => {
        setBusy(null);
        refresh();
      });
  };

  const name = schema.data?.name ?? schemaId;
  const filtered = Object.keys(filters).length > 0 || !!status || review;
  const otherSchemas = (schemas.data ?? []).filter((s) => s.schema_id !== schemaId);
  const loaded = store.total !== null;

  return (
    <div className="data-page" data-testid="data-page">
      <div className="data-head">
        <div className="data-title">
          <h1>
            {name} <span className="muted data-sub">data</span>
          </h1>
          <span className="muted" data-testid="data-total" data-total={loaded ? total : ""}>
            {loaded ? `${total.toLocaleString("en-US")} document${total === 1 ? "" : "s"}${filtered ? " match" : ""}` : "…"}
          </span>
          <a href={href("schemas", schemaId)} className="small-text" title={schemaId}>
            schema
          </a>
          {otherSchemas.length > 0 && (
            <select
              value=""
              onChange={(e) => e.target.value && navigate(href("data", e.target.value))}
              aria-label="Show the data of another schema"
              title="Show the data of another schema"
              data-testid="data-schema-select"
              className="small-text"
            >
              <option value="">Other kinds…</option>
              {otherSchemas.map((s) => (
                <option key={s.schema_id} value={s.schema_id} title={s.schema_id}>
                  {s.name}
                </option>
              ))}
            </select>
          )}
        </div>
        <div className="data-tools">
          <label className="review-toggle" title="Only rows with a value not found in the document, or found in several places">
            <input type="checkbox" checked={review} onChange={(e) => setReview(e.target.checked)} data-testid="review-filter" />
            Needs review
          </label>
          <select value={status} onChange={(e) => setStatus(e.target.value as DataStatus)} aria-label="Show rows" data-testid="status-filter">
            {STATUSES.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
          <span className="muted small-text" title={review ? "The export does not pick out the rows that need review" : undefined}>
            {review ? "Export (all rows, other filters applied):" : "Export what is shown:"}
          </span>
          <a className="btn small" href={api.schemaExportURL(schemaId, { ...rowQuery(query), format: "csv" })} download data-testid="data-export-csv">
            CSV
          </a>
          <a className="btn small" href={api.schemaExportURL(schemaId, { ...rowQuery(query), format: "xlsx" })} download data-testid="data-export-xlsx">
            XLSX
          </a>
          <a className="btn small" href={api.schemaExportURL(schemaId, { ...rowQuery(query), format: "json" })} download data-testid="data-export-json">
            JSON
          </a>
        </div>
      </div>
      {selected.size > 0 && (
        <div className="bulk-bar" data-testid="bulk-bar">
          <span data-testid="selected-count">
            {selected.size} selected
          </span>
          <button type="button" className="btn small primary" disabled={!!busy} onClick={rerun} data-testid="bulk-rerun">
            {busy === "rerun" ? "Re-running…" : "Re-run extraction"}
          </button>
          <button type="button" className="btn small" disabled={!!busy || proposals.length === 0} onClick={accept} data-testid="bulk-accept" title="Accept the auto-create proposals of the selected documents">
            Accept proposals{proposals.length ? ` (${proposals.length})` : ""}
          </button>
          <button type="button" className="btn small link" onClick={() => setSelected(new Map())}>
            Clear selection
          </button>
        </div>
      )}
      {busy === "select" && <Spinner label="Selecting every row…" />}
      {notice && (
        <div className="note" data-testid="data-notice" role="status">
          {notice}
        </div>
      )}
      {actionError && <ErrorBox error={actionError} />}
      {schema.error && <ErrorBox error={schema.error} onRetry={schema.reload} />}
      {store.error && <ErrorBox error={store.error} onRetry={refresh} />}
      {loaded && total === 0 && !store.loading ? (
        review && !Object.keys(filters).length && !status ? (
          <Empty title="Nothing to review">Every value of these rows was found in the document, in one place.</Empty>
        ) : filtered ? (
          <Empty title="No row matches">Clear a column filter, the status filter or “Needs review” to see more.</Empty>
        ) : (
          <Empty title="No data yet">
            No document's latest extraction used this schema. Run its prompt on documents, or let auto-create propose one.
          </Empty>
        )
      ) : null}
      <div className="data-grid-wrap" hidden={loaded && total === 0 && !filtered}>
        {!loaded && !store.error && <Spinner label="Loading rows…" />}
        <DataGrid
          store={store}
          sort={sort}
          onSort={onSort}
          filters={filterText}
          onFilter={onFilter}
          selected={selected}
          onSelect={onSelect}
          selectAll={selectAll}
          onSelectAll={onSelectAll}
          onSave={onSave}
          queryKey={queryKey}
        />
      </div>
    </div>
  );
}
