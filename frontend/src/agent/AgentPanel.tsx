// The Agent tab: one conversation about the document, streamed through the
// ChatTransport and folded into UI state by the pure reducer.

import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import { ApiError, errorMessage } from "../api/http";
import { api } from "../api/routes.gen";
import { chatTransport } from "../api/transport";
import type { AgentEvent, ApproveRequest, ChatRequest, Mention, Thread, ToolCall, WorkingState } from "../api/types";
import { ErrorBox } from "../components/common";
import { invalidateNames } from "../lib/names";
import { approvalFields, updateSettings, useSettings, type ApprovalMode } from "../lib/settings";
import { ProposalEnvContext } from "../proposals/ProposalView";
import { useAsync } from "../lib/useAsync";
import { Composer } from "./Composer";
import { messagesFromThread, pendingFromThread, userSeqs } from "./history";
import { Messages } from "./Messages";
import { ModelSelect } from "./ModelSelect";
import {
  allDecided,
  approvalsFor,
  canSend,
  initialConversation,
  lastUserMessage,
  reducer,
  type Decision,
  type PendingApproval,
  type UserMessageView,
} from "./reducer";
import { ThreadPicker } from "./ThreadPicker";
import type { ApprovalControls } from "./ToolCard";
import { errorInput, type ErrorInput } from "../lib/errors";
import { useEscapeStops } from "./useEscapeStops";
import { useStickToBottom } from "./useStickToBottom";
import { writesWatcher } from "./writingCalls";

export interface AgentPanelProps {
  docId: string;
  onDocLink(docId: string, page?: number): boolean;
  onWorkingState(ws: WorkingState | null, revision: number): void;
  /** A thread to open now (e.g. an auto-create run's, to refine it); a new object each time. */
  openThread?: { id: string } | null;
}

export function AgentPanel({ docId, onDocLink, onWorkingState, openThread: requested }: AgentPanelProps) {
  const [state, dispatch] = useReducer(reducer, undefined, initialConversation);
  const [settings] = useSettings();
  const [threads, setThreads] = useState<Thread[]>([]);
  const [threadsError, setThreadsError] = useState<ErrorInput | null>(null);
  const [loadingThread, setLoadingThread] = useState(false);
  const abortRef = useRef<AbortController | null>(null);
  const models = useAsync(() => api.models(), []);

  const refreshThreads = useCallback(async () => {
    try {
      setThreads(await api.listThreads(docId).then((l) => l.threads));
      setThreadsError(null);
    } catch (e) {
      setThreadsError(errorInput(e));
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [docId]);

  const openThread = useCallback(
    async (id: string | null) => {
      if (!id) {
        dispatch({ type: "reset" });
        return;
      }
      setLoadingThread(true);
      try {
        // The thread's changes in the history, in one request, so that the
        // turns and approved cards that changed something keep their Undo;
        // without them the thread still opens, without Undo.
        const [t, history] = await Promise.all([
          api.getThread(docId, id),
          api.listHistory({ edge: "agent", actor: id, limit: 1000 }).then(
            (h) => h.entries,
            () => undefined,
          ),
        ]);
        const stored = t.messages ?? [];
        const messages = messagesFromThread(stored, `${t.thread_id}-`, { model: t.model, history });
        dispatch({ type: "loaded", threadId: t.thread_id, messages, workingState: t.working_state ?? null, pending: pendingFromThread(stored, messages) });
      } catch (e) {
        setThreadsError(errorInput(e));
      } finally {
        setLoadingThread(false);
      }
    },
    [docId],
  );

  // On open: the threads of the document, continuing the latest one.
  useEffect(() => {
    let cancelled = false;
    api.listThreads(docId).then((l) => l.threads).then(
      (ts) => {
        if (cancelled) return;
        setThreads(ts);
        const latest = [...ts].sort((a, b) => (b.updated_at ?? "").localeCompare(a.updated_at ?? ""))[0];
        if (latest) void openThread(latest.thread_id);
      },
      (e) => !cancelled && setThreadsError(errorInput(e)),
    );
    return () => {
      cancelled = true;
      abortRef.current?.abort();
    };
  }, [docId, openThread]);

  useEffect(() => {
    if (!requested) return;
    void refreshThreads();
    void openThread(requested.id);
  }, [requested, openThread, refreshThreads]);

  useEffect(() => onWorkingState(state.workingState, state.extractionRevision), [state.workingState, state.extractionRevision, onWorkingState]);

  // Keep the newest output in view unless the user scrolled up.
  const scroller = useStickToBottom(state);

  const afterTurn = useCallback(
    async (threadId: string | null) => {
      await refreshThreads();
      if (!threadId) return;
      try {
        const t = await api.getThread(docId, threadId);
        dispatch({ type: "sync_seqs", userSeqs: userSeqs(t.messages ?? []) });
      } catch {
        /* seqs stay unknown: editing that message is unavailable */
      }
    },
    [docId, refreshThreads],
  );

  const stream = useCallback(
    async (kind: "chat" | "approve", body: ChatRequest | ApproveRequest, knownThread: string | null, approving: ToolCall[] = []) => {
      const ac = new AbortController();
      abortRef.current = ac;
      scroller.follow();
      let threadId = knownThread;
      const wrote = writesWatcher(approving);
      const onEvent = (e: AgentEvent) => {
        if (e.type === "turn_started" && e.thread_id) threadId = e.thread_id;
        // A schema, prompt, tag or document may have been made, renamed or deleted: names change.
        if (wrote(e)) invalidateNames();
        if (e.type === "done" && e.result?.thread_id) threadId = e.result.thread_id;
        dispatch({ type: "event", event: e, now: Date.now() });
      };
      const t = chatTransport();
      try {
        if (kind === "chat") await t.chat(docId, body as ChatRequest, onEvent, ac.signal);
        else await t.approve(docId, body as ApproveRequest, onEvent, ac.signal);
        dispatch({ type: "stream_end", now: Date.now() });
      } catch (e) {
        if (ac.signal.aborted || (e instanceof DOMException && e.name === "AbortError")) {
          dispatch({ type: "stopped", now: Date.now() });
        } else {
          dispatch({ type: "request_failed", message: errorMessage(e), ...(e instanceof ApiError ? { code: e.code, status: e.status } : {}) });
        }
      } finally {
        if (abortRef.current === ac) abortRef.current = null;
        void afterTurn(threadId);
      }
    },
    [docId, afterTurn],
  );

  const send = useCallback(
    (text: string, mentions: Mention[], replace?: UserMessageView) => {
      if (!canSend(state)) return;
      const body: ChatRequest = { message: text, ...approvalFields(settings) };
      if (mentions.length) body.mentions = mentions;
      if (settings.model) body.model = settings.model;
      if (state.threadId) body.thread_id = state.threadId;
      if (replace && replace.seq !== null && state.threadId) body.truncate_thread_to_message_count = replace.seq;
      dispatch({ type: "send", text, mentions, replaceFromMessageId: replace?.id });
      void stream("chat", body, state.threadId);
    },
    [state, settings, stream],
  );

  const stop = useCallback(() => abortRef.current?.abort(), []);

  useEscapeStops(state.status === "streaming", stop);

  const submitApprovals = useCallback(
    (p: PendingApproval, drafts: Record<string, Decision>, alwaysTools: string[] = []) => {
      const approvals = approvalsFor(p, drafts);
      const body: ApproveRequest = { turn_id: p.turnId, approvals };
      const tools = [...new Set([...(settings.approvalMode === "per_tool" ? settings.autoApprovedTools : []), ...alwaysTools])];
      if (tools.length) body.auto_approved_tools = tools;
      dispatch({ type: "approve", approvals });
      void stream("approve", body, state.threadId, p.calls);
    },
    [settings, stream, state.threadId],
  );

  const decide = useCallback(
    (p: PendingApproval, callId: string, d: Decision | null, alwaysTools: string[] = []) => {
      const drafts = { ...p.drafts };
      if (d) drafts[callId] = d;
      else delete drafts[callId];
      if (d && allDecided({ ...p, drafts })) submitApprovals(p, drafts, alwaysTools);
      else dispatch({ type: "draft", callId, decision: d });
    },
    [submitApprovals],
  );

  const approvalFor = useCallback(
    (callId: string, p: PendingApproval): ApprovalControls => ({
      draft: p.drafts[callId],
      decide: (d) => decide(p, callId, d),
      alwaysApprove: () => {
        const name = p.calls.find((c) => c.id === callId)?.name;
        if (!name) return;
        const list = [...new Set([...settings.autoApprovedTools, name])];
        updateSettings({ autoApprovedTools: list, approvalMode: settings.approvalMode === "auto_all" ? "auto_all" : "per_tool" });
        // Every pending call of that tool is approved with it.
        const drafts = { ...p.drafts };
        for (const c of p.calls) if (c.name === name && p.needsApproval.includes(c.id) && !drafts[c.id]) drafts[c.id] = { approved: true };
        if (allDecided({ ...p, drafts })) submitApprovals(p, drafts, [name]);
        else for (const [id, dd] of Object.entries(drafts)) dispatch({ type: "draft", callId: id, decision: dd });
      },
    }),
    [decide, settings, submitApprovals],
  );

  const decideAll = (approved: boolean) => {
    const p = state.pending;
    if (!p) return;
    const drafts: Record<string, Decision> = {};
    for (const id of p.needsApproval) drafts[id] = approved ? (p.drafts[id]?.approved ? p.drafts[id] : { approved: true }) : { approved: false };
    submitApprovals(p, drafts);
  };

  const retry = () => {
    const u = lastUserMessage(state);
    if (!u || !canSend(state)) return;
    send(u.text, u.mentions, u.seq !== null ? u : undefined);
  };

  const resubmit = (m: UserMessageView, text: string) => send(text, m.mentions, m);

  const proposalEnv = useMemo(() => ({ docId, threadId: state.threadId }), [docId, state.threadId]);
  const busy = state.status === "streaming";
  const p = state.pending;
  const blocked = p ? "Decide on the proposed actions above before sending another message." : null;

  return (
    <div className="agent-panel" data-testid="agent-panel">
      <div className="agent-toolbar">
        <ThreadPicker
          threads={threads}
          current={state.threadId}
          disabled={busy || loadingThread}
          onSelect={(id) => void openThread(id)}
          onRename={async (id, title) => {
            await api.renameThread(docId, id, { title });
            await refreshThreads();
          }}
          onDelete={async (id) => {
            await api.deleteThread(docId, id);
            if (id === state.threadId) dispatch({ type: "reset" });
            await refreshThreads();
          }}
        />
        <div className="agent-options">
          <ModelSelect models={models.data} />
          <select
            value={settings.approvalMode}
            onChange={(e) => updateSettings({ approvalMode: e.target.value as ApprovalMode })}
            data-testid="approval-mode"
            aria-label="Approvals"
            title="When the agent wants to change something"
          >
            <option value="ask">Ask every time</option>
            <option value="per_tool">Ask, except {settings.autoApprovedTools.length} always-approved tools</option>
            <option value="auto_all">Auto-approve all</option>
          </select>
        </div>
      </div>
      {threadsError && <ErrorBox error={threadsError} onRetry={() => void refreshThreads()} />}
      {models.error && <ErrorBox title="The list of models is not available" error={models.error} onRetry={models.reload} />}
      <div
        className="agent-scroll"
        ref={scroller.ref}
        onScroll={scroller.onScroll}
      >
        {state.messages.length === 0 && !loadingThread && (
          <div className="empty agent-empty">
            <strong>Ask the agent about this document</strong>
            <div className="empty-body">
              For example: “Summarise this document”, “Create a schema for the fields of this invoice”, or “Run the
              extraction with @prompt-name”. Changes it proposes wait for your approval.
            </div>
          </div>
        )}
        {loadingThread && <div className="muted loading">Loading conversation…</div>}
        <ProposalEnvContext.Provider value={proposalEnv}>
          <Messages state={state} approvalFor={approvalFor} onDocLink={onDocLink} onResubmit={canSend(state) && state.threadId ? resubmit : undefined} onRetry={retry} />
        </ProposalEnvContext.Provider>
      </div>
      {p && p.needsApproval.length > 1 && (
        <div className="batch-bar" data-testid="batch-approval">
          <span>
            {p.needsApproval.length} actions wait for your approval
            {Object.keys(p.drafts).length ? ` (${Object.keys(p.drafts).length} decided)` : ""}
          </span>
          <button type="button" className="btn primary small" onClick={() => decideAll(true)} data-testid="approve-all-button">
            Approve all
          </button>
          <button type="button" className="btn small" onClick={() => decideAll(false)} data-testid="reject-all-button">
            Reject all
          </button>
        </div>
      )}
      <Composer busy={busy} blocked={blocked} onSend={(t, m) => send(t, m)} onStop={stop} />
    </div>
  );
}
