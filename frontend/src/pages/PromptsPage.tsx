import { useState } from "react";
import { LastEvaluation } from "../evidence/LastEvaluation";
import { api } from "../api/routes.gen";
import type { PromptInput, PromptRevision } from "../api/types";
import { SchemaLink, TagRef } from "../components/ArtifactLink";
import { ArtifactForm, NameField, useArtifactSave } from "../components/ArtifactForm";
import { Empty, FieldError } from "../components/common";
import { Markdown } from "../components/Markdown";
import { versionedKind, VersionedPage, VersionLine } from "../components/VersionedPage";
import { useAsync } from "../lib/useAsync";

const KIND = versionedKind<PromptRevision>("prompt", {
  list: () => api.listPrompts().then((l) => l.prompts), get: api.getPrompt, remove: api.deletePrompt,
  revisions: (id) => api.listPromptRevisions(id).then((l) => l.revisions), revision: api.getPromptRevision,
  idOf: (p) => p.prompt_id, revidOf: (p) => p.prompt_revid,
});

function PromptForm({ initial, onSaved, onCancel }: { initial?: PromptRevision; onSaved(p: PromptRevision): void; onCancel(): void }) {
  const schemas = useAsync(() => api.listSchemas().then((l) => l.schemas), []);
  const tags = useAsync(() => api.listTags().then((l) => l.tags), []);
  const models = useAsync(() => api.models(), []);
  const [name, setName] = useState(initial?.name ?? "");
  const [content, setContent] = useState(initial?.content ?? "");
  const [schemaId, setSchemaId] = useState(initial?.schema_id ?? "");
  const [schemaVersion, setSchemaVersion] = useState(initial?.schema_version ? String(initial.schema_version) : "");
  const [model, setModel] = useState(initial?.model ?? "");
  const [tagIds, setTagIds] = useState<string[]>(initial?.tag_ids ?? []);
  const { errors, setErrors, saving, save } = useArtifactSave(["name", "content", "schema_id", "schema_version", "model", "tag_ids"], onSaved);

  const submit = async () => {
    const errs: Record<string, string> = {};
    if (!name.trim()) errs.name = "A prompt needs a name.";
    if (!content.trim()) errs.content = "Write the instructions for the model.";
    if (schemaVersion && !/^\d+$/.test(schemaVersion)) errs.schema_version = "A version is a whole number.";
    setErrors(errs);
    if (Object.keys(errs).length) return;
    const body: PromptInput = { name: name.trim(), content, tag_ids: tagIds };
    if (schemaId) body.schema_id = schemaId;
    if (schemaId && schemaVersion) body.schema_version = Number(schemaVersion);
    if (model) body.model = model;
    await save(() => (initial ? api.updatePrompt(initial.prompt_id, body) : api.createPrompt(body)));
  };

  return (
    <ArtifactForm
      kind={KIND}
      saveLabel={initial ? "Save new version" : "Create prompt"}
      onSubmit={submit}
      onCancel={onCancel}
      saving={saving}
      formError={errors._form}
    >
      <NameField kind={KIND} value={name} onChange={setName} error={errors.name} />
      <label>
        Instructions
        <textarea rows={10} value={content} onChange={(e) => setContent(e.target.value)} data-testid="prompt-content" />
      </label>
      <FieldError error={errors.content} />
      <div className="form-row">
        <label>
          Schema
          <select value={schemaId} onChange={(e) => setSchemaId(e.target.value)} data-testid="prompt-schema">
            <option value="">None (free-form JSON)</option>
            {schemas.data?.map((s) => (
              <option key={s.schema_id} value={s.schema_id}>
                {s.name} (latest v{s.version})
              </option>
            ))}
          </select>
        </label>
        <label>
          Schema version
          <input value={schemaVersion} onChange={(e) => setSchemaVersion(e.target.value)} placeholder="latest" disabled={!schemaId} inputMode="numeric" />
        </label>
      </div>
      <FieldError error={errors.schema_id} />
      <FieldError error={errors.schema_version} />
      <label>
        Model
        <select value={model} onChange={(e) => setModel(e.target.value)}>
          <option value="">Default</option>
          {models.data?.models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.id}
            </option>
          ))}
          {model && !models.data?.models.some((m) => m.id === model) && <option value={model}>{model}</option>}
        </select>
      </label>
      <FieldError error={errors.model} />
      {tags.data && tags.data.length > 0 && (
        <fieldset>
          <legend>Tags</legend>
          {tags.data.map((t) => (
            <label key={t.id} className="check">
              <input
                type="checkbox"
                checked={tagIds.includes(t.id)}
                onChange={(e) => setTagIds((xs) => (e.target.checked ? [...xs, t.id] : xs.filter((x) => x !== t.id)))}
              />
              {t.name}
            </label>
          ))}
        </fieldset>
      )}
      <FieldError error={errors.tag_ids} />
    </ArtifactForm>
  );
}

function PromptView({ p }: { p: PromptRevision }) {
  return (
    <>
      <VersionLine kind={KIND} item={p} />
      <dl className="props">
        <dt>Schema</dt>
        <dd data-testid="prompt-schema-link">
          {p.schema_revid ? (
            <SchemaLink refId={p.schema_revid} version={p.schema_version} />
          ) : p.schema_id ? (
            <SchemaLink refId={p.schema_id} version={p.schema_version} />
          ) : (
            <span className="muted">none (free-form JSON)</span>
          )}
        </dd>
        <dt>Model</dt>
        <dd>{p.model || "default"}</dd>
        {p.tag_ids?.length > 0 && (
          <>
            <dt>Tags</dt>
            <dd className="tag-chips">
              {p.tag_ids.map((t) => (
                <TagRef key={t} refId={t} />
              ))}
            </dd>
          </>
        )}
      </dl>
      <div className="prompt-content">
        <Markdown text={p.content} />
      </div>
    </>
  );
}

/** The route names an item (id), a revision (revid), or neither. */
export default function PromptsPage(route: { id?: string; revid?: string }) {
  return (
    <VersionedPage
      kind={KIND}
      {...route}
      form={PromptForm}
      latest={(p) => (
        <>
          <PromptView p={p} />
          <LastEvaluation promptId={p.prompt_id} />
        </>
      )}
      revision={(r) => <PromptView p={r} />}
      intro={
        <Empty title="Choose a prompt">
          A prompt tells the model what to extract, usually with a schema for the shape of the answer. Pick one on the left, or{" "}
          <a href="#/prompts/new">create a prompt</a>.
        </Empty>
      }
    />
  );
}
