// Errors worded for people: what happened, what to do, where to go, and
// whether trying again can help. Pure, so it is tested in plain node and
// every error box, the agent's turn errors and the settings page say the
// same thing for the same failure.
//
// The input is whatever a caller holds: an ApiError (HTTP status and the
// server's code), an error event's {message, code}, or only a message
// string (useAsync keeps the message). The codes are the server's:
// storage/fault (not_found, conflict, invalid, unavailable, canceled,
// timeout, internal), the HTTP layer's (unauthorized, ...) and the model
// providers' kinds (unreachable, model_not_found, no_tool_support,
// context_overflow, rate_limited, server_error, stream_interrupted,
// timeout, auth, bad_response, rejected).

export interface ErrorInput {
  message: string;
  /** HTTP status; 0 when the server did not answer; undefined when unknown. */
  status?: number;
  code?: string;
}

export interface ErrorAdvice {
  /** What happened, in a few words ("The model server cannot be reached"); "" when nothing better than the message is known. */
  title: string;
  /** The server's own message (may hold `code` spans). */
  message: string;
  /** What to do about it; "" when the message says it already. */
  hint: string;
  /** Where to fix it, when a page helps (Settings for model and connection problems). */
  link?: { href: string; label: string };
  /** Whether trying the same thing again can help (network, 5xx, a busy or failed model server); never for a refused request (4xx). */
  retry: boolean;
  /** The class the advice was chosen by, for tests and styling. */
  kind: ErrorKind;
}

export type ErrorKind =
  | "network"
  | "model_unreachable"
  | "model_missing"
  | "model_auth"
  | "model_tools"
  | "model_context"
  | "model_busy"
  | "model_failed"
  | "timeout"
  | "unavailable"
  | "invalid"
  | "not_found"
  | "conflict"
  | "unauthorized"
  | "too_large"
  | "internal"
  | "canceled"
  | "unknown";

const SETTINGS = { href: "#/settings", label: "Open Settings" };

/** Reads any thrown or stored error into ErrorInput. */
export function errorInput(e: unknown): ErrorInput {
  if (e && typeof e === "object") {
    const o = e as { message?: unknown; status?: unknown; code?: unknown; error?: unknown };
    const message = typeof o.message === "string" ? o.message : typeof o.error === "string" ? o.error : String(e);
    return {
      message,
      ...(typeof o.status === "number" ? { status: o.status } : {}),
      ...(typeof o.code === "string" && o.code ? { code: o.code } : {}),
    };
  }
  return { message: e === undefined || e === null ? "" : String(e) };
}

/** The class of an error from its code, else its status, else its words. */
export function classify(e: ErrorInput): ErrorKind {
  switch (e.code) {
    case "network":
      return "network";
    case "unreachable":
      return "model_unreachable";
    case "model_not_found":
      return "model_missing";
    case "auth":
      return "model_auth";
    case "no_tool_support":
      return "model_tools";
    case "context_overflow":
      return "model_context";
    case "rate_limited":
      return "model_busy";
    case "server_error":
    case "stream_interrupted":
    case "bad_response":
      return "model_failed";
    case "rejected":
      return "invalid";
    case "timeout":
      return "timeout";
    case "unavailable":
      return "unavailable";
    case "invalid":
      return "invalid";
    case "not_found":
      return "not_found";
    case "conflict":
      return "conflict";
    case "unauthorized":
    case "forbidden_origin":
      return "unauthorized";
    case "too_large":
      return "too_large";
    case "internal":
      return "internal";
    case "canceled":
      return "canceled";
  }
  const m = e.message;
  // Words first: a message without a code (useAsync keeps only the text).
  if (/cannot reach the docent server/i.test(m)) return "network";
  if (/cannot reach (ollama|the model|the openai)/i.test(m) || /connection refused/i.test(m)) return "model_unreachable";
  if (/is not pulled|model .* not found|unknown model/i.test(m)) return "model_missing";
  if (/no model provider|no model is configured|OPENAI_API_KEY is not set/i.test(m)) return "unavailable";
  if (/^internal error/i.test(m)) return "internal";
  const status = e.status ?? statusOf(m);
  if (status === undefined) return "unknown";
  if (status === 0) return "network";
  if (status === 400 || status === 422) return "invalid";
  if (status === 401 || status === 403) return "unauthorized";
  if (status === 404) return "not_found";
  if (status === 409) return "conflict";
  if (status === 413) return "too_large";
  if (status === 502) return "model_failed";
  if (status === 503) return "unavailable";
  if (status === 504) return "timeout";
  if (status >= 500) return "internal";
  if (status >= 400) return "invalid";
  return "unknown";
}

/** A status at the start of a message ("502 Bad Gateway"), as http.ts writes one when the body had no message. */
function statusOf(m: string): number | undefined {
  const x = /^(\d{3})\b/.exec(m.trim());
  return x ? Number(x[1]) : undefined;
}

/**
 * What to tell a person about an error. `retryable` says whether the
 * caller has a retry at all; the advice's `retry` is true only when it
 * has one and trying again can help.
 */
export function describeError(e: unknown, retryable = true): ErrorAdvice {
  const input = errorInput(e);
  const kind = classify(input);
  const message = input.message.trim() || "Something went wrong.";
  const a = (title: string, hint: string, retry: boolean, link?: ErrorAdvice["link"]): ErrorAdvice => ({
    title,
    message,
    hint,
    retry: retry && retryable,
    kind,
    ...(link ? { link } : {}),
  });
  switch (kind) {
    case "network":
      return a("Docent's server did not answer", "Check that Docent is still running, then try again.", true);
    case "model_unreachable":
      return a("The model server cannot be reached", "Start it, or check its address in Settings, then try again.", true, SETTINGS);
    case "model_missing":
      return a("The model is not available", "Download it, or choose another model (in the model menu or in Settings).", true, SETTINGS);
    case "model_auth":
      return a("The model server refused the API key", "Check the API key in Settings.", true, SETTINGS);
    case "model_tools":
      return a("This model cannot use tools", "Choose a model that supports tool calling, in the model menu or in Settings.", false, SETTINGS);
    case "model_context":
      return a("The conversation is too long for the model", "Start a new conversation, or choose a model with a larger context.", false);
    case "model_busy":
      return a("The model server is busy", "Wait a moment, then try again.", true);
    case "model_failed":
      return a("The model server failed", "Try again; if it keeps failing, check the model server and the connection in Settings.", true, SETTINGS);
    case "timeout":
      return a("It took too long", "Try again, or choose a faster model.", true);
    case "unavailable":
      return a("Something Docent needs is not set up", "Check the model settings.", true, SETTINGS);
    case "invalid":
      return a("Docent could not do that", "", false);
    case "not_found":
      return a("It does not exist (any more)", "It may have been deleted; go back to the list.", false);
    case "conflict":
      return a("That clashes with something that exists", "", false);
    case "unauthorized":
      return a("Docent needs its access link", "Open the link Docent printed when it started.", false);
    case "too_large":
      return a("That is too large", "", false);
    case "internal":
      return a("Something failed inside Docent", "Try again; if it keeps failing, the details are in Docent's log.", true);
    case "canceled":
      return a("It was stopped", "", true);
    default:
      // Unknown: the message is all there is; a retry may help.
      return a("", "", true);
  }
}

/** Text split at backtick pairs: odd parts are code ("run `ollama serve`"). */
export function splitBackticks(s: string): { text: string; code: boolean }[] {
  const out: { text: string; code: boolean }[] = [];
  const re = /`([^`]+)`/g;
  let last = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    if (m.index > last) out.push({ text: s.slice(last, m.index), code: false });
    out.push({ text: m[1], code: true });
    last = m.index + m[0].length;
  }
  if (last < s.length) out.push({ text: s.slice(last), code: false });
  return out;
}
