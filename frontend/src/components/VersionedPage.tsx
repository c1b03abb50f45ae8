// The page of a versioned artifact (schemas, prompts): the ArtifactPage of
// its kind, whose chosen item shows its latest version with the list of
// every version below, and the page of one version when the route names a
// revision. SchemasPage and PromptsPage say only what their items show.

import type { ReactNode } from "react";
import { ArtifactDetail, versionHeading } from "./ArtifactDetail";
import { ArtifactPage, versionRow } from "./ArtifactPage";
import type { ArtifactFormComponent, VersionedKind } from "./artifactKind";
import { CopyId, formatDate } from "./common";
import { RevisionView, Revisions } from "./Revisions";

interface Version {
  name: string;
  version: number;
  created_at: string;
}

/** A versioned kind with the API of its items and their revisions. */
export interface VersionedArtifact<R> extends VersionedKind {
  list(): Promise<R[]>;
  get(id: string): Promise<R>;
  remove(id: string): Promise<unknown>;
  revisions(id: string): Promise<R[]>;
  revision(revid: string): Promise<R>;
  idOf(r: R): string;
  revidOf(r: R): string;
}

/** The calls a versioned kind makes, and how its items name themselves. */
export type VersionedCalls<R> = Omit<VersionedArtifact<R>, keyof VersionedKind>;

/** The versioned kind of noun ("schema"): its names in the UI follow from the noun (Schemas, #/schemas, schema_rev:ID). */
export function versionedKind<R>(noun: string, calls: VersionedCalls<R>): VersionedArtifact<R> {
  const plural = `${noun}s`;
  return {
    noun,
    title: plural[0].toUpperCase() + plural.slice(1),
    route: plural,
    newLabel: `New ${noun}`,
    none: `No ${plural} yet.`,
    revisionRoute: `${noun}-revisions`,
    revisionRef: `${noun}_rev`,
    ...calls,
  };
}

export interface VersionedPageProps<R> {
  kind: VersionedArtifact<R>;
  /** The item the route names: an id, "new" (the form), or none (the intro). */
  id?: string;
  /** The revision the route names, shown instead. */
  revid?: string;
  form: ArtifactFormComponent<R>;
  /** Buttons before Edit (a schema's Data). */
  actions?(item: R): ReactNode;
  /** What the chosen item shows of its latest version, above its versions. */
  latest(item: R): ReactNode;
  /** What the page of one version shows below its heading. */
  revision(r: R): ReactNode;
  /** What the page says with nothing chosen. */
  intro: ReactNode;
}

export function VersionedPage<R extends Version>({ kind, id, revid, form, actions, latest, revision, intro }: VersionedPageProps<R>) {
  return (
    <ArtifactPage
      kind={kind}
      load={kind.list}
      id={id}
      idOf={kind.idOf}
      row={versionRow}
      form={form}
      detail={(id, onChanged) => (
        <ArtifactDetail<R> kind={kind} id={id} load={kind.get} remove={kind.remove} heading={versionHeading} actions={actions} form={form} onChanged={onChanged}>
          {(item) => (
            <>
              {latest(item)}
              <h3>Versions</h3>
              <Revisions kind={kind} id={id} current={kind.revidOf(item)} load={kind.revisions} revid={kind.revidOf} />
            </>
          )}
        </ArtifactDetail>
      )}
      revision={
        revid ? (
          <RevisionView kind={kind} revid={revid} load={kind.revision} parentId={kind.idOf}>
            {revision}
          </RevisionView>
        ) : undefined
      }
      intro={intro}
    />
  );
}

/** A version's line below its heading: its number (its ids on hover), when it was saved, and its artifact's id to copy. */
export function VersionLine<R extends Version>({ kind, item }: { kind: VersionedArtifact<R>; item: R }) {
  return (
    <p className="muted small-text id-line">
      <span title={`${kind.noun} ${kind.idOf(item)} · revision ${kind.revidOf(item)}`}>Version {item.version}</span>
      {item.created_at && <span> · saved {formatDate(item.created_at)}</span>} · <CopyId id={kind.idOf(item)} />
    </p>
  );
}
