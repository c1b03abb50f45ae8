// The difference between two tables of fields (a schema version and the
// one that replaces it), row by row. Fields match by name within their
// parent; a renamed field reads as one removed and one added.

import { fieldRows, type Field, type FieldRow } from "./fields";

export type FieldChange = "added" | "removed" | "changed" | "same";

export interface FieldDiffRow extends FieldRow {
  change: FieldChange;
  /** For a changed field, what changed: "type number → string", "optional → required", "description “a” → “b”", "other settings changed". */
  changes: string[];
}

function quote(s: string): string {
  return s ? `“${s}”` : "(none)";
}

function childPrefix(f: Field, path: string): string {
  return f.type === "array" ? `${path}[]` : path;
}

function holdsFields(f: Field): boolean {
  return f.type === "object" || (f.type === "array" && f.itemType === "object");
}

function all(f: Field, depth: number, prefix: string, change: FieldChange): FieldDiffRow[] {
  return fieldRows([f], depth, prefix).map((r) => ({ ...r, change, changes: [] }));
}

export function diffFields(before: Field[], after: Field[], depth = 0, prefix = ""): FieldDiffRow[] {
  const out: FieldDiffRow[] = [];
  const seen = new Set<string>();
  for (const nf of after) {
    const of = before.find((f) => f.name === nf.name);
    if (!of) {
      out.push(...all(nf, depth, prefix, "added"));
      continue;
    }
    seen.add(of.name);
    const [oldRow] = fieldRows([{ ...of, children: [] }], depth, prefix);
    const [newRow] = fieldRows([{ ...nf, children: [] }], depth, prefix);
    const changes: string[] = [];
    if (oldRow.type !== newRow.type) changes.push(`type ${oldRow.type} → ${newRow.type}`);
    if (oldRow.required !== newRow.required) changes.push(newRow.required ? "optional → required" : "required → optional");
    if (oldRow.description !== newRow.description) changes.push(`description ${quote(oldRow.description)} → ${quote(newRow.description)}`);
    if (oldRow.more !== newRow.more) changes.push("other settings changed");
    out.push({ ...newRow, change: changes.length ? "changed" : "same", changes });
    if (holdsFields(of) || holdsFields(nf)) {
      const path = newRow.path;
      out.push(...diffFields(holdsFields(of) ? of.children : [], holdsFields(nf) ? nf.children : [], depth + 1, childPrefix(nf, path)));
    }
  }
  for (const of of before) {
    if (seen.has(of.name)) continue;
    out.push(...all(of, depth, prefix, "removed"));
  }
  return out;
}

/** How many fields were added, removed and changed. */
export function diffCounts(rows: FieldDiffRow[]): Record<FieldChange, number> {
  const c: Record<FieldChange, number> = { added: 0, removed: 0, changed: 0, same: 0 };
  for (const r of rows) c[r.change]++;
  return c;
}
