// Ask Docent: a conversation about the whole library (#/ask, a new one;
// #/ask/{thread}, a past one). Its turns stream through the same events,
// reducer and messages as the document chat; every `[n]` of an answer is a
// citation chip (ask/Citations.tsx). Nothing waits for approval: Ask has
// read-only tools only.

import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { Composer } from "../agent/Composer";
import { messagesFromThread } from "../agent/history";
import { Messages } from "../agent/Messages";
import { ModelSelect } from "../agent/ModelSelect";
import { canSend, initialConversation, lastUserMessage, reducer } from "../agent/reducer";
import { groupThreads, ThreadPicker } from "../agent/ThreadPicker";
import { ApiError } from "../api/http";
import { api } from "../api/routes.gen";
import { chatTransport } from "../api/transport";
import type { AgentEvent, AskRequest, Thread } from "../api/types";
import { ErrorBox, formatDate } from "../components/common";
import { errorInput, type ErrorInput } from "../lib/errors";
import { href, navigate } from "../lib/router";
import { useSettings } from "../lib/settings";
import { useAsync } from "../lib/useAsync";
import { useTitle } from "../lib/useTitle";
import "./ask.css";
import { useEscapeStops } from "../agent/useEscapeStops";
import { useStickToBottom } from "../agent/useStickToBottom";

/** The longest question the server takes (agent.Ask refuses longer ones). */
export const MAX_QUESTION = 100_000;

/**
 * What a failed request about a thread says to people: a thread that is
 * not there is worded here, since the server's message names its id.
 */
export function threadError(e: unknown): ErrorInput {
  const err = errorInput(e);
  if (err.code === "not_found" || err.status === 404) {
    return { ...err, message: "This conversation is not there: it may have been deleted. Start a new question." };
  }
  return err;
}

// Ask has no current document to turn the pages of. A constant, so that
// the memoised markdown of the answers is not drawn again at every event.
const noDocLink = () => false;

/** A past thread in the list: its title, else when it started (never its id). */
function threadLabel(t: Thread): string {
  return t.title || `Question of ${formatDate(t.created_at) || "an unknown date"}`;
}

function PastQuestions({ threads, error, current, onRetry }: { threads: Thread[] | null; error: ErrorInput | null; current: string | null; onRetry(): void }) {
  return (
    <nav className="ask-threads" aria-label="Past questions" data-testid="ask-threads">
      <a className="btn small primary" href={href("ask")} data-testid="ask-new">
        New question
      </a>
      <h2>Past questions</h2>
      {error && <ErrorBox title="The past questions are not available" error={error} onRetry={onRetry} />}
      {threads && threads.length === 0 && <p className="muted small-text">None yet.</p>}
      {threads &&
        groupThreads(threads).map(([group, ts]) => (
          <div key={group} className="ask-thread-group">
            <h3>{group}</h3>
            <ul>
              {ts.map((t) => (
                <li key={t.thread_id}>
                  <a
                    href={href("ask", t.thread_id)}
                    className={t.thread_id === current ? "active" : ""}
                    aria-current={t.thread_id === current ? "page" : undefined}
                    data-testid="ask-thread"
                    title={threadLabel(t)}
                  >
                    {threadLabel(t)}
                  </a>
                </li>
              ))}
            </ul>
          </div>
        ))}
    </nav>
  );
}

export default function AskPage({ threadId }: { threadId?: string }) {
  useTitle("Ask Docent");
  const [state, dispatch] = useReducer(reducer, undefined, initialConversation);
  const [settings] = useSettings();
  const models = useAsync(() => api.models(), []);
  const [threads, setThreads] = useState<Thread[] | null>(null);
  const [threadsError, setThreadsError] = useState<ErrorInput | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const abortRef = useRef<AbortController | null>(null);
  // The thread this page shows or streams, known before the state says so:
  // a new thread's first turn puts it in the route, which must not reload it.
  const shown = useRef<string | null>(null);

  const refreshThreads = useCallback(async () => {
    try {
      setThreads(await api.listAskThreads().then((l) => l.threads));
      setThreadsError(null);
    } catch (e) {
      setThreadsError(errorInput(e));
    }
  }, []);

  useEffect(() => {
    void refreshThreads();
  }, [refreshThreads]);

  // The route's thread: a new conversation, or a past one opened from the
  // list, a link or the back button.
  useEffect(() => {
    const want = threadId ?? null;
    if (want === shown.current) return;
    abortRef.current?.abort();
    shown.current = want;
    setLoadError(null);
    if (!want) {
      dispatch({ type: "reset" });
      return;
    }
    let cancelled = false;
    setLoading(true);
    dispatch({ type: "reset" });
    api.getAskThread(want).then(
      (t) => {
        if (cancelled) return;
        const messages = messagesFromThread(t.messages ?? [], `${t.thread_id}-`, { model: t.model });
        dispatch({ type: "loaded", threadId: t.thread_id, messages, workingState: null });
        setLoading(false);
      },
      (e: unknown) => {
        if (cancelled) return;
        setLoadError(threadError(e));
        setLoading(false);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [threadId]);

  useEffect(() => () => abortRef.current?.abort(), []);

  // Keep the newest output in view unless the user scrolled up.
  const scroller = useStickToBottom(state);

  const stream = useCallback(
    async (body: AskRequest) => {
      const ac = new AbortController();
      abortRef.current = ac;
      scroller.follow();
      const onEvent = (e: AgentEvent) => {
        dispatch({ type: "event", event: e, now: Date.now() });
        const id = e.type === "turn_started" ? e.thread_id : e.type === "done" ? e.result?.thread_id : undefined;
        // A new thread gets its own address, for the list, a reload and the back button.
        if (id && shown.current !== id) {
          shown.current = id;
          navigate(href("ask", id));
        }
      };
      try {
        await chatTransport().ask(body, onEvent, ac.signal);
        dispatch({ type: "stream_end", now: Date.now() });
      } catch (e) {
        if (ac.signal.aborted || (e instanceof DOMException && e.name === "AbortError")) {
          dispatch({ type: "stopped", now: Date.now() });
        } else {
          const err = body.thread_id ? threadError(e) : errorInput(e);
          dispatch({ type: "request_failed", message: err.message, ...(e instanceof ApiError ? { code: e.code, status: e.status } : {}) });
        }
      } finally {
        if (abortRef.current === ac) abortRef.current = null;
        void refreshThreads();
      }
    },
    [refreshThreads],
  );

  const send = useCallback(
    (text: string) => {
      if (!canSend(state)) return;
      const body: AskRequest = { message: text };
      if (settings.model) body.model = settings.model;
      if (state.threadId) body.thread_id = state.threadId;
      dispatch({ type: "send", text });
      void stream(body);
    },
    [state, settings.model, stream],
  );

  const stop = useCallback(() => abortRef.current?.abort(), []);

  useEscapeStops(state.status === "streaming", stop);

  // A failed turn stored nothing: Retry asks the same question again.
  const retry = () => {
    const u = lastUserMessage(state);
    if (u && canSend(state)) send(u.text);
  };

  const busy = state.status === "streaming";
  return (
    <div className="page ask-page" data-testid="ask-page">
      <div className="page-head">
        <div>
          <h1>Ask Docent</h1>
          <p className="muted ask-intro">Questions about all of your documents and their data, answered with sources you can open.</p>
        </div>
        <ModelSelect models={models.data} />
      </div>
      {models.error && <ErrorBox title="The list of models is not available" error={models.error} onRetry={models.reload} />}
      <div className="ask-layout">
        <PastQuestions threads={threads} error={threadsError} current={state.threadId} onRetry={() => void refreshThreads()} />
        <section className="ask-main" aria-label="Conversation">
          {threads && state.threadId && threads.some((t) => t.thread_id === state.threadId) && (
            <div className="ask-toolbar">
              <ThreadPicker
                threads={threads}
                current={state.threadId}
                disabled={busy}
                actionsOnly
                onSelect={() => {}}
                onRename={async (id, title) => {
                  await api.renameAskThread(id, { title });
                  await refreshThreads();
                }}
                onDelete={async (id) => {
                  await api.deleteAskThread(id);
                  await refreshThreads();
                  navigate(href("ask"));
                }}
              />
            </div>
          )}
          <div
            className="ask-scroll"
            ref={scroller.ref}
            onScroll={scroller.onScroll}
          >
            {loadError ? (
              <ErrorBox title="This conversation cannot be opened" error={loadError} />
            ) : loading ? (
              <div className="muted loading">Loading conversation…</div>
            ) : state.messages.length === 0 ? (
              <div className="empty agent-empty" data-testid="ask-empty">
                <strong>Ask about all of your documents</strong>
                <div className="empty-body">
                  For example: “How much did I spend on taxis in 2024?”, “Which supplier raised prices?”, or “When does my car insurance renew?”.
                  Each answer cites its sources: click a number to see the page or the rows it comes from.
                </div>
              </div>
            ) : (
              <Messages state={state} approvalFor={() => undefined} onDocLink={noDocLink} onRetry={retry} citeMarkers />
            )}
          </div>
          <Composer
            busy={busy}
            blocked={loadError ? "Open a past question or start a new one." : null}
            onSend={(t) => send(t)}
            onStop={stop}
            placeholder="Ask about all of your documents…"
            mentions={false}
            maxChars={MAX_QUESTION}
          />
        </section>
      </div>
    </div>
  );
}
