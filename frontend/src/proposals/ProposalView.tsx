// The readable part of a tool card: what the call will change, as the
// server summarised it (agent.Summary, with names instead of ids). This
// renders the summary it is given; the words are the server's.

import { createContext } from "react";
import type { Summary } from "../api/events.gen";
import { TagChip } from "../components/ArtifactLink";
import { FieldTableView } from "../schema/FieldTable";

/** The conversation a card belongs to: its Edit form asks the server to summarise edited arguments in it. */
export interface ProposalEnv {
  docId: string;
  threadId: string | null;
}

export const ProposalEnvContext = createContext<ProposalEnv | null>(null);

/** Every call comes with a summary (the server fills stored ones on read) but one of a tool that no longer exists: it is named by its tool. */
export function summaryOf(tool: string, summary: Summary | undefined): Summary {
  return summary ?? { title: tool.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase()), lines: [] };
}

/** Whether a summary has anything beyond its title. */
export function hasBody(s: Summary): boolean {
  return !!s.props?.length || !!s.chips?.chips.length || !!s.fields || !!s.text || !!s.notes?.length;
}

const MARK: Record<string, string> = { add: "+ ", del: "- " };

export function ProposalBody({ summary }: { summary: Summary }) {
  const s = summary;
  const props = s.props ?? [];
  return (
    <div className={`proposal${s.danger ? " danger" : ""}`} data-testid="proposal-summary">
      {props.length > 0 && (
        <dl className="proposal-props">
          {props.map((p, i) => (
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
                <span key={i} className={`diff-line ${l.op === "same" ? "" : l.op}`}>
                  {(MARK[l.op] ?? "  ") + l.text}
                  {"\n"}
                </span>
              ))}
            </pre>
          ) : (
            <pre className="proposal-text">{s.text.lines.map((l) => l.text).join("\n")}</pre>
          )}
        </div>
      )}
      {(s.notes ?? []).map((n, i) => (
        <p key={i} className="proposal-note">
          {n}
        </p>
      ))}
    </div>
  );
}
