import { useState } from "react";
import { Json } from "../components/common";
import type { Decision, ToolCallView } from "./reducer";
import { summarizeCall } from "./summary";

export interface ApprovalControls {
  /** The draft decision for this call, when the user already chose. */
  draft?: Decision;
  decide(d: Decision | null): void;
  alwaysApprove(): void;
}

function argsText(v: unknown): string {
  if (typeof v === "string") {
    try {
      return JSON.stringify(JSON.parse(v), null, 2);
    } catch {
      return v;
    }
  }
  return JSON.stringify(v ?? {}, null, 2);
}

export function ToolCard({ call, approval }: { call: ToolCallView; approval?: ApprovalControls }) {
  const [open, setOpen] = useState(false);
  const [full, setFull] = useState(false);
  const [editing, setEditing] = useState(false);
  const [draftText, setDraftText] = useState("");
  const [parseError, setParseError] = useState<string | null>(null);

  const r = call.result;
  const waiting = !!approval && !approval.draft;
  const status = call.decision?.approved === false ? "rejected" : r ? (r.success ? "success" : "error") : approval ? "pending" : "running";
  const ran = call.decision?.arguments !== undefined ? call.decision.arguments : undefined;

  const startEdit = () => {
    setDraftText(argsText(call.arguments));
    setParseError(null);
    setEditing(true);
    setOpen(true);
  };
  const approveEdited = () => {
    try {
      const v = JSON.parse(draftText) as unknown;
      if (!v || typeof v !== "object" || Array.isArray(v)) throw new Error("Arguments must be a JSON object.");
      setEditing(false);
      approval?.decide({ approved: true, arguments: v });
    } catch (e) {
      setParseError(e instanceof Error ? e.message : String(e));
    }
  };

  return (
    <div className={`tool-card ${status}`} data-testid="tool-card" data-tool-name={call.name} data-call-id={call.id} data-status={status}>
      <button type="button" className="tool-head" onClick={() => setOpen(!open)} aria-expanded={open}>
        <span className={`tool-icon ${status}`} aria-hidden="true">
          {status === "success" ? "✓" : status === "error" ? "✕" : status === "pending" ? "?" : status === "rejected" ? "–" : "…"}
        </span>
        <span className="tool-summary">{summarizeCall(call.name, call.arguments)}</span>
        <span className="tool-name">{call.name}</span>
        <span className="chev" aria-hidden="true">
          {open ? "▾" : "▸"}
        </span>
      </button>
      {r && (r.preview || r.error) && (
        <div className={`tool-preview ${r.success ? "" : "error"}`} data-testid="tool-result">
          {r.success ? r.preview : r.error}
        </div>
      )}
      {open && (
        <div className="tool-body">
          {!editing && (
            <>
              <div className="label">Arguments{ran !== undefined ? " (proposed)" : ""}</div>
              <Json value={call.arguments} />
              {ran !== undefined && (
                <>
                  <div className="label">Arguments that ran (edited)</div>
                  <Json value={ran} />
                </>
              )}
            </>
          )}
          {r && r.result !== undefined && (
            <div>
              <button type="button" className="btn link" onClick={() => setFull(!full)} data-testid="tool-full-result">
                {full ? "Hide full result" : "Show full result"}
              </button>
              {full && <Json value={r.result} />}
            </div>
          )}
        </div>
      )}
      {editing && approval && (
        <div className="tool-edit">
          <label className="label" htmlFor={`args-${call.id}`}>
            Edit arguments (JSON)
          </label>
          <textarea
            id={`args-${call.id}`}
            className="mono"
            rows={Math.min(16, draftText.split("\n").length + 1)}
            value={draftText}
            data-testid="edit-args-input"
            onChange={(e) => {
              setDraftText(e.target.value);
              try {
                JSON.parse(e.target.value);
                setParseError(null);
              } catch (err) {
                setParseError(err instanceof Error ? err.message : String(err));
              }
            }}
          />
          {parseError && <div className="field-error">Not valid JSON: {parseError}</div>}
          <div className="row">
            <button type="button" className="btn primary small" disabled={!!parseError} onClick={approveEdited} data-testid="approve-edited-button">
              Approve with these arguments
            </button>
            <button type="button" className="btn small" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {approval && waiting && !editing && (
        <div className="approval-row" data-testid="approval-controls">
          <span className="muted">Needs your approval</span>
          <button type="button" className="btn primary small" onClick={() => approval.decide({ approved: true })} data-testid="approve-button">
            Approve
          </button>
          <button type="button" className="btn small" onClick={() => approval.decide({ approved: false })} data-testid="reject-button">
            Reject
          </button>
          <button type="button" className="btn small" onClick={approval.alwaysApprove} data-testid="always-approve-button" title={`Never ask again for ${call.name}`}>
            Always approve {call.name}
          </button>
          <button type="button" className="btn link small" onClick={startEdit} data-testid="edit-args-button">
            Edit arguments
          </button>
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
      {!approval && call.decision && !r && (
        <div className="approval-row muted">{call.decision.approved ? "Approved, running…" : "Rejected"}</div>
      )}
    </div>
  );
}
