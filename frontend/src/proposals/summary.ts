// What a tool call will do, for people: a title and a body of lines. Pure,
// so it is tested here and mirrored word for word by the terminal (Go).
//
// ---- Wording (the Go mirror prints the same) --------------------------
//
// Names are quoted with “ ”; a reference to a version is `Name vN`
// (`Invoice v2`), falling back to the reference the model gave, quoted.
// Values (update_extraction_field) are: a string “in quotes”, a number or
// boolean as JSON, null as `empty (null)`, an absent value as `(not set)`,
// objects and arrays as compact JSON; each cut to 80 characters with "…".
//
// Titles of the calls that change something:
//   create_schema            Create schema “N” with K field(s)      (K = top-level fields; without " with…" when unreadable)
//   update_schema            Update schema “N” to vV+1               (current known) | Update schema REF
//   delete_schema            Delete schema “N” and its V version(s)  | Delete schema REF
//   create_prompt            Create prompt “N”
//   update_prompt            Update prompt “N” to vV+1               | Update prompt REF
//   delete_prompt            Delete prompt “N” and its V version(s)  | Delete prompt REF
//   create_tag               Create tag “N”
//   update_tag               Update tag “N”                          | Update tag REF
//   delete_tag               Delete tag “N”                          | Delete tag REF
//   run_extraction           Run prompt REF on this document         | Run the conversation's prompt on this document
//   update_extraction_field  Change PATH in the extraction
//   update_document          Rename “OLD” to “NEW” (only the name changes; "Rename this document to “NEW”" when OLD is unknown)
//                            | Update document “N” | Update this document
//   delete_document          Delete document “N” | Delete this document
// (REF: `Name vN` when known, else “the model's reference”; "this
// document" when the call names the current document or none.)
//
// Body lines (CallSummary.lines; the title is not among them), in order:
//   1. properties, one per line:      `Label: VALUE` or, for a change, `Label: OLD → NEW`
//      (labels: Name, Schema, Schema version, Model, Colour, Description, Metadata, and a
//      field path for update_extraction_field: `total: 4.11 → 4.2`)
//   2. tags, one line:                `Tags: a, +b, -c` (+ added, - removed, no sign: kept)
//   3. fields: `LABEL:` then one line per field, depth-first, two spaces of indent per level:
//        `  NAME: TYPE[, required][ — DESCRIPTION]`
//      with a diff (update_schema against the version it replaces), each line starts with
//      `+ ` added, `- ` removed, `~ ` changed, `  ` unchanged; a changed line is
//        `~ NAME: CHANGE; CHANGE` (CHANGE: `type number → string`, `optional → required`,
//        `required → optional`, `description “a” → “b”`, `other settings changed`)
//      TYPE: string, number, integer, boolean, date, object, array of objects|strings|numbers|
//      integers|booleans|dates, array, other; with " or null" when it may be empty.
//      LABEL: `Fields` (create_schema), `Field changes against vV` (update_schema, current
//      known), `Fields of the new version` (update_schema, current unknown).
//   4. text: `LABEL:` then each line as `  | LINE` (new text) or a line diff
//      (`+ LINE`, `- LINE`, `  LINE`, `  … N unchanged line(s)`), indented by two spaces.
//      LABEL: `Instructions` (create_prompt), `Instructions (changes)` (update_prompt, current
//      known), `Instructions (new version)` (current unknown).
//   5. notes, one per line (see each tool below).
//
// A call the model made that failed (a tool result with an error) is told
// as the model's step: `The model tried to TITLE (first letter lower-case);
// Docent refused: ERROR`. A call the user rejected: `You rejected this.`

import type { PromptRevision, SchemaRevision, Tag } from "../api/types";
import { diffCounts, diffFields, type FieldChange } from "../schema/diff";
import { fieldRows, innerSchema, schemaToTable, type FieldRow, type SchemaTable } from "../schema/fields";
import { diffLineText, foldDiff, lineDiff, type DiffLine } from "./diff";

export interface SummaryContext {
  /** The current document: update_document and delete_document default to it. */
  document?: { id: string; name: string; tag_ids?: string[] } | null;
  /** What the call changes, as it is now: fetched for a pending call, absent once it ran (it would show the new state). */
  schema?: SchemaRevision | null;
  prompt?: PromptRevision | null;
  tag?: Tag | null;
  /** update_extraction_field: the value at the path now; `found: false` when the path is not set. */
  current?: { found: boolean; value?: unknown } | null;
  /** What uses what a delete removes. */
  usedBy?: { prompts?: string[]; documents?: number } | null;
  /** `Name vN` for a schema reference (id, revision id or name), when known. */
  schemaLabel?: (ref: string, version?: number) => string | undefined;
  promptLabel?: (ref: string) => string | undefined;
  tagOf?: (ref: string) => { name: string; color?: string } | undefined;
  documentName?: (id: string) => string | undefined;
}

export interface SummaryProp {
  label: string;
  value: string;
  /** The value before, for a change. */
  from?: string;
  /** Show the label in monospace (a field path). */
  mono?: boolean;
}

export interface SummaryChip {
  name: string;
  color?: string;
  change: "added" | "removed" | "same";
}

export interface SummaryFieldRow extends FieldRow {
  change?: FieldChange;
  changes?: string[];
}

export interface CallSummary {
  title: string;
  props: SummaryProp[];
  chips?: { label: string; chips: SummaryChip[] };
  fields?: { label: string; rows: SummaryFieldRow[]; diff: boolean; error?: string };
  text?: { label: string; lines: DiffLine[]; diff: boolean };
  notes: string[];
  /** Deleting something: the card says so in colour. */
  danger: boolean;
  /** The body as plain text (see the wording above), for the terminal. */
  lines: string[];
}

type Args = Record<string, unknown>;

/** The arguments as an object: a JSON string is parsed; anything else is {}. */
export function argsObject(v: unknown): Args {
  if (typeof v === "string") {
    try {
      const p = JSON.parse(v) as unknown;
      return p && typeof p === "object" && !Array.isArray(p) ? (p as Args) : {};
    } catch {
      return {};
    }
  }
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Args) : {};
}

export function q(s: unknown): string {
  return `“${String(s)}”`;
}

function cut(s: string, n = 80): string {
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

/** A JSON value for people (see the wording above). */
export function formatValue(v: unknown, present = true): string {
  if (!present || v === undefined) return "(not set)";
  if (v === null) return "empty (null)";
  if (typeof v === "string") return q(cut(v));
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  let s: string;
  try {
    s = JSON.stringify(v);
  } catch {
    s = String(v);
  }
  return cut(s);
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}

function plural(n: number, one: string, many = one + "s"): string {
  return `${n} ${n === 1 ? one : many}`;
}

function lcfirst(s: string): string {
  return s ? s[0].toLowerCase() + s.slice(1) : s;
}

function schemaRef(ref: string, ctx: SummaryContext, version?: number): string {
  return ctx.schemaLabel?.(ref, version) ?? (version ? `${q(ref)} v${version}` : q(ref));
}

function promptRef(ref: string, ctx: SummaryContext): string {
  return ctx.promptLabel?.(ref) ?? q(ref);
}

function tagChip(ref: string, ctx: SummaryContext, change: SummaryChip["change"]): SummaryChip {
  const t = ctx.tagOf?.(ref);
  return { name: t?.name ?? ref, ...(t?.color ? { color: t.color } : {}), change };
}

function tagChanges(before: string[] | undefined, after: unknown, ctx: SummaryContext): SummaryChip[] {
  const next = Array.isArray(after) ? after.filter((x): x is string => typeof x === "string") : [];
  if (!before) return next.map((r) => tagChip(r, ctx, "same"));
  const name = (r: string) => ctx.tagOf?.(r)?.name ?? r;
  const nextNames = new Set(next.map(name));
  const beforeNames = new Set(before.map(name));
  return [
    ...next.map((r) => tagChip(r, ctx, beforeNames.has(name(r)) ? "same" : "added")),
    ...before.filter((r) => !nextNames.has(name(r))).map((r) => tagChip(r, ctx, "removed")),
  ];
}

function fieldsOf(rf: unknown): { rows: FieldRow[]; count: number; table: SchemaTable } | { error: string } {
  const inner = innerSchema(rf);
  if (inner === null) return { error: "The schema is missing or not a JSON object." };
  const t = schemaToTable(inner);
  if ("error" in t) return { error: t.error };
  return { rows: fieldRows(t.table.fields), count: t.table.fields.length, table: t.table };
}

function change(label: string, before: string | undefined, after: string): SummaryProp {
  return before === undefined ? { label, value: after } : { label, value: after, from: before };
}

function docRef(a: Args, ctx: SummaryContext): { current: boolean; name?: string } {
  const id = str(a.document_id);
  const current = !id || (!!ctx.document && ctx.document.id === id);
  const name = current ? ctx.document?.name : ctx.documentName?.(id!);
  return { current, ...(name ? { name } : {}) };
}

function empty(title: string): CallSummary {
  return { title, props: [], notes: [], danger: false, lines: [] };
}

/** The summary of one call; `ctx` holds what is known about what it changes. */
export function summarizeCall(tool: string, args: unknown, ctx: SummaryContext = {}): CallSummary {
  const s = build(tool, argsObject(args), ctx);
  s.lines = summaryLines(s);
  return s;
}

function build(tool: string, a: Args, ctx: SummaryContext): CallSummary {
  switch (tool) {
    case "create_schema": {
      const name = str(a.name) ?? "(unnamed)";
      const f = fieldsOf(a.response_format);
      if ("error" in f) {
        return { ...empty(`Create schema ${q(name)}`), fields: { label: "Fields", rows: [], diff: false, error: f.error } };
      }
      return {
        ...empty(`Create schema ${q(name)} with ${plural(f.count, "field")}`),
        fields: { label: "Fields", rows: f.rows, diff: false },
      };
    }

    case "update_schema": {
      const ref = str(a.schema_id) ?? "";
      const cur = ctx.schema ?? null;
      const s = empty(cur ? `Update schema ${q(cur.name)} to v${cur.version + 1}` : `Update schema ${schemaRef(ref, ctx)}`);
      const newName = str(a.name);
      if (newName && (!cur || newName !== cur.name)) s.props.push(change("Name", cur ? q(cur.name) : undefined, q(newName)));
      if (a.response_format === undefined || a.response_format === null) {
        s.notes.push("The fields stay as they are.");
        if (cur && (!newName || newName === cur.name)) s.notes.push(`Nothing changes: the schema stays at v${cur.version}.`);
        return s;
      }
      const after = fieldsOf(a.response_format);
      if ("error" in after) {
        s.fields = { label: "Fields of the new version", rows: [], diff: false, error: after.error };
        return s;
      }
      const before = cur ? fieldsOf(cur.response_format) : null;
      if (!cur || !before || "error" in before) {
        s.fields = { label: "Fields of the new version", rows: after.rows, diff: false };
        return s;
      }
      const rows = diffFields(before.table.fields, after.table.fields);
      const c = diffCounts(rows);
      s.fields = { label: `Field changes against v${cur.version}`, rows, diff: true };
      if (c.added + c.removed + c.changed === 0) s.notes.push("The fields do not change.");
      else {
        const parts = [c.added && `${plural(c.added, "field")} added`, c.removed && `${plural(c.removed, "field")} removed`, c.changed && `${plural(c.changed, "field")} changed`].filter(Boolean);
        s.notes.push(`${parts.join(", ")}.`);
      }
      return s;
    }

    case "delete_schema": {
      const ref = str(a.schema_id) ?? "";
      const cur = ctx.schema ?? null;
      const s = empty(cur ? `Delete schema ${q(cur.name)} and its ${plural(cur.version, "version")}` : `Delete schema ${schemaRef(ref, ctx)}`);
      s.danger = true;
      const users = ctx.usedBy?.prompts;
      if (users && users.length) s.notes.push(`Used by ${users.length === 1 ? "prompt" : "prompts"} ${users.map(q).join(", ")}: Docent refuses to delete a schema while a prompt uses it.`);
      else if (users) s.notes.push("No prompt uses it.");
      return s;
    }

    case "create_prompt": {
      const s = empty(`Create prompt ${q(str(a.name) ?? "(unnamed)")}`);
      const schema = str(a.schema_id);
      const version = typeof a.schema_version === "number" ? a.schema_version : undefined;
      s.props.push({ label: "Schema", value: schema ? schemaRef(schema, ctx, version) : "none (free-form JSON)" });
      s.props.push({ label: "Model", value: str(a.model) ?? "default" });
      if (Array.isArray(a.tag_ids) && a.tag_ids.length) s.chips = { label: "Tags", chips: tagChanges(undefined, a.tag_ids, ctx) };
      const content = typeof a.content === "string" ? a.content : "";
      s.text = { label: "Instructions", lines: content.split("\n").map((text) => ({ op: "same", text })), diff: false };
      return s;
    }

    case "update_prompt": {
      const ref = str(a.prompt_id) ?? "";
      const cur = ctx.prompt ?? null;
      const s = empty(cur ? `Update prompt ${q(cur.name)} to v${cur.version + 1}` : `Update prompt ${promptRef(ref, ctx)}`);
      let changed = false;
      const newName = str(a.name);
      if (newName && (!cur || newName !== cur.name)) {
        s.props.push(change("Name", cur ? q(cur.name) : undefined, q(newName)));
        changed = true;
      }
      const curSchema = cur ? (cur.schema_id ? schemaRef(cur.schema_id, ctx, cur.schema_version) : "none") : undefined;
      if (a.schema_id !== undefined) {
        const sid = typeof a.schema_id === "string" ? a.schema_id.trim() : "";
        const version = typeof a.schema_version === "number" ? a.schema_version : undefined;
        const next = sid ? schemaRef(sid, ctx, version) : "none";
        if (next !== curSchema) {
          s.props.push(change("Schema", curSchema, next));
          changed = true;
        }
      } else if (typeof a.schema_version === "number" && (!cur || cur.schema_version !== a.schema_version)) {
        s.props.push(change("Schema version", cur?.schema_version ? `v${cur.schema_version}` : undefined, `v${a.schema_version}`));
        changed = true;
      }
      if (a.model !== undefined) {
        const next = str(a.model) ?? "default";
        const before = cur ? cur.model || "default" : undefined;
        if (next !== before) {
          s.props.push(change("Model", before, next));
          changed = true;
        }
      }
      if (a.tag_ids !== undefined) {
        const chips = tagChanges(cur?.tag_ids, a.tag_ids, ctx);
        if (!cur || chips.some((c) => c.change !== "same")) {
          s.chips = { label: "Tags", chips };
          changed = true;
        }
      }
      if (typeof a.content === "string") {
        if (cur) {
          if (cur.content !== a.content) {
            s.text = { label: "Instructions (changes)", lines: foldDiff(lineDiff(cur.content, a.content)), diff: true };
            changed = true;
          }
        } else {
          s.text = { label: "Instructions (new version)", lines: a.content.split("\n").map((text) => ({ op: "same", text })), diff: false };
          changed = true;
        }
      }
      if (cur && !changed) s.notes.push(`Nothing changes: the prompt stays at v${cur.version}.`);
      return s;
    }

    case "delete_prompt": {
      const ref = str(a.prompt_id) ?? "";
      const cur = ctx.prompt ?? null;
      const s = empty(cur ? `Delete prompt ${q(cur.name)} and its ${plural(cur.version, "version")}` : `Delete prompt ${promptRef(ref, ctx)}`);
      s.danger = true;
      s.notes.push("Extractions made with it are kept.");
      return s;
    }

    case "create_tag": {
      const name = str(a.name) ?? "(unnamed)";
      const s = empty(`Create tag ${q(name)}`);
      const color = str(a.color);
      s.chips = { label: "Tag", chips: [{ name, ...(color ? { color } : {}), change: "added" }] };
      if (color) s.props.push({ label: "Colour", value: color });
      if (str(a.description)) s.props.push({ label: "Description", value: q(str(a.description)) });
      return s;
    }

    case "update_tag": {
      const ref = str(a.tag_id) ?? "";
      const cur = ctx.tag ?? null;
      const known = cur ?? ctx.tagOf?.(ref);
      const s = empty(`Update tag ${known ? q(known.name) : q(ref)}`);
      const newName = str(a.name);
      if (newName && newName !== cur?.name) s.props.push(change("Name", cur ? q(cur.name) : undefined, q(newName)));
      if (typeof a.color === "string" && a.color !== cur?.color) s.props.push(change("Colour", cur ? cur.color || "default" : undefined, a.color || "default"));
      if (typeof a.description === "string" && a.description !== cur?.description)
        s.props.push(change("Description", cur ? (cur.description ? q(cur.description) : "(none)") : undefined, a.description ? q(a.description) : "(none)"));
      if (cur && s.props.length === 0) s.notes.push("Nothing changes.");
      const color = typeof a.color === "string" ? a.color : (cur?.color ?? known?.color);
      const chipName = newName ?? known?.name;
      if (chipName) s.chips = { label: "Tag", chips: [{ name: chipName, ...(color ? { color } : {}), change: "same" }] };
      return s;
    }

    case "delete_tag": {
      const ref = str(a.tag_id) ?? "";
      const known = ctx.tag ?? ctx.tagOf?.(ref);
      const s = empty(`Delete tag ${known ? q(known.name) : q(ref)}`);
      s.danger = true;
      if (known) s.chips = { label: "Tag", chips: [{ name: known.name, ...(known.color ? { color: known.color } : {}), change: "removed" }] };
      const u = ctx.usedBy;
      if (u) {
        const parts: string[] = [];
        if (u.documents) parts.push(plural(u.documents, "document"));
        if (u.prompts?.length) parts.push(`${u.prompts.length === 1 ? "prompt" : "prompts"} ${u.prompts.map(q).join(", ")}`);
        s.notes.push(parts.length ? `Used by ${parts.join(" and ")}: Docent refuses to delete a tag in use.` : "No document or prompt uses it.");
      }
      return s;
    }

    case "run_extraction": {
      const ref = str(a.prompt_revid);
      const cur = ctx.prompt ?? null;
      const label = ref ? (ctx.promptLabel?.(ref) ?? (cur ? `${cur.name} v${cur.version}` : q(ref))) : cur ? `${cur.name} v${cur.version}` : undefined;
      const s = empty(label ? `Run prompt ${label} on this document` : "Run the conversation's prompt on this document");
      if (cur) {
        s.props.push({ label: "Schema", value: cur.schema_id ? schemaRef(cur.schema_id, ctx, cur.schema_version) : "none (free-form JSON)" });
        s.props.push({ label: "Model", value: cur.model || "default" });
      }
      s.notes.push("The result becomes this document's current extraction.");
      return s;
    }

    case "update_extraction_field": {
      const path = str(a.path) ?? "(no path)";
      const s = empty(`Change ${path} in the extraction`);
      const cur = ctx.current;
      s.props.push({ label: path, mono: true, value: formatValue(a.value, "value" in a), ...(cur ? { from: formatValue(cur.value, cur.found) } : {}) });
      return s;
    }

    case "update_document": {
      const d = docRef(a, ctx);
      const newName = str(a.name);
      const onlyName = newName !== undefined && a.tag_ids === undefined && a.metadata === undefined;
      const s = empty(
        onlyName
          ? d.name
            ? `Rename ${q(d.name)} to ${q(newName)}`
            : `Rename ${d.current ? "this document" : "the document"} to ${q(newName)}`
          : d.name
            ? `Update document ${q(d.name)}`
            : d.current
              ? "Update this document"
              : `Update document ${q(str(a.document_id))}`,
      );
      if (newName) s.props.push(change("Name", d.name ? q(d.name) : undefined, q(newName)));
      if (a.tag_ids !== undefined) {
        const before = d.current && ctx.document?.tag_ids ? ctx.document.tag_ids : undefined;
        s.chips = { label: before ? "Tags" : "Tags from now on", chips: tagChanges(before, a.tag_ids, ctx) };
      }
      if (a.metadata !== undefined) s.props.push({ label: "Metadata", value: `replaced with ${formatValue(a.metadata)}` });
      return s;
    }

    case "delete_document": {
      const d = docRef(a, ctx);
      const s = empty(d.name ? `Delete document ${q(d.name)}` : d.current ? "Delete this document" : `Delete document ${q(str(a.document_id))}`);
      s.danger = true;
      s.notes.push("Its pages, extractions and conversations are deleted with it.");
      return s;
    }

    // ---- read-only: a title only
    case "get_ocr_text":
      return empty(typeof a.page_num === "number" ? `Read page ${a.page_num}` : "Read the document text");
    case "get_document": {
      const d = docRef(a, ctx);
      return empty(d.current ? "Look up this document" : d.name ? `Look up document ${q(d.name)}` : `Look up document ${q(str(a.document_id))}`);
    }
    case "list_documents":
      return empty(str(a.name_search) ? `List documents matching ${q(str(a.name_search))}` : "List documents");
    case "get_extraction_result":
      return empty("Read the current extraction");
    case "get_schema":
      return empty(str(a.schema_revid) ? `Read schema ${schemaRef(str(a.schema_revid)!, ctx)}` : "Read a schema");
    case "list_schemas":
      return empty(str(a.name_search) ? `List schemas matching ${q(str(a.name_search))}` : "List schemas");
    case "validate_schema":
      return empty("Check a schema");
    case "validate_against_schema":
      return empty(str(a.schema_revid) ? `Check data against schema ${schemaRef(str(a.schema_revid)!, ctx)}` : "Check data against a schema");
    case "get_prompt":
      return empty(str(a.prompt_revid) ? `Read prompt ${promptRef(str(a.prompt_revid)!, ctx)}` : "Read a prompt");
    case "list_prompts":
      return empty(str(a.name_search) ? `List prompts matching ${q(str(a.name_search))}` : "List prompts");
    case "get_tag": {
      const t = str(a.tag_id);
      return empty(t ? `Read tag ${q(ctx.tagOf?.(t)?.name ?? t)}` : "Read a tag");
    }
    case "list_tags":
      return empty("List tags");
    case "help_schemas":
      return empty("Read the guide to writing schemas");
    case "help_prompts":
      return empty("Read the guide to writing prompts");
    case "list_models":
      return empty("List models");
    case "search_docs":
      return empty(str(a.query) ? `Search documents for ${q(str(a.query))}` : "Search documents");
    case "open_citation": {
      const id = str(a.document_id);
      const name = id ? (ctx.document?.id === id ? ctx.document.name : ctx.documentName?.(id)) : undefined;
      return empty(name ? `Open a passage of ${q(name)}` : "Open a passage of a document");
    }
    default:
      return empty(tool.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase()));
  }
}

function chipText(c: SummaryChip): string {
  return c.change === "added" ? `+${c.name}` : c.change === "removed" ? `-${c.name}` : c.name;
}

function fieldLine(r: SummaryFieldRow, diff: boolean): string {
  const indent = "  ".repeat(r.depth);
  const mark = !diff ? "" : r.change === "added" ? "+ " : r.change === "removed" ? "- " : r.change === "changed" ? "~ " : "  ";
  if (diff && r.change === "changed") return `${mark}${indent}${r.name}: ${(r.changes ?? []).join("; ")}`;
  return `${mark}${indent}${r.name}: ${r.type}${r.required ? ", required" : ""}${r.description ? ` — ${r.description}` : ""}`;
}

/** The body of a summary as plain text (the wording above). */
export function summaryLines(s: Omit<CallSummary, "lines">): string[] {
  const out: string[] = [];
  for (const p of s.props) out.push(p.from !== undefined ? `${p.label}: ${p.from} → ${p.value}` : `${p.label}: ${p.value}`);
  if (s.chips && s.chips.chips.length) out.push(`${s.chips.label}: ${s.chips.chips.map(chipText).join(", ")}`);
  if (s.fields) {
    if (s.fields.error) out.push(`${s.fields.label}: cannot be shown: ${s.fields.error}`);
    else {
      out.push(`${s.fields.label}:`);
      for (const r of s.fields.rows) out.push(`  ${fieldLine(r, s.fields.diff)}`);
    }
  }
  if (s.text) {
    out.push(`${s.text.label}:`);
    for (const l of s.text.lines) out.push(s.text.diff ? `  ${diffLineText(l)}` : `  | ${l.text}`);
  }
  out.push(...s.notes);
  return out;
}

/** A failed call, told as the model's step. */
export function refusalText(title: string, error: string): string {
  return `The model tried to ${lcfirst(title)}; Docent refused: ${error}`;
}

/** What a rejected call's card says. */
export const REJECTED_TEXT = "You rejected this.";

const ID_IN_PARENS = /\s*\((?:doc|tag|sch|srv|prm|prv|ext|thr|evl|turn)_[0-9A-Za-z]+\)/g;

/**
 * A tool result's preview for people: the ids it names in parentheses
 * ("created schema Invoice v1 (srv_01…)") are taken out of the text and
 * returned apart (for a tooltip), and it starts with a capital.
 */
export function cleanPreview(preview: string): { text: string; ids: string[] } {
  const ids = [...preview.matchAll(ID_IN_PARENS)].map((m) => m[0].trim().slice(1, -1));
  const text = preview.replace(ID_IN_PARENS, "").trim();
  return { text: text ? text[0].toUpperCase() + text.slice(1) : text, ids };
}

/**
 * The value at a path of an extraction, as update_extraction_field names
 * it: dotted (`line_items.0.amount`) or a JSON pointer (`/line_items/0/amount`).
 */
export function valueAt(root: unknown, path: string): { found: boolean; value?: unknown } {
  const p = path.trim();
  const parts = p.startsWith("/")
    ? p.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    : p.split(".").filter((s) => s !== "");
  let cur: unknown = root;
  for (const k of parts) {
    if (Array.isArray(cur)) {
      if (!/^\d+$/.test(k) || Number(k) >= cur.length) return { found: false };
      cur = cur[Number(k)];
    } else if (cur && typeof cur === "object") {
      if (!(k in (cur as Record<string, unknown>))) return { found: false };
      cur = (cur as Record<string, unknown>)[k];
    } else return { found: false };
  }
  return { found: true, value: cur };
}
