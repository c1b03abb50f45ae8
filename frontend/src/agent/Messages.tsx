import { useMemo, useState } from "react";
import { api } from "../api/routes.gen";
import { citedNumbers, type AnswerCitations } from "../ask/citations";
import { CitationsProvider, Marker, SourceList } from "../ask/Citations";
import { ErrorBox, RichText } from "../components/common";
import { Markdown } from "../components/Markdown";
import { describeError } from "../lib/errors";
import { formatCount, formatDecimal } from "../lib/format";
import { href } from "../lib/router";
import { turnCostText } from "../usage/usage";
import { ThinkingBlock } from "./Thinking";
import { ToolCard, type ApprovalControls } from "./ToolCard";
import type { AssistantMessageView, ConversationState, PendingApproval, UserMessageView } from "./reducer";

export interface MessagesProps {
  state: ConversationState;
  approvalFor(callId: string, pending: PendingApproval): ApprovalControls | undefined;
  onDocLink(docId: string, page?: number): boolean;
  /** Edit-and-resubmit; undefined when it is not possible now. */
  onResubmit?: (m: UserMessageView, text: string) => void;
  onRetry(): void;
  /**
   * Draw every `[n]` of the answers as a citation chip, even before the
   * turn says what it cites (the Ask page); otherwise only the answers
   * that carry citations get chips.
   */
  citeMarkers?: boolean;
}

function UserMessage({ m, onResubmit }: { m: UserMessageView; onResubmit?: (m: UserMessageView, text: string) => void }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(m.text);
  const canEdit = !!onResubmit && m.seq !== null;
  if (editing && onResubmit) {
    return (
      <div className="msg user editing" data-testid="user-message">
        <textarea value={text} onChange={(e) => setText(e.target.value)} rows={3} data-testid="edit-message-input" autoFocus />
        <div className="row">
          <button
            type="button"
            className="btn primary small"
            disabled={!text.trim()}
            data-testid="resubmit-button"
            onClick={() => {
              setEditing(false);
              onResubmit(m, text.trim());
            }}
          >
            Save and resubmit
          </button>
          <button type="button" className="btn small" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </div>
        <div className="muted small-text">Everything after this message is replaced.</div>
      </div>
    );
  }
  return (
    <div className="msg user" data-testid="user-message">
      <div className="bubble">{m.text}</div>
      {canEdit && (
        <button
          type="button"
          className="btn link small edit-msg"
          data-testid="edit-message-button"
          onClick={() => {
            setText(m.text);
            setEditing(true);
          }}
        >
          Edit
        </button>
      )}
    </div>
  );
}

/** A turn that failed: what happened, what to do, a Settings link for model problems, Retry when it can help. */
function TurnError({ error, onRetry }: { error: { message: string; code?: string }; onRetry?: () => void }) {
  const a = describeError(error, !!onRetry);
  return (
    <div className={`turn-error kind-${a.kind}`} role="alert" data-testid="turn-error" data-kind={a.kind}>
      <div className="error-text">
        {a.title && <strong className="error-title">{a.title}</strong>}
        <span className="error-message">
          <RichText text={a.message} />
        </span>
        {a.hint && <span className="error-hint">{a.hint}</span>}
      </div>
      {(a.link || (a.retry && onRetry)) && (
        <div className="error-actions">
          {a.link && (
            <a className="btn small" href={a.link.href} data-testid="error-link">
              {a.link.label}
            </a>
          )}
          {a.retry && onRetry && (
            <button type="button" className="btn small" onClick={onRetry} data-testid="retry-button">
              Retry
            </button>
          )}
        </div>
      )}
    </div>
  );
}

/**
 * Undo for a turn that changed something: every change of the turn, newest
 * first, in one step (POST /api/history/turns/{id}/undo). A delete the turn
 * just made (live, not in a reopened thread) is also announced by a toast
 * with the same Undo, which stays until it is dismissed, the turn undone or
 * the next message sent, so that a deletion just approved can be taken back
 * at once wherever the chat is scrolled.
 */
function TurnUndo({ m }: { m: AssistantMessageView }) {
  const [state, setState] = useState<{ busy?: boolean; done?: string; error?: unknown }>({});
  const [dismissed, setDismissed] = useState(false);
  const calls = m.rounds.flatMap((r) => r.toolCalls).filter((c) => c.result?.success);
  const deleted = calls.filter((c) => c.summary?.ops?.includes("delete"));
  const toast = m.announce && deleted.length > 0 && !dismissed && !state.done;
  const undo = () => {
    setState({ busy: true });
    api.undoTurn(m.historyTurnId!, {}).then(
      (r) => setState({ done: r.undone.length === 1 ? "Undone." : `Undone: ${r.undone.length} changes.` }),
      (error: unknown) => setState({ error }),
    );
  };
  const what = deleted.length ? `Done: ${deleted.map((c) => c.summary?.title || c.name).join("; ")}.` : "This turn changed your data.";
  const button = (testId: string) => (
    <button type="button" className="btn small" disabled={state.busy} onClick={undo} data-testid={testId}>
      Undo
    </button>
  );
  return (
    <div className={`turn-undo${deleted.length ? " destructive" : ""}`} role={deleted.length && !toast ? "alert" : "status"} data-testid="turn-undo">
      {state.done ? (
        <span data-testid="turn-undone">{state.done}</span>
      ) : (
        <>
          <span>
            {what} <a href={href("history") + `?actor=${encodeURIComponent(m.historyTurnId!)}`}>See the changes</a>
          </span>
          {button("turn-undo-button")}
        </>
      )}
      {state.error ? <ErrorBox title="Not undone" error={state.error} /> : null}
      {toast && (
        <div className="undo-toast" role="alert" data-testid="undo-toast">
          <span>{what}</span>
          {button("undo-toast-button")}
          <button type="button" className="btn small link" onClick={() => setDismissed(true)} aria-label="Dismiss" data-testid="undo-toast-dismiss">
            ×
          </button>
        </div>
      )}
    </div>
  );
}

/** An approved card's Undo: that call's changes alone. */
function CallUndo({ turnId, callId }: { turnId: string; callId: string }) {
  const [state, setState] = useState<{ busy?: boolean; done?: boolean; error?: unknown }>({});
  if (state.done) {
    return (
      <span className="call-undo muted small-text" role="status" data-testid="call-undone">
        Undone.
      </span>
    );
  }
  return (
    <span className="call-undo">
      <button
        type="button"
        className="btn small link"
        disabled={state.busy}
        onClick={() => {
          setState({ busy: true });
          api.undoTurn(turnId, { cascade: false, call_id: callId }).then(
            () => setState({ done: true }),
            (error: unknown) => setState({ error }),
          );
        }}
        data-testid="call-undo-button"
      >
        Undo
      </button>
      {state.error ? <ErrorBox title="Not undone" error={state.error} /> : null}
    </span>
  );
}

function AssistantMessage({
  m,
  pending,
  approvalFor,
  onDocLink,
  onRetry,
  isLast,
  citeMarkers,
}: {
  m: AssistantMessageView;
  pending: PendingApproval | null;
  approvalFor: MessagesProps["approvalFor"];
  onDocLink: MessagesProps["onDocLink"];
  onRetry(): void;
  isLast: boolean;
  citeMarkers?: boolean;
}) {
  const p = pending && pending.messageId === m.id ? pending : null;
  const empty = m.rounds.length === 0;
  // Kept while the citations and the status stay, so that the memoised
  // Markdown of finished rounds is not parsed again at every streamed event.
  const { answer, cite } = useMemo(() => {
    const answer: AnswerCitations = { citations: m.citations ?? [], unknown: m.unknownCitations ?? [], final: m.status === "done" };
    const chips = citeMarkers || answer.citations.length > 0 || answer.unknown.length > 0;
    return { answer, cite: chips ? (ns: number[]) => <Marker numbers={ns} answer={answer} /> : undefined };
  }, [m.citations, m.unknownCitations, m.status, citeMarkers]);
  const chips = cite !== undefined;
  return (
    <div className={`msg assistant status-${m.status}`} data-testid="assistant-message" data-status={m.status}>
      {m.model && (
        <div className="msg-model muted" data-testid="msg-model">
          {m.model}
        </div>
      )}
      {empty && m.status === "streaming" && (
        <div className="muted working" data-testid="agent-working">
          <span className="pulse" aria-hidden="true" /> Working…
        </div>
      )}
      {m.rounds.map((r) => (
        <div key={r.index} className="round" data-round={r.index}>
          <ThinkingBlock round={r} />
          {r.text && <Markdown text={r.text} onDocLink={onDocLink} cite={cite} />}
          {r.text && !r.textDone && m.status === "streaming" && <span className="caret" aria-hidden="true" />}
          {r.toolCalls.length > 0 && (
            <div className="tool-cards">
              {r.toolCalls.map((c) => (
                <div key={c.id} className="tool-card-with-undo">
                  <ToolCard call={c} approval={p && p.needsApproval.includes(c.id) ? approvalFor(c.id, p) : undefined} />
                  {m.historyTurnId && m.status === "done" && c.decision?.approved && c.result?.success && (m.undoableCalls?.includes(c.id) ?? true) && (
                    <CallUndo turnId={m.historyTurnId} callId={c.id} />
                  )}
                </div>
              ))}
            </div>
          )}
        </div>
      ))}
      {chips && m.status === "done" && <SourceList answer={answer} cited={citedNumbers(m.rounds.map((r) => r.text).join("\n"))} />}
      {m.status === "error" && m.error && <TurnError error={m.error} onRetry={isLast ? onRetry : undefined} />}
      {(m.status === "interrupted" || m.status === "stopped") && (
        <div className="turn-error soft" data-testid="turn-interrupted">
          <span>{m.status === "stopped" ? "Stopped." : "The connection ended before the answer was complete."}</span>
          {isLast && (
            <button type="button" className="btn small" onClick={onRetry} data-testid="retry-button">
              Retry
            </button>
          )}
        </div>
      )}
      {m.truncated && (
        <div className="turn-error soft" role="status" data-testid="turn-truncated">
          The model saw only part of this conversation: {m.truncated}
        </div>
      )}
      {m.outputTruncated && (
        <div className="turn-error soft" role="status" data-testid="turn-output-truncated">
          The answer was cut off: {m.outputTruncated}
        </div>
      )}
      {m.historyTurnId && m.status === "done" && <TurnUndo m={m} />}
      {(m.usage.prompt_tokens > 0 || m.usage.completion_tokens > 0) && m.status !== "streaming" && (
        <div className="usage muted" data-testid="turn-usage">
          {formatCount(m.usage.prompt_tokens)} prompt + {formatCount(m.usage.completion_tokens)} completion tokens
          {m.cost && turnCostText(m.cost) !== null && <span data-testid="turn-cost"> · {turnCostText(m.cost)}</span>}
          {m.speed.first_token_ms !== undefined && (
            <span data-testid="turn-speed">
              {" "}
              · first token after {formatDecimal(m.speed.first_token_ms / 1000, 1)} s
              {m.speed.tokens_per_second !== undefined && ` · ${formatDecimal(m.speed.tokens_per_second, 1)} tokens/s`}
            </span>
          )}
        </div>
      )}
    </div>
  );
}

export function Messages({ state, approvalFor, onDocLink, onResubmit, onRetry, citeMarkers }: MessagesProps) {
  const lastAssistant = [...state.messages].reverse().find((m) => m.kind === "assistant");
  return (
    <CitationsProvider>
    <div className="messages" data-testid="messages">
      {state.messages.map((m) =>
        m.kind === "user" ? (
          <UserMessage key={m.id} m={m} onResubmit={onResubmit} />
        ) : (
          <AssistantMessage
            key={m.id}
            m={m}
            pending={state.pending}
            approvalFor={approvalFor}
            onDocLink={onDocLink}
            onRetry={onRetry}
            isLast={m === lastAssistant}
            citeMarkers={citeMarkers}
          />
        ),
      )}
    </div>
    </CitationsProvider>
  );
}
