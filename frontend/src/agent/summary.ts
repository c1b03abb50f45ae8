// One line for people about a tool call: "Create schema “Invoice”".

function obj(v: unknown): Record<string, unknown> {
  if (typeof v === "string") {
    try {
      const p = JSON.parse(v);
      if (p && typeof p === "object") return p as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  return v && typeof v === "object" ? (v as Record<string, unknown>) : {};
}

function q(v: unknown): string {
  return `“${String(v)}”`;
}

function short(v: unknown, n = 60): string {
  const s = typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

export function summarizeCall(name: string, args: unknown): string {
  const a = obj(args);
  const named = (verb: string, what: string, idKey: string) =>
    a.name ? `${verb} ${what} ${q(a.name)}` : a[idKey] ? `${verb} ${what} ${a[idKey]}` : `${verb} ${what}`;
  switch (name) {
    case "create_schema":
      return named("Create", "schema", "schema_id");
    case "update_schema":
      return named("Update", "schema", "schema_id");
    case "delete_schema":
      return `Delete schema ${a.schema_id ?? ""}`.trim();
    case "create_prompt":
      return named("Create", "prompt", "prompt_id");
    case "update_prompt":
      return named("Update", "prompt", "prompt_id");
    case "delete_prompt":
      return `Delete prompt ${a.prompt_id ?? ""}`.trim();
    case "create_tag":
      return named("Create", "tag", "tag_id");
    case "update_tag":
      return named("Update", "tag", "tag_id");
    case "delete_tag":
      return `Delete tag ${a.tag_id ?? ""}`.trim();
    case "run_extraction":
      return a.prompt_revid ? `Run extraction with prompt ${a.prompt_revid}` : "Run extraction";
    case "update_extraction_field":
      return `Set ${a.path ?? "a field"} to ${short(a.value)}`;
    case "update_document":
      return a.name ? `Rename document to ${q(a.name)}` : "Update document";
    case "delete_document":
      return a.document_id ? `Delete document ${a.document_id}` : "Delete this document";
    case "get_ocr_text":
      return a.page_num ? `Read page ${a.page_num}` : "Read the document text";
    case "get_document":
      return a.document_id ? `Look up document ${a.document_id}` : "Look up this document";
    case "list_documents":
      return a.name_search ? `List documents matching ${q(a.name_search)}` : "List documents";
    case "get_extraction_result":
      return "Read the current extraction";
    case "get_schema":
      return `Read schema ${a.schema_revid ?? ""}`.trim();
    case "list_schemas":
      return a.name_search ? `List schemas matching ${q(a.name_search)}` : "List schemas";
    case "validate_schema":
      return "Validate a schema";
    case "validate_against_schema":
      return "Check data against a schema";
    case "get_prompt":
      return `Read prompt ${a.prompt_revid ?? ""}`.trim();
    case "list_prompts":
      return a.name_search ? `List prompts matching ${q(a.name_search)}` : "List prompts";
    case "get_tag":
      return `Read tag ${a.tag_id ?? ""}`.trim();
    case "list_tags":
      return "List tags";
    case "help_schemas":
      return "Read the guide to writing schemas";
    case "help_prompts":
      return "Read the guide to writing prompts";
    case "list_models":
      return "List models";
    case "search_docs":
      return a.query ? `Search documents for ${q(a.query)}` : "Search documents";
    case "open_citation":
      return `Open a passage of document ${a.document_id ?? ""}`.trim();
    default:
      return name.replace(/_/g, " ");
  }
}
