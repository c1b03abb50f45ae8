package agent

import (
	"context"
	"encoding/json"

	"github.com/docent/docent/storage/fault"
)

func helpTools() []Tool {
	return []Tool{
		{
			Name:        "help_schemas",
			Title:       "How to write a schema",
			Description: "How to write a Docent schema (response_format): the shape, strict-mode rules, nullable fields, an invoice example.",
			Parameters:  params(nil, nil),
			Access:      ReadOnly,
			Run:         func(context.Context, *ToolEnv, json.RawMessage) (any, error) { return helpSchemas, nil },
			Summarize:   summarizer(fixedSummary("Read the guide to writing schemas"), noWords),
		},
		{
			Name:        "help_prompts",
			Title:       "How to write a prompt",
			Description: "How to write a Docent extraction prompt: what to say, formats, linking a schema, the order of tool calls.",
			Parameters:  params(nil, nil),
			Access:      ReadOnly,
			Run:         func(context.Context, *ToolEnv, json.RawMessage) (any, error) { return helpPrompts, nil },
			Summarize:   summarizer(fixedSummary("Read the guide to writing prompts"), noWords),
		},
		{
			Name:        "list_models",
			Title:       "List models",
			Description: "List the models the configured providers offer, with their ids (provider/model) and capabilities.",
			Parameters:  params(nil, nil),
			Access:      ReadOnly,
			Run:         listModels,
			Summarize:   summarizer(fixedSummary("List models"), noWords),
		},
	}
}

func listModels(ctx context.Context, env *ToolEnv, _ json.RawMessage) (any, error) {
	if env.Providers == nil {
		return nil, fault.Errorf(fault.Invalid, "no model providers are configured")
	}
	models, errs := env.Providers.Models(ctx)
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = toolErrorMessage(ctx, env, "list_models", err)
	}
	res := map[string]any{"models": models}
	if models == nil {
		res["models"] = []any{}
	}
	if len(msgs) > 0 {
		res["errors"] = msgs
	}
	return withPreview(res, "%d models", len(models)), nil
}

// helpSchemas is what help_schemas returns.
const helpSchemas = `Docent schemas

A schema is stored as an OpenAI structured-output response_format:

{"type": "json_schema",
 "json_schema": {"name": "invoice", "strict": true, "schema": { ...JSON Schema... }}}

You may also pass the bare JSON Schema; Docent wraps it, naming it after the schema.

Rules (strict mode; extractions run with it):
- The root is {"type": "object"}.
- Every object lists ALL its properties in "required" and has "additionalProperties": false.
  Optionality is expressed with null, not by leaving a property out of "required".
- A value a document may lack is nullable: {"type": ["string", "null"]}. The model
  then answers null instead of inventing a value.
- Use "number" for amounts and quantities (plain numbers, no currency symbols or
  thousands separators), "string" for dates (say the format, ISO 8601
  YYYY-MM-DD, in a "description"), "array" with "items" for repeated rows.
- "description" on a property tells the model what to put there: use it.
- Only local references ("$ref": "#/$defs/line_item") are allowed; no remote $ref.
- json_schema.name: letters, digits, _ and -, at most 64 characters.

Example, an invoice with line items:

{"type": "json_schema", "json_schema": {"name": "invoice", "strict": true, "schema": {
  "type": "object",
  "properties": {
    "invoice_number": {"type": "string"},
    "invoice_date": {"type": "string", "description": "ISO 8601 date, YYYY-MM-DD"},
    "due_date": {"type": ["string", "null"], "description": "ISO 8601 date, or null"},
    "vendor": {"type": "string"},
    "currency": {"type": ["string", "null"], "description": "ISO 4217 code, e.g. USD"},
    "total": {"type": "number"},
    "tax": {"type": ["number", "null"]},
    "line_items": {"type": "array", "items": {
      "type": "object",
      "properties": {
        "description": {"type": "string"},
        "quantity": {"type": ["number", "null"]},
        "unit_price": {"type": ["number", "null"]},
        "amount": {"type": "number"}
      },
      "required": ["description", "quantity", "unit_price", "amount"],
      "additionalProperties": false
    }}
  },
  "required": ["invoice_number", "invoice_date", "due_date", "vendor", "currency", "total", "tax", "line_items"],
  "additionalProperties": false
}}}

Workflow: validate_schema first and fix every error (warnings are strict-mode
problems worth fixing too); then create_schema (new name) or update_schema
(new version of an existing schema; create_schema on an existing name fails).
Link the schema to a prompt with create_prompt/update_prompt (schema_id).
`

// helpPrompts is what help_prompts returns.
const helpPrompts = `Docent extraction prompts

A prompt is the instruction an extraction runs with. Docent sends it after a
fixed preamble ("answer with one JSON object that matches the schema; use null
for values the document does not contain"), followed by the document's text
with "--- page N ---" markers, and the prompt's linked schema as structured
output. So the prompt says WHAT to extract and HOW to write values; the schema
says the shape.

Write prompts that:
- Name the document type and every field, in the schema's words
  ("Extract the invoice number, invoice date, vendor, total and each line item").
- Say formats: dates as ISO 8601 (YYYY-MM-DD), amounts as plain numbers without
  currency symbols or thousands separators (1234.5, not "$1,234.50"), currency
  as an ISO 4217 code, percentages as numbers.
- Say what to do when a value is missing (null) or ambiguous (which one wins:
  "the total due, not the subtotal").
- Disambiguate repeated values (the invoice date, not the order date).
- Stay short; no examples that could leak into answers.

Link a schema: create_prompt with schema_id (and schema_version to pin one;
default the latest). A prompt without a schema cannot run. model (e.g.
ollama/qwen3:8b; list_models lists them) is optional; the default model is
used without it. tag_ids tie the prompt to documents with the same tags.

Workflow:
1. validate_schema, then create_schema or update_schema.
2. create_prompt (new name) or update_prompt (new version; create_prompt on an
   existing name fails).
3. run_extraction (it uses the prompt you just made when prompt_revid is left out).
4. Check the result; fix single values with update_extraction_field, or
   improve the prompt or schema and run again.
`
