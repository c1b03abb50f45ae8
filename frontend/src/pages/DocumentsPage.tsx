import { useEffect, useRef, useState } from "react";
import { api } from "../api/routes.gen";
import type { DocumentInfo, DocumentSort, ListedDocument, SortOrder, Tag } from "../api/types";
import { Empty, ErrorBox, ErrorNote, formatBytes, formatDate, Spinner } from "../components/common";
import { href, navigate } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { formatCount } from "../lib/format";
import { batchText, notStarted } from "../lib/autoCreateBatch";
import { useUploads } from "../lib/uploads";
import { useTitle } from "../lib/useTitle";
import { SearchHits } from "./SearchHits";

const PAGE_SIZE = 25;

export function StatusBadge({ doc }: { doc: DocumentInfo }) {
  const label = doc.status === "needs_ocr" ? "needs OCR" : doc.status || "ready";
  return (
    <span className={`badge status-${doc.status || "ready"}`} data-testid="doc-status" title={doc.error || undefined}>
      {label}
    </span>
  );
}

export function TagChips({ ids, tags }: { ids: string[]; tags: Tag[] | undefined }) {
  if (!ids?.length) return null;
  return (
    <span className="tag-chips">
      {ids.map((id) => {
        const t = tags?.find((x) => x.id === id);
        return (
          <a key={id} className="tag-chip" href={href("tags", id)} title={t ? `${t.name} (${id})` : id} style={t?.color ? { borderColor: t.color } : undefined}>
            {t?.color && <span className="dot" style={{ background: t.color }} />}
            {t?.name ?? id}
          </a>
        );
      })}
    </span>
  );
}

/** The document's kind: its schema's name, linking to the schema's data view. */
export function KindLink({ doc }: { doc: ListedDocument }) {
  if (!doc.schema_id) return <span className="muted">—</span>;
  return (
    <a className="kind-link" href={href("data", doc.schema_id)} title={`Open the data of ${doc.kind_name || "this kind"} (${doc.schema_id})`} data-testid="doc-kind">
      {doc.kind_name || doc.schema_id}
    </a>
  );
}

function StateBadge({ value, prefix, testid }: { value: string | undefined; prefix: string; testid: string }) {
  if (!value || value === "none") return <span className="muted" data-testid={testid} data-status="none">—</span>;
  return (
    <span className={`badge ${prefix}-${value}`} data-testid={testid} data-status={value}>
      {value}
    </span>
  );
}

const SORTS: [DocumentSort, string][] = [
  ["name", "Name"],
  ["created_at", "Added"],
  ["kind", "Kind"],
  ["auto_create_status", "Auto-create"],
  ["extraction_status", "Extraction"],
];

interface DocSort {
  sort: DocumentSort;
  order: SortOrder;
}

/** Asc, then desc, then the server's order (newest first); dates start with the newest. */
function nextSort(cur: DocSort | null, col: DocumentSort): DocSort | null {
  const first: SortOrder = col === "created_at" ? "desc" : "asc";
  if (cur?.sort !== col) return { sort: col, order: first };
  if (cur.order === first) return { sort: col, order: first === "asc" ? "desc" : "asc" };
  return null;
}

function SortHead({ col, label, sort, onSort }: { col: DocumentSort; label: string; sort: DocSort | null; onSort(c: DocumentSort): void }) {
  const on = sort?.sort === col;
  return (
    <button
      type="button"
      className={"sort-head" + (on ? " on" : "")}
      onClick={() => onSort(col)}
      data-testid="doc-sort"
      data-sort={col}
      data-order={on ? sort!.order : ""}
      aria-label={`Sort by ${label}`}
    >
      {label} {on ? (sort!.order === "asc" ? "▲" : "▼") : ""}
    </button>
  );
}

function Uploads() {
  const { items, batches, retryBatch, autoCreate, setAutoCreate, upload, clearFinished } = useUploads();
  const input = useRef<HTMLInputElement>(null);
  return (
    <section className="upload-box">
      <div className="upload-row">
        <button type="button" className="btn primary" onClick={() => input.current?.click()}>
          Add documents…
        </button>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          data-testid="upload-input"
          accept=".pdf,.txt,.md,.markdown,.csv,.json,.html,.htm,application/pdf,text/*"
          onChange={(e) => {
            const files = Array.from(e.target.files ?? []);
            if (files.length) upload(files);
            e.target.value = "";
          }}
        />
        <label className="check">
          <input
            type="checkbox"
            checked={autoCreate}
            data-testid="auto-create"
            onChange={(e) => setAutoCreate(e.target.checked)}
          />
          Auto-create schema and prompt
        </label>
        <span className="muted hint">or drop files anywhere in this window</span>
      </div>
      {items.length + batches.length > 0 && (
        <ul className="upload-list" data-testid="upload-list">
          {items.map((it) => (
            <li key={it.key} className={`upload-item ${it.status}`} data-testid="upload-item" data-status={it.status}>
              <span className="name">
                {it.docId ? <a href={href("documents", it.docId)}>{it.name}</a> : it.name}
              </span>
              {it.status === "uploading" && (
                <progress max={1} value={it.progress} aria-label={`Uploading ${it.name}`} />
              )}
              {it.status === "done" && <span className="ok">Added</span>}
              {it.error && <ErrorNote className="error" error={it.error} />}
            </li>
          ))}
          {batches.map((b) => (
            <li key={`batch-${b.key}`} className="upload-item auto-create-batch" data-testid="auto-create-batch" data-status={b.status}>
              <span role="status" data-testid="auto-create-batch-text">{batchText(b)}</span>
              {b.error && <ErrorNote className="error" role="alert" error={b.error} testid="auto-create-batch-error" />}
              {b.error && notStarted(b).length > 0 && (
                <button type="button" className="btn small" onClick={() => retryBatch(b)} data-testid="auto-create-batch-retry">
                  Start {notStarted(b).length === 1 ? "it" : `the ${formatCount(notStarted(b).length)}`} again
                </button>
              )}
            </li>
          ))}
          {(items.some((x) => x.status !== "uploading") || batches.some((b) => !["estimating", "asking", "starting"].includes(b.status))) && (
            <li>
              <button type="button" className="btn link" onClick={clearFinished}>
                Clear finished
              </button>
            </li>
          )}
        </ul>
      )}
    </section>
  );
}

export function DocumentsPage() {
  const [q, setQ] = useState("");
  const [debounced, setDebounced] = useState("");
  const [tagId, setTagId] = useState("");
  const [offset, setOffset] = useState(0);
  const [sort, setSort] = useState<DocSort | null>(null);
  const { generation } = useUploads();
  useTitle("Documents");
  useEffect(() => {
    const t = setTimeout(() => setDebounced(q.trim()), 250);
    return () => clearTimeout(t);
  }, [q]);
  useEffect(() => setOffset(0), [debounced, tagId, sort]);

  const tags = useAsync(() => api.listTags().then((l) => l.tags), []);
  const docs = useAsync(
    () => api.listDocuments({ q: debounced, tag_id: tagId ? [tagId] : undefined, limit: PAGE_SIZE, offset, sort: sort?.sort, order: sort?.order }),
    [debounced, tagId, offset, generation, sort],
  );
  // Refresh while an auto-create runs, so its status moves without a reload.
  const running = docs.data?.documents.some(
    (d) => ["running", "pending"].includes(d.auto_create_status) || ["running", "pending"].includes(d.extraction_status ?? ""),
  );
  useEffect(() => {
    if (!running) return;
    const t = setInterval(docs.reload, 3000);
    return () => clearInterval(t);
  }, [running, docs.reload]);

  const total = docs.data?.total ?? 0;
  const filtered = !!(debounced || tagId);
  return (
    <div className="page documents-page">
      <div className="page-head">
        <h1>Documents</h1>
        <a className="btn primary" href={href("ask")} data-testid="home-ask">
          Ask Docent
        </a>
      </div>
      <p className="muted home-ask-hint">Ask Docent answers questions about all of your documents and their data, with sources you can open.</p>
      <Uploads />
      <div className="filters">
        <input
          type="search"
          placeholder="Search names and text…"
          value={q}
          onChange={(e) => setQ(e.target.value)}
          data-testid="doc-search"
          aria-label="Search documents"
        />
        <select value={tagId} onChange={(e) => setTagId(e.target.value)} data-testid="tag-filter" aria-label="Filter by tag">
          <option value="">All tags</option>
          {tags.data?.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
      </div>
      {debounced && <SearchHits query={debounced} tagId={tagId} />}
      {docs.error && <ErrorBox error={docs.error} onRetry={docs.reload} />}
      {docs.loading && !docs.data && <Spinner label="Loading documents…" />}
      {docs.data && docs.data.documents.length === 0 && (
        filtered ? (
          <Empty title="No document matches">Try other words, or clear the tag filter.</Empty>
        ) : (
          <Empty title="No documents yet">
            Add PDFs or text files with <b>Add documents…</b>, drop them anywhere in this window, or run{" "}
            <code>docent import FOLDER</code>.
          </Empty>
        )
      )}
      {docs.data && docs.data.documents.length > 0 && (
        <>
          <ul className="doc-list" data-testid="doc-list">
            <li className="doc-list-head" data-testid="doc-list-head">
              <span className="doc-col-name">
                <SortHead col="name" label="Name" sort={sort} onSort={(c) => setSort(nextSort(sort, c))} />
                <span className="muted"> · </span>
                <SortHead col="created_at" label="Added" sort={sort} onSort={(c) => setSort(nextSort(sort, c))} />
              </span>
              {SORTS.slice(2).map(([col, label]) => (
                <span key={col} className="doc-col">
                  <SortHead col={col} label={label} sort={sort} onSort={(c) => setSort(nextSort(sort, c))} />
                </span>
              ))}
              <span className="doc-side" />
            </li>
            {docs.data.documents.map((d) => (
              <li
                key={d.id}
                className="doc-row"
                data-testid="doc-row"
                data-doc-id={d.id}
                onClick={(e) => {
                  // The row opens the document, except where it holds a link of its own.
                  if ((e.target as HTMLElement).closest("a, button, input, select")) return;
                  navigate(href("documents", d.id));
                }}
              >
                <span className="doc-col-name">
                  <a href={href("documents", d.id)} className="doc-link">
                    <span className="doc-name">{d.name}</span>
                    <span className="doc-meta muted">
                      {d.pages ? `${formatCount(d.pages)} page${d.pages === 1 ? "" : "s"} · ` : ""}
                      {formatBytes(d.size)} · {formatDate(d.created_at)}
                    </span>
                  </a>
                  <TagChips ids={d.tag_ids} tags={tags.data} />
                </span>
                <span className="doc-col" title="Kind">
                  <KindLink doc={d} />
                </span>
                <span className="doc-col" title="Auto-create">
                  <StateBadge value={d.auto_create_status} prefix="ac" testid="doc-auto-create" />
                </span>
                <span className="doc-col" title="Extraction">
                  <StateBadge value={d.extraction_status} prefix="x" testid="doc-extraction" />
                </span>
                <span className="doc-side">
                  <StatusBadge doc={d} />
                </span>
                {(d.status === "needs_ocr" || d.status === "failed") && d.error && (
                  <div className={`doc-error status-${d.status}`} data-testid="doc-error">
                    {d.error}
                  </div>
                )}
              </li>
            ))}
          </ul>
          <div className="pager" data-testid="pager">
            <button type="button" className="btn" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
              Previous
            </button>
            <span className="muted">
              {formatCount(offset + 1)}–{formatCount(Math.min(offset + PAGE_SIZE, total))} of {formatCount(total)}
            </span>
            <button type="button" className="btn" disabled={offset + PAGE_SIZE >= total} onClick={() => setOffset(offset + PAGE_SIZE)}>
              Next
            </button>
          </div>
        </>
      )}
    </div>
  );
}
