// An answer's citations as people see them: each `[n]` a chip (a passage
// opens its document at the page with the box drawn; a query opens a
// panel with its SQL, its result and the rows it read), a chip that cites
// nothing marked as such, and a compact list of the sources under the
// answer. No ids are shown: documents by name, queries by their views.

import { createContext, useCallback, useContext, useEffect, useId, useMemo, useRef, useState, type ReactNode } from "react";
import { navigate } from "../lib/router";
import { formatCount } from "../lib/format";
import {
  cellText,
  chipLabel,
  citationPlace,
  documentsRead,
  passageHref,
  plural,
  resolve,
  rowEvidence,
  rowHref,
  type AnswerCitations,
  type Citation,
  type Resolved,
} from "./citations";
import "./citations.css";

interface CitationActions {
  openQuery(c: Citation): void;
}

const CitationContext = createContext<CitationActions | null>(null);

/** Holds the query panel that the chips and source lists inside it open. */
export function CitationsProvider({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState<Citation | null>(null);
  const actions = useMemo<CitationActions>(() => ({ openQuery: setOpen }), []);
  return (
    <CitationContext.Provider value={actions}>
      {children}
      {open && <QueryPanel citation={open} onClose={() => setOpen(null)} />}
    </CitationContext.Provider>
  );
}

function useOpenCitation(): (c: Citation) => void {
  const actions = useContext(CitationContext);
  return useCallback(
    (c: Citation) => {
      const to = passageHref(c);
      if (to) navigate(to);
      else if (c.kind === "query") actions?.openQuery(c);
    },
    [actions],
  );
}

/** One number of a marker. */
export function CitationChip({ r }: { r: Resolved }) {
  const open = useOpenCitation();
  const label = chipLabel(r);
  if (r.kind === "citation") {
    const c = r.citation;
    return (
      <button
        type="button"
        className={`cite-chip ${c.kind}`}
        aria-label={label}
        title={label}
        onClick={() => open(c)}
        data-testid="cite-chip"
        data-n={c.n}
        data-kind={c.kind}
      >
        {c.n}
      </button>
    );
  }
  if (r.kind === "unknown") {
    return (
      <span className="cite-chip unknown" title={label} data-testid="cite-unknown" data-n={r.n}>
        <span aria-hidden="true">⚠ {r.n}</span>
        <span className="visually-hidden">{label}</span>
      </span>
    );
  }
  return (
    <span className="cite-chip pending" data-testid="cite-pending" data-n={r.n}>
      {r.n}
    </span>
  );
}

/** A marker of the text (`[1, 2]`): a chip per number. */
export function Marker({ numbers, answer }: { numbers: number[]; answer: AnswerCitations }) {
  return (
    <span className="cite-marker">
      {numbers.map((n, i) => (
        <CitationChip key={`${n}-${i}`} r={resolve(answer, n)} />
      ))}
    </span>
  );
}

function Quote({ text }: { text?: string }) {
  if (!text) return null;
  const q = text.length > 140 ? text.slice(0, 137) + "…" : text;
  return <span className="cite-quote">{`“${q}”`}</span>;
}

/** A query in the list of sources: "Query: 1 row, from 3 rows read". */
function queryLine(c: Citation): string {
  return `Query: ${plural(c.row_count ?? c.rows?.length ?? 0, "row")}, from ${plural(c.sources?.length ?? 0, "row")} read`;
}

/**
 * The sources of an answer, under it: each citation it cites (and each
 * number it cites that stands for nothing), in the order of their numbers.
 */
export function SourceList({ answer, cited }: { answer: AnswerCitations; cited: number[] }) {
  const openQuery = useContext(CitationContext)?.openQuery;
  const numbers = [...new Set([...answer.citations.map((c) => c.n), ...answer.unknown, ...(answer.final ? cited : [])])].sort((a, b) => a - b);
  if (numbers.length === 0) return null;
  return (
    <section className="cite-sources" aria-label="Sources" data-testid="cite-sources">
      <h3 className="cite-sources-head">Sources</h3>
      <ol>
        {numbers.map((n) => {
          const r = resolve(answer, n);
          if (r.kind !== "citation") {
            return (
              <li key={n} className="cite-source unknown" data-testid="cite-source" data-n={n} data-kind="unknown">
                <span className="cite-num" aria-hidden="true">
                  ⚠
                </span>
                <span>
                  <strong>{`[${n}] cites nothing`}</strong> this conversation produced: check that part of the answer yourself.
                </span>
              </li>
            );
          }
          const c = r.citation;
          if (c.kind === "passage") {
            const to = passageHref(c);
            return (
              <li key={n} className="cite-source" data-testid="cite-source" data-n={n} data-kind="passage">
                <span className="cite-num">{n}</span>
                <span>
                  {to ? <a href={to}>{citationPlace(c)}</a> : citationPlace(c)} <Quote text={c.quote} />
                </span>
              </li>
            );
          }
          const docs = documentsRead(c);
          return (
            <li key={n} className="cite-source" data-testid="cite-source" data-n={n} data-kind="query">
              <span className="cite-num">{n}</span>
              <span>
                <button type="button" className="btn link small" onClick={() => openQuery?.(c)} data-testid="cite-source-query">
                  {queryLine(c)}
                </button>
                {docs.length > 0 && (
                  <span className="muted">
                    {" "}
                    {`(${docs.slice(0, 4).join(", ")}${docs.length > 4 ? `, and ${formatCount(docs.length - 4)} more` : ""})`}
                  </span>
                )}
              </span>
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/** A query citation in a modal dialog: its SQL, its result, and the rows it read, each opening its document. */
export function QueryPanel({ citation: c, onClose }: { citation: Citation; onClose(): void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal?.();
  }, []);
  const rows = c.rows ?? [];
  const columns = c.columns ?? [];
  const total = c.row_count ?? rows.length;
  const sources = c.sources ?? [];
  const fields = [...new Set(sources.flatMap((s) => Object.keys(s.evidence ?? {})))];
  return (
    <dialog ref={ref} className="query-panel" aria-labelledby={titleId} onClose={onClose} onCancel={onClose} data-testid="query-panel">
      <div className="query-panel-head">
        <h2 id={titleId}>
          Source {c.n}: {citationPlace(c)}
        </h2>
        <button type="button" className="btn small" onClick={onClose} data-testid="query-panel-close">
          Close
        </button>
      </div>
      <h3>The query</h3>
      <pre className="code query-sql" data-testid="query-sql">
        <code>{c.sql}</code>
      </pre>
      <h3>Its result</h3>
      {columns.length > 0 ? (
        <div className="table-scroll">
          <table className="query-table" data-testid="query-result">
            <thead>
              <tr>
                {columns.map((col, i) => (
                  <th key={i} scope="col">
                    {col}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row, i) => (
                <tr key={i}>
                  {columns.map((_, j) => (
                    <td key={j}>{cellText(row[j])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="muted">No columns.</p>
      )}
      {total > rows.length && (
        <p className="muted small-text">
          {formatCount(rows.length)} of {formatCount(total)} rows shown, as the model saw them.
        </p>
      )}
      <h3>The rows it read</h3>
      {c.sources_note && (
        <p className="muted small-text" data-testid="query-sources-note">
          {c.sources_note}
        </p>
      )}
      {sources.length === 0 ? (
        !c.sources_note && <p className="muted">The query read no row of a document.</p>
      ) : (
        <div className="table-scroll">
          <table className="query-table" data-testid="query-sources">
            <thead>
              <tr>
                <th scope="col">Document</th>
                {fields.map((f) => (
                  <th key={f} scope="col">
                    {f}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {sources.map((s, i) => {
                const at = rowEvidence(s);
                return (
                  <tr key={i} data-testid="query-source-row">
                    <td>
                      <a href={rowHref(s)} onClick={onClose} data-testid="query-source-link" title={at ? `Open ${s.document} at its ${at.field}` : `Open ${s.document}`}>
                        {s.document}
                      </a>
                    </td>
                    {fields.map((f) => {
                      const e = s.evidence?.[f];
                      return (
                        <td key={f}>
                          {e ? (
                            <>
                              {e.quote ? `“${e.quote}”` : e.status === "ungrounded" ? "not found in the document" : ""}
                              {e.page ? <span className="muted"> p. {e.page}</span> : null}
                            </>
                          ) : (
                            ""
                          )}
                        </td>
                      );
                    })}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </dialog>
  );
}
