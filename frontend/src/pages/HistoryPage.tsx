// The history: every change to documents, schemas, prompts, tags, kinds and
// extractions, newest first, with who made it and through which edge, and
// Undo for an entry, a chat turn or an auto-create run
// (GET /api/history, POST /api/history/…/undo).

import { useState } from "react";
import { api } from "../api/routes.gen";
import type { HistoryQuery } from "../api/types";
import type { JournalEntry, UndoResult } from "../api/types";
import { ErrorBox, Spinner } from "../components/common";
import { formatDateTime } from "../lib/format";
import { href, navigate, useRoute } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { useTitle } from "../lib/useTitle";

const EDGES: [string, string][] = [
  ["", "Any edge"],
  ["agent", "Agent (chat)"],
  ["auto_create", "Auto-create"],
  ["ui", "You, in Docent"],
  ["cli", "Command line"],
  ["mcp", "MCP client"],
  ["system", "Docent itself"],
];

/** Who made a change, in words. */
export function whoLabel(e: JournalEntry): string {
  switch (e.edge) {
    case "agent":
      return "Agent";
    case "auto_create":
      return "Auto-create";
    case "ui":
      return "You";
    case "cli":
      return e.actor || "Command line";
    case "mcp":
      return `MCP: ${e.actor}`;
    default:
      return "Docent";
  }
}

/** What an undo is asked to take back. */
type Target = { kind: "entry"; id: number } | { kind: "turn"; id: string } | { kind: "run"; id: string };

function undo(t: Target, cascade: boolean): Promise<UndoResult> {
  switch (t.kind) {
    case "entry":
      return api.undoEntry(t.id, { cascade });
    case "turn":
      return api.undoTurn(t.id, { cascade });
    default:
      return api.undoRun(t.id, { cascade });
  }
}

export default function HistoryPage() {
  useTitle("History");
  const route = useRoute();
  const query: HistoryQuery = {
    document: route.query.get("document") ?? undefined,
    edge: route.query.get("edge") ?? undefined,
    actor: route.query.get("actor") ?? undefined,
  };
  const list = useAsync(() => api.listHistory({ ...query, limit: 200 }), [query.document, query.edge, query.actor]);
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState<{ target: Target; error: unknown } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [actor, setActor] = useState(query.actor ?? "");

  const setFilter = (k: keyof HistoryQuery, v: string) => {
    const q = new URLSearchParams(route.query);
    if (v) q.set(k, v);
    else q.delete(k);
    const s = q.toString();
    navigate(href("history") + (s ? `?${s}` : ""));
  };

  const run = (target: Target, cascade = false) => {
    setBusy(true);
    setFailed(null);
    setDone(null);
    undo(target, cascade).then(
      (r) => {
        setBusy(false);
        setDone(r.undone.length === 1 ? `Undone: ${r.undone[0].summary}` : `Undone ${r.undone.length} changes.`);
        list.reload();
      },
      (error: unknown) => {
        setBusy(false);
        setFailed({ target, error });
      },
    );
  };

  const entries = list.data?.entries ?? [];
  // A turn's or run's Undo sits on its newest entry that can still be undone.
  const groupHead = new Set<number>();
  const seen = new Set<string>();
  for (const e of entries) {
    const g = e.turn_id ? `t:${e.turn_id}` : e.run_id ? `r:${e.run_id}` : "";
    if (g && !seen.has(g) && !e.undone_by && !e.undoes) {
      seen.add(g);
      groupHead.add(e.id);
    }
  }

  return (
    <div className="page" data-testid="history-page">
      <h1>History</h1>
      <p className="muted">
        Every change to documents, schemas, prompts, tags, kinds and extractions, newest first: who made it, and Undo. An undo is a change
        too, and can itself be undone.
      </p>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter("actor", actor.trim());
        }}
      >
        <label>
          Edge{" "}
          <select value={query.edge ?? ""} onChange={(e) => setFilter("edge", e.target.value)} data-testid="history-edge">
            {EDGES.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Actor, turn or run <input value={actor} onChange={(e) => setActor(e.target.value)} data-testid="history-actor" />
        </label>
        <button type="submit" className="btn small">
          Filter
        </button>
        {query.document && (
          <button type="button" className="btn small" onClick={() => setFilter("document", "")} data-testid="history-all-documents">
            All documents
          </button>
        )}
      </form>
      {done && (
        <p className="history-done" role="status" data-testid="history-done">
          {done}
        </p>
      )}
      {failed && (
        <div data-testid="history-refused">
          <ErrorBox title="Not undone" error={failed.error} />
          <button type="button" className="btn small" disabled={busy} onClick={() => run(failed.target, true)} data-testid="history-cascade">
            Undo it with the later changes
          </button>
        </div>
      )}
      {list.loading && !list.data && <Spinner label="Loading the history…" />}
      {list.error && <ErrorBox title="Could not load the history" error={list.error} onRetry={list.reload} />}
      {list.data && entries.length === 0 && <p className="muted">No changes yet.</p>}
      {entries.length > 0 && (
        <table className="field-table history-table" data-testid="history-table">
          <thead>
            <tr>
              <th>When</th>
              <th>Who</th>
              <th>Change</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.id} data-testid="history-entry" data-entry={e.id} className={e.undone_by ? "muted" : ""}>
                <td title={e.at}>{formatDateTime(e.at)}</td>
                <td title={[e.edge, e.actor, e.turn_id, e.run_id].filter(Boolean).join(" · ")}>{whoLabel(e)}</td>
                <td>
                  <span data-testid="history-summary">{e.summary}</span>
                  {e.document_id && !query.document && (
                    <>
                      {" "}
                      <a className="small-text" href={href("history") + `?document=${encodeURIComponent(e.document_id)}`}>
                        this document&apos;s history
                      </a>
                    </>
                  )}
                  {e.undone_by ? <span className="muted small-text"> · undone</span> : null}
                  {e.pruned ? <span className="muted small-text"> · kept too long to undo</span> : null}
                </td>
                <td className="actions">
                  {!e.undone_by && !e.pruned && (
                    <button type="button" className="btn small" disabled={busy} onClick={() => run({ kind: "entry", id: e.id })} data-testid="history-undo">
                      {e.undoes ? "Redo" : "Undo"}
                    </button>
                  )}
                  {groupHead.has(e.id) && e.turn_id && !e.run_id && (
                    <button type="button" className="btn small" disabled={busy} onClick={() => run({ kind: "turn", id: e.turn_id! })} data-testid="history-undo-turn">
                      Undo the turn
                    </button>
                  )}
                  {groupHead.has(e.id) && e.run_id && (
                    <button type="button" className="btn small" disabled={busy} onClick={() => run({ kind: "run", id: e.run_id! })} data-testid="history-undo-run">
                      Undo the run
                    </button>
                  )}
                  {e.document_id && (
                    <a className="btn small link" href={href("documents", e.document_id)}>
                      Open
                    </a>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
