// Errors worded for people: what happened, what to do, where to go, and
// whether trying again can help. Pure, so it is tested in plain node and
// every error box, the agent's turn errors and the settings page say the
// same thing for the same failure.
//
// An error is classified by its code, never by its words: the server's
// `code` (ErrorCode, generated from the Go codes: storage/fault's, the HTTP
// layer's and the model providers' kinds), or "network" when the server did
// not answer. KIND is the one mapping from code to class; an answer without
// a code (a proxy's HTML page) falls back to its HTTP status.

import type { ErrorCode } from "../api/types";

/** A code the UI sees: the server's, or "network" when it did not answer. */
export type ClientErrorCode = ErrorCode | "network";

/** An error as the UI keeps it, from the request to the box that shows it. */
export interface ErrorInput {
  message: string;
  /** HTTP status; 0 when the server did not answer; undefined when unknown. */
  status?: number;
  /** The server's code ("" or absent when the answer had none). */
  code?: string;
  /** The request member the error is about, as the server names it (`field`). */
  field?: string;
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
  | "slow_request"
  | "unavailable"
  | "invalid"
  | "not_found"
  | "conflict"
  | "unauthorized"
  | "too_large"
  | "internal"
  | "canceled"
  | "spending_limit"
  | "request_limit"
  | "unknown";

/** The class of each code. A code the server gains fails the build here until it has one. */
const KIND: Record<ClientErrorCode, ErrorKind> = {
  network: "network",
  unreachable: "model_unreachable",
  model_not_found: "model_missing",
  auth: "model_auth",
  no_tool_support: "model_tools",
  context_overflow: "model_context",
  rate_limited: "model_busy",
  server_error: "model_failed",
  stream_interrupted: "model_failed",
  bad_response: "model_failed",
  rejected: "invalid",
  timeout: "timeout",
  request_timeout: "slow_request",
  unavailable: "unavailable",
  invalid: "invalid",
  not_found: "not_found",
  conflict: "conflict",
  unauthorized: "unauthorized",
  forbidden_origin: "unauthorized",
  misdirected: "unauthorized",
  too_large: "too_large",
  internal: "internal",
  canceled: "canceled",
  spending_limit: "spending_limit",
};

const SETTINGS = { href: "#/settings", label: "Open Settings" };
const USAGE = { href: "#/usage", label: "See usage and limits" };

/** Reads any thrown or stored error into ErrorInput, keeping its code, status and field. */
export function errorInput(e: unknown): ErrorInput {
  if (e && typeof e === "object") {
    const o = e as { message?: unknown; status?: unknown; code?: unknown; error?: unknown; field?: unknown };
    const message = typeof o.message === "string" ? o.message : typeof o.error === "string" ? o.error : String(e);
    return {
      message,
      ...(typeof o.status === "number" ? { status: o.status } : {}),
      ...(typeof o.code === "string" && o.code ? { code: o.code } : {}),
      ...(typeof o.field === "string" && o.field ? { field: o.field } : {}),
    };
  }
  return { message: e === undefined || e === null ? "" : String(e) };
}

/** The class of an error from its code, else its HTTP status. */
export function classify(e: ErrorInput): ErrorKind {
  // rate_limited is a hosted API's (502) or, answered 429, Docent's own
  // per-minute limit on model requests (--serve).
  if (e.code === "rate_limited" && e.status === 429) return "request_limit";
  if (e.code && Object.hasOwn(KIND, e.code)) return KIND[e.code as ClientErrorCode];
  const status = e.status;
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

/**
 * Where a form shows an error: beside the input of the member the server
 * named (`field`), when the form has that input, else at the form's foot
 * ("_form").
 */
export function formErrorField(e: unknown, fields: readonly string[]): string {
  const field = errorInput(e).field;
  return field && fields.includes(field) ? field : "_form";
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
    case "slow_request":
      return a("What was sent arrived too slowly", "Docent stops waiting for an upload that stalls; check the connection to Docent, then try again.", true);
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
    case "spending_limit":
      // The message says the limit, what was spent and where to raise it.
      return a("A spending limit is reached", "", false, USAGE);
    case "request_limit":
      // The message says the limit and when to try again.
      return a("Too many model requests this minute", "", true, USAGE);
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
