import { useState } from "react";
import { api } from "../api/routes.gen";
import type { Tag } from "../api/types";
import { ArtifactDetail } from "../components/ArtifactDetail";
import { ArtifactForm, NameField, useArtifactSave } from "../components/ArtifactForm";
import { ArtifactPage } from "../components/ArtifactPage";
import type { ArtifactKind } from "../components/artifactKind";
import { CopyId, Empty, FieldError } from "../components/common";
import { href } from "../lib/router";
import { useAsync } from "../lib/useAsync";

const KIND: ArtifactKind = { noun: "tag", title: "Tags", route: "tags", newLabel: "New tag", none: "No tags yet." };

function tagHeading(t: Tag) {
  return (
    <>
      <span className="dot big" style={{ background: t.color || "var(--dot-default)" }} />
      <h2 title={t.id}>{t.name}</h2>
    </>
  );
}

function TagForm({ initial, onSaved, onCancel }: { initial?: Tag; onSaved(t: Tag): void; onCancel(): void }) {
  const [name, setName] = useState(initial?.name ?? "");
  const [color, setColor] = useState(initial?.color || "#4f7cff");
  const [description, setDescription] = useState(initial?.description ?? "");
  const { errors, setErrors, saving, save } = useArtifactSave(["name", "color", "description"], onSaved);
  const submit = async () => {
    if (!name.trim()) {
      setErrors({ name: "A tag needs a name." });
      return;
    }
    const body = { name: name.trim(), color, description };
    await save(() => (initial ? api.updateTag(initial.id, body) : api.createTag(body)));
  };
  return (
    <ArtifactForm kind={KIND} saveLabel={initial ? "Save" : "Create tag"} onSubmit={submit} onCancel={onCancel} saving={saving} formError={errors._form}>
      <NameField kind={KIND} value={name} onChange={setName} error={errors.name} />
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
    </ArtifactForm>
  );
}

function TagDetail({ id, onChanged }: { id: string; onChanged(): void }) {
  // Loaded beside the tag, not after it.
  const docs = useAsync(() => api.listDocuments({ tag_id: [id], limit: 50 }), [id]);
  return (
    <ArtifactDetail kind={KIND} id={id} load={api.getTag} remove={api.deleteTag} heading={tagHeading} form={TagForm} onChanged={onChanged}>
      {(t) => (
        <>
          <p className="muted small-text id-line">
            <CopyId id={t.id} />
          </p>
          {t.description && <p>{t.description}</p>}
          <h3>Documents</h3>
          {docs.data?.documents.length === 0 && <p className="muted">No document has this tag.</p>}
          <ul>
            {docs.data?.documents.map((d) => (
              <li key={d.id}>
                <a href={href("documents", d.id)}>{d.name}</a>
              </li>
            ))}
          </ul>
        </>
      )}
    </ArtifactDetail>
  );
}

export default function TagsPage({ id }: { id?: string }) {
  return (
    <ArtifactPage
      kind={KIND}
      load={() => api.listTags().then((l) => l.tags)}
      id={id}
      idOf={(t) => t.id}
      row={(t) => (
        <>
          <span className="dot" style={{ background: t.color || "var(--dot-default)" }} /> {t.name}
        </>
      )}
      form={TagForm}
      detail={(id, onChanged) => <TagDetail id={id} onChanged={onChanged} />}
      intro={
        <Empty title="Choose a tag">
          Tags group documents and prompts. Pick one on the left, or <a href="#/tags/new">create a tag</a>.
        </Empty>
      }
    />
  );
}
