import { describe, expect, it } from "vitest";
import {
  fieldProblems,
  fieldRows,
  fieldToSchema,
  innerSchema,
  newField,
  responseFormatProblems,
  sanitizeName,
  schemaToTable,
  tableToSchema,
  typeLabel,
  withInnerSchema,
  type Field,
  type SchemaTable,
} from "./fields";

const invoice = {
  type: "object",
  title: "Invoice",
  properties: {
    invoice_number: { type: "string", description: "As printed", pattern: "^[0-9]+$" },
    issued: { type: "string", format: "date" },
    total: { type: "number", minimum: 0 },
    currency: { type: "string", enum: ["EUR", "USD"] },
    paid: { type: ["boolean", "null"] },
    vendor: {
      type: "object",
      properties: { name: { type: "string" }, vat_id: { type: ["string", "null"], description: "VAT number" } },
      required: ["name", "vat_id"],
      additionalProperties: false,
    },
    line_items: {
      type: "array",
      description: "One per line",
      minItems: 1,
      items: {
        type: "object",
        properties: {
          description: { type: "string" },
          quantity: { type: "integer", minimum: 1 },
          amount: { type: "number" },
        },
        required: ["amount", "description", "quantity"],
        additionalProperties: false,
      },
    },
    notes: { type: "array", items: { type: "string", maxLength: 200 } },
    extra: { anyOf: [{ type: "string" }, { type: "number" }], description: "Either" },
    matrix: { type: "array", items: { type: "array", items: { type: "number" } } },
    created: { type: "string", format: "date-time" },
  },
  required: ["total", "invoice_number", "issued", "orphan"],
  additionalProperties: false,
  $defs: { money: { type: "number" } },
};

function table(s: unknown): SchemaTable {
  const t = schemaToTable(s);
  if ("error" in t) throw new Error(t.error);
  return t.table;
}

function find(fields: Field[], path: string): Field {
  const [head, ...rest] = path.split(".");
  const f = fields.find((x) => x.name === head);
  if (!f) throw new Error(`no field ${path}`);
  return rest.length ? find(f.children, rest.join(".")) : f;
}

describe("schema table: reading", () => {
  it("reads types, required, nullable, descriptions and nested fields", () => {
    const t = table(invoice);
    const f = t.fields;
    expect(f.map((x) => x.name)).toEqual(Object.keys(invoice.properties));
    expect(find(f, "invoice_number")).toMatchObject({ type: "string", required: true, description: "As printed" });
    expect(find(f, "issued").type).toBe("date");
    expect(find(f, "total")).toMatchObject({ type: "number", required: true });
    expect(find(f, "paid")).toMatchObject({ type: "boolean", nullable: true, required: false });
    expect(find(f, "vendor").type).toBe("object");
    expect(find(f, "vendor.vat_id")).toMatchObject({ type: "string", nullable: true, required: true });
    expect(find(f, "line_items")).toMatchObject({ type: "array", itemType: "object" });
    expect(find(f, "line_items.quantity")).toMatchObject({ type: "integer", required: true });
    expect(find(f, "notes")).toMatchObject({ type: "array", itemType: "string" });
    expect(find(f, "extra").type).toBe("other");
    expect(find(f, "matrix")).toMatchObject({ type: "array", itemType: "other" });
    expect(find(f, "created").type).toBe("string");
  });

  it("labels types in words and lists rows indented, arrays of objects with []", () => {
    const rows = fieldRows(table(invoice).fields);
    const li = rows.filter((r) => r.path.startsWith("line_items"));
    expect(li.map((r) => [r.path, r.depth, r.type])).toEqual([
      ["line_items", 0, "array of objects"],
      ["line_items[].description", 1, "string"],
      ["line_items[].quantity", 1, "integer"],
      ["line_items[].amount", 1, "number"],
    ]);
    expect(rows.find((r) => r.path === "paid")!.type).toBe("boolean or null");
    expect(rows.find((r) => r.path === "notes")!.type).toBe("array of strings");
    expect(rows.find((r) => r.path === "currency")!.more).toBe('enum: ["EUR","USD"]');
    expect(rows.find((r) => r.path === "created")!.more).toBe('format: "date-time"');
    expect(typeLabel({ type: "array", itemType: "date", nullable: false })).toBe("array of dates");
  });

  it("refuses a schema whose top level is not an object", () => {
    expect(schemaToTable({ type: "array", items: {} })).toHaveProperty("error");
    expect(schemaToTable("x")).toHaveProperty("error");
  });
});

describe("schema table: round trip", () => {
  it("writes back exactly what it read, unknown keywords and key order included", () => {
    const out = tableToSchema(table(invoice));
    expect(out).toEqual(invoice);
    expect(JSON.stringify(out)).toBe(JSON.stringify(invoice));
  });

  it("round-trips nested objects, arrays of objects and odd but valid shapes", () => {
    const cases: unknown[] = [
      { type: "object", properties: {} },
      { properties: { a: { type: "string" } } },
      { type: "object", properties: { a: { type: "object" } }, required: [] },
      { type: "object", properties: { a: { type: "array" } } },
      { type: "object", properties: { a: { type: ["null", "string"] } }, required: ["a"] },
      { type: "object", properties: { a: { description: "", type: "number" } } },
      { type: "object", properties: { deep: { type: "object", properties: { list: { type: "array", items: { type: "object", properties: { x: { type: "integer", enum: [1, 2] } }, required: ["x"] } } } } } },
    ];
    for (const c of cases) expect(JSON.stringify(tableToSchema(table(c)))).toBe(JSON.stringify(c));
  });

  it("keeps keywords the table does not model when a field is edited", () => {
    const t = table(invoice);
    find(t.fields, "invoice_number").description = "The number";
    find(t.fields, "currency").required = true;
    const out = tableToSchema(t) as typeof invoice;
    expect(out.properties.invoice_number).toEqual({ type: "string", description: "The number", pattern: "^[0-9]+$" });
    expect(out.properties.currency).toEqual({ type: "string", enum: ["EUR", "USD"] });
    expect(out.required).toEqual(["total", "invoice_number", "issued", "orphan", "currency"]);
    expect(out.$defs).toEqual(invoice.$defs);
    expect(out.properties.extra).toEqual(invoice.properties.extra);
  });

  it("renames a field keeping its place in required, and drops a removed field from required", () => {
    const t = table(invoice);
    find(t.fields, "total").name = "amount_due";
    t.fields = t.fields.filter((f) => f.name !== "issued");
    const out = tableToSchema(t) as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(out.properties)).toContain("amount_due");
    expect(out.properties.amount_due).toEqual({ type: "number", minimum: 0 });
    expect(out.properties).not.toHaveProperty("issued");
    expect(out.required).toEqual(["amount_due", "invoice_number", "orphan"]);
  });

  it("changes types: drops keywords of the old type, writes date as a string format", () => {
    const t = table(invoice);
    find(t.fields, "invoice_number").type = "integer";
    find(t.fields, "issued").type = "string";
    find(t.fields, "created").type = "date";
    find(t.fields, "paid").nullable = false;
    const out = tableToSchema(t) as { properties: Record<string, unknown> };
    expect(out.properties.invoice_number).toEqual({ type: "integer", description: "As printed" });
    expect(out.properties.issued).toEqual({ type: "string" });
    expect(out.properties.created).toEqual({ type: "string", format: "date" });
    expect(out.properties.paid).toEqual({ type: "boolean" });
  });

  it("adds new fields, objects and arrays of objects in strict-mode shape", () => {
    const t = table({ type: "object", properties: {}, required: [], additionalProperties: false });
    const items = { ...newField("items"), type: "array" as const, itemType: "object" as const, children: [newField("sku"), { ...newField("qty"), type: "integer" as const }] };
    const addr = { ...newField("address"), type: "object" as const, children: [{ ...newField("city"), nullable: true, description: "Town" }] };
    const tags = { ...newField("tags"), type: "array" as const, itemType: "string" as const, required: false };
    t.fields = [items, addr, tags];
    expect(tableToSchema(t)).toEqual({
      type: "object",
      properties: {
        items: {
          type: "array",
          items: {
            type: "object",
            properties: { sku: { type: "string" }, qty: { type: "integer" } },
            required: ["sku", "qty"],
            additionalProperties: false,
          },
        },
        address: {
          type: "object",
          properties: { city: { type: ["string", "null"], description: "Town" } },
          required: ["city"],
          additionalProperties: false,
        },
        tags: { type: "array", items: { type: "string" } },
      },
      required: ["items", "address"],
      additionalProperties: false,
    });
  });

  it("turns an object into an array of objects, keeping its fields", () => {
    const t = table(invoice);
    const v = find(t.fields, "vendor");
    v.type = "array";
    v.itemType = "object";
    const out = fieldToSchema(v);
    expect(out).toEqual({
      type: "array",
      items: { type: "object", properties: invoice.properties.vendor.properties, required: ["name", "vat_id"], additionalProperties: false },
    });
  });
});

describe("schema table: checks and response_format", () => {
  it("finds empty and repeated names, nested too", () => {
    const t = table(invoice);
    find(t.fields, "line_items").children.push(newField("amount"));
    t.fields.push(newField(""));
    expect(fieldProblems(t.fields)).toEqual(["Two fields in “line_items” are named “amount”.", "A field in the top level has no name."]);
  });

  it("reads and replaces the schema inside a response_format, or a bare schema", () => {
    const rf = { type: "json_schema", json_schema: { name: "invoice", strict: true, schema: invoice } };
    expect(innerSchema(rf)).toBe(invoice);
    expect(innerSchema(JSON.stringify(rf))).toEqual(invoice);
    expect(innerSchema(invoice)).toBe(invoice);
    expect(withInnerSchema(rf, { type: "object" })).toEqual({ type: "json_schema", json_schema: { name: "invoice", strict: true, schema: { type: "object" } } });
    expect(responseFormatProblems(rf)).toEqual([]);
    expect(responseFormatProblems("{")).toEqual(["The schema is not valid JSON."]);
    expect(responseFormatProblems({ type: "json_schema", json_schema: { name: "x" } })).toEqual(["The response_format has no schema (json_schema.schema)."]);
    expect(responseFormatProblems([])).toHaveLength(1);
    expect(sanitizeName(" Invoice (EU) ")).toBe("Invoice_EU");
  });
});
