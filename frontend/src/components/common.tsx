import { useEffect, useRef, useState, type ReactNode } from "react";
import { describeError, splitBackticks } from "../lib/errors";
import { formatBytes as fmtBytes, formatDateTime } from "../lib/format";

export function Spinner({ label = "Loading…" }: { label?: string }) {
  return (
    <div className="loading" role="status">
      <span className="spinner" aria-hidden="true" /> {label}
    </div>
  );
}

/** Text whose `backticked` parts are code (messages from the server and the model providers use them). */
export function RichText({ text }: { text: string }) {
  return (
    <>
      {splitBackticks(text).map((p, i) => (p.code ? <code key={i}>{p.text}</code> : <span key={i}>{p.text}</span>))}
    </>
  );
}

export interface ErrorBoxProps {
  /** The error: an ErrorInput (as useAsync keeps it), an ApiError, an error event's {message, code}, or a bare message (classified as unknown). */
  error: unknown;
  /** Offered as "Retry" only when trying again can help (a network failure, a 5xx, a busy model server), never for a refused request. */
  onRetry?: () => void;
  /** What was being done, as a heading ("Could not load the settings"); replaces the generic one. */
  title?: string;
  testid?: string;
}

/**
 * One error box for the whole UI, worded for people: what happened, the
 * server's message (backticks as code), what to do, a link where one helps
 * (Settings for model and connection problems), and Retry only when a
 * retry can help.
 */
export function ErrorBox({ error, onRetry, title, testid }: ErrorBoxProps) {
  const a = describeError(error, !!onRetry);
  const heading = title ?? a.title;
  // No link to the page the box is on.
  const link = a.link && typeof window !== "undefined" && window.location.hash.startsWith(a.link.href) ? undefined : a.link;
  // The network title and hint say all the message says, minus the CLI flag.
  const showMessage = a.kind !== "network" || !heading;
  return (
    <div className={`error-box kind-${a.kind}`} role="alert" data-testid={testid ?? "error-box"} data-kind={a.kind}>
      <div className="error-text">
        {heading && <strong className="error-title">{heading}</strong>}
        {showMessage && (
          <span className="error-message">
            <RichText text={a.message} />
          </span>
        )}
        {a.hint && <span className="error-hint">{a.hint}</span>}
      </div>
      {(link || (a.retry && onRetry)) && (
        <div className="error-actions">
          {link && (
            <a className="btn small" href={link.href} data-testid="error-link">
              {link.label}
            </a>
          )}
          {a.retry && onRetry && (
            <button type="button" className="btn small" onClick={onRetry} data-testid="error-retry">
              Retry
            </button>
          )}
        </div>
      )}
    </div>
  );
}

/**
 * An error where a box does not fit (a table cell's bubble, an upload's
 * line, an inline edit): the server's message (backticks as code),
 * classified by its code as ErrorBox does (data-kind), with what happened
 * and what to do as its tooltip when there is advice beyond the message.
 */
export function ErrorNote({ error, as: Tag = "span", className, role, testid, children }: {
  /** An ErrorInput (as useAsync keeps it), an ApiError, or a bare message. */
  error: unknown;
  as?: "span" | "div";
  className: string;
  role?: "alert";
  testid?: string;
  /** Shown after the message (what to do next, where the caller knows). */
  children?: ReactNode;
}) {
  const a = describeError(error, false);
  const tip = a.hint ? [a.title, a.hint].filter(Boolean).join(". ") : undefined;
  return (
    <Tag className={className} role={role} data-testid={testid} data-kind={a.kind} title={tip}>
      <RichText text={a.message} />
      {children}
    </Tag>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <strong>{title}</strong>
      {children && <div className="empty-body">{children}</div>}
    </div>
  );
}

export function FieldError({ error }: { error?: string | null }) {
  if (!error) return null;
  return (
    <div className="field-error">
      <RichText text={error} />
    </div>
  );
}

export function Json({ value, className }: { value: unknown; className?: string }) {
  let text: string;
  try {
    text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  } catch {
    text = String(value);
  }
  return <pre className={"json " + (className ?? "")}>{text}</pre>;
}

/** Copies text to the clipboard (the desktop WebKit may lack navigator.clipboard). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* fall through */
  }
  const ta = document.createElement("textarea");
  ta.value = text;
  ta.setAttribute("readonly", "");
  ta.style.position = "fixed";
  ta.style.opacity = "0";
  document.body.appendChild(ta);
  ta.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  ta.remove();
  return ok;
}

/** A small "Copy id" button; the id itself is its tooltip. */
export function CopyId({ id, label = "Copy id" }: { id: string; label?: string }) {
  const [state, setState] = useState<"idle" | "done" | "failed">("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  return (
    <button
      type="button"
      className="btn link small copy-id"
      title={id}
      data-testid="copy-id"
      onClick={async () => {
        setState((await copyText(id)) ? "done" : "failed");
        if (timer.current) clearTimeout(timer.current);
        timer.current = setTimeout(() => setState("idle"), 1500);
      }}
    >
      {state === "done" ? "Copied" : state === "failed" ? "Copy failed" : label}
    </button>
  );
}

export function formatBytes(n: number): string {
  return fmtBytes(n);
}

export function formatDate(s: string | undefined): string {
  return formatDateTime(s);
}
