// The readable part of a tool card: what the call will change, from
// summarizeCall, with names instead of ids.

import { createContext, useContext, useEffect, useMemo, useState } from "react";
import { TagChip } from "../components/ArtifactLink";
import { useArtifactNames } from "../lib/names";
import { FieldTableView } from "../schema/FieldTable";
import { loadProposalContext, NEEDS_CONTEXT, type ProposalEnv } from "./context";
import { diffLineText } from "./diff";
import { summarizeCall, type CallSummary, type SummaryContext } from "./summary";

export const ProposalEnvContext = createContext<ProposalEnv | null>(null);

export interface ProposalState {
  summary: CallSummary;
  /** What was fetched about the call's target (for the edit form too). */
  context: SummaryContext;
  loading: boolean;
}

/**
 * The summary of a call. `live` (the call waits for a decision) fetches
 * what it changes, once; the answer is kept while the card lives, so an
 * approved call keeps showing the change it made.
 */
export function useProposal(tool: string, args: unknown, live: boolean): ProposalState {
  const env = useContext(ProposalEnvContext);
  const names = useArtifactNames();
  const [loaded, setLoaded] = useState<SummaryContext | null>(null);
  const [loading, setLoading] = useState(false);
  const wants = live && !!env && NEEDS_CONTEXT.has(tool) && loaded === null;
  useEffect(() => {
    if (!wants || !env) return;
    let cancelled = false;
    setLoading(true);
    loadProposalContext(tool, args, env).then(
      (c) => {
        if (!cancelled) setLoaded(c);
      },
      () => {
        if (!cancelled) setLoaded({});
      },
    ).finally(() => !cancelled && setLoading(false));
    return () => {
      cancelled = true;
    };
    // args are fixed for a proposal; a new call is a new card.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [wants, tool]);

  const currentDoc = env ? names.document(env.docId) : undefined;
  const context: SummaryContext = useMemo(
    () => ({
      ...(currentDoc ? { document: { id: currentDoc.id, name: currentDoc.name, tag_ids: currentDoc.tag_ids } } : {}),
      schemaLabel: (ref, version) => names.schema(ref, version)?.label,
      promptLabel: (ref) => names.prompt(ref)?.label,
      tagOf: (ref) => {
        const t = names.tag(ref);
        return t ? { name: t.name, ...(t.color ? { color: t.color } : {}) } : undefined;
      },
      documentName: (id) => names.document(id)?.name,
      ...(loaded ?? {}),
    }),
    // names re-render the hook when they arrive; the object identity is stable otherwise.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [names, loaded, currentDoc],
  );
  const summary = useMemo(() => summarizeCall(tool, args, context), [tool, args, context]);
  return { summary, context, loading };
}

/** Whether a summary has anything beyond its title. */
export function hasBody(s: CallSummary): boolean {
  return s.props.length > 0 || !!s.chips?.chips.length || !!s.fields || !!s.text || s.notes.length > 0;
}

export function ProposalBody({ summary, loading }: { summary: CallSummary; loading?: boolean }) {
  const s = summary;
  return (
    <div className={`proposal${s.danger ? " danger" : ""}`} data-testid="proposal-summary">
      {s.props.length > 0 && (
        <dl className="proposal-props">
          {s.props.map((p, i) => (
            <div key={i} className="proposal-prop">
              <dt className={p.mono ? "mono" : undefined}>{p.label}</dt>
              <dd>
                {p.from !== undefined && (
                  <>
                    <span className="was">{p.from}</span>
                    <span className="arrow" aria-label="becomes">
                      {" "}
                      →{" "}
                    </span>
                  </>
                )}
                <span className={p.from !== undefined ? "now" : undefined}>{p.value}</span>
              </dd>
            </div>
          ))}
        </dl>
      )}
      {s.chips && s.chips.chips.length > 0 && (
        <div className="proposal-chips">
          <span className="label">{s.chips.label}</span>
          <span className="tag-chips">
            {s.chips.chips.map((c, i) => (
              <TagChip key={i} name={c.name} color={c.color} change={c.change} />
            ))}
          </span>
        </div>
      )}
      {s.fields && (
        <div className="proposal-fields">
          <div className="label">{s.fields.label}</div>
          {s.fields.error ? <p className="note small-text">{s.fields.error}</p> : <FieldTableView rows={s.fields.rows} diff={s.fields.diff} rowTestId="proposal-field-row" />}
        </div>
      )}
      {s.text && (
        <div className="proposal-text-wrap">
          <div className="label">{s.text.label}</div>
          {s.text.diff ? (
            <pre className="code diff proposal-text" data-testid="proposal-diff">
              {s.text.lines.map((l, i) => (
                <span key={i} className={`diff-line ${l.op === "add" ? "add" : l.op === "del" ? "del" : l.op === "fold" ? "fold" : ""}`}>
                  {diffLineText(l)}
                  {"\n"}
                </span>
              ))}
            </pre>
          ) : (
            <pre className="proposal-text">{s.text.lines.map((l) => l.text).join("\n")}</pre>
          )}
        </div>
      )}
      {s.notes.map((n, i) => (
        <p key={i} className="proposal-note">
          {n}
        </p>
      ))}
      {loading && <p className="muted small-text">Looking up what this changes…</p>}
    </div>
  );
}
