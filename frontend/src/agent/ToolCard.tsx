// One tool call in the conversation. A call that changes something shows,
// in words, what it will change (the server's summary); its raw arguments
// are one click away. While it waits for a decision, Approve and Reject
// stay in view at the bottom of the card however long it is, `a` approves
// and `r` rejects the focused card, and Edit opens a form (JSON for the
// tools without one) that is checked before approval.

import { useState, type KeyboardEvent } from "react";
import { Json, RichText } from "../components/common";
import { ProposalEditor, type EditResult } from "../proposals/ProposalEditor";
import { hasBody, ProposalBody, summaryOf } from "../proposals/ProposalView";
import { cleanPreview, REJECTED_TEXT, refusalText } from "../proposals/words";
import type { Decision, ToolCallView } from "./reducer";

export interface ApprovalControls {
  /** The draft decision for this call, when the user already chose. */
  draft?: Decision;
  decide(d: Decision | null): void;
  alwaysApprove(): void;
}

/** After a decision by keyboard, the next card that waits gets the focus. */
function focusNextWaiting(callId: string): void {
  requestAnimationFrame(() => {
    const next = Array.from(document.querySelectorAll<HTMLElement>('[data-testid="tool-card"][data-waiting="true"]')).find((el) => el.dataset.callId !== callId);
    next?.focus();
  });
}

export function ToolCard({ call, approval }: { call: ToolCallView; approval?: ApprovalControls }) {
  const r = call.result;
  const waiting = !!approval && !approval.draft;
  const status = call.decision?.approved === false ? "rejected" : r ? (r.success ? "success" : "error") : approval ? "pending" : "running";
  const ran = call.decision?.arguments !== undefined ? call.decision.arguments : undefined;

  const [openState, setOpen] = useState<boolean | null>(null);
  const [showArgs, setShowArgs] = useState(false);
  const [full, setFull] = useState(false);
  const [editing, setEditing] = useState(false);
  const [edit, setEdit] = useState<EditResult>({ problems: [] });

  const s = summaryOf(call.name, call.summary);
  const body = hasBody(s);
  const open = openState ?? (waiting || (!!approval && !!approval.draft));

  const decide = (d: Decision, byKey = false) => {
    setEditing(false);
    approval?.decide(d);
    if (byKey) focusNextWaiting(call.id);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (!approval || !waiting || editing) return;
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
    if ((e.target as HTMLElement).closest("input, textarea, select, [contenteditable='true']")) return;
    if (e.key === "a" || e.key === "A") {
      e.preventDefault();
      decide({ approved: true }, true);
    } else if (e.key === "r" || e.key === "R") {
      e.preventDefault();
      decide({ approved: false }, true);
    }
  };

  const preview = r?.success && r.preview ? cleanPreview(r.preview) : null;

  return (
    <div
      className={`tool-card ${status}${s.danger ? " danger" : ""}`}
      data-testid="tool-card"
      data-tool-name={call.name}
      data-call-id={call.id}
      data-status={status}
      data-waiting={waiting ? "true" : undefined}
      tabIndex={waiting ? 0 : undefined}
      onKeyDown={onKeyDown}
      role={waiting ? "group" : undefined}
      aria-label={waiting ? `${s.title}. Needs your approval: press a to approve, r to reject.` : undefined}
    >
      <button type="button" className="tool-head" onClick={() => setOpen(!open)} aria-expanded={open}>
        <span className={`tool-icon ${status}`} aria-hidden="true">
          {status === "success" ? "✓" : status === "error" ? "↺" : status === "pending" ? "?" : status === "rejected" ? "–" : "…"}
        </span>
        <span className="tool-summary" title={s.title}>
          {s.title}
        </span>
        <span className="tool-name">{call.name}</span>
        <span className="chev" aria-hidden="true">
          {open ? "▾" : "▸"}
        </span>
      </button>
      {preview && preview.text && (
        <div className="tool-preview" data-testid="tool-result" title={preview.ids.join(", ") || undefined}>
          {preview.text}
        </div>
      )}
      {r && !r.success && status === "rejected" && (
        <div className="tool-preview muted" data-testid="tool-result">
          {REJECTED_TEXT}
        </div>
      )}
      {r && !r.success && status !== "rejected" && (
        <div className="tool-refusal" data-testid="tool-result" data-kind="model-step">
          <RichText text={refusalText(s.title, r.error || "no reason given.")} />
          <span className="muted"> The model is told, and can try another way.</span>
        </div>
      )}
      {open && (
        <div className="tool-body">
          {body && !editing && <ProposalBody summary={s} />}
          {editing && approval && <ProposalEditor callId={call.id} tool={call.name} args={call.arguments} form={s.form} now={s.now} ops={s.ops} onResult={setEdit} />}
          <div className="tool-links">
            <button type="button" className="btn link small" onClick={() => setShowArgs(!showArgs)} aria-expanded={showArgs} data-testid="show-arguments">
              {showArgs ? "Hide arguments" : "Show arguments"}
            </button>
            {r && r.result !== undefined && (
              <button type="button" className="btn link small" onClick={() => setFull(!full)} data-testid="tool-full-result">
                {full ? "Hide full result" : "Show full result"}
              </button>
            )}
          </div>
          {showArgs && (
            <div data-testid="tool-arguments">
              <div className="label">Arguments{ran !== undefined ? " (proposed)" : ""}</div>
              <Json value={call.arguments} />
              {ran !== undefined && (
                <>
                  <div className="label">Arguments that ran (edited)</div>
                  <Json value={ran} />
                </>
              )}
            </div>
          )}
          {full && r && <Json value={r.result} />}
        </div>
      )}
      {approval && waiting && editing && (
        <div className="approval-row sticky-actions" data-testid="approval-controls">
          {edit.problems.length > 0 && (
            <ul className="edit-problems" role="alert" data-testid="edit-problems">
              {edit.problems.map((p, i) => (
                <li key={i}>{p}</li>
              ))}
            </ul>
          )}
          <button
            type="button"
            className="btn primary small"
            disabled={edit.problems.length > 0 || !edit.args}
            onClick={() => edit.args && decide({ approved: true, arguments: edit.args })}
            data-testid="approve-edited-button"
          >
            Approve with these changes
          </button>
          <button type="button" className="btn small" onClick={() => setEditing(false)} data-testid="cancel-edit-button">
            Cancel
          </button>
        </div>
      )}
      {approval && waiting && !editing && (
        <div className="approval-row sticky-actions" data-testid="approval-controls">
          <span className="muted">Needs your approval</span>
          <button type="button" className="btn primary small" onClick={() => decide({ approved: true })} data-testid="approve-button" aria-keyshortcuts="a">
            Approve
          </button>
          <button type="button" className="btn small" onClick={() => decide({ approved: false })} data-testid="reject-button" aria-keyshortcuts="r">
            Reject
          </button>
          <button
            type="button"
            className="btn small"
            onClick={() => {
              setEdit({ problems: [] });
              setEditing(true);
              setOpen(true);
            }}
            data-testid="edit-args-button"
          >
            Edit
          </button>
          <button type="button" className="btn link small" onClick={approval.alwaysApprove} data-testid="always-approve-button" title={`Never ask again for ${call.name}`}>
            Always approve {call.name}
          </button>
          <span className="kbd-hint muted" aria-hidden="true">
            <kbd>a</kbd> approve · <kbd>r</kbd> reject
          </span>
        </div>
      )}
      {approval?.draft && (
        <div className="approval-row">
          <span className="muted">
            {approval.draft.approved ? (approval.draft.arguments !== undefined ? "Approved with edits" : "Approved") : "Rejected"} — waiting for
            the other decisions
          </span>
          <button type="button" className="btn link small" onClick={() => approval.decide(null)}>
            Undo
          </button>
        </div>
      )}
      {!approval && call.decision && !r && <div className="approval-row muted">{call.decision.approved ? "Approved, running…" : "Rejected"}</div>}
    </div>
  );
}
