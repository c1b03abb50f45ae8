// Pieces shared by the Schemas, Prompts and Tags pages.

import type { ReactNode } from "react";

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

export function parseJSONField(text: string): { value?: unknown; error?: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { error: `Not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
}
