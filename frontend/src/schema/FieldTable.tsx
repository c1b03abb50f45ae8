// A schema as a table of fields: a read-only view (optionally a diff), an
// editor, and SchemaEditor, which puts the editor and the JSON side by side
// as two tabs over one response_format.

import { useRef, useState, type ReactNode } from "react";
import {
  fieldProblems,
  fieldRows,
  innerSchema,
  newField,
  responseFormatProblems,
  schemaToTable,
  tableToSchema,
  withInnerSchema,
  type Field,
  type FieldRow,
  type ItemType,
  type SchemaTable,
} from "./fields";

/** How a row changed in a diff (the server's summaries mark them). */
export type FieldChange = NonNullable<FieldRow["change"]>;

const CHANGE_MARK: Record<FieldChange, string> = { added: "+", removed: "−", changed: "~", same: "" };
const CHANGE_WORD: Record<FieldChange, string> = { added: "added", removed: "removed", changed: "changed", same: "" };

/** The fields as a table; with `diff`, each row marked added, removed or changed (its `change`). */
export function FieldTableView({ rows, diff = false, rowTestId = "field-row" }: { rows: FieldRow[]; diff?: boolean; rowTestId?: string }) {
  if (rows.length === 0) return <p className="muted small-text">No fields.</p>;
  return (
    <div className="field-table-scroll">
      <table className="field-table">
        <thead>
          <tr>
            {diff && <th className="ft-mark" aria-label="Change" />}
            <th>Field</th>
            <th>Type</th>
            <th>Required</th>
            <th>Description</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const ch = r.change ?? "same";
            return (
              <tr key={`${ch}:${r.path}`} className={diff ? `ft-${ch}` : undefined} data-testid={rowTestId} data-field={r.path} data-change={diff ? ch : undefined}>
                {diff && (
                  <td className="ft-mark" title={CHANGE_WORD[ch]}>
                    {CHANGE_MARK[ch]}
                    {ch !== "same" && <span className="visually-hidden">{CHANGE_WORD[ch]}</span>}
                  </td>
                )}
                <td className="ft-name" style={{ paddingLeft: `${8 + r.depth * 18}px` }}>
                  {r.depth > 0 && (
                    <span className="ft-nest" aria-hidden="true">
                      ↳{" "}
                    </span>
                  )}
                  <code>{r.name}</code>
                </td>
                <td className="ft-type">{r.type}</td>
                <td className="ft-req">{r.required ? "required" : <span className="muted">optional</span>}</td>
                <td className="ft-desc">
                  {r.description}
                  {ch === "changed" && r.changes && r.changes.length > 0 && <div className="ft-changes">{r.changes.join("; ")}</div>}
                  {r.more && <div className="ft-more muted">{r.more}</div>}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

// ---- editor

type TypeValue = string; // "string", "date", "object", "array:object", "other", ...

const TYPE_OPTIONS: [TypeValue, string][] = [
  ["string", "string"],
  ["number", "number"],
  ["integer", "integer"],
  ["boolean", "boolean"],
  ["date", "date"],
  ["object", "object"],
  ["array:object", "array of objects"],
  ["array:string", "array of strings"],
  ["array:number", "array of numbers"],
  ["array:integer", "array of integers"],
  ["array:boolean", "array of booleans"],
  ["array:date", "array of dates"],
];

function typeValue(f: Field): TypeValue {
  return f.type === "array" ? `array:${f.itemType ?? "other"}` : f.type;
}

function withType(f: Field, v: TypeValue): Field {
  if (v.startsWith("array:")) return { ...f, type: "array", itemType: v.slice(6) as ItemType };
  const { itemType: _drop, ...rest } = f;
  void _drop;
  return { ...rest, type: v as Field["type"] };
}

function holdsFields(f: Field): boolean {
  return f.type === "object" || (f.type === "array" && f.itemType === "object");
}

type Path = number[];

function updateAt(fields: Field[], path: Path, fn: (siblings: Field[], i: number) => Field[]): Field[] {
  const [i, ...rest] = path;
  if (rest.length === 0) return fn(fields, i);
  return fields.map((f, k) => (k === i ? { ...f, children: updateAt(f.children, rest, fn) } : f));
}

function EditorRows({ fields, depth, path, onChange, all }: { fields: Field[]; depth: number; path: Path; onChange(next: Field[]): void; all: Field[] }) {
  const at = (i: number) => [...path, i];
  const set = (i: number, fn: (f: Field) => Field) => onChange(updateAt(all, at(i), (sib, k) => sib.map((f, j) => (j === k ? fn(f) : f))));
  const move = (i: number, d: number) =>
    onChange(
      updateAt(all, at(i), (sib, k) => {
        const j = k + d;
        if (j < 0 || j >= sib.length) return sib;
        const out = sib.slice();
        [out[k], out[j]] = [out[j], out[k]];
        return out;
      }),
    );
  const remove = (i: number) => onChange(updateAt(all, at(i), (sib, k) => sib.filter((_, j) => j !== k)));
  return (
    <>
      {fields.map((f, i) => {
        const tv = typeValue(f);
        const known = TYPE_OPTIONS.some(([v]) => v === tv);
        return (
          <FieldEditorRow
            key={f.id}
            f={f}
            depth={depth}
            first={i === 0}
            last={i === fields.length - 1}
            typeValue={tv}
            knownType={known}
            onSet={(fn) => set(i, fn)}
            onMove={(d) => move(i, d)}
            onRemove={() => remove(i)}
            onAddChild={() => set(i, (x) => ({ ...x, children: [...x.children, newField()] }))}
          >
            {holdsFields(f) && <EditorRows fields={f.children} depth={depth + 1} path={at(i)} onChange={onChange} all={all} />}
          </FieldEditorRow>
        );
      })}
    </>
  );
}

function FieldEditorRow({
  f,
  depth,
  first,
  last,
  typeValue: tv,
  knownType,
  onSet,
  onMove,
  onRemove,
  onAddChild,
  children,
}: {
  f: Field;
  depth: number;
  first: boolean;
  last: boolean;
  typeValue: TypeValue;
  knownType: boolean;
  onSet(fn: (f: Field) => Field): void;
  onMove(d: number): void;
  onRemove(): void;
  onAddChild(): void;
  children?: ReactNode;
}) {
  const label = f.name || "new field";
  return (
    <>
      <tr data-testid="field-edit-row" data-field={f.name}>
        <td className="ft-name" style={{ paddingLeft: `${4 + depth * 18}px` }}>
          {depth > 0 && (
            <span className="ft-nest" aria-hidden="true">
              ↳
            </span>
          )}
          <input value={f.name} onChange={(e) => onSet((x) => ({ ...x, name: e.target.value }))} aria-label="Field name" placeholder="field_name" data-testid="field-name" className="mono" />
        </td>
        <td>
          <select value={tv} onChange={(e) => onSet((x) => withType(x, e.target.value))} aria-label={`Type of ${label}`} data-testid="field-type">
            {!knownType && <option value={tv}>{tv === "other" ? "other (see JSON)" : "array (see JSON)"}</option>}
            {TYPE_OPTIONS.map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
        </td>
        <td className="ft-check">
          <input type="checkbox" checked={f.required} onChange={(e) => onSet((x) => ({ ...x, required: e.target.checked }))} aria-label={`${label} is required`} data-testid="field-required" />
        </td>
        <td className="ft-check">
          <input
            type="checkbox"
            checked={f.nullable}
            disabled={f.type === "other"}
            onChange={(e) => onSet((x) => ({ ...x, nullable: e.target.checked }))}
            aria-label={`${label} can be empty (null)`}
            data-testid="field-nullable"
          />
        </td>
        <td className="ft-desc-edit">
          <input value={f.description} onChange={(e) => onSet((x) => ({ ...x, description: e.target.value }))} aria-label={`Description of ${label}`} placeholder="What it is, where to find it" data-testid="field-description" />
        </td>
        <td className="ft-actions">
          <button type="button" className="btn small icon" onClick={() => onMove(-1)} disabled={first} aria-label={`Move ${label} up`} title="Move up">
            ↑
          </button>
          <button type="button" className="btn small icon" onClick={() => onMove(1)} disabled={last} aria-label={`Move ${label} down`} title="Move down">
            ↓
          </button>
          {holdsFields(f) && (
            <button type="button" className="btn small" onClick={onAddChild} title={`Add a field inside ${label}`} data-testid="add-subfield">
              + inside
            </button>
          )}
          <button type="button" className="btn small icon danger" onClick={onRemove} aria-label={`Remove ${label}`} title="Remove" data-testid="remove-field">
            ✕
          </button>
        </td>
      </tr>
      {children}
    </>
  );
}

export function FieldTableEditor({ fields, onChange }: { fields: Field[]; onChange(next: Field[]): void }) {
  return (
    <div className="field-table-scroll">
      <table className="field-table editing" data-testid="field-table-editor">
        <thead>
          <tr>
            <th>Field</th>
            <th>Type</th>
            <th title="The model must always fill it">Required</th>
            <th title="The value may be null: how strict mode says “optional”">Can be empty</th>
            <th>Description</th>
            <th aria-label="Actions" />
          </tr>
        </thead>
        <tbody>
          <EditorRows fields={fields} depth={0} path={[]} onChange={onChange} all={fields} />
        </tbody>
      </table>
      <button type="button" className="btn small" onClick={() => onChange([...fields, newField()])} data-testid="add-field">
        + Add field
      </button>
    </div>
  );
}

// ---- the two tabs over one response_format

export interface SchemaEditorProps {
  /** A response_format (or a bare JSON Schema) to start from. */
  initial: unknown;
  /** Called with the edited value (undefined while the JSON does not parse) and what is wrong with it. */
  onChange(value: unknown, problems: string[]): void;
  /** Rows of the JSON textarea. */
  rows?: number;
}

/** Edit a schema as a table of fields, with its JSON as the second tab. */
export function SchemaEditor({ initial, onChange, rows = 18 }: SchemaEditorProps) {
  const start = useRef<{ table?: SchemaTable; error?: string }>(null);
  if (start.current === null) {
    const t = schemaToTable(innerSchema(initial));
    start.current = "table" in t ? { table: t.table } : { error: t.error };
  }
  const [mode, setMode] = useState<"fields" | "json">(start.current.table ? "fields" : "json");
  const [table, setTable] = useState<SchemaTable | undefined>(start.current.table);
  const [text, setText] = useState(() => JSON.stringify(initial ?? {}, null, 2));
  const [note, setNote] = useState<string | null>(start.current.error ?? null);
  const value = useRef<unknown>(initial);

  const editTable = (fields: Field[]) => {
    const t = { ...table!, fields };
    setTable(t);
    const next = withInnerSchema(value.current, tableToSchema(t));
    value.current = next;
    onChange(next, fieldProblems(fields));
  };

  const editText = (s: string) => {
    setText(s);
    try {
      const v = JSON.parse(s) as unknown;
      value.current = v;
      onChange(v, responseFormatProblems(v));
    } catch (e) {
      onChange(undefined, [`Not valid JSON: ${e instanceof Error ? e.message : String(e)}`]);
    }
  };

  const toJSON = () => {
    setText(JSON.stringify(value.current ?? {}, null, 2));
    setNote(null);
    setMode("json");
  };

  const toFields = () => {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      setNote(`Fix the JSON first: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    const t = schemaToTable(innerSchema(v));
    if ("error" in t) {
      setNote(t.error);
      return;
    }
    value.current = v;
    setTable(t.table);
    setNote(null);
    setMode("fields");
  };

  return (
    <div className="schema-editor" data-testid="schema-editor">
      <div className="tabs small-tabs" role="tablist" aria-label="Edit the schema as">
        <button type="button" role="tab" aria-selected={mode === "fields"} className={mode === "fields" ? "active" : ""} onClick={() => mode !== "fields" && toFields()} data-testid="schema-tab-fields">
          Fields
        </button>
        <button type="button" role="tab" aria-selected={mode === "json"} className={mode === "json" ? "active" : ""} onClick={() => mode !== "json" && toJSON()} data-testid="schema-tab-json">
          JSON
        </button>
      </div>
      {note && <div className="note small-text">{note}</div>}
      {mode === "fields" && table ? (
        <FieldTableEditor fields={table.fields} onChange={editTable} />
      ) : (
        <textarea
          className="mono"
          rows={rows}
          value={text}
          onChange={(e) => editText(e.target.value)}
          aria-label="Schema as JSON (a response_format)"
          data-testid="schema-response-format"
          spellCheck={false}
        />
      )}
    </div>
  );
}

/** The read-only tabs of a stored schema: its fields, or its JSON. */
export function SchemaView({ responseFormat }: { responseFormat: unknown }) {
  const t = schemaToTable(innerSchema(responseFormat));
  const [mode, setMode] = useState<"fields" | "json">("table" in t ? "fields" : "json");
  return (
    <div className="schema-view" data-testid="schema-view">
      <div className="tabs small-tabs" role="tablist" aria-label="Show the schema as">
        <button type="button" role="tab" aria-selected={mode === "fields"} className={mode === "fields" ? "active" : ""} onClick={() => setMode("fields")} disabled={!("table" in t)} data-testid="schema-tab-fields">
          Fields
        </button>
        <button type="button" role="tab" aria-selected={mode === "json"} className={mode === "json" ? "active" : ""} onClick={() => setMode("json")} data-testid="schema-tab-json">
          JSON
        </button>
      </div>
      {mode === "fields" && "table" in t ? (
        <FieldTableView rows={rowsOf(t.table)} rowTestId="schema-field-row" />
      ) : (
        <>
          {"error" in t && <p className="muted small-text">{t.error}</p>}
          <pre className="json">{JSON.stringify(responseFormat, null, 2)}</pre>
        </>
      )}
    </div>
  );
}

function rowsOf(t: SchemaTable): FieldRow[] {
  return fieldRows(t.fields);
}
