import { useEffect, useState } from "react";
import { api } from "../api/routes";
import type { Tag } from "../api/types";
import { CopyId, Empty, ErrorBox, FieldError, Spinner } from "../components/common";
import { href, navigate } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { invalidateNames } from "../lib/names";
import { useTitle } from "../lib/useTitle";
import { ArtifactLayout } from "./artifacts";
import { errorInput, formErrorField } from "../lib/errors";

function TagForm({ initial, onSaved, onCancel }: { initial?: Tag; onSaved(t: Tag): void; onCancel(): void }) {
  const [name, setName] = useState(initial?.name ?? "");
  const [color, setColor] = useState(initial?.color || "#4f7cff");
  const [description, setDescription] = useState(initial?.description ?? "");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const submit = async () => {
    if (!name.trim()) {
      setErrors({ name: "A tag needs a name." });
      return;
    }
    setSaving(true);
    setErrors({});
    try {
      const body = { name: name.trim(), color, description };
      const saved = initial ? await api.updateTag(initial.id, body) : await api.createTag(body);
      invalidateNames();
      onSaved(saved);
    } catch (e) {
      setErrors({ [formErrorField(e, ["name", "color", "description"])]: errorInput(e).message });
    } finally {
      setSaving(false);
    }
  };
  return (
    <form className="form" onSubmit={(e) => { e.preventDefault(); void submit(); }} data-testid="tag-form">
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} data-testid="tag-name" />
      </label>
      <FieldError error={errors.name} />
      <label>
        Colour
        <input type="color" value={color} onChange={(e) => setColor(e.target.value)} />
      </label>
      <FieldError error={errors.color} />
      <label>
        Description
        <textarea rows={3} value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <FieldError error={errors.description} />
      <FieldError error={errors._form} />
      <div className="row">
        <button type="submit" className="btn primary" disabled={saving} data-testid="tag-save">
          {saving ? "Saving…" : initial ? "Save" : "Create tag"}
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function TagDetail({ id, onChanged }: { id: string; onChanged(): void }) {
  const t = useAsync(() => api.getTag(id), [id]);
  const docs = useAsync(() => api.listDocuments({ tag_id: id, limit: 50 }), [id]);
  const [editing, setEditing] = useState(false);
  const [delError, setDelError] = useState<unknown>(null);
  useEffect(() => setEditing(false), [id]);
  useTitle(t.data ? `${t.data.name} — Tags` : null, 2);
  if (t.error) return <ErrorBox error={t.error} onRetry={t.reload} />;
  if (!t.data) return <Spinner />;
  if (editing) return <TagForm initial={t.data} onSaved={(x) => { t.setData(x); setEditing(false); onChanged(); }} onCancel={() => setEditing(false)} />;
  return (
    <div data-testid="tag-detail">
      <div className="detail-head">
        <span className="dot big" style={{ background: t.data.color || "var(--dot-default)" }} />
        <h2 title={t.data.id}>{t.data.name}</h2>
        <button type="button" className="btn small" onClick={() => setEditing(true)} data-testid="tag-edit">
          Edit
        </button>
        <button
          type="button"
          className="btn small danger"
          onClick={() => api.deleteTag(id).then(() => { invalidateNames(); onChanged(); navigate("#/tags"); }, (e: unknown) => setDelError(e))}
        >
          Delete
        </button>
      </div>
      {delError !== null && <ErrorBox title="The tag was not deleted" error={delError} />}
      <p className="muted small-text id-line">
        <CopyId id={t.data.id} />
      </p>
      {t.data.description && <p>{t.data.description}</p>}
      <h3>Documents</h3>
      {docs.data?.documents.length === 0 && <p className="muted">No document has this tag.</p>}
      <ul>
        {docs.data?.documents.map((d) => (
          <li key={d.id}>
            <a href={href("documents", d.id)}>{d.name}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

export default function TagsPage({ id }: { id?: string }) {
  const list = useAsync(() => api.listTags(), []);
  useTitle(id === "new" ? "New tag" : "Tags");
  const detail =
    id === "new" ? (
      <TagForm onSaved={(t) => { list.reload(); navigate(href("tags", t.id)); }} onCancel={() => navigate("#/tags")} />
    ) : id ? (
      <TagDetail id={id} onChanged={list.reload} />
    ) : (
      <Empty title="Choose a tag">
        Tags group documents and prompts. Pick one on the left, or <a href="#/tags/new">create a tag</a>.
      </Empty>
    );
  return (
    <ArtifactLayout
      title="Tags"
      newHref="#/tags/new"
      newLabel="New tag"
      list={
        <>
          {list.error && <ErrorBox error={list.error} onRetry={list.reload} />}
          {!list.data && !list.error && <Spinner />}
          {list.data?.length === 0 && <p className="muted">No tags yet.</p>}
          <ul>
            {list.data?.map((t) => (
              <li key={t.id}>
                <a href={href("tags", t.id)} className={t.id === id ? "active" : ""} data-testid="tag-row">
                  <span className="dot" style={{ background: t.color || "var(--dot-default)" }} /> {t.name}
                </a>
              </li>
            ))}
          </ul>
        </>
      }
      detail={detail}
    />
  );
}
