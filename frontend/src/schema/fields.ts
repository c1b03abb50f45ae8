// A schema as a table of fields, and back. Pure: the Schemas page, the
// agent's proposal cards and their edit forms all read and write schemas
// through here, and the tests check the round trip.
//
// The table models, per field: name, type (string, number, integer,
// boolean, date = string with format "date", object, array of objects or
// of one of the scalar types), required (the parent's `required`), "can be
// empty" (the type lists "null" too, as OpenAI strict mode writes an
// optional value), description, and the fields of an object or of an
// array's object items. Everything else a property says (enum, pattern,
// minimum, a format other than date, title, $ref, anyOf, ...) rides along
// in `raw` and is written back untouched; a field whose type the table
// cannot say ("other": anyOf, an array of arrays, no type) is kept as it
// is. tableToSchema(schemaToTable(s)) equals s, key order included, for
// every schema whose top level is an object.

import type { FieldRow } from "../api/events.gen";

export type ScalarType = "string" | "number" | "integer" | "boolean" | "date";
export type FieldType = ScalarType | "object" | "array" | "other";
export type ItemType = ScalarType | "object" | "other";

export interface Field {
  /** Row identity while editing; never written. */
  id: string;
  name: string;
  /** The property name as read: carries `required` order and keywords over a rename. */
  origName?: string;
  type: FieldType;
  /** What an array holds (type "array" only). */
  itemType?: ItemType;
  /** The type also allows null (an optional value in strict mode). */
  nullable: boolean;
  required: boolean;
  description: string;
  /** Fields of an object, or of the objects an array holds. */
  children: Field[];
  /** The property's schema as read; absent for a new field. */
  raw?: Record<string, unknown>;
}

export interface SchemaTable {
  fields: Field[];
  /** The top-level schema as read (title, $defs, additionalProperties, ...). */
  raw: Record<string, unknown>;
}

type Obj = Record<string, unknown>;

let nextId = 1;
export function newFieldId(): string {
  return `f${nextId++}`;
}

function isObj(v: unknown): v is Obj {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

// ---- reading

interface Kind {
  type: FieldType;
  itemType?: ItemType;
  nullable: boolean;
}

function baseType(s: Obj): { base: string | null; nullable: boolean } {
  const t = s.type;
  if (typeof t === "string") return { base: t, nullable: false };
  if (Array.isArray(t) && t.every((x) => typeof x === "string")) {
    const rest = t.filter((x) => x !== "null") as string[];
    return { base: rest.length === 1 ? rest[0] : null, nullable: t.includes("null") };
  }
  return { base: null, nullable: false };
}

function scalarOf(base: string | null, s: Obj): ScalarType | "object" | null {
  switch (base) {
    case "string":
      return s.format === "date" ? "date" : "string";
    case "number":
    case "integer":
    case "boolean":
    case "object":
      return base;
    default:
      return null;
  }
}

/** What the table calls a property's schema. */
export function kindOf(s: unknown): Kind {
  if (!isObj(s)) return { type: "other", nullable: false };
  if (s.anyOf || s.oneOf || s.allOf || s.$ref || s.not || s.if) return { type: "other", nullable: false };
  const { base, nullable } = baseType(s);
  if (base === "array") {
    const items = s.items;
    if (!isObj(items)) return { type: "array", itemType: "other", nullable };
    const ib = baseType(items);
    const it = ib.nullable || items.anyOf || items.oneOf || items.$ref ? null : scalarOf(ib.base, items);
    return { type: "array", itemType: it ?? "other", nullable };
  }
  const sc = scalarOf(base, s);
  return sc ? { type: sc, nullable } : { type: "other", nullable: false };
}

function childrenOf(s: Obj | undefined): Field[] {
  if (!s || !isObj(s.properties)) return [];
  const req = Array.isArray(s.required) ? (s.required as unknown[]) : [];
  return Object.entries(s.properties).map(([name, p]) => fieldOf(name, p, req.includes(name)));
}

function fieldOf(name: string, p: unknown, required: boolean): Field {
  const k = kindOf(p);
  const raw = isObj(p) ? p : undefined;
  const f: Field = {
    id: newFieldId(),
    name,
    origName: name,
    type: k.type,
    nullable: k.nullable,
    required,
    description: raw && typeof raw.description === "string" ? raw.description : "",
    children: [],
    ...(raw ? { raw } : {}),
  };
  if (k.type === "array") f.itemType = k.itemType;
  if (k.type === "object") f.children = childrenOf(raw);
  if (k.type === "array" && k.itemType === "object") f.children = childrenOf(raw?.items as Obj);
  return f;
}

/** Whether a schema's top level is an object, which the table needs. */
export function isObjectSchema(s: unknown): s is Obj {
  if (!isObj(s)) return false;
  const { base } = baseType(s);
  return base === "object" || (s.type === undefined && isObj(s.properties));
}

/** The table of a JSON Schema, or why it cannot be one. */
export function schemaToTable(schema: unknown): { table: SchemaTable } | { error: string } {
  if (!isObj(schema)) return { error: "The schema is not a JSON object." };
  if (!isObjectSchema(schema)) return { error: "The top level of this schema is not an object, so it cannot be shown as fields; edit it as JSON." };
  return { table: { fields: childrenOf(schema), raw: schema } };
}

// ---- writing

const TYPED_KEYS: Record<string, string[]> = {
  string: ["format", "pattern", "minLength", "maxLength", "contentEncoding", "contentMediaType"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  object: ["properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "unevaluatedProperties"],
  array: ["items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains", "minContains", "maxContains", "unevaluatedItems"],
  any: ["enum", "const", "default", "examples"],
};

function jsonBase(t: ScalarType | "object" | "array"): string {
  return t === "date" ? "string" : t;
}

function familyOf(base: string): string {
  return base === "integer" ? "number" : base;
}

/** Keys to drop when a property's type changes from `from` to `to`. */
function droppedOnChange(from: string | null, to: string): Set<string> {
  const out = new Set<string>();
  if (from !== null && familyOf(from) === familyOf(to)) return out;
  for (const [fam, keys] of Object.entries(TYPED_KEYS)) if (fam !== familyOf(to)) keys.forEach((k) => out.add(k));
  return out;
}

const APPEND_ORDER = ["type", "format", "description", "properties", "items", "required", "additionalProperties"];

/** raw with the keys of `set` replaced (undefined removes) and `drop` removed, key order kept; new keys go at the end. */
function merged(raw: Obj | undefined, set: Obj, drop: Set<string> = new Set()): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(raw ?? {})) {
    if (k in set) {
      if (set[k] !== undefined) out[k] = set[k];
    } else if (!drop.has(k)) out[k] = v;
  }
  const extra = Object.keys(set).filter((k) => !(k in (raw ?? {})) && set[k] !== undefined);
  extra.sort((a, b) => (APPEND_ORDER.indexOf(a) + 100) % 100 - ((APPEND_ORDER.indexOf(b) + 100) % 100));
  for (const k of extra) out[k] = set[k];
  return out;
}

function sameJSON(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function typeValue(raw: Obj | undefined, base: string, nullable: boolean): unknown {
  const want = nullable ? [base, "null"] : base;
  if (raw) {
    const r = raw.type;
    if (typeof r === "string" && !nullable && r === base) return r;
    if (Array.isArray(r) && nullable && r.length === 2 && r.includes(base) && r.includes("null")) return r;
  }
  return want;
}

function requiredOf(raw: Obj | undefined, fields: Field[]): unknown {
  const wanted = fields.filter((f) => f.required).map((f) => f.name);
  const rawReq = raw && Array.isArray(raw.required) ? (raw.required as unknown[]) : undefined;
  if (!rawReq) return wanted.length ? wanted : undefined;
  const rawProps = raw && isObj(raw.properties) ? Object.keys(raw.properties) : [];
  const byOrig = new Map(fields.filter((f) => f.origName !== undefined).map((f) => [f.origName as string, f]));
  const out: unknown[] = [];
  for (const n of rawReq) {
    const f = typeof n === "string" ? byOrig.get(n) : undefined;
    if (f) {
      if (f.required && !out.includes(f.name)) out.push(f.name);
    } else if (typeof n !== "string" || !rawProps.includes(n)) {
      // A name that was never a property: not the table's to drop.
      if (!fields.some((x) => x.name === n)) out.push(n);
    }
  }
  for (const n of wanted) if (!out.includes(n)) out.push(n);
  return sameJSON(out, rawReq) ? rawReq : out;
}

function propertiesOf(raw: Obj | undefined, fields: Field[]): Obj {
  const props: Obj = {};
  for (const f of fields) props[f.name] = fieldToSchema(f);
  const rawProps = raw && isObj(raw.properties) ? raw.properties : undefined;
  return rawProps && sameJSON(props, rawProps) ? rawProps : props;
}

/** An object schema (the top level, an object field, an array's items) from its fields. */
function objectSchema(raw: Obj | undefined, fields: Field[], fresh: boolean): Obj {
  const set: Obj = {};
  if (fields.length || (raw && "properties" in raw)) set.properties = propertiesOf(raw, fields);
  set.required = requiredOf(raw, fields);
  if (fresh && !(raw && "additionalProperties" in raw)) set.additionalProperties = false;
  return set;
}

/** A property's JSON Schema from its row. */
export function fieldToSchema(f: Field): Obj {
  const raw = f.raw;
  if (f.type === "other") {
    const base = raw ?? {};
    const desc = typeof base.description === "string" ? base.description : "";
    return desc === f.description ? base : merged(base, { description: f.description || undefined });
  }
  const was = raw ? kindOf(raw) : null;
  const base = jsonBase(f.type);
  const wasBase = was && was.type !== "other" ? jsonBase(was.type) : null;
  const typeChanged = !was || wasBase !== base;
  const drop = raw ? droppedOnChange(typeChanged ? wasBase : base, base) : new Set<string>();
  if (typeChanged) drop.add("type");
  const set: Obj = { type: typeValue(typeChanged ? undefined : raw, base, f.nullable) };
  if (f.type === "date") set.format = "date";
  else if (was?.type === "date") set.format = undefined;
  const rawDesc = raw && typeof raw.description === "string" ? raw.description : undefined;
  set.description = rawDesc === f.description ? rawDesc : f.description || undefined;
  if (f.type === "object") Object.assign(set, objectSchema(typeChanged ? undefined : raw, f.children, typeChanged));
  if (f.type === "array") {
    const rawItems = !typeChanged && raw && isObj(raw.items) ? raw.items : undefined;
    const it = f.itemType ?? "string";
    if (it === "other") {
      if (rawItems) set.items = rawItems;
    } else {
      const itemWas = rawItems ? kindOf(rawItems) : null;
      const ib = jsonBase(it);
      const itemChanged = !itemWas || itemWas.type === "other" || jsonBase(itemWas.type as ScalarType | "object") !== ib;
      const keep = itemChanged ? undefined : rawItems;
      const itemSet: Obj = { type: typeValue(keep, ib, false) };
      if (it === "date") itemSet.format = "date";
      else if (itemWas?.type === "date") itemSet.format = undefined;
      if (it === "object") Object.assign(itemSet, objectSchema(keep, f.children, itemChanged));
      const itemDrop = rawItems ? droppedOnChange(itemChanged ? (itemWas && itemWas.type !== "other" ? jsonBase(itemWas.type as ScalarType) : null) : ib, ib) : new Set<string>();
      const items = merged(keep ?? (itemChanged ? stripTyped(rawItems) : undefined), itemSet, itemDrop);
      set.items = rawItems && sameJSON(items, rawItems) ? rawItems : items;
    }
  }
  const out = merged(raw, set, drop);
  return raw && sameJSON(out, raw) ? raw : out;
}

function stripTyped(s: Obj | undefined): Obj | undefined {
  if (!s) return undefined;
  const out: Obj = {};
  const typed = new Set(Object.values(TYPED_KEYS).flat().concat(["type"]));
  for (const [k, v] of Object.entries(s)) if (!typed.has(k)) out[k] = v;
  return out;
}

/** The JSON Schema of a table. */
export function tableToSchema(t: SchemaTable): Obj {
  const set = objectSchema(t.raw, t.fields, false);
  if (!("type" in t.raw) && !isObj(t.raw.properties)) set.type = "object";
  const out = merged(t.raw, set);
  return sameJSON(out, t.raw) ? t.raw : out;
}

// ---- rows, labels and checks

const SCALAR_LABEL: Record<ScalarType, string> = { string: "string", number: "number", integer: "integer", boolean: "boolean", date: "date" };
const PLURAL: Record<ItemType, string> = { string: "strings", number: "numbers", integer: "integers", boolean: "booleans", date: "dates", object: "objects", other: "" };

/** The words for a field's type: "string", "date", "array of objects", "number or null". */
export function typeLabel(f: Pick<Field, "type" | "itemType" | "nullable">): string {
  let s: string;
  if (f.type === "array") s = f.itemType && f.itemType !== "other" ? `array of ${PLURAL[f.itemType]}` : "array";
  else if (f.type === "object") s = "object";
  else if (f.type === "other") s = "other";
  else s = SCALAR_LABEL[f.type];
  return f.nullable ? `${s} or null` : s;
}

/** One row of a table view: a field at its depth, with its dotted path (arrays as []); the server's summaries send the same rows. */
export type { FieldRow };

const SHOWN = new Set(["type", "description", "properties", "required", "items", "additionalProperties"]);

function moreOf(f: Field): string {
  const raw = f.raw;
  if (!raw) return "";
  const parts: string[] = [];
  for (const [k, v] of Object.entries(raw)) {
    if (k === "description") continue;
    if (f.type !== "other" && SHOWN.has(k)) continue;
    if (k === "format" && v === "date" && f.type === "date") continue;
    parts.push(`${k}: ${JSON.stringify(v)}`);
  }
  const s = parts.join(", ");
  return s.length > 160 ? s.slice(0, 159) + "…" : s;
}

/** The rows of a table, depth first. */
export function fieldRows(fields: Field[], depth = 0, prefix = ""): FieldRow[] {
  const out: FieldRow[] = [];
  for (const f of fields) {
    const path = prefix ? `${prefix}.${f.name}` : f.name;
    out.push({ path, name: f.name, depth, type: typeLabel(f), required: f.required, description: f.description, more: moreOf(f) });
    const childPrefix = f.type === "array" ? `${path}[]` : path;
    if (f.children.length && (f.type === "object" || (f.type === "array" && f.itemType === "object"))) {
      out.push(...fieldRows(f.children, depth + 1, childPrefix));
    }
  }
  return out;
}

/** What is wrong with a table for saving: empty or repeated names. */
export function fieldProblems(fields: Field[], where = "the top level"): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const f of fields) {
    const n = f.name.trim();
    if (!n) out.push(`A field in ${where} has no name.`);
    else if (seen.has(n)) out.push(`Two fields in ${where} are named “${n}”.`);
    seen.add(n);
    if (n !== f.name) out.push(`The field name “${f.name}” starts or ends with a space.`);
    if (f.type === "object" || (f.type === "array" && f.itemType === "object")) out.push(...fieldProblems(f.children, `“${n || "(unnamed)"}”`));
  }
  return out;
}

/** A new, empty field (a required string, as strict mode wants). */
export function newField(name = ""): Field {
  return { id: newFieldId(), name, type: "string", nullable: false, required: true, description: "", children: [] };
}

// ---- response_format

/** The schema inside a response_format, or a bare schema as it is (the server wraps one); null when there is none. */
export function innerSchema(rf: unknown): unknown {
  const v = typeof rf === "string" ? parseOr(rf) : rf;
  if (!isObj(v)) return null;
  if (isObj(v.json_schema)) return v.json_schema.schema ?? null;
  if (v.type === "json_schema") return null;
  return v;
}

/** rf with its schema replaced (a bare schema is replaced whole). */
export function withInnerSchema(rf: unknown, schema: unknown): unknown {
  const v = typeof rf === "string" ? parseOr(rf) : rf;
  if (isObj(v) && isObj(v.json_schema)) return { ...v, json_schema: { ...v.json_schema, schema } };
  if (isObj(v) && v.type === "json_schema") return { ...v, json_schema: { name: "schema", schema, strict: true } };
  return schema;
}

function parseOr(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** What the server would refuse in a response_format before it is sent (it checks the rest). */
export function responseFormatProblems(rf: unknown): string[] {
  let v = rf;
  if (typeof v === "string") {
    v = parseOr(v);
    if (v === undefined) return ["The schema is not valid JSON."];
  }
  if (!isObj(v)) return ["The schema must be a JSON object: a response_format or a JSON Schema."];
  const isRF = "json_schema" in v || v.type === "json_schema";
  if (isRF) {
    if (v.type !== "json_schema") return ["A response_format has \"type\": \"json_schema\"."];
    const js = v.json_schema;
    if (!isObj(js)) return ["A response_format needs a \"json_schema\" object with the schema in it."];
    if (!isObj(js.schema)) return ["The response_format has no schema (json_schema.schema)."];
    v = js.schema;
  }
  const t = schemaToTable(v);
  if ("error" in t) return [];
  return fieldProblems(t.table.fields);
}

/** A response_format name the server accepts, made from a schema name. */
export function sanitizeName(s: string): string {
  const out = s.trim().replace(/[^a-zA-Z0-9_-]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 64).replace(/_+$/, "");
  return out || "schema";
}
