import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { Summary } from "../api/events.gen";
// Summaries as the server produces them (app/server/tool_summary_test.go
// checks these files against it).
import createSchemaSummary from "../proposals/testdata/create-schema.json";
import deleteSchemaSixtyPrompts from "../proposals/testdata/delete-schema-sixty-prompts.json";
import { ToolCard, type ApprovalControls } from "./ToolCard";
import type { ToolCallView } from "./reducer";

const createSchema = createSchemaSummary as Summary;

const schema = {
  type: "json_schema",
  json_schema: {
    name: "invoice",
    strict: true,
    schema: {
      type: "object",
      properties: {
        invoice_number: { type: "string" },
        line_items: { type: "array", items: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"], additionalProperties: false } },
      },
      required: ["invoice_number", "line_items"],
      additionalProperties: false,
    },
  },
};

const approval: ApprovalControls = { decide: () => {}, alwaysApprove: () => {} };

describe("tool card", () => {
  it("shows a pending proposal as a summary with its fields, the approval buttons and the arguments one click away", () => {
    const call: ToolCallView = { id: "c1", name: "create_schema", arguments: { name: "Invoice", response_format: schema }, summary: createSchema, needsApproval: true };
    const html = renderToString(<ToolCard call={call} approval={approval} />);
    expect(html).toContain('data-testid="proposal-summary"');
    expect(html).toContain("Create schema “Invoice” with 2 fields");
    expect(html).toMatch(/data-testid="proposal-field-row" data-field="line_items\[\]\.amount"/);
    expect(html).toContain('data-testid="approve-button"');
    expect(html).toContain('data-testid="reject-button"');
    expect(html).toContain('data-testid="show-arguments"');
    expect(html).toContain("Needs your approval");
    // The raw JSON is not shown until asked for.
    expect(html).not.toContain("&quot;json_schema&quot;");
    expect(html).toContain('data-waiting="true"');
  });

  it("tells a refused call as the model's step, and a rejected one as the user's", () => {
    const refused: ToolCallView = {
      id: "c2",
      name: "create_schema",
      arguments: { name: "Invoice", response_format: schema },
      summary: createSchema,
      needsApproval: false,
      result: { success: false, error: "schema `Invoice` exists; use update_schema to make a new version" },
    };
    const html = renderToString(<ToolCard call={refused} />);
    expect(html).toContain('data-kind="model-step"');
    expect(html).toContain("The model tried to create schema “Invoice” with 2 fields; Docent refused: schema </span><code>Invoice</code><span> exists");
    expect(html).not.toContain("`");
    const rejected: ToolCallView = { ...refused, decision: { approved: false }, result: { success: false, error: "User rejected this action." } };
    expect(renderToString(<ToolCard call={rejected} />)).toContain("You rejected this.");
  });

  it("shows a result's preview without its ids", () => {
    const done: ToolCallView = {
      id: "c3",
      name: "create_tag",
      arguments: { name: "urgent" },
      needsApproval: false,
      result: { success: true, preview: "created tag urgent (tag_01JABC)" },
    };
    const html = renderToString(<ToolCard call={done} />);
    expect(html).toContain(">Created tag urgent<");
    expect(html).toContain('title="tag_01JABC"');
  });

  it("names the prompt that uses a schema on a store of 60 prompts, as the terminal does", () => {
    const call: ToolCallView = { id: "d1", name: "delete_schema", arguments: { schema_id: "invoice" }, summary: deleteSchemaSixtyPrompts as Summary, needsApproval: true };
    const html = renderToString(<ToolCard call={call} approval={approval} />);
    expect(html).toContain("Delete schema “invoice” and its 1 version");
    expect(html).toContain("Used by prompt “zz invoice prompt”: Docent refuses to delete a schema while a prompt uses it.");
    expect(html).not.toContain("No prompt uses it.");
    expect(html).toContain("tool-card pending danger");
  });

  it("names a call that came without a summary by its tool", () => {
    const call: ToolCallView = { id: "c4", name: "list_tags", arguments: {}, needsApproval: false };
    expect(renderToString(<ToolCard call={call} />)).toContain(">List tags<");
  });
});
