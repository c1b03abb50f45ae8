// The Extraction tab: the document's current extraction, live while the
// agent works (working_state.extraction from done results; a refetch after
// run_extraction / update_extraction_field results), with field edits and a
// way to run a prompt.

import { useEffect, useMemo, useState } from "react";
import { errorMessage } from "../api/http";
import { api } from "../api/routes";
import type { Extraction, WorkingState } from "../api/types";
import { Empty, ErrorBox, formatDate, Json, Spinner } from "../components/common";
import { href } from "../lib/router";
import { useAsync } from "../lib/useAsync";

function Leaf({ path, value, onSave }: { path: string; value: unknown; onSave(path: string, v: unknown): Promise<void> }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState("");
  const [err, setErr] = useState<string | null>(null);
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
          onSave(path, v).then(() => setEditing(false), (x: unknown) => setErr(errorMessage(x)));
        }}
      >
        <input value={text} onChange={(e) => setText(e.target.value)} autoFocus aria-label={`Value of ${path}`} data-testid="extraction-edit-input" />
        <button type="submit" className="btn small primary">
          Save
        </button>
        <button type="button" className="btn small" onClick={() => setEditing(false)}>
          Cancel
        </button>
        {err && <span className="field-error">{err}</span>}
      </form>
    );
  }
  return (
    <span className="leaf">
      <span className={`leaf-value t-${value === null ? "null" : typeof value}`}>{value === null ? "null" : typeof value === "string" ? value : JSON.stringify(value)}</span>
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
    </span>
  );
}

function Tree({ value, path, onSave }: { value: unknown; path: string; onSave(path: string, v: unknown): Promise<void> }) {
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return <span className="muted">{Array.isArray(value) ? "[]" : "{}"}</span>;
    return (
      <dl className="tree">
        {entries.map(([k, v]) => {
          const p = path ? `${path}.${k}` : k;
          return (
            <div key={k} className="tree-row">
              <dt>{k}</dt>
              <dd>
                <Tree value={v} path={p} onSave={onSave} />
              </dd>
            </div>
          );
        })}
      </dl>
    );
  }
  return <Leaf path={path} value={value} onSave={onSave} />;
}

export function ExtractionPanel({ docId, workingState, revision }: { docId: string; workingState: WorkingState | null; revision: number }) {
  const list = useAsync(() => api.listExtractions(docId), [docId, revision]);
  const prompts = useAsync(() => api.listPrompts(), []);
  const [selected, setSelected] = useState<string | null>(null);
  const [override, setOverride] = useState<Extraction | null>(null);
  const [promptRev, setPromptRev] = useState("");
  const [running, setRunning] = useState(false);
  const [runError, setRunError] = useState<string | null>(null);
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

  const save = async (path: string, value: unknown) => {
    if (!current) return;
    const x = await api.patchExtraction(docId, current.extraction_id, path, value);
    setOverride(x);
  };

  const run = async () => {
    if (!promptRev) return;
    setRunning(true);
    setRunError(null);
    try {
      const x = await api.runExtraction(docId, promptRev);
      setOverride(x);
      setSelected(x.extraction_id);
      list.reload();
    } catch (e) {
      setRunError(errorMessage(e));
    } finally {
      setRunning(false);
    }
  };

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
            <a href={href("prompt-revisions", current.prompt_revid)}>prompt {current.prompt_revid}</a>
            <span className="muted">{current.model}</span>
            <span className="muted">{formatDate(current.updated_at || current.created_at)}</span>
          </div>
          {all.length > 1 && (
            <select value={current.extraction_id} onChange={(e) => setSelected(e.target.value)} aria-label="Extraction">
              {all.map((x) => (
                <option key={x.extraction_id} value={x.extraction_id}>
                  {formatDate(x.updated_at || x.created_at)} · {x.prompt_revid}
                  {x.edited ? " · edited" : ""}
                </option>
              ))}
            </select>
          )}
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
            <Tree value={current.value} path="" onSave={save} />
          </div>
          <div className="export-row">
            <button type="button" className="btn link small" onClick={() => setShowRaw(!showRaw)}>
              {showRaw ? "Hide JSON" : "Show JSON"}
            </button>
            <span className="muted">Export this prompt's results for every document:</span>
            <a className="btn small" href={api.exportURL(current.prompt_revid, "csv")} download data-testid="export-csv">
              CSV
            </a>
            <a className="btn small" href={api.exportURL(current.prompt_revid, "json")} download data-testid="export-json">
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
