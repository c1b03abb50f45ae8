// The one place that talks HTTP: every route helper goes through request(),
// so errors, the session cookie and the "not signed in" screen behave the same
// everywhere.

import type { ErrorBody } from "./types";

/** A failed request: the server's `{error, code, field?}` with the HTTP status. */
export class ApiError extends Error {
  readonly status: number;
  /** The server's code (ErrorCode), "network" when it did not answer, "" when the answer had none. */
  readonly code: string;
  /** The request member the error is about, "" when it is about the whole request. */
  readonly field: string;
  constructor(status: number, message: string, code = "", field = "") {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

type UnauthorizedListener = () => void;
const unauthorizedListeners = new Set<UnauthorizedListener>();

/** Calls fn whenever the server answers 401; returns an unsubscribe function. */
export function onUnauthorized(fn: UnauthorizedListener): () => void {
  unauthorizedListeners.add(fn);
  return () => unauthorizedListeners.delete(fn);
}

export function reportUnauthorized(): void {
  unauthorizedListeners.forEach((fn) => fn());
}

/** Turns a failed response into an ApiError (and signals a 401). */
export async function errorFromResponse(res: Response): Promise<ApiError> {
  if (res.status === 401) reportUnauthorized();
  let message = `${res.status} ${res.statusText}`.trim();
  let code = "";
  let field = "";
  try {
    const text = await res.text();
    if (text) {
      try {
        const body = JSON.parse(text) as Partial<ErrorBody>;
        if (body && typeof body.error === "string") message = body.error;
        if (body && typeof body.code === "string") code = body.code;
        if (body && typeof body.field === "string") field = body.field;
      } catch {
        message = text.slice(0, 300);
      }
    }
  } catch {
    // keep the status line
  }
  return new ApiError(res.status, message, code, field);
}

/** A route's query parameters (a generated *Query type): a list is the parameter repeated. */
export type Query = object;

export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query) as [string, unknown][]) {
    for (const one of Array.isArray(v) ? v : [v]) {
      if (one === undefined || one === null || one === "") continue;
      params.append(k, String(one));
    }
  }
  const s = params.toString();
  return s ? `${path}?${s}` : path;
}

export interface RequestOptions {
  method?: string;
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
}

/** Sends a JSON request and decodes the JSON answer; throws ApiError. */
export async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const init: RequestInit = {
    method: opts.method ?? "GET",
    credentials: "same-origin",
    headers: { Accept: "application/json" },
    signal: opts.signal,
  };
  if (opts.body !== undefined) {
    init.body = JSON.stringify(opts.body);
    (init.headers as Record<string, string>)["Content-Type"] = "application/json";
  }
  let res: Response;
  try {
    res = await fetch(withQuery(path, opts.query), init);
  } catch (e) {
    if (e instanceof DOMException && e.name === "AbortError") throw e;
    throw new ApiError(0, "Cannot reach the Docent server. Is `docent --serve` still running?", "network");
  }
  if (!res.ok) throw await errorFromResponse(res);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
