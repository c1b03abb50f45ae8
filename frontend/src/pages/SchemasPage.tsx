import { useRef, useState } from "react";
import { api } from "../api/routes.gen";
import type { ResponseFormat, SchemaRevision } from "../api/types";
import { ArtifactForm, NameField, useArtifactSave } from "../components/ArtifactForm";
import { CopyId, Empty, FieldError, formatDate } from "../components/common";
import { versionedKind, VersionedPage, VersionLine } from "../components/VersionedPage";
import { href } from "../lib/router";
import { useAsync } from "../lib/useAsync";
import { SchemaEditor, SchemaView } from "../schema/FieldTable";
import { sanitizeName } from "../schema/fields";

const KIND = versionedKind<SchemaRevision>("schema", {
  list: () => api.listSchemas().then((l) => l.schemas), get: api.getSchema, remove: api.deleteSchema,
  revisions: (id) => api.listSchemaRevisions(id).then((l) => l.revisions), revision: api.getSchemaRevision,
  idOf: (s) => s.schema_id, revidOf: (s) => s.schema_revid,
});

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
  const { errors, setErrors, saving, save } = useArtifactSave(["name", "response_format"], onSaved);
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
    const body = { name: name.trim(), response_format: value };
    await save(() => (initial ? api.updateSchema(initial.schema_id, body) : api.createSchema(body)));
  };
  return (
    <ArtifactForm
      kind={KIND}
      wide
      saveLabel={initial ? "Save new version" : "Create schema"}
      onSubmit={submit}
      onCancel={onCancel}
      saving={saving}
      canSave={problems.length === 0}
      formError={errors._form}
    >
      <NameField kind={KIND} value={name} onChange={setName} error={errors.name} />
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
    </ArtifactForm>
  );
}

/** The schema's data view: its documents' extracted values as a table. */
function DataLink({ id }: { id: string }) {
  return (
    <a className="btn small primary" href={href("data", id)} data-testid="schema-data">
      Data
    </a>
  );
}

/** The prompts whose latest version extracts with this schema. */
function UsedBy({ schemaId }: { schemaId: string }) {
  const prompts = useAsync(() => api.listPrompts().then((l) => l.prompts), [schemaId]);
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

/** The route names an item (id), a revision (revid), or neither. */
export default function SchemasPage(route: { id?: string; revid?: string }) {
  return (
    <VersionedPage
      kind={KIND}
      {...route}
      form={SchemaForm}
      actions={(s) => <DataLink id={s.schema_id} />}
      latest={(s) => (
        <>
          <VersionLine kind={KIND} item={s} />
          <SchemaView responseFormat={s.response_format} />
          <UsedBy schemaId={s.schema_id} />
        </>
      )}
      revision={(r) => (
        <>
          <p className="muted small-text id-line">
            <span title={`revision ${r.schema_revid}`}>Saved {formatDate(r.created_at)}</span> · <CopyId id={r.schema_revid} label="Copy revision id" />
          </p>
          <SchemaView responseFormat={r.response_format} />
        </>
      )}
      intro={
        <Empty title="Choose a schema">
          A schema says which fields to extract, as JSON Schema in the OpenAI structured-output shape. Pick one on the left, or{" "}
          <a href="#/schemas/new">create a schema</a>. The agent can also write one for you from a document.
        </Empty>
      }
    />
  );
}
