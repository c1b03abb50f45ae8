// One artifact (a prompt, a schema, a tag) on its page: loaded by id, with
// its heading, Edit (which swaps in the kind's form) and Delete (which
// returns to the list, or says why it could not).

import { useEffect, useState, type ReactNode } from "react";
import { invalidateNames } from "../lib/names";
import { navigate } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { useTitle } from "../lib/useTitle";
import type { ArtifactFormComponent, ArtifactKind } from "./artifactKind";
import { ErrorBox, Spinner } from "./common";

export interface ArtifactDetailProps<T extends { name: string }> {
  kind: ArtifactKind;
  id: string;
  load(id: string): Promise<T>;
  remove(id: string): Promise<unknown>;
  /** What the heading shows before the buttons (a name and its version badge). */
  heading(item: T): ReactNode;
  /** Buttons before Edit (a schema's Data). */
  actions?(item: T): ReactNode;
  form: ArtifactFormComponent<T>;
  /** What the page shows of the item below its heading. */
  children(item: T): ReactNode;
  /** Called after an edit or a delete, so the list can reload. */
  onChanged(): void;
}

export function ArtifactDetail<T extends { name: string }>({ kind, id, load, remove, heading, actions, form: Form, children, onChanged }: ArtifactDetailProps<T>) {
  const item = useAsync(() => load(id), [id]);
  const [editing, setEditing] = useState(false);
  const [delError, setDelError] = useState<unknown>(null);
  useEffect(() => setEditing(false), [id]);
  useTitle(item.data ? `${item.data.name} — ${kind.title}` : null, 2);
  if (item.error) return <ErrorBox error={item.error} onRetry={item.reload} />;
  if (!item.data) return <Spinner />;
  if (editing)
    return (
      <Form
        initial={item.data}
        onSaved={(x) => {
          item.setData(x);
          setEditing(false);
          onChanged();
        }}
        onCancel={() => setEditing(false)}
      />
    );
  return (
    <div data-testid={`${kind.noun}-detail`}>
      <div className="detail-head">
        {heading(item.data)}
        {actions?.(item.data)}
        <button type="button" className="btn small" onClick={() => setEditing(true)} data-testid={`${kind.noun}-edit`}>
          Edit
        </button>
        <button
          type="button"
          className="btn small danger"
          onClick={() =>
            remove(id).then(
              () => {
                invalidateNames();
                onChanged();
                navigate(`#/${kind.route}`);
              },
              (e: unknown) => setDelError(e),
            )
          }
        >
          Delete
        </button>
      </div>
      {delError !== null && <ErrorBox title={`The ${kind.noun} was not deleted`} error={delError} />}
      {children(item.data)}
    </div>
  );
}

/** A versioned item's heading, for ArtifactDetail. */
export const versionHeading = (item: { name: string; version: number }) => <VersionHeading name={item.name} version={item.version} />;

/** A versioned artifact's name and version, as its heading shows them. */
export function VersionHeading({ name, version }: { name: string; version: number }) {
  return (
    <>
      <h2>{name}</h2>
      <span className="badge">v{version}</span>
    </>
  );
}
