// The data view's table: a header of sortable, filterable columns over a
// body as tall as every row (ROW_HEIGHT each) in which only the rows near
// the scroll position exist, absolutely placed. Rows come from a RowStore,
// which fetches their pages as the window moves.

import { Fragment, useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore, type KeyboardEvent } from "react";
import type { DataColumn, DataRow, EvidenceMap, SortOrder } from "../api/types";
import { cellEvidence, countStatuses, evidenceOf, evidenceTitle, fieldHref, needsReview, targetOf } from "../evidence/evidence";
import { EvidenceMark } from "../evidence/EvidenceMark";
import { ErrorNote } from "../components/common";
import { errorInput, type ErrorInput } from "../lib/errors";
import { href } from "../lib/router";
import { cellProblems, cellText, editText, isArrayType, itemsLabel, parseCellInput, ROW_HEIGHT, windowOf, type RowStore } from "./dataRows";

export interface SortState {
  path: string;
  order: SortOrder;
}

export type SelectAllState = "none" | "some" | "all";

export interface DataGridProps {
  store: RowStore;
  sort: SortState | null;
  onSort(path: string): void;
  filters: Record<string, string>;
  onFilter(path: string, text: string): void;
  selected: ReadonlyMap<string, DataRow>;
  onSelect(row: DataRow, on: boolean): void;
  selectAll: SelectAllState;
  onSelectAll(on: boolean): void;
  /** Saves one cell; rejects with the server's message. */
  onSave(row: DataRow, column: DataColumn, value: unknown): Promise<void>;
  /** Changes with the query: the grid scrolls back to the top. */
  queryKey: string;
  /** The viewport the first render assumes (before the grid can measure itself; tests render without a DOM). */
  initialViewport?: { height: number; scrollTop: number };
}

/** The document name column's path, which the server also sorts by. */
export const NAME_PATH = "document_name";
/** The validation status's sort key. */
export const STATUS_PATH = "validation_status";

/** The least time between two fetches of the window's pages while it moves. */
const ENSURE_EVERY_MS = 80;

const SELECT_WIDTH = 36;
const NAME_WIDTH = 220;
const STATUS_WIDTH = 170;

function colWidth(c: DataColumn): number {
  const t = c.type.split("|");
  if (t.includes("boolean")) return 96;
  if (t.includes("array")) return 120;
  if (t.includes("number") || t.includes("integer")) return 120;
  return 180;
}

function isNumeric(c: DataColumn): boolean {
  const t = c.type.split("|");
  return t.includes("number") || t.includes("integer");
}

/** Each row's evidence, read once per row object (rows are replaced, not changed, when they change). */
const rowEvidence = new WeakMap<DataRow, EvidenceMap>();
function evidenceOfRow(row: DataRow): EvidenceMap {
  let m = rowEvidence.get(row);
  if (!m) {
    m = evidenceOf(row);
    rowEvidence.set(row, m);
  }
  return m;
}

/** "2 not found, 1 in several places" for a row's review badge. */
function reviewSummary(ev: EvidenceMap): { count: number; text: string } {
  const c = countStatuses(ev);
  const parts = [c.ungrounded ? `${c.ungrounded} not found in the document` : "", c.ambiguous ? `${c.ambiguous} found in several places` : ""].filter(Boolean);
  return { count: c.ungrounded + c.ambiguous, text: parts.join(", ") };
}

interface EditState {
  docId: string;
  path: string;
  text: string;
  /** The server's refusal, with its code (ErrorNote classifies it). */
  error: ErrorInput | null;
  saving: boolean;
}

/** A refused cell edit: the server's message, classified by its code, and the way out. */
export function CellError({ error }: { error: ErrorInput }) {
  return (
    <ErrorNote as="div" className="dg-bubble error" role="alert" testid="cell-error" error={error}>
      <div className="muted small-text">Enter to try again, Esc to keep the old value.</div>
    </ErrorNote>
  );
}

function SortButton({ path, title, sort, onSort }: { path: string; title: string; sort: SortState | null; onSort(p: string): void }) {
  const on = sort?.path === path;
  return (
    <button
      type="button"
      className={"dg-sort" + (on ? " on" : "")}
      onClick={() => onSort(path)}
      data-testid="col-sort"
      data-path={path}
      data-order={on ? sort!.order : ""}
      title={`Sort by ${title}`}
    >
      <span className="dg-title">{title}</span>
      <span className="dg-arrow" aria-hidden="true">
        {on ? (sort!.order === "asc" ? "▲" : "▼") : "↕"}
      </span>
    </button>
  );
}

function FilterInput({ path, title, value, onFilter }: { path: string; title: string; value: string; onFilter(p: string, t: string): void }) {
  return (
    <input
      className="dg-filter"
      type="search"
      value={value}
      placeholder="Filter"
      aria-label={`Filter ${title}`}
      data-testid="col-filter"
      data-path={path}
      onChange={(e) => onFilter(path, e.target.value)}
    />
  );
}

function SelectAllBox({ state, onSelectAll }: { state: SelectAllState; onSelectAll(on: boolean): void }) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = state === "some";
  }, [state]);
  return (
    <input
      ref={ref}
      type="checkbox"
      checked={state === "all"}
      onChange={() => onSelectAll(state !== "all")}
      aria-label="Select every row shown"
      data-testid="select-all"
    />
  );
}

/** The items of an array cell, as a small table when they are objects. */
function Items({ items }: { items: unknown[] }) {
  if (items.length === 0) return <span className="muted">No items.</span>;
  const objects = items.every((x) => x !== null && typeof x === "object" && !Array.isArray(x));
  if (!objects)
    return (
      <ol className="dg-items-list">
        {items.map((x, i) => (
          <li key={i}>{cellText(x)}</li>
        ))}
      </ol>
    );
  const keys = [...new Set(items.flatMap((x) => Object.keys(x as object)))];
  return (
    <table className="dg-items-table">
      <thead>
        <tr>
          <th>#</th>
          {keys.map((k) => (
            <th key={k}>{k}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {items.map((x, i) => (
          <tr key={i}>
            <td className="muted">{i + 1}</td>
            {keys.map((k) => (
              <td key={k}>{cellText((x as Record<string, unknown>)[k])}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function DataGrid(props: DataGridProps) {
  const { store, sort, onSort, filters, onFilter, selected, onSelect, selectAll, onSelectAll, onSave, queryKey } = props;
  useSyncExternalStore(store.subscribe, store.getVersion, store.getVersion);
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState(() => props.initialViewport ?? { height: 600, scrollTop: 0 });
  const [edit, setEdit] = useState<EditState | null>(null);
  const [open, setOpen] = useState<{ docId: string; path: string } | null>(null);

  const total = store.total ?? 0;
  const columns = store.columns;
  const { start, end } = windowOf(view.scrollTop, view.height, total);

  // Measure the viewport, and follow its size.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const measure = () => setView((v) => (v.height === el.clientHeight && v.scrollTop === el.scrollTop ? v : { height: el.clientHeight, scrollTop: el.scrollTop }));
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // A new query starts at the top.
  const firstKey = useRef(queryKey);
  useEffect(() => {
    if (firstKey.current === queryKey) return;
    firstKey.current = queryKey;
    if (scroller.current) scroller.current.scrollTop = 0;
    setView((v) => ({ ...v, scrollTop: 0 }));
    setEdit(null);
    setOpen(null);
  }, [queryKey]);

  // Fetch the window's pages: at once, but not more often than every
  // ENSURE_EVERY_MS while the window moves (a fling through thousands of
  // rows should not ask for every page on the way), and once more where it
  // stops.
  const version = store.getVersion();
  const lastEnsure = useRef(-Infinity);
  useEffect(() => {
    if (store.total === null) {
      store.ensure(0, end || 1);
      return;
    }
    const run = () => {
      lastEnsure.current = performance.now();
      store.ensure(start, end);
    };
    const wait = lastEnsure.current + ENSURE_EVERY_MS - performance.now();
    if (wait <= 0) {
      run();
      return;
    }
    const t = setTimeout(run, wait);
    return () => clearTimeout(t);
  }, [store, start, end, version]);

  // An open list of items closes on Escape or a click outside it.
  useEffect(() => {
    if (!open) return;
    const down = (e: MouseEvent) => {
      if (!(e.target as HTMLElement).closest?.(".dg-bubble, .dg-items-toggle")) setOpen(null);
    };
    const key = (e: globalThis.KeyboardEvent) => {
      if (e.key === "Escape") setOpen(null);
    };
    document.addEventListener("mousedown", down);
    document.addEventListener("keydown", key);
    return () => {
      document.removeEventListener("mousedown", down);
      document.removeEventListener("keydown", key);
    };
  }, [open]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    const next = windowOf(el.scrollTop, el.clientHeight, total);
    // Re-render only when the window moves by a row.
    if (next.start !== start || next.end !== end) setView({ height: el.clientHeight, scrollTop: el.scrollTop });
  };

  const startEdit = (row: DataRow, col: DataColumn) => {
    setOpen(null);
    setEdit({ docId: row.document_id, path: col.path, text: editText(row.values[col.path]), error: null, saving: false });
  };

  const save = (row: DataRow, col: DataColumn) => {
    if (!edit || edit.saving) return;
    const value = parseCellInput(edit.text, col.type);
    setEdit({ ...edit, saving: true, error: null });
    onSave(row, col, value).then(
      () => setEdit((e) => (e && e.docId === row.document_id && e.path === col.path ? null : e)),
      (err: unknown) =>
        setEdit((e) => (e && e.docId === row.document_id && e.path === col.path ? { ...e, saving: false, error: errorInput(err) } : e)),
    );
  };

  const template = [`${SELECT_WIDTH}px`, `${NAME_WIDTH}px`, `${STATUS_WIDTH}px`, ...columns.map((c) => `${colWidth(c)}px`)].join(" ");
  const width = SELECT_WIDTH + NAME_WIDTH + STATUS_WIDTH + columns.reduce((n, c) => n + colWidth(c), 0);

  const valueCell = (row: DataRow, col: DataColumn, ev: EvidenceMap) => {
    const v = row.values[col.path];
    const evc = cellEvidence(ev, col.path);
    const problems = cellProblems(row, col.path);
    const edited = (row.edited ?? []).some((p) => p === col.path || p.startsWith(col.path + "."));
    const status = problems.length ? "invalid" : row.validation_status === "valid" || row.validation_errors ? "valid" : row.validation_status || "";
    const editing = edit && edit.docId === row.document_id && edit.path === col.path ? edit : null;
    const isOpen = open?.docId === row.document_id && open.path === col.path;
    const evStatus = evc?.evidence.status;
    const cls = [
      "dg-cell",
      "dg-value",
      isNumeric(col) ? "num" : "",
      `s-${status || "none"}`,
      edited ? "edited" : "",
      editing ? "editing" : "",
      evc && !editing ? "has-ev" : "",
      needsReview(evStatus) && !editing ? `ev-cell-${evStatus}` : "",
    ]
      .filter(Boolean)
      .join(" ");
    const title =
      [problems.join("\n"), edited ? "Edited by hand" : "", evc && needsReview(evStatus) ? `${evc.path}: ${evidenceTitle(evc.evidence)}` : ""].filter(Boolean).join("\n") ||
      undefined;
    if (editing) {
      return (
        <div key={col.path} role="gridcell" className={cls} data-testid="data-cell" data-path={col.path} data-status={status} data-edited={edited ? "true" : undefined}>
          <input
            className={"dg-editor" + (editing.error ? " invalid" : "")}
            autoFocus
            value={editing.text}
            readOnly={editing.saving}
            aria-label={`New value of ${col.title}`}
            aria-invalid={editing.error ? true : undefined}
            data-testid="cell-editor"
            onChange={(e) => setEdit({ ...editing, text: e.target.value, error: null })}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                save(row, col);
              } else if (e.key === "Escape") {
                e.preventDefault();
                setEdit(null);
              }
            }}
            onBlur={() => setEdit((x) => (x && !x.saving && x.docId === row.document_id && x.path === col.path ? null : x))}
          />
          {editing.error && <CellError error={editing.error} />}
        </div>
      );
    }
    let content;
    if (Array.isArray(v)) {
      content = (
        <button
          type="button"
          className="btn link small dg-items-toggle"
          aria-expanded={isOpen}
          data-testid="cell-items-toggle"
          onClick={(e) => {
            e.stopPropagation();
            setOpen(isOpen ? null : { docId: row.document_id, path: col.path });
          }}
        >
          {itemsLabel(v.length)} {isOpen ? "▴" : "▾"}
        </button>
      );
    } else if (v === null || v === undefined) {
      content = <span className="dg-null">—</span>;
    } else {
      content = <span className="dg-text">{cellText(v)}</span>;
    }
    return (
      <div
        key={col.path}
        role="gridcell"
        tabIndex={0}
        className={cls}
        title={title}
        data-testid="data-cell"
        data-path={col.path}
        data-status={status}
        data-edited={edited ? "true" : undefined}
        data-evidence={evStatus}
        onDoubleClick={() => startEdit(row, col)}
        onKeyDown={(e: KeyboardEvent) => {
          if ((e.key === "Enter" || e.key === "F2") && e.target === e.currentTarget) {
            e.preventDefault();
            startEdit(row, col);
          }
        }}
      >
        {evc && <EvidenceMark evidence={evc.evidence} path={evc.path} compact href={fieldHref(row.document_id, evc.path, targetOf(evc.evidence)?.page)} />}
        {content}
        {edited && <span className="dg-edited" aria-label="edited" title="Edited by hand" />}
        {isOpen && Array.isArray(v) && (
          <div className="dg-bubble" data-testid="cell-items" onDoubleClick={(e) => e.stopPropagation()}>
            <Items items={v} />
            {isArrayType(col.type) && (
              <button type="button" className="btn link small" onClick={() => startEdit(row, col)}>
                Edit as JSON
              </button>
            )}
          </div>
        )}
      </div>
    );
  };

  const rows = [];
  for (let i = start; i < end; i++) {
    const row = store.row(i);
    const style = { top: i * ROW_HEIGHT, height: ROW_HEIGHT, gridTemplateColumns: template, width };
    if (!row) {
      rows.push(
        <div key={`p${i}`} role="row" className="dg-row pending" style={style} data-testid="data-row-pending" aria-rowindex={i + 2}>
          <div className="dg-cell dg-select" />
          <div className="dg-cell dg-name muted">…</div>
        </div>,
      );
      continue;
    }
    const isSel = selected.has(row.document_id);
    const ev = evidenceOfRow(row);
    const review = reviewSummary(ev);
    const raised = (edit && edit.docId === row.document_id) || open?.docId === row.document_id;
    rows.push(
      <div
        key={row.document_id}
        role="row"
        className={"dg-row" + (isSel ? " selected" : "") + (raised ? " raised" : "") + (i % 2 ? " odd" : "")}
        style={style}
        aria-rowindex={i + 2}
        aria-selected={isSel}
        data-testid="data-row"
        data-index={i}
        data-doc-id={row.document_id}
        data-extraction-id={row.extraction_id}
      >
        <div className="dg-cell dg-select" role="gridcell">
          <input type="checkbox" checked={isSel} onChange={(e) => onSelect(row, e.target.checked)} aria-label={`Select ${row.document_name}`} data-testid="row-select" />
        </div>
        <div className="dg-cell dg-name" role="gridcell">
          <a href={href("documents", row.document_id)} title={`Open ${row.document_name}`} data-testid="open-doc">
            {row.document_name}
          </a>
        </div>
        <div className="dg-cell dg-status" role="gridcell">
          <span className={`badge v-${row.validation_status}`} data-testid="row-validation">
            {row.validation_status || "—"}
          </span>
          {row.auto_create_status === "proposed" && (
            <span className="badge auto" title="An auto-create proposal waits for review">
              proposal
            </span>
          )}
          {review.count > 0 && (
            <span className="badge ev-review" title={`To review: ${review.text}`} aria-label={`To review: ${review.text}`} data-testid="row-review" data-count={review.count}>
              ⚑ {review.count}
            </span>
          )}
        </div>
        {columns.map((c) => valueCell(row, c, ev))}
      </div>,
    );
  }

  return (
    <div className="data-grid" ref={scroller} onScroll={onScroll} role="grid" aria-rowcount={total + 1} aria-colcount={columns.length + 3} data-testid="data-grid">
      <div className="dg-head" role="row" style={{ gridTemplateColumns: template, width }}>
        <div className="dg-cell dg-select" role="columnheader">
          <SelectAllBox state={selectAll} onSelectAll={onSelectAll} />
        </div>
        <div className="dg-cell dg-name" role="columnheader" aria-sort={sort?.path === NAME_PATH ? (sort.order === "asc" ? "ascending" : "descending") : undefined}>
          <SortButton path={NAME_PATH} title="Document" sort={sort} onSort={onSort} />
          <FilterInput path={NAME_PATH} title="document name" value={filters[NAME_PATH] ?? ""} onFilter={onFilter} />
        </div>
        <div className="dg-cell dg-status" role="columnheader" aria-sort={sort?.path === STATUS_PATH ? (sort.order === "asc" ? "ascending" : "descending") : undefined}>
          <SortButton path={STATUS_PATH} title="Status" sort={sort} onSort={onSort} />
        </div>
        {columns.map((c) => (
          <Fragment key={c.path}>
            <div
              className={"dg-cell" + (isNumeric(c) ? " num" : "")}
              role="columnheader"
              title={`${c.path} (${c.type})`}
              aria-sort={sort?.path === c.path ? (sort.order === "asc" ? "ascending" : "descending") : undefined}
            >
              <SortButton path={c.path} title={c.title || c.path} sort={sort} onSort={onSort} />
              <FilterInput path={c.path} title={c.title || c.path} value={filters[c.path] ?? ""} onFilter={onFilter} />
            </div>
          </Fragment>
        ))}
      </div>
      <div className="dg-body" role="rowgroup" style={{ height: total * ROW_HEIGHT, width }} data-testid="data-body" data-rendered={end - start}>
        {rows}
      </div>
    </div>
  );
}
