import { lazy, Suspense, useCallback, useEffect, useState } from "react";
import { api } from "../api/routes";
import type { DocumentInfo, WorkingState } from "../api/types";
import { AgentPanel } from "../agent/AgentPanel";
import { ErrorBox, Spinner } from "../components/common";
import { navigate } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { TextViewer } from "../viewer/TextViewer";
import { OcrStatus } from "../viewer/OcrStatus";
import { href } from "../lib/router";
import { StatusBadge, TagChips } from "./DocumentsPage";
import { ExtractionPanel } from "./ExtractionPanel";

const PdfViewer = lazy(() => import("../viewer/PdfViewer"));
const ImageViewer = lazy(() => import("../viewer/ImageViewer"));

type Tab = "document" | "extraction" | "agent";

/**
 * Auto-create on this document: a button to start it, its progress, and the
 * review of a proposal (accept, reject, or refine it in chat).
 */
function AutoCreateBar({ doc, onChanged, onRefine }: { doc: DocumentInfo; onChanged(): void; onRefine(threadId: string): void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const status = doc.auto_create_status || "none";
  useEffect(() => {
    if (status !== "running" && status !== "pending") return;
    const t = setInterval(onChanged, 2000);
    return () => clearInterval(t);
  }, [status, onChanged]);
  // Only where there is something to do: not once accepted, and not to
  // offer a first run to a document that already has a kind.
  if (doc.status !== "ready" || status === "accepted" || (status === "none" && doc.schema_id)) return null;
  const act = (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    fn().then(onChanged, (e: unknown) => setError(e instanceof Error ? e.message : String(e))).finally(() => setBusy(false));
  };
  const start = (
    <button type="button" className="btn small" disabled={busy} onClick={() => act(() => api.startAutoCreate(doc.id))} data-testid="auto-create-start">
      {status === "none" ? "Auto-create" : "Run auto-create again"}
    </button>
  );
  return (
    <div className="note auto-create-bar" data-testid="auto-create-status" data-status={status}>
      {status === "none" && <>Let the agent propose a schema, a prompt and an extraction for this document. {start}</>}
      {(status === "pending" || status === "running") && (
        <>
          <Spinner label={status === "pending" ? "Auto-create is queued…" : "The agent is proposing a schema, a prompt and an extraction…"} />
        </>
      )}
      {status === "proposed" && (
        <>
          The agent proposed a schema, a prompt and an extraction; see the Extraction tab.{" "}
          <button type="button" className="btn small primary" disabled={busy} onClick={() => act(() => api.acceptAutoCreate(doc.id))} data-testid="auto-create-accept">
            Accept
          </button>{" "}
          <button type="button" className="btn small" disabled={busy} onClick={() => act(() => api.rejectAutoCreate(doc.id))} data-testid="auto-create-reject">
            Reject
          </button>{" "}
          {doc.auto_create_thread_id && (
            <button type="button" className="btn small" onClick={() => onRefine(doc.auto_create_thread_id!)} data-testid="auto-create-refine">
              Refine in chat
            </button>
          )}
          {doc.auto_create_refused && doc.auto_create_refused.length > 0 && (
            <div className="field-error" data-testid="auto-create-refused">
              Review with care: the run tried {doc.auto_create_refused.length === 1 ? "one change" : `${doc.auto_create_refused.length} changes`} outside
              its own document and what it made, and was refused (the document's text may be telling the model what to do):
              <ul>
                {doc.auto_create_refused.map((r, i) => (
                  <li key={i}>
                    <code>{r.tool}</code>: {r.reason}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </>
      )}
      {status === "failed" && (
        <>
          Auto-create failed: {doc.auto_create_error || "no proposal"}. {start}
        </>
      )}
      {status === "rejected" && <>You rejected the proposal. {start}</>}
      {error && <span className="field-error"> {error}</span>}
    </div>
  );
}

/** The document's kind in its header: the schema's name, linking to its data view. */
function KindBadge({ doc }: { doc: DocumentInfo }) {
  const name = useAsync(
    () => (doc.kind_name || !doc.schema_id ? Promise.resolve(doc.kind_name ?? "") : api.getSchema(doc.schema_id).then((s) => s.name)),
    [doc.schema_id, doc.kind_name],
  );
  if (!doc.schema_id) return null;
  return (
    <a className="badge kind" href={href("data", doc.schema_id)} title="The data of every document of this kind" data-testid="doc-kind">
      {name.data || "kind"} · data
    </a>
  );
}

export default function DocumentPage({ docId, page: initialPage }: { docId: string; page?: number }) {
  const doc = useAsync(() => api.getDocument(docId), [docId]);
  const tags = useAsync(() => api.listTags(), []);
  const [page, setPage] = useState(initialPage ?? 1);
  const [pages, setPages] = useState(0);
  const [zoom, setZoom] = useState(0);
  const [tab, setTab] = useState<Tab>("agent");
  const [ws, setWs] = useState<{ state: WorkingState | null; revision: number }>({ state: null, revision: 0 });
  // A thread the agent panel is asked to open (a new object each time).
  const [chatThread, setChatThread] = useState<{ id: string } | null>(null);

  useEffect(() => {
    if (initialPage) setPage(initialPage);
  }, [initialPage]);

  const clamp = (n: number) => Math.max(1, pages ? Math.min(pages, n) : n);
  const go = (n: number) => setPage(clamp(n));

  const onDocLink = useCallback(
    (id: string, p?: number) => {
      if (id !== docId) return false; // another document: follow the link
      if (p) {
        setPage(p);
        setTab((t) => (window.matchMedia?.("(max-width: 820px)").matches ? "document" : t));
      }
      return true;
    },
    [docId],
  );
  const onWorkingState = useCallback((state: WorkingState | null, revision: number) => setWs({ state, revision }), []);

  if (doc.error) return <div className="page"><ErrorBox error={doc.error} onRetry={doc.reload} /></div>;
  if (!doc.data) return <Spinner label="Opening document…" />;
  const d = doc.data;
  const isPdf = d.media_type === "application/pdf" || /\.pdf$/i.test(d.name);
  const isImage = d.media_type.startsWith("image/");

  return (
    <div className={`doc-page show-${tab}`}>
      <div className="doc-header">
        <button type="button" className="btn link" onClick={() => navigate("#/documents")}>
          ← Documents
        </button>
        <h1 title={d.name}>{d.name}</h1>
        <StatusBadge doc={d} />
        <KindBadge doc={d} />
        <TagChips ids={d.tag_ids} tags={tags.data} />
      </div>
      {d.error && (d.status === "needs_ocr" || d.status === "failed") && <div className={`doc-error status-${d.status}`}>{d.error}</div>}
      <OcrStatus doc={d} onChanged={doc.reload} />
      <AutoCreateBar
        doc={d}
        onChanged={doc.reload}
        onRefine={(id) => {
          setChatThread({ id });
          setTab("agent");
        }}
      />
      <div className="doc-tabs narrow-only" role="tablist">
        {(["document", "extraction", "agent"] as Tab[]).map((t) => (
          <button key={t} type="button" role="tab" aria-selected={tab === t} className={tab === t ? "active" : ""} onClick={() => setTab(t)}>
            {t[0].toUpperCase() + t.slice(1)}
          </button>
        ))}
      </div>
      <div className="doc-body">
        <section className="viewer-pane">
          <div className="viewer-toolbar">
            <button type="button" className="btn small" onClick={() => go(page - 1)} disabled={page <= 1} data-testid="page-prev" aria-label="Previous page">
              ‹
            </button>
            <span className="page-indicator" data-testid="page-indicator" data-page={page}>
              Page{" "}
              <input
                type="number"
                min={1}
                max={pages || undefined}
                value={page}
                onChange={(e) => go(Number(e.target.value) || 1)}
                aria-label="Page number"
              />{" "}
              of {pages || "…"}
            </span>
            <button type="button" className="btn small" onClick={() => go(page + 1)} disabled={!!pages && page >= pages} data-testid="page-next" aria-label="Next page">
              ›
            </button>
            {(isPdf || isImage) && (
              <span className="zoom">
                <button type="button" className="btn small" onClick={() => setZoom((z) => Math.max(0.25, (z || 1) - 0.25))} aria-label="Zoom out" data-testid="zoom-out">
                  −
                </button>
                <button type="button" className="btn small" onClick={() => setZoom(0)} data-testid="zoom-fit" title="Fit width">
                  {zoom ? `${Math.round(zoom * 100)}%` : "Fit"}
                </button>
                <button type="button" className="btn small" onClick={() => setZoom((z) => Math.min(4, (z || 1) + 0.25))} aria-label="Zoom in" data-testid="zoom-in">
                  +
                </button>
              </span>
            )}
            <a className="btn small link" href={api.documentFileURL(d.id)} target="_blank" rel="noreferrer">
              Original
            </a>
          </div>
          <div className="viewer-scroll">
            {isPdf ? (
              <Suspense fallback={<Spinner label="Loading the PDF viewer…" />}>
                <PdfViewer url={api.documentFileURL(d.id)} page={page} zoom={zoom} onPages={setPages} />
              </Suspense>
            ) : isImage ? (
              <Suspense fallback={<Spinner label="Loading the image viewer…" />}>
                <ImageViewer docId={d.id} fileUrl={api.documentFileURL(d.id)} mediaType={d.media_type} pages={d.pages} page={page} zoom={zoom} onPages={setPages} />
              </Suspense>
            ) : (
              <TextViewer docId={d.id} page={page} onPages={setPages} />
            )}
          </div>
        </section>
        <aside className="side-pane">
          <div className="side-tabs wide-only" role="tablist">
            <button type="button" role="tab" aria-selected={tab !== "extraction"} className={tab !== "extraction" ? "active" : ""} onClick={() => setTab("agent")} data-testid="tab-agent">
              Agent
            </button>
            <button type="button" role="tab" aria-selected={tab === "extraction"} className={tab === "extraction" ? "active" : ""} onClick={() => setTab("extraction")} data-testid="tab-extraction">
              Extraction
            </button>
          </div>
          <div className="side-content extraction-pane" hidden={tab !== "extraction"}>
            <ExtractionPanel docId={d.id} workingState={ws.state} revision={ws.revision} />
          </div>
          <div className="side-content agent-pane" hidden={tab === "extraction"}>
            <AgentPanel docId={d.id} onDocLink={onDocLink} onWorkingState={onWorkingState} openThread={chatThread} />
          </div>
        </aside>
      </div>
    </div>
  );
}
