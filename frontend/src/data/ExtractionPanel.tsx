// The Extraction tab: the document's current extraction, live while the
// agent works (working_state.extraction from done results; a refetch after
// run_extraction / update_extraction_field results), with field edits and a
// way to run a prompt. Each value carries its evidence: a mark of whether it
// was found in the document, a "To review" list of those that were not or
// were found in several places, and a click on a field selects it, which
// the document page highlights in the viewer.

import { useEffect, useMemo, useRef, useState } from "react";
import { api } from "../api/routes.gen";
import type { EvidenceMap, Extraction, FieldEvidence, WorkingState } from "../api/types";
import { Empty, ErrorBox, ErrorNote, formatDate, Json, Spinner } from "../components/common";
import { countStatuses, evidenceOf, evidenceTitle, placeText, reviewList, reviewReason, type FieldSelection } from "../evidence/evidence";
import { EvidenceMark } from "../evidence/EvidenceMark";
import { PromptLink } from "../components/ArtifactLink";
import { useArtifactNames } from "../lib/names";
import { useAsync } from "../lib/useAsync";
import { errorInput, type ErrorInput } from "../lib/errors";

/** A leaf's value as text. */
function valueText(value: unknown): string {
  return value === null ? "null" : typeof value === "string" ? value : JSON.stringify(value);
}

/** What the fields of a tree share: their evidence, which one is selected, and how to select one or save one. */
interface TreeContext {
  evidence: EvidenceMap;
  selection: FieldSelection | null;
  /** Selects a field (or one of its candidate places); the same field again unselects it. */
  onPick(path: string, candidate?: number): void;
  onSave(path: string, v: unknown): Promise<void>;
}

/** Where a selected field stands: nowhere, its one place, or its candidate places to choose from. */
function EvidenceDetail({ path, ev, candidate, onPick }: { path: string; ev: FieldEvidence; candidate?: number; onPick: TreeContext["onPick"] }) {
  if (ev.status === "ungrounded") {
    return (
      <div className="evidence-detail ungrounded" role="status" data-testid="evidence-detail" data-status={ev.status}>
        Not found in the document: check this value by hand.
      </div>
    );
  }
  const candidates = ev.candidates ?? [];
  if (ev.status === "ambiguous" && candidates.length > 0) {
    const chosen = candidate ?? 0;
    return (
      <div className="evidence-detail ambiguous" role="status" data-testid="evidence-detail" data-status={ev.status}>
        Found in {candidates.length === 1 ? "one place, not surely this one" : `${candidates.length} places`}; the likeliest first:
        <ol>
          {candidates.map((c, i) => (
            <li key={i}>
              <button
                type="button"
                className="evidence-candidate"
                aria-pressed={chosen === i}
                data-testid="evidence-candidate"
                data-path={path}
                data-index={i}
                data-page={c.page}
                onClick={() => onPick(path, i)}
              >
                {placeText(c)}
              </button>
            </li>
          ))}
        </ol>
      </div>
    );
  }
  const at = placeText(ev);
  return (
    <div className={`evidence-detail ${ev.status}`} role="status" data-testid="evidence-detail" data-status={ev.status}>
      {ev.status === "edited" ? "Edited by you" : "Found"}
      {at ? ` on ${at}` : ev.status === "edited" ? "; it has no place in the document." : "."}
      {at && !ev.bbox && <span className="muted"> (no box to draw on this page)</span>}
    </div>
  );
}

function Leaf({ path, value, ctx }: { path: string; value: unknown; ctx: TreeContext }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState("");
  const [err, setErr] = useState<ErrorInput | null>(null);
  const ev = ctx.evidence[path];
  const selected = !!ev && ctx.selection?.path === path;
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (selected) button.current?.scrollIntoView?.({ block: "nearest" });
  }, [selected]);
  if (editing) {
    return (
      <form
        className="leaf-edit"
        onSubmit={(e) => {
          e.preventDefault();
          let v: unknown;
          try {
            v = JSON.parse(text);
          } catch {
            v = text; // plain text is a string value
          }
          ctx.onSave(path, v).then(() => setEditing(false), (x: unknown) => setErr(errorInput(x)));
        }}
      >
        <input value={text} onChange={(e) => setText(e.target.value)} autoFocus aria-label={`Value of ${path}`} data-testid="extraction-edit-input" />
        <button type="submit" className="btn small primary">
          Save
        </button>
        <button type="button" className="btn small" onClick={() => setEditing(false)}>
          Cancel
        </button>
        {err && <ErrorNote className="field-error" error={err} />}
      </form>
    );
  }
  const shown = <span className={`leaf-value t-${value === null ? "null" : typeof value}`}>{valueText(value)}</span>;
  return (
    <span className={"leaf" + (selected ? " selected" : "")}>
      {ev ? (
        <button
          ref={button}
          type="button"
          className="evidence-field"
          aria-pressed={selected}
          title={`${evidenceTitle(ev)}. Click to show it in the document.`}
          data-testid="evidence-field"
          data-path={path}
          data-status={ev.status}
          onClick={() => ctx.onPick(path)}
        >
          {shown}
        </button>
      ) : (
        shown
      )}
      {ev && <EvidenceMark evidence={ev} path={path} />}
      <button
        type="button"
        className="btn link small leaf-edit-btn"
        title={`Edit ${path}`}
        onClick={() => {
          setText(typeof value === "string" ? value : JSON.stringify(value));
          setErr(null);
          setEditing(true);
        }}
      >
        edit
      </button>
      {selected && <EvidenceDetail path={path} ev={ev} candidate={ctx.selection?.candidate} onPick={ctx.onPick} />}
    </span>
  );
}

function Tree({ value, path, ctx }: { value: unknown; path: string; ctx: TreeContext }) {
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return <span className="muted">{Array.isArray(value) ? "[]" : "{}"}</span>;
    return (
      <dl className="tree">
        {entries.map(([k, v]) => {
          const p = path ? `${path}.${k}` : k;
          // A leaf's label selects it too (by mouse; its value is the button).
          const pick = ctx.evidence[p] && (v === null || typeof v !== "object") ? () => ctx.onPick(p) : undefined;
          return (
            <div key={k} className="tree-row">
              <dt className={pick ? "clickable" : undefined} onClick={pick} data-path={pick ? p : undefined}>
                {k}
              </dt>
              <dd>
                <Tree value={v} path={p} ctx={ctx} />
              </dd>
            </div>
          );
        })}
      </dl>
    );
  }
  return <Leaf path={path} value={value} ctx={ctx} />;
}

/** The fields to check first: not found in the document, then found in several places. */
function ReviewList({ value, evidence, selection, onPick }: { value: unknown; evidence: EvidenceMap; selection: FieldSelection | null; onPick: TreeContext["onPick"] }) {
  const items = useMemo(() => reviewList(value, evidence), [value, evidence]);
  const n = Object.keys(evidence).length;
  if (n === 0) return null;
  if (items.length === 0) {
    const c = countStatuses(evidence);
    return (
      <div className="evidence-summary" data-testid="evidence-summary">
        ✓ Every value was found in the document{c.edited ? ` (${c.edited} edited by you)` : ""}.
      </div>
    );
  }
  return (
    <div className="evidence-review" data-testid="evidence-review" data-count={items.length}>
      <div className="evidence-review-head">To review ({items.length})</div>
      <ul>
        {items.map((x) => (
          <li key={x.path}>
            <button
              type="button"
              className="evidence-review-item"
              aria-pressed={selection?.path === x.path}
              data-testid="evidence-review-item"
              data-path={x.path}
              data-status={x.evidence.status}
              onClick={() => onPick(x.path)}
            >
              <EvidenceMark evidence={x.evidence} path={x.path} compact />
              <code>{x.path}</code>
              <span className="rv-value">{valueText(x.value)}</span>
              <span className="rv-why">{reviewReason(x.evidence)}</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

export interface ExtractionPanelProps {
  docId: string;
  workingState: WorkingState | null;
  revision: number;
  /** The field selected on the document page (the viewer highlights it). */
  selection?: FieldSelection | null;
  /** Selects a field (null: none). */
  onSelect?(selection: FieldSelection | null): void;
  /** Told the extraction shown whenever it changes: its evidence is what the page highlights. */
  onCurrent?(x: Extraction | null): void;
}

export function ExtractionPanel({ docId, workingState, revision, selection = null, onSelect, onCurrent }: ExtractionPanelProps) {
  const list = useAsync(() => api.listExtractions(docId).then((l) => l.extractions), [docId, revision]);
  const prompts = useAsync(() => api.listPrompts().then((l) => l.prompts), []);
  const [selected, setSelected] = useState<string | null>(null);
  const names = useArtifactNames();
  const [override, setOverride] = useState<Extraction | null>(null);
  const [promptRev, setPromptRev] = useState("");
  const [running, setRunning] = useState(false);
  const [runError, setRunError] = useState<ErrorInput | null>(null);
  const [showRaw, setShowRaw] = useState(false);

  useEffect(() => setOverride(null), [revision]);

  const all = useMemo(() => {
    const xs = [...(list.data ?? [])];
    const ws = workingState?.extraction;
    if (ws && ws.document_id === docId) {
      const i = xs.findIndex((x) => x.extraction_id === ws.extraction_id);
      if (i < 0) xs.unshift(ws);
      else if ((ws.updated_at ?? "") > (xs[i].updated_at ?? "")) xs[i] = ws;
    }
    if (override) {
      const i = xs.findIndex((x) => x.extraction_id === override.extraction_id);
      if (i < 0) xs.unshift(override);
      else xs[i] = override;
    }
    return xs.sort((a, b) => (b.updated_at || b.created_at || "").localeCompare(a.updated_at || a.created_at || ""));
  }, [list.data, workingState, docId, override]);

  const current = all.find((x) => x.extraction_id === selected) ?? all[0] ?? null;
  const evidence = useMemo(() => evidenceOf(current), [current]);

  useEffect(() => {
    onCurrent?.(current);
  }, [current, onCurrent]);

  const save = async (path: string, value: unknown) => {
    if (!current) return;
    const x = await api.patchExtraction(docId, current.extraction_id, { path: path, value });
    setOverride(x);
  };

  const run = async () => {
    if (!promptRev) return;
    setRunning(true);
    setRunError(null);
    try {
      const x = await api.runExtraction(docId, { prompt_revid: promptRev });
      setOverride(x);
      setSelected(x.extraction_id);
      list.reload();
    } catch (e) {
      setRunError(errorInput(e));
    } finally {
      setRunning(false);
    }
  };

  const onPick = (path: string, candidate?: number) => {
    if (!onSelect) return;
    if (selection?.path === path && candidate === undefined) onSelect(null);
    else onSelect({ path, candidate });
  };
  const ctx: TreeContext = { evidence, selection, onPick, onSave: save };

  const errors = Array.isArray(current?.validation_errors) ? (current!.validation_errors as { path?: string; message?: string }[]) : [];

  return (
    <div className="extraction-panel" data-testid="extraction-panel">
      <div className="run-row">
        <select value={promptRev} onChange={(e) => setPromptRev(e.target.value)} aria-label="Prompt to run" data-testid="extraction-prompt-select">
          <option value="">Choose a prompt to run…</option>
          {prompts.data?.map((p) => (
            <option key={p.prompt_revid} value={p.prompt_revid}>
              {p.name} v{p.version}
            </option>
          ))}
        </select>
        <button type="button" className="btn primary small" disabled={!promptRev || running} onClick={() => void run()} data-testid="run-extraction-button">
          {running ? "Running…" : "Run extraction"}
        </button>
      </div>
      {runError && <ErrorBox error={runError} />}
      {list.error && <ErrorBox error={list.error} onRetry={list.reload} />}
      {list.loading && !list.data && <Spinner label="Loading extractions…" />}
      {list.data && !current && (
        <Empty title="No extraction yet">
          Run a prompt above, or ask the agent: “Create a schema and a prompt for this document, then run the extraction.”
          {prompts.data?.length === 0 && <> You have no prompts yet: <a href="#/prompts">create one</a>.</>}
        </Empty>
      )}
      {current && (
        <div className="extraction" data-testid="extraction-current" data-extraction-id={current.extraction_id}>
          <div className="extraction-meta">
            <span className={`badge v-${current.validation_status}`} data-testid="extraction-validation">
              {current.validation_status || "unvalidated"}
            </span>
            {current.edited && <span className="badge">edited</span>}
            <span>
              prompt <PromptLink refId={current.prompt_revid} fallback="deleted" />
            </span>
            <span className="muted">{current.model}</span>
            <span className="muted">{formatDate(current.updated_at || current.created_at)}</span>
          </div>
          {all.length > 1 && (
            <select value={current.extraction_id} onChange={(e) => setSelected(e.target.value)} aria-label="Extraction">
              {all.map((x) => (
                <option key={x.extraction_id} value={x.extraction_id}>
                  {formatDate(x.updated_at || x.created_at)} · {names.prompt(x.prompt_revid)?.label ?? "prompt"}
                  {x.edited ? " · edited" : ""}
                </option>
              ))}
            </select>
          )}
          {current.note && (
            <p className="field-error" role="status" data-testid="extraction-note">
              {current.note}
            </p>
          )}
          <ReviewList value={current.value} evidence={evidence} selection={selection} onPick={onPick} />
          {errors.length > 0 && (
            <ul className="validation-errors">
              {errors.map((e, i) => (
                <li key={i}>
                  <code>{e.path || "/"}</code> {e.message}
                </li>
              ))}
            </ul>
          )}
          <div className="extraction-value" data-testid="extraction-value">
            <Tree value={current.value} path="" ctx={ctx} />
          </div>
          <div className="export-row">
            <button type="button" className="btn link small" onClick={() => setShowRaw(!showRaw)}>
              {showRaw ? "Hide JSON" : "Show JSON"}
            </button>
            <span className="muted">Export this prompt's results for every document:</span>
            <a className="btn small" href={api.exportURL(current.prompt_revid, { format: "csv" })} download data-testid="export-csv">
              CSV
            </a>
            <a className="btn small" href={api.exportURL(current.prompt_revid, { format: "json" })} download data-testid="export-json">
              JSON
            </a>
          </div>
          {showRaw && <Json value={current.value} />}
          {(current.prompt_tokens > 0 || current.completion_tokens > 0) && (
            <div className="muted small-text">
              {current.prompt_tokens} prompt + {current.completion_tokens} completion tokens
            </div>
          )}
        </div>
      )}
    </div>
  );
}
