import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from "react";
import { PageSource } from "../viewer/PageSource";
import { composerBlock } from "../setup/setup";
import { useSetupStatus } from "../setup/useSetup";
import { FailedDocument, WaitingForText } from "./UnreadDocument";
import { DocumentEmbedNote } from "./SearchHits";
import { useTitle } from "../lib/useTitle";
import { errorMessage } from "../api/http";
import { api } from "../api/routes.gen";
import type { DocumentInfo, Extraction, ListedDocument, WorkingState } from "../api/types";

/** A document as its page has it: from GET /api/documents/{id}, or a list's row with its kind's name. */
type ShownDocument = DocumentInfo & Partial<Pick<ListedDocument, "kind_name">>;
import { AgentPanel } from "../agent/AgentPanel";
import { ErrorBox, ErrorNote, Spinner } from "../components/common";
import { RefusedCalls } from "../proposals/RefusedCalls";
import { parseBox } from "../ask/citations";
import { evidenceOf, placeText, reviewList, targetOf, type FieldSelection } from "../evidence/evidence";
import type { HighlightRequest } from "../evidence/PageHighlight";
import { navigate, useRoute } from "../lib/router";
import { errorInput, type ErrorInput } from "../lib/errors";
import { useAsync } from "../lib/useAsync";
import { useUploads } from "../lib/uploads";
import { TextViewer } from "../viewer/TextViewer";
import { OcrStatus } from "../viewer/OcrStatus";
import { href } from "../lib/router";
import { StatusBadge, TagChips } from "./DocumentsPage";
import { ExtractionPanel } from "../data/ExtractionPanel";

const PdfViewer = lazy(() => import("../viewer/PdfViewer"));
const ImageViewer = lazy(() => import("../viewer/ImageViewer"));

type Tab = "document" | "extraction" | "agent";

/**
 * Auto-create on this document: a button to start it, its progress, and the
 * review of a proposal (accept, reject, or refine it in chat).
 */
/** Whether the page is laid out for a narrow screen (one pane at a time). */
const isNarrow = () => !!window.matchMedia?.("(max-width: 820px)").matches;

// Each cited place a link brings gets its own (negative) highlight key, so
// the viewer scrolls to it once, and never takes it for a field selection.
let citedPlaces = 0;

/**
 * The fields of a proposal's extraction that were not found in the
 * document, for a person to check before accepting it. The proposal's
 * extraction is the one the Extraction tab shows when it is that one
 * (edits included), else fetched.
 */
function ProposalReview({ doc, current, onPick }: { doc: DocumentInfo; current: Extraction | null; onPick(path: string): void }) {
  const id = doc.auto_create_extraction_id;
  const own = current && (!id || current.extraction_id === id) ? current : null;
  const fetched = useAsync(
    () => (own || !id ? Promise.resolve(null) : api.listExtractions(doc.id).then((l) => l.extractions).then((xs) => xs.find((x) => x.extraction_id === id) ?? null)),
    [doc.id, id, !!own],
  );
  const x = own ?? fetched.data ?? null;
  const evidence = useMemo(() => evidenceOf(x), [x]);
  const items = useMemo(() => (x ? reviewList(x.value, evidence) : []), [x, evidence]);
  if (!x || Object.keys(evidence).length === 0) return null;
  const unfound = items.filter((i) => i.evidence.status === "ungrounded");
  const several = items.length - unfound.length;
  const fields = (n: number) => (n === 1 ? "1 field" : `${n} fields`);
  return (
    <div className="proposal-review" data-testid="proposal-review" data-unfound={unfound.length} data-ambiguous={several}>
      {unfound.length > 0 ? (
        <>
          <strong className="error">{fields(unfound.length)} not found in the document</strong>: check {unfound.length === 1 ? "it" : "them"} before accepting.
          <ul>
            {unfound.map((i) => (
              <li key={i.path}>
                <button type="button" className="evidence-field" data-testid="proposal-unfound-field" data-path={i.path} onClick={() => onPick(i.path)} title="Show this field in the Extraction tab">
                  <code>{i.path}</code>: {i.value === null ? "null" : typeof i.value === "string" ? i.value : JSON.stringify(i.value)}
                </button>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <>Every proposed value was found in the document.</>
      )}
      {several > 0 && <> {fields(several)} found in several places: see “To review” in the Extraction tab.</>}
    </div>
  );
}

function AutoCreateBar({
  doc,
  current,
  onChanged,
  onRefine,
  onPick,
}: {
  doc: DocumentInfo;
  current: Extraction | null;
  onChanged(): void;
  onRefine(threadId: string): void;
  onPick(path: string): void;
}) {
  const [error, setError] = useState<ErrorInput | null>(null);
  const [busy, setBusy] = useState(false);
  const status = doc.auto_create_status || "none";
  const noModel = composerBlock(useSetupStatus().data);
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
    fn().then(onChanged, (e: unknown) => setError(errorInput(e))).finally(() => setBusy(false));
  };
  const start = (
    <>
      <button type="button" className="btn small" disabled={busy || !!noModel} onClick={() => act(() => api.startAutoCreate(doc.id, {}))} data-testid="auto-create-start">
        {status === "none" ? "Auto-create" : "Run auto-create again"}
      </button>
      {noModel && (
        <span className="muted" data-testid="auto-create-disabled-reason">
          {" "}
          {noModel} <a href="#/settings">Open Settings</a>
        </span>
      )}
    </>
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
          <ProposalReview doc={doc} current={current} onPick={onPick} />
          <RefusedCalls refused={doc.auto_create_refused} />
        </>
      )}
      {status === "failed" && (
        <>
          Auto-create failed: {doc.auto_create_error || "no proposal"}. {start}
          <RefusedCalls refused={doc.auto_create_refused} failed />
        </>
      )}
      {status === "rejected" && <>You rejected the proposal. {start}</>}
      {error && <ErrorNote className="field-error" role="alert" error={error} testid="auto-create-error" />}
    </div>
  );
}

/** The document's kind in its header: the schema's name, linking to its data view. */
function KindBadge({ doc }: { doc: ShownDocument }) {
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

/** A value of the kind picker that clears the kind (a schema id is never empty). */
const NO_KIND = "-";

/**
 * Moves the document to another kind: the kinds by schema name (ids in
 * tooltips). The server extracts the document again with the new kind's
 * prompt (the one a person chose), which takes a while with a local model.
 */
function KindPicker({ doc, onMoved }: { doc: ShownDocument; onMoved(): void }) {
  const schemas = useAsync(() => api.listSchemas().then((l) => l.schemas), []);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const others = (schemas.data ?? []).filter((s) => s.schema_id !== doc.schema_id);
  if (!doc.schema_id && others.length === 0) return null;
  const move = (value: string) => {
    if (!value) return;
    const id = value === NO_KIND ? "" : value;
    const name = id ? (others.find((s) => s.schema_id === id)?.name ?? id) : "";
    setBusy(id ? `Moving to ${name} and extracting it again…` : "Clearing the kind…");
    setError(null);
    api
      .setDocumentKind(doc.id, { schema_id: id })
      .then(
        (ans) => {
          if (ans.extraction_error) setError(`Moved to ${name}, but no extraction ran: ${ans.extraction_error}`);
          onMoved();
        },
        (e: unknown) => setError(errorMessage(e)),
      )
      .finally(() => setBusy(null));
  };
  return (
    <span className="kind-picker">
      <select
        className="kind-select"
        value=""
        disabled={!!busy || !schemas.data}
        onChange={(e) => move(e.target.value)}
        aria-label="Move this document to another kind"
        title={doc.schema_id ? `Its kind now: ${doc.kind_name || "a schema"} (${doc.schema_id}). Moving it extracts it again with the new kind's prompt.` : "Give this document a kind: it is extracted with that kind's prompt."}
        data-testid="doc-kind-select"
      >
        <option value="">{doc.schema_id ? "Move to kind…" : "Set kind…"}</option>
        {others.map((s) => (
          <option key={s.schema_id} value={s.schema_id} title={s.schema_id}>
            {s.name}
          </option>
        ))}
        {doc.schema_id && <option value={NO_KIND}>No kind</option>}
      </select>
      {busy && (
        <span className="muted small-text" role="status" data-testid="doc-kind-busy">
          {" "}
          {busy}
        </span>
      )}
      {error && (
        <span className="field-error" role="alert" data-testid="doc-kind-error">
          {" "}
          {error}
        </span>
      )}
      {schemas.error && <span className="field-error"> {schemas.error.message}</span>}
    </span>
  );
}

export default function DocumentPage({ docId, page: initialPage }: { docId: string; page?: number }) {
  // An upload's auto-create batch queues its documents after they were
  // added (autoCreateBatch.tsx), maybe while this one is open: it is read
  // again then (generation), and follows its run from there.
  const { generation } = useUploads();
  const doc = useAsync(() => api.getDocument(docId), [docId, generation]);
  useTitle(doc.data?.name);
  const tags = useAsync(() => api.listTags().then((l) => l.tags), []);
  const [page, setPage] = useState(initialPage ?? 1);
  const [pages, setPages] = useState(0);
  const [zoom, setZoom] = useState(0);
  const [tab, setTab] = useState<Tab>("agent");
  const [ws, setWs] = useState<{ state: WorkingState | null; revision: number }>({ state: null, revision: 0 });
  // A thread the agent panel is asked to open (a new object each time).
  const [chatThread, setChatThread] = useState<{ id: string } | null>(null);
  // The extraction the Extraction tab shows, whose evidence the viewer highlights.
  const [current, setCurrent] = useState<Extraction | null>(null);
  // The selected field (from the Extraction tab, or ?field=PATH), and a
  // number that changes with each selection (the viewer scrolls to it).
  const route = useRoute();
  const fieldParam = route.parts[0] === "documents" && route.parts[1] === docId ? route.query.get("field") : null;
  const [sel, setSel] = useState<{ field: FieldSelection; key: number } | null>(() => (fieldParam ? { field: { path: fieldParam }, key: 1 } : null));
  // A cited place from the link (#/documents/ID?page=N&box=x0,y0,x1,y1&quote=…,
  // an answer's citation): drawn until a field is selected or it is cleared.
  const own = route.parts[0] === "documents" && route.parts[1] === docId;
  const boxParam = own ? route.query.get("box") : null;
  const quoteParam = own ? route.query.get("quote") : null;
  const cited = useMemo<HighlightRequest | null>(() => {
    const bbox = parseBox(boxParam);
    if (!initialPage || (!bbox && !quoteParam)) return null;
    return { page: initialPage, bbox, quote: quoteParam || undefined, key: -++citedPlaces };
  }, [initialPage, boxParam, quoteParam]);
  const [citedCleared, setCitedCleared] = useState<HighlightRequest | null>(null);
  const citedShown = cited && citedCleared !== cited ? cited : null;
  // Bumped when the document moves to another kind: the extractions are fetched again.
  const [kindRev, setKindRev] = useState(0);

  const evidence = useMemo(() => evidenceOf(current), [current]);
  const selected = sel?.field ?? null;
  const selectedEv = selected ? evidence[selected.path] : undefined;
  const target = selected ? targetOf(selectedEv, selected.candidate) : null;
  const highlight: HighlightRequest | null = target && sel ? { ...target, key: sel.key } : selected ? null : citedShown;

  const select = useCallback(
    (field: FieldSelection | null) => {
      setSel((s) => (field ? { field, key: (s?.key ?? 0) + 1 } : null));
      const t = field ? targetOf(evidence[field.path], field.candidate) : null;
      if (t && isNarrow()) setTab("document");
    },
    [evidence],
  );

  // A link to a field (#/documents/ID?page=N&field=PATH) selects it and shows the extraction beside the page.
  useEffect(() => {
    if (!fieldParam) return;
    setSel((s) => (s?.field.path === fieldParam ? s : { field: { path: fieldParam }, key: (s?.key ?? 0) + 1 }));
    setTab(isNarrow() ? "document" : "extraction");
  }, [fieldParam]);

  // On a narrow screen a cited place shows the page, not the side pane.
  useEffect(() => {
    if (cited && isNarrow()) setTab("document");
  }, [cited]);

  // A selection goes to its page (once its evidence is known).
  const targetPage = target?.page;
  useEffect(() => {
    if (targetPage) setPage(targetPage);
  }, [sel?.key, targetPage]);

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
        <KindPicker
          doc={d}
          onMoved={() => {
            doc.reload();
            setKindRev((n) => n + 1);
            setSel(null);
          }}
        />
        <TagChips ids={d.tag_ids} tags={tags.data} />
        <a className="btn small link" href={`${href("history")}?document=${encodeURIComponent(d.id)}`} data-testid="doc-history">
          History
        </a>
      </div>
      {d.error && d.status === "needs_ocr" && <div className={`doc-error status-${d.status}`}>{d.error}</div>}
      <OcrStatus doc={d} onChanged={doc.reload} />
      <DocumentEmbedNote docId={d.id} status={d.status} />
      <AutoCreateBar
        doc={d}
        current={current}
        onChanged={doc.reload}
        onRefine={(id) => {
          setChatThread({ id });
          setTab("agent");
        }}
        onPick={(path) => {
          select({ path });
          setTab("extraction");
        }}
      />
      <div className="doc-tabs narrow-only" role="tablist">
        {(["document", "extraction", "agent"] as Tab[]).map((t) => (
          <button key={t} type="button" role="tab" aria-selected={tab === t} className={tab === t ? "active" : ""} onClick={() => setTab(t)}>
            {t[0].toUpperCase() + t.slice(1)}
          </button>
        ))}
      </div>
      {d.status === "failed" ? (
        <FailedDocument doc={d} onRead={doc.reload} />
      ) : (
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
            <PageSource docId={d.id} page={page} status={d.status} />
            {!selected && citedShown && (
              <span className="evidence-note" role="status" data-testid="cited-note">
                <span className="en-text">Cited: {placeText(citedShown)}</span>
                <button type="button" className="btn link small" onClick={() => setCitedCleared(citedShown)} aria-label="Clear the cited place" title="Clear the cited place">
                  ✕
                </button>
              </span>
            )}
            {selected && (
              <span className={`evidence-note${selectedEv?.status === "ungrounded" ? " ungrounded" : ""}`} role="status" data-testid="evidence-note" data-path={selected.path}>
                <code>{selected.path}</code>
                <span className="en-text">
                  {!selectedEv
                    ? current
                      ? ": no evidence for this field"
                      : "…"
                    : selectedEv.status === "ungrounded"
                      ? ": not found in the document"
                      : target
                        ? `: ${placeText(target)}`
                        : ": no place in the document"}
                </span>
                <button type="button" className="btn link small" onClick={() => select(null)} aria-label="Clear the selected field" title="Clear the selected field">
                  ✕
                </button>
              </span>
            )}
          </div>
          {/* Focusable, so that the keyboard can scroll the pages too. */}
          <div className="viewer-scroll" tabIndex={0} role="region" aria-label={`Pages of ${d.name}`}>
            {isPdf ? (
              <Suspense fallback={<Spinner label="Loading the PDF viewer…" />}>
                <PdfViewer url={api.documentFileURL(d.id)} page={page} zoom={zoom} onPages={setPages} highlight={highlight} />
              </Suspense>
            ) : isImage ? (
              <Suspense fallback={<Spinner label="Loading the image viewer…" />}>
                <ImageViewer docId={d.id} fileUrl={api.documentFileURL(d.id)} mediaType={d.media_type} pages={d.pages} page={page} zoom={zoom} onPages={setPages} highlight={highlight} />
              </Suspense>
            ) : (
              <TextViewer docId={d.id} page={page} onPages={setPages} highlight={highlight} />
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
            <ExtractionPanel
              docId={d.id}
              workingState={ws.state}
              revision={ws.revision + kindRev}
              selection={selected}
              onSelect={select}
              onCurrent={setCurrent}
            />
          </div>
          <div className="side-content agent-pane" hidden={tab === "extraction"}>
            {d.status === "needs_ocr" || d.status === "ocr" ? (
              <WaitingForText doc={d} />
            ) : (
              <AgentPanel docId={d.id} onDocLink={onDocLink} onWorkingState={onWorkingState} openThread={chatThread} />
            )}
          </div>
        </aside>
      </div>
      )}
    </div>
  );
}
