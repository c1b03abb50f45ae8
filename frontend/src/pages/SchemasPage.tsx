import { useEffect, useRef, useState } from "react";
import { api } from "../api/routes";
import type { ResponseFormat, SchemaRevision } from "../api/types";
import { CopyId, Empty, ErrorBox, FieldError, formatDate, Spinner } from "../components/common";
import { invalidateNames } from "../lib/names";
import { href, navigate } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { useTitle } from "../lib/useTitle";
import { SchemaEditor, SchemaView } from "../schema/FieldTable";
import { sanitizeName } from "../schema/fields";
import { ArtifactLayout } from "./artifacts";
import { errorInput, formErrorField } from "../lib/errors";

const TEMPLATE: ResponseFormat = {
  type: "json_schema",
  json_schema: {
    name: "invoice",
    strict: true,
    schema: {
      type: "object",
      properties: { invoice_number: { type: "string" }, total: { type: "number" } },
      required: ["invoice_number", "total"],
      additionalProperties: false,
    },
  },
};

function SchemaForm({ initial, onSaved, onCancel }: { initial?: SchemaRevision; onSaved(s: SchemaRevision): void; onCancel(): void }) {
  const [name, setName] = useState(initial?.name ?? "");
  const rf = useRef<{ value: unknown; problems: string[] }>({ value: initial?.response_format ?? TEMPLATE, problems: [] });
  const [problems, setProblems] = useState<string[]>([]);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const submit = async () => {
    const errs: Record<string, string> = {};
    if (!name.trim()) errs.name = "A schema needs a name.";
    if (rf.current.value === undefined || rf.current.problems.length) errs.response_format = rf.current.problems.join(" ") || "The schema is not valid JSON.";
    setErrors(errs);
    if (Object.keys(errs).length) return;
    let value = rf.current.value as ResponseFormat;
    // A new schema's response_format is named after it (the server wants [a-zA-Z0-9_-]).
    if (!initial && value && typeof value === "object" && value.json_schema && typeof value.json_schema === "object") {
      value = { ...value, json_schema: { ...value.json_schema, name: sanitizeName(name) } };
    }
    setSaving(true);
    try {
      const body = { name: name.trim(), response_format: value };
      const s = initial ? await api.updateSchema(initial.schema_id, body) : await api.createSchema(body);
      invalidateNames();
      onSaved(s);
    } catch (e) {
      setErrors({ [formErrorField(e, ["name", "response_format"])]: errorInput(e).message });
    } finally {
      setSaving(false);
    }
  };
  return (
    <form className="form wide" onSubmit={(e) => { e.preventDefault(); void submit(); }} data-testid="schema-form">
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} data-testid="schema-name" />
      </label>
      <FieldError error={errors.name} />
      <div className="form-label">
        Fields
        <span className="muted small-text">
          What to extract. Strict mode wants every field required; mark a field “can be empty” when a document may not have it.
        </span>
      </div>
      <SchemaEditor
        initial={initial?.response_format ?? TEMPLATE}
        onChange={(value, ps) => {
          rf.current = { value, problems: ps };
          setProblems(ps);
        }}
      />
      {problems.length > 0 && (
        <ul className="edit-problems" role="alert">
          {problems.map((p, i) => (
            <li key={i}>{p}</li>
          ))}
        </ul>
      )}
      <FieldError error={errors.response_format} />
      <FieldError error={errors._form} />
      <div className="row">
        <button type="submit" className="btn primary" disabled={saving || problems.length > 0} data-testid="schema-save">
          {saving ? "Saving…" : initial ? "Save new version" : "Create schema"}
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function Revisions({ schemaId, current }: { schemaId: string; current: string }) {
  const revs = useAsync(() => api.listSchemaRevisions(schemaId), [schemaId, current]);
  if (revs.error) return <p className="muted small-text">Older versions can be opened from their links (schema_rev:ID); this server does not list them.</p>;
  if (!revs.data) return null;
  return (
    <ul className="revisions">
      {revs.data.map((r) => (
        <li key={r.schema_revid}>
          <a href={href("schema-revisions", r.schema_revid)}>v{r.version}</a> <span className="muted">{formatDate(r.created_at)}</span>
        </li>
      ))}
    </ul>
  );
}

function SchemaDetail({ id, onChanged }: { id: string; onChanged(): void }) {
  const s = useAsync(() => api.getSchema(id), [id]);
  const [editing, setEditing] = useState(false);
  const [delError, setDelError] = useState<unknown>(null);
  useEffect(() => setEditing(false), [id]);
  useTitle(s.data ? `${s.data.name} — Schemas` : null, 2);
  if (s.error) return <ErrorBox error={s.error} onRetry={s.reload} />;
  if (!s.data) return <Spinner />;
  if (editing)
    return (
      <SchemaForm
        initial={s.data}
        onSaved={(x) => {
          s.setData(x);
          setEditing(false);
          onChanged();
        }}
        onCancel={() => setEditing(false)}
      />
    );
  return (
    <div data-testid="schema-detail">
      <div className="detail-head">
        <h2>{s.data.name}</h2>
        <span className="badge">v{s.data.version}</span>
        <a className="btn small primary" href={href("data", id)} data-testid="schema-data">
          Data
        </a>
        <button type="button" className="btn small" onClick={() => setEditing(true)} data-testid="schema-edit">
          Edit
        </button>
        <button
          type="button"
          className="btn small danger"
          onClick={() =>
            api.deleteSchema(id).then(
              () => {
                invalidateNames();
                onChanged();
                navigate("#/schemas");
              },
              (e: unknown) => setDelError(e),
            )
          }
        >
          Delete
        </button>
      </div>
      {delError !== null && <ErrorBox title="The schema was not deleted" error={delError} />}
      <p className="muted small-text id-line">
        <span title={`schema ${s.data.schema_id} · revision ${s.data.schema_revid}`}>Version {s.data.version}</span>
        {s.data.created_at && <span> · saved {formatDate(s.data.created_at)}</span>} · <CopyId id={s.data.schema_id} />
      </p>
      <SchemaView responseFormat={s.data.response_format} />
      <UsedBy schemaId={id} />
      <h3>Versions</h3>
      <Revisions schemaId={id} current={s.data.schema_revid} />
    </div>
  );
}

/** The prompts whose latest version extracts with this schema. */
function UsedBy({ schemaId }: { schemaId: string }) {
  const prompts = useAsync(() => api.listPrompts(), [schemaId]);
  const users = prompts.data?.filter((p) => p.schema_id === schemaId) ?? [];
  if (!users.length) return null;
  return (
    <p className="small-text" data-testid="schema-used-by">
      Used by{" "}
      {users.map((p, i) => (
        <span key={p.prompt_id}>
          {i > 0 && ", "}
          <a href={href("prompts", p.prompt_id)} title={p.prompt_id}>
            {p.name}
          </a>
          {p.schema_version ? <span className="muted"> (v{p.schema_version})</span> : null}
        </span>
      ))}
    </p>
  );
}

function RevisionView({ revid }: { revid: string }) {
  const r = useAsync(() => api.getSchemaRevision(revid), [revid]);
  useTitle(r.data ? `${r.data.name} v${r.data.version} — Schemas` : null, 2);
  if (r.error) return <ErrorBox error={r.error} onRetry={r.reload} />;
  if (!r.data) return <Spinner />;
  return (
    <div data-testid="schema-revision">
      <div className="detail-head">
        <h2>{r.data.name}</h2>
        <span className="badge">v{r.data.version}</span>
        <a href={href("schemas", r.data.schema_id)}>Latest version</a>
      </div>
      <p className="muted small-text id-line">
        <span title={`revision ${r.data.schema_revid}`}>Saved {formatDate(r.data.created_at)}</span> · <CopyId id={r.data.schema_revid} label="Copy revision id" />
      </p>
      <SchemaView responseFormat={r.data.response_format} />
    </div>
  );
}

export default function SchemasPage({ id, revid }: { id?: string; revid?: string }) {
  const list = useAsync(() => api.listSchemas(), []);
  useTitle(id === "new" ? "New schema" : "Schemas");
  const detail = revid ? (
    <RevisionView revid={revid} />
  ) : id === "new" ? (
    <SchemaForm onSaved={(s) => { list.reload(); navigate(href("schemas", s.schema_id)); }} onCancel={() => navigate("#/schemas")} />
  ) : id ? (
    <SchemaDetail id={id} onChanged={list.reload} />
  ) : (
    <Empty title="Choose a schema">
      A schema says which fields to extract, as JSON Schema in the OpenAI structured-output shape. Pick one on the left, or{" "}
      <a href="#/schemas/new">create a schema</a>. The agent can also write one for you from a document.
    </Empty>
  );
  return (
    <ArtifactLayout
      title="Schemas"
      newHref="#/schemas/new"
      newLabel="New schema"
      list={
        <>
          {list.error && <ErrorBox error={list.error} onRetry={list.reload} />}
          {!list.data && !list.error && <Spinner />}
          {list.data?.length === 0 && <p className="muted">No schemas yet.</p>}
          <ul>
            {list.data?.map((s) => (
              <li key={s.schema_id}>
                <a href={href("schemas", s.schema_id)} className={s.schema_id === id ? "active" : ""} data-testid="schema-row">
                  {s.name} <span className="muted">v{s.version}</span>
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
