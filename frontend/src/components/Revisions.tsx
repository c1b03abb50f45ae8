// A versioned artifact's (a prompt's, a schema's) older versions: the list
// of them under the latest, and the page of one.

import type { ReactNode } from "react";
import { href } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { useTitle } from "../lib/useTitle";
import type { VersionedKind } from "./artifactKind";
import { VersionHeading } from "./ArtifactDetail";
import { ErrorBox, formatDate, Spinner } from "./common";

interface Revision {
  version: number;
  created_at: string;
}

export interface RevisionsProps<R extends Revision> {
  kind: VersionedKind;
  /** The artifact's id, and its latest revision's (a new version reloads the list). */
  id: string;
  current: string;
  load(id: string): Promise<R[]>;
  revid(r: R): string;
}

/** Every version of an artifact, each linked to its page. */
export function Revisions<R extends Revision>({ kind, id, current, load, revid }: RevisionsProps<R>) {
  const revs = useAsync(() => load(id), [id, current]);
  if (revs.error)
    return <p className="muted small-text">Older versions can be opened from their links ({kind.revisionRef}:ID); this server does not list them.</p>;
  if (!revs.data) return null;
  return (
    <ul className="revisions">
      {revs.data.map((r) => (
        <li key={revid(r)}>
          <a href={href(kind.revisionRoute, revid(r))}>v{r.version}</a> <span className="muted">{formatDate(r.created_at)}</span>
        </li>
      ))}
    </ul>
  );
}

export interface RevisionViewProps<R extends Revision & { name: string }> {
  kind: VersionedKind;
  revid: string;
  load(revid: string): Promise<R>;
  /** The artifact the revision belongs to, for the link to its latest version. */
  parentId(r: R): string;
  children(r: R): ReactNode;
}

/** One version of an artifact, with a link to the latest. */
export function RevisionView<R extends Revision & { name: string }>({ kind, revid, load, parentId, children }: RevisionViewProps<R>) {
  const r = useAsync(() => load(revid), [revid]);
  useTitle(r.data ? `${r.data.name} v${r.data.version} — ${kind.title}` : null, 2);
  if (r.error) return <ErrorBox error={r.error} onRetry={r.reload} />;
  if (!r.data) return <Spinner />;
  return (
    <div data-testid={`${kind.noun}-revision`}>
      <div className="detail-head">
        <VersionHeading name={r.data.name} version={r.data.version} />
        <a href={href(kind.route, parentId(r.data))}>Latest version</a>
      </div>
      {children(r.data)}
    </div>
  );
}
