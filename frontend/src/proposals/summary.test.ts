import { describe, expect, it } from "vitest";
import type { PromptRevision, SchemaRevision } from "../api/types";
import { foldDiff, lineDiff } from "./diff";
import { cleanPreview, formatValue, refusalText, summarizeCall, valueAt, type SummaryContext } from "./summary";

const invoiceSchema = {
  type: "object",
  properties: {
    invoice_number: { type: "string", description: "As printed" },
    total: { type: "number" },
    line_items: {
      type: "array",
      items: {
        type: "object",
        properties: { description: { type: "string" }, amount: { type: "number" } },
        required: ["description", "amount"],
        additionalProperties: false,
      },
    },
  },
  required: ["invoice_number", "total", "line_items"],
  additionalProperties: false,
};
const rf = (schema: unknown) => ({ type: "json_schema", json_schema: { name: "invoice", strict: true, schema } });

const schemaV1: SchemaRevision = {
  schema_id: "sch_1",
  schema_revid: "srv_1",
  version: 1,
  name: "Invoice",
  response_format: rf(invoiceSchema) as SchemaRevision["response_format"],
  created_at: "",
};

const promptV2: PromptRevision = {
  prompt_id: "prm_1",
  prompt_revid: "prv_2",
  version: 2,
  name: "Invoice prompt",
  content: "Extract the invoice.\nUse ISO dates.\nNumbers without currency.",
  created_at: "",
  schema_id: "sch_1",
  schema_revid: "srv_1",
  schema_version: 1,
  model: "",
  tag_ids: ["tag_a"],
};

const names: SummaryContext = {
  schemaLabel: (ref, v) => (ref === "sch_1" || ref === "Invoice" || ref === "srv_1" ? `Invoice v${v ?? 1}` : undefined),
  promptLabel: (ref) => (ref === "prv_2" || ref === "prm_1" ? "Invoice prompt v2" : undefined),
  tagOf: (ref) => ({ tag_a: { name: "finance", color: "#ff0000" }, tag_b: { name: "2024" } })[ref],
};

describe("summaries: schemas", () => {
  it("create_schema: the fields as a table, line items indented", () => {
    const s = summarizeCall("create_schema", { name: "Invoice", response_format: rf(invoiceSchema) });
    expect(s.title).toBe("Create schema “Invoice” with 3 fields");
    expect(s.lines).toEqual([
      "Fields:",
      "  invoice_number: string, required — As printed",
      "  total: number, required",
      "  line_items: array of objects, required",
      "    description: string, required",
      "    amount: number, required",
    ]);
    expect(s.fields!.rows.map((r) => r.path)).toContain("line_items[].amount");
  });

  it("create_schema: arguments as a JSON string, and a bare schema", () => {
    const s = summarizeCall("create_schema", JSON.stringify({ name: "X", response_format: { type: "object", properties: { a: { type: "integer" } } } }));
    expect(s.title).toBe("Create schema “X” with 1 field");
    expect(s.lines).toEqual(["Fields:", "  a: integer"]);
  });

  it("create_schema: a schema that cannot be a table says why", () => {
    const s = summarizeCall("create_schema", { name: "X", response_format: rf({ type: "array" }) });
    expect(s.title).toBe("Create schema “X”");
    expect(s.lines[0]).toMatch(/^Fields: cannot be shown: The top level/);
  });

  it("update_schema: a diff against the version it replaces", () => {
    const next = structuredClone(invoiceSchema) as unknown as { properties: Record<string, unknown> & { line_items: { items: { properties: Record<string, unknown> } } } };
    delete next.properties.total;
    next.properties.due_date = { type: "string", format: "date", description: "Pay by" };
    next.properties.line_items.items.properties.amount = { type: ["number", "null"] };
    const s = summarizeCall("update_schema", { schema_id: "sch_1", name: "Invoice EU", response_format: rf(next) }, { ...names, schema: schemaV1 });
    expect(s.title).toBe("Update schema “Invoice” to v2");
    expect(s.lines).toEqual([
      "Name: “Invoice” → “Invoice EU”",
      "Field changes against v1:",
      "    invoice_number: string, required — As printed",
      "    line_items: array of objects, required",
      "      description: string, required",
      "  ~   amount: type number → number or null",
      "  + due_date: date — Pay by",
      "  - total: number, required",
      "1 field added, 1 field removed, 1 field changed.",
    ]);
  });

  it("update_schema: without the current version, the new fields; unchanged and absent formats say so", () => {
    expect(summarizeCall("update_schema", { schema_id: "Invoice", response_format: rf(invoiceSchema) }, names).title).toBe("Update schema Invoice v1");
    expect(summarizeCall("update_schema", { schema_id: "x", response_format: rf(invoiceSchema) }).lines[0]).toBe("Fields of the new version:");
    expect(summarizeCall("update_schema", { schema_id: "sch_1", response_format: rf(invoiceSchema) }, { schema: schemaV1 }).notes).toEqual(["The fields do not change."]);
    expect(summarizeCall("update_schema", { schema_id: "sch_1", name: "Invoice" }, { schema: schemaV1 }).lines).toEqual([
      "The fields stay as they are.",
      "Nothing changes: the schema stays at v1.",
    ]);
  });

  it("delete_schema: what goes and what uses it", () => {
    const s = summarizeCall("delete_schema", { schema_id: "sch_1" }, { schema: { ...schemaV1, version: 3 }, usedBy: { prompts: ["Invoice prompt"] } });
    expect(s.title).toBe("Delete schema “Invoice” and its 3 versions");
    expect(s.danger).toBe(true);
    expect(s.lines).toEqual(["Used by prompt “Invoice prompt”: Docent refuses to delete a schema while a prompt uses it."]);
    expect(summarizeCall("delete_schema", { schema_id: "sch_9" }).title).toBe("Delete schema “sch_9”");
  });
});

describe("summaries: prompts", () => {
  it("create_prompt: its text, schema by name, model and tags", () => {
    const s = summarizeCall("create_prompt", { name: "Invoice prompt", content: "Extract it.\nCarefully.", schema_id: "Invoice", tag_ids: ["tag_a"] }, names);
    expect(s.title).toBe("Create prompt “Invoice prompt”");
    expect(s.lines).toEqual(["Schema: Invoice v1", "Model: default", "Tags: finance", "Instructions:", "  | Extract it.", "  | Carefully."]);
    expect(s.chips!.chips[0]).toEqual({ name: "finance", color: "#ff0000", change: "same" });
  });

  it("update_prompt: a line diff and the other changes", () => {
    const s = summarizeCall(
      "update_prompt",
      { prompt_id: "prm_1", content: "Extract the invoice.\nUse ISO 8601 dates.\nNumbers without currency.", tag_ids: ["tag_b"], model: "ollama/qwen3:8b" },
      { ...names, prompt: promptV2 },
    );
    expect(s.title).toBe("Update prompt “Invoice prompt” to v3");
    expect(s.lines).toEqual([
      "Model: default → ollama/qwen3:8b",
      "Tags: +2024, -finance",
      "Instructions (changes):",
      "    Extract the invoice.",
      "  - Use ISO dates.",
      "  + Use ISO 8601 dates.",
      "    Numbers without currency.",
    ]);
  });

  it("update_prompt: unlinking the schema, and nothing to change", () => {
    expect(summarizeCall("update_prompt", { prompt_id: "prm_1", schema_id: "" }, { ...names, prompt: promptV2 }).lines).toEqual(["Schema: Invoice v1 → none"]);
    expect(summarizeCall("update_prompt", { prompt_id: "prm_1", content: promptV2.content }, { prompt: promptV2 }).lines).toEqual(["Nothing changes: the prompt stays at v2."]);
    expect(summarizeCall("update_prompt", { prompt_id: "prm_9", content: "a" }).lines).toEqual(["Instructions (new version):", "  | a"]);
  });

  it("delete_prompt and run_extraction", () => {
    expect(summarizeCall("delete_prompt", { prompt_id: "prm_1" }, { prompt: promptV2 }).title).toBe("Delete prompt “Invoice prompt” and its 2 versions");
    const run = summarizeCall("run_extraction", { prompt_revid: "prv_2" }, { ...names, prompt: promptV2 });
    expect(run.title).toBe("Run prompt Invoice prompt v2 on this document");
    expect(run.lines).toEqual(["Schema: Invoice v1", "Model: default", "The result becomes this document's current extraction."]);
    expect(summarizeCall("run_extraction", {}).title).toBe("Run the conversation's prompt on this document");
  });
});

describe("summaries: extraction, tags, documents", () => {
  it("update_extraction_field: path: old → new", () => {
    const s = summarizeCall("update_extraction_field", { path: "line_items.0.amount", value: 4.2 }, { current: { found: true, value: 4.11 } });
    expect(s.title).toBe("Change line_items.0.amount in the extraction");
    expect(s.lines).toEqual(["line_items.0.amount: 4.11 → 4.2"]);
    expect(summarizeCall("update_extraction_field", { path: "vendor", value: "ACME" }, { current: { found: false } }).lines).toEqual(["vendor: (not set) → “ACME”"]);
    expect(summarizeCall("update_extraction_field", { path: "x", value: null }).lines).toEqual(["x: empty (null)"]);
  });

  it("tags as chips", () => {
    expect(summarizeCall("create_tag", { name: "urgent", color: "#ff0000" }).lines).toEqual(["Colour: #ff0000", "Tag: +urgent"]);
    const up = summarizeCall("update_tag", { tag_id: "tag_a", name: "money" }, { tag: { id: "tag_a", name: "finance", color: "#ff0000", description: "", created_at: "", updated_at: "" } });
    expect(up.title).toBe("Update tag “finance”");
    expect(up.lines).toEqual(["Name: “finance” → “money”", "Tag: money"]);
    const del = summarizeCall("delete_tag", { tag_id: "tag_a" }, { ...names, usedBy: { documents: 3, prompts: ["Invoice prompt"] } });
    expect(del.title).toBe("Delete tag “finance”");
    expect(del.lines).toEqual(["Tag: -finance", "Used by 3 documents and prompt “Invoice prompt”: Docent refuses to delete a tag in use."]);
  });

  it("update_document: rename, tags against the document's, delete", () => {
    const doc = { id: "doc_1", name: "invoice-42.pdf", tag_ids: ["tag_a"] };
    expect(summarizeCall("update_document", { name: "aws.pdf" }, { document: doc }).title).toBe("Rename “invoice-42.pdf” to “aws.pdf”");
    expect(summarizeCall("update_document", { name: "aws.pdf" }).title).toBe("Rename this document to “aws.pdf”");
    const t = summarizeCall("update_document", { tag_ids: ["tag_a", "tag_b"] }, { ...names, document: doc });
    expect(t.title).toBe("Update document “invoice-42.pdf”");
    expect(t.lines).toEqual(["Tags: finance, +2024"]);
    const d = summarizeCall("delete_document", {}, { document: doc });
    expect(d.title).toBe("Delete document “invoice-42.pdf”");
    expect(d.lines).toEqual(["Its pages, extractions and conversations are deleted with it."]);
  });

  it("read-only calls have a title only", () => {
    expect(summarizeCall("get_schema", { schema_revid: "srv_1" }, names)).toMatchObject({ title: "Read schema Invoice v1", lines: [] });
    expect(summarizeCall("get_ocr_text", { page_num: 2 }).title).toBe("Read page 2");
    expect(summarizeCall("some_new_tool", {}).title).toBe("Some new tool");
  });
});

describe("wording helpers", () => {
  it("values, refusals and previews", () => {
    expect(formatValue("x".repeat(100))).toHaveLength(82);
    expect(formatValue({ a: [1, 2] })).toBe('{"a":[1,2]}');
    expect(formatValue(undefined)).toBe("(not set)");
    expect(refusalText("Create schema “Invoice” with 3 fields", "a schema named Invoice exists; use update_schema")).toBe(
      "The model tried to create schema “Invoice” with 3 fields; Docent refused: a schema named Invoice exists; use update_schema",
    );
    expect(cleanPreview("created schema Invoice v1 (srv_01JABCDEF)")).toEqual({ text: "Created schema Invoice v1", ids: ["srv_01JABCDEF"] });
    expect(cleanPreview("3 hits for \"x\"")).toEqual({ text: '3 hits for "x"', ids: [] });
  });

  it("line diff folds long unchanged runs", () => {
    const a = Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n");
    const b = a.replace("line 10", "line ten");
    const d = foldDiff(lineDiff(a, b));
    expect(d.map((l) => l.op)).toEqual(["fold", "same", "same", "del", "add", "same", "same", "fold"]);
    expect(d[0].text).toBe("8");
    expect(lineDiff("a", "a")).toEqual([{ op: "same", text: "a" }]);
  });
});

describe("valueAt", () => {
  it("reads dotted paths and JSON pointers, and says when a path is not set", () => {
    const v = { a: { b: [{ c: 1 }, { c: null }] }, "x/y": 2 };
    expect(valueAt(v, "a.b.0.c")).toEqual({ found: true, value: 1 });
    expect(valueAt(v, "/a/b/1/c")).toEqual({ found: true, value: null });
    expect(valueAt(v, "/x~1y")).toEqual({ found: true, value: 2 });
    expect(valueAt(v, "a.b.5.c")).toEqual({ found: false });
    expect(valueAt(v, "a.b.0.c.d")).toEqual({ found: false });
    expect(valueAt(null, "a")).toEqual({ found: false });
  });
});
