import { useEffect, useRef, useState } from "react";
import { api } from "../api/routes";
import type { DocumentInfo, Tag } from "../api/types";
import { Empty, ErrorBox, formatBytes, formatDate, Spinner } from "../components/common";
import { href } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { useUploads } from "../lib/uploads";

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
          <a key={id} className="tag-chip" href={href("tags", id)} style={t?.color ? { borderColor: t.color } : undefined}>
            {t?.color && <span className="dot" style={{ background: t.color }} />}
            {t?.name ?? id}
          </a>
        );
      })}
    </span>
  );
}

function Uploads() {
  const { items, autoCreate, setAutoCreate, upload, clearFinished } = useUploads();
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
      {items.length > 0 && (
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
              {it.error && <span className="error">{it.error}</span>}
            </li>
          ))}
          {items.some((x) => x.status !== "uploading") && (
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
  const { generation } = useUploads();
  useEffect(() => {
    const t = setTimeout(() => setDebounced(q.trim()), 250);
    return () => clearTimeout(t);
  }, [q]);
  useEffect(() => setOffset(0), [debounced, tagId]);

  const tags = useAsync(() => api.listTags(), []);
  const docs = useAsync(
    () => api.listDocuments({ q: debounced, tag_id: tagId, limit: PAGE_SIZE, offset }),
    [debounced, tagId, offset, generation],
  );
  // Refresh while an auto-create runs, so its status moves without a reload.
  const running = docs.data?.documents.some((d) => d.auto_create_status === "running" || d.auto_create_status === "pending");
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
      </div>
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
            {docs.data.documents.map((d) => (
              <li key={d.id} className="doc-row" data-testid="doc-row" data-doc-id={d.id}>
                <a href={href("documents", d.id)} className="doc-link">
                  <span className="doc-name">{d.name}</span>
                  <span className="doc-meta muted">
                    {d.pages ? `${d.pages} page${d.pages === 1 ? "" : "s"} · ` : ""}
                    {formatBytes(d.size)} · {formatDate(d.created_at)}
                  </span>
                </a>
                <span className="doc-side">
                  <TagChips ids={d.tag_ids} tags={tags.data} />
                  {d.auto_create_status && d.auto_create_status !== "none" && (
                    <span className="badge auto">auto-create: {d.auto_create_status}</span>
                  )}
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
              {offset + 1}–{Math.min(offset + PAGE_SIZE, total)} of {total}
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
