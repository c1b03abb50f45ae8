import { useEffect, useState } from "react";
import { LastEvaluation } from "../evidence/LastEvaluation";
import { api } from "../api/routes";
import type { PromptInput, PromptRevision } from "../api/types";
import { SchemaLink, TagRef } from "../components/ArtifactLink";
import { CopyId, Empty, ErrorBox, FieldError, formatDate, Spinner } from "../components/common";
import { Markdown } from "../components/Markdown";
import { invalidateNames } from "../lib/names";
import { href, navigate } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { useTitle } from "../lib/useTitle";
import { ArtifactLayout } from "./artifacts";
import { errorInput, formErrorField } from "../lib/errors";

function PromptForm({ initial, onSaved, onCancel }: { initial?: PromptRevision; onSaved(p: PromptRevision): void; onCancel(): void }) {
  const schemas = useAsync(() => api.listSchemas(), []);
  const tags = useAsync(() => api.listTags(), []);
  const models = useAsync(() => api.models(), []);
  const [name, setName] = useState(initial?.name ?? "");
  const [content, setContent] = useState(initial?.content ?? "");
  const [schemaId, setSchemaId] = useState(initial?.schema_id ?? "");
  const [schemaVersion, setSchemaVersion] = useState(initial?.schema_version ? String(initial.schema_version) : "");
  const [model, setModel] = useState(initial?.model ?? "");
  const [tagIds, setTagIds] = useState<string[]>(initial?.tag_ids ?? []);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);

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
    setSaving(true);
    try {
      const saved = initial ? await api.updatePrompt(initial.prompt_id, body) : await api.createPrompt(body);
      invalidateNames();
      onSaved(saved);
    } catch (e) {
      setErrors({ [formErrorField(e, ["name", "content", "schema_id", "schema_version", "model", "tag_ids"])]: errorInput(e).message });
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="form" onSubmit={(e) => { e.preventDefault(); void submit(); }} data-testid="prompt-form">
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} data-testid="prompt-name" />
      </label>
      <FieldError error={errors.name} />
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
      <FieldError error={errors._form} />
      <div className="row">
        <button type="submit" className="btn primary" disabled={saving} data-testid="prompt-save">
          {saving ? "Saving…" : initial ? "Save new version" : "Create prompt"}
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function PromptView({ p }: { p: PromptRevision }) {
  return (
    <>
      <p className="muted small-text id-line">
        <span title={`prompt ${p.prompt_id} · revision ${p.prompt_revid}`}>Version {p.version}</span>
        {p.created_at && <span> · saved {formatDate(p.created_at)}</span>} · <CopyId id={p.prompt_id} />
      </p>
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

function Revisions({ promptId, current }: { promptId: string; current: string }) {
  const revs = useAsync(() => api.listPromptRevisions(promptId), [promptId, current]);
  if (revs.error) return <p className="muted small-text">Older versions can be opened from their links (prompt_rev:ID); this server does not list them.</p>;
  if (!revs.data) return null;
  return (
    <ul className="revisions">
      {revs.data.map((r) => (
        <li key={r.prompt_revid}>
          <a href={href("prompt-revisions", r.prompt_revid)}>v{r.version}</a> <span className="muted">{formatDate(r.created_at)}</span>
        </li>
      ))}
    </ul>
  );
}

function PromptDetail({ id, onChanged }: { id: string; onChanged(): void }) {
  const p = useAsync(() => api.getPrompt(id), [id]);
  const [editing, setEditing] = useState(false);
  const [delError, setDelError] = useState<unknown>(null);
  useEffect(() => setEditing(false), [id]);
  useTitle(p.data ? `${p.data.name} — Prompts` : null, 2);
  if (p.error) return <ErrorBox error={p.error} onRetry={p.reload} />;
  if (!p.data) return <Spinner />;
  if (editing)
    return <PromptForm initial={p.data} onSaved={(x) => { p.setData(x); setEditing(false); onChanged(); }} onCancel={() => setEditing(false)} />;
  return (
    <div data-testid="prompt-detail">
      <div className="detail-head">
        <h2>{p.data.name}</h2>
        <span className="badge">v{p.data.version}</span>
        <button type="button" className="btn small" onClick={() => setEditing(true)} data-testid="prompt-edit">
          Edit
        </button>
        <button
          type="button"
          className="btn small danger"
          onClick={() => api.deletePrompt(id).then(() => { invalidateNames(); onChanged(); navigate("#/prompts"); }, (e: unknown) => setDelError(e))}
        >
          Delete
        </button>
      </div>
      {delError !== null && <ErrorBox title="The prompt was not deleted" error={delError} />}
      <PromptView p={p.data} />
      <LastEvaluation promptId={p.data.prompt_id} />
      <h3>Versions</h3>
      <Revisions promptId={id} current={p.data.prompt_revid} />
    </div>
  );
}

function RevisionView({ revid }: { revid: string }) {
  const r = useAsync(() => api.getPromptRevision(revid), [revid]);
  useTitle(r.data ? `${r.data.name} v${r.data.version} — Prompts` : null, 2);
  if (r.error) return <ErrorBox error={r.error} onRetry={r.reload} />;
  if (!r.data) return <Spinner />;
  return (
    <div data-testid="prompt-revision">
      <div className="detail-head">
        <h2>{r.data.name}</h2>
        <span className="badge">v{r.data.version}</span>
        <a href={href("prompts", r.data.prompt_id)}>Latest version</a>
      </div>
      <PromptView p={r.data} />
    </div>
  );
}

export default function PromptsPage({ id, revid }: { id?: string; revid?: string }) {
  const list = useAsync(() => api.listPrompts(), []);
  useTitle(id === "new" ? "New prompt" : "Prompts");
  const detail = revid ? (
    <RevisionView revid={revid} />
  ) : id === "new" ? (
    <PromptForm onSaved={(p) => { list.reload(); navigate(href("prompts", p.prompt_id)); }} onCancel={() => navigate("#/prompts")} />
  ) : id ? (
    <PromptDetail id={id} onChanged={list.reload} />
  ) : (
    <Empty title="Choose a prompt">
      A prompt tells the model what to extract, usually with a schema for the shape of the answer. Pick one on the left, or{" "}
      <a href="#/prompts/new">create a prompt</a>.
    </Empty>
  );
  return (
    <ArtifactLayout
      title="Prompts"
      newHref="#/prompts/new"
      newLabel="New prompt"
      list={
        <>
          {list.error && <ErrorBox error={list.error} onRetry={list.reload} />}
          {!list.data && !list.error && <Spinner />}
          {list.data?.length === 0 && <p className="muted">No prompts yet.</p>}
          <ul>
            {list.data?.map((p) => (
              <li key={p.prompt_id}>
                <a href={href("prompts", p.prompt_id)} className={p.prompt_id === id ? "active" : ""} data-testid="prompt-row">
                  {p.name} <span className="muted">v{p.version}</span>
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
