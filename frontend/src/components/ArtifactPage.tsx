// The page of one kind of artifact (prompts, schemas, tags): the list on the
// left with the create button, a spinner, the empty state and load errors;
// the chosen item, a new-item form or the kind's introduction on the right.
// Each page says only what differs: its kind, how a row reads, the detail.

import type { ReactNode } from "react";
import { href, navigate } from "../lib/router";
import { useAsync, type AsyncState } from "../lib/useAsync";
import { useTitle } from "../lib/useTitle";
import type { ArtifactFormComponent, ArtifactKind } from "./artifactKind";
import { ErrorBox, Spinner } from "./common";

export interface ArtifactPageProps<T> {
  kind: ArtifactKind;
  load(): Promise<T[]>;
  /** The item the route names: an id, "new" (the form), or none (the intro). */
  id?: string;
  idOf(item: T): string;
  /** What a row shows. */
  row(item: NoInfer<T>): ReactNode;
  /** The kind's form, for a new item. */
  form: ArtifactFormComponent<NoInfer<T>>;
  /** The chosen item; onChanged reloads the list. */
  detail(id: string, onChanged: () => void): ReactNode;
  /** What the page says with nothing chosen. */
  intro: ReactNode;
  /** Shown instead when the route names a revision. */
  revision?: ReactNode;
}

/** A kind's page: its list, and what the route names beside it. */
export function ArtifactPage<T>({ kind, load, id, idOf, row, form: Form, detail, intro, revision }: ArtifactPageProps<T>) {
  const list = useAsync(load, []);
  useTitle(id === "new" ? kind.newLabel : kind.title);
  const shown =
    revision ??
    (id === "new" ? (
      <Form
        onSaved={(x) => {
          list.reload();
          navigate(href(kind.route, idOf(x)));
        }}
        onCancel={() => navigate(`#/${kind.route}`)}
      />
    ) : id ? (
      detail(id, list.reload)
    ) : (
      intro
    ));
  return <ArtifactList kind={kind} list={list} active={id} idOf={idOf} row={row} detail={shown} />;
}

export interface ArtifactListProps<T> {
  kind: ArtifactKind;
  /** The list, as useAsync loads it. */
  list: Pick<AsyncState<T[]>, "data" | "error" | "reload">;
  /** The chosen item's id, marked active in the list. */
  active?: string;
  idOf(item: T): string;
  /** What a row shows. */
  row(item: NoInfer<T>): ReactNode;
  detail: ReactNode;
}

/** The page's frame: the list, with the create button, a spinner, the empty state and load errors, and the detail beside it. */
export function ArtifactList<T>({ kind, list, active, idOf, row, detail }: ArtifactListProps<T>) {
  return (
    <div className="page artifacts">
      <div className="page-head">
        <h1>{kind.title}</h1>
        <a className="btn primary" href={`#/${kind.route}/new`} data-testid="artifact-new">
          {kind.newLabel}
        </a>
      </div>
      <div className="artifact-cols">
        <nav className="artifact-list">
          {list.error && <ErrorBox error={list.error} onRetry={list.reload} />}
          {!list.data && !list.error && <Spinner />}
          {list.data?.length === 0 && <p className="muted">{kind.none}</p>}
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

/** A versioned item's row: its name and latest version. */
export function versionRow(item: { name: string; version: number }): ReactNode {
  return (
    <>
      {item.name} <span className="muted">v{item.version}</span>
    </>
  );
}
