// Pieces shared by the Schemas, Prompts and Tags pages.

import type { ReactNode } from "react";
import { ApiError } from "../api/http";

export function ArtifactLayout({ title, list, detail, newHref, newLabel }: { title: string; list: ReactNode; detail: ReactNode; newHref: string; newLabel: string }) {
  return (
    <div className="page artifacts">
      <div className="page-head">
        <h1>{title}</h1>
        <a className="btn primary" href={newHref} data-testid="artifact-new">
          {newLabel}
        </a>
      </div>
      <div className="artifact-cols">
        <nav className="artifact-list">{list}</nav>
        <section className="artifact-detail">{detail}</section>
      </div>
    </div>
  );
}

/**
 * Which form field an API error is about: the first field whose name the
 * message mentions, else the fallback. Errors are `{error, code}` without a
 * field, so this reads the message.
 */
export function fieldOfError(e: unknown, fields: string[], fallback: string): { field: string; message: string } {
  const message = e instanceof Error ? e.message : String(e);
  const lower = message.toLowerCase();
  for (const f of fields) {
    if (lower.includes(f.toLowerCase()) || lower.includes(f.replace(/_/g, " ").toLowerCase())) return { field: f, message };
  }
  return { field: e instanceof ApiError && e.status === 0 ? "_form" : fallback, message };
}

export function parseJSONField(text: string): { value?: unknown; error?: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { error: `Not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
}
