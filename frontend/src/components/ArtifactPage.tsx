// The page of one kind of artifact (prompts, schemas, tags): the list on the
// left with the create button, a spinner, the empty state and load errors;
// the chosen item, a new-item form or the kind's introduction on the right.
// Each page says only what differs: its kind, how a row reads, the detail.

import type { ReactNode } from "react";
import type { AsyncState } from "../lib/useAsync";
import { href } from "../lib/router";
import { ErrorBox, Spinner } from "./common";

/** What names one kind of artifact in the UI. */
export interface ArtifactKind {
  /** One of them ("prompt"): test ids (prompt-row, prompt-detail, prompt-edit, prompt-save, prompt-form, prompt-revision) and messages. */
  noun: string;
  /** The page's heading and the section of window titles ("Prompts"). */
  title: string;
  /** The route of the list and of an item ("prompts": #/prompts/ID). */
  route: string;
}

/** A kind whose items keep their older versions (prompts, schemas). */
export interface VersionedKind extends ArtifactKind {
  /** The route of one revision ("prompt-revisions"). */
  revisionRoute: string;
  /** The link scheme of a revision ("prompt_rev", as in prompt_rev:ID). */
  revisionRef: string;
}

export interface ArtifactPageProps<T> {
  kind: ArtifactKind;
  /** The create button's label ("New prompt"). */
  newLabel: string;
  /** The list, as useAsync loads it. */
  list: AsyncState<T[]>;
  /** What an empty list says ("No prompts yet."). */
  none: string;
  /** The chosen item's id, marked active in the list. */
  active?: string;
  idOf(item: T): string;
  /** What a row shows. */
  row(item: T): ReactNode;
  detail: ReactNode;
}

export function ArtifactPage<T>({ kind, newLabel, list, none, active, idOf, row, detail }: ArtifactPageProps<T>) {
  return (
    <div className="page artifacts">
      <div className="page-head">
        <h1>{kind.title}</h1>
        <a className="btn primary" href={`#/${kind.route}/new`} data-testid="artifact-new">
          {newLabel}
        </a>
      </div>
      <div className="artifact-cols">
        <nav className="artifact-list">
          {list.error && <ErrorBox error={list.error} onRetry={list.reload} />}
          {!list.data && !list.error && <Spinner />}
          {list.data?.length === 0 && <p className="muted">{none}</p>}
          <ul>
            {list.data?.map((item) => {
              const id = idOf(item);
              return (
                <li key={id}>
                  <a href={href(kind.route, id)} className={id === active ? "active" : ""} data-testid={`${kind.noun}-row`}>
                    {row(item)}
                  </a>
                </li>
              );
            })}
          </ul>
        </nav>
        <section className="artifact-detail">{detail}</section>
      </div>
    </div>
  );
}
