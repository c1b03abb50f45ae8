package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/docent/docent/storage"
)

// declaredArgs are valid arguments for every tool, without document_id,
// on a toolFixture: what TestDeclaredFieldsMatchWhatToolsDo calls with.
func declaredArgs(f *toolFixture) map[string]map[string]any {
	return map[string]map[string]any{
		"get_ocr_text": {}, "get_document": {}, "list_documents": {}, "get_extraction_result": {},
		"get_schema": {"schema_revid": f.schema.SchemaRevID}, "list_schemas": {},
		"validate_schema":         {"schema": json.RawMessage(invoiceSchema)},
		"validate_against_schema": {"schema_revid": f.schema.SchemaRevID, "data": map[string]any{}},
		"get_prompt":              {"prompt_revid": f.prompt.PromptRevID}, "list_prompts": {},
		"get_tag": {"tag_id": f.tag.ID}, "list_tags": {}, "help_schemas": {}, "help_prompts": {},
		"list_models": {}, "search_docs": {"query": "invoice"}, "get_history": {},
		"open_citation": {"document_id": f.doc.ID, "chunk_id": 1},
		"describe_data": {}, "query_data": {"sql": "SELECT count(*) FROM documents"},
		"run_extraction":          {"prompt_revid": f.prompt.PromptRevID},
		"update_extraction_field": {"path": "total", "value": 1},
		"update_document":         {"name": "renamed.pdf"}, "delete_document": {},
		"create_schema": {"name": "new", "response_format": json.RawMessage(invoiceSchema)},
		"update_schema": {"schema_id": f.schema.SchemaID, "name": "renamed"},
		"delete_schema": {"schema_id": f.schema.SchemaID},
		"create_prompt": {"name": "new", "content": "Extract.", "schema_id": f.schema.SchemaID, "tag_ids": []string{f.tag.ID}},
		"update_prompt": {"prompt_id": f.prompt.PromptID, "schema_id": f.schema.SchemaID},
		"delete_prompt": {"prompt_id": f.prompt.PromptID},
		"create_tag":    {"name": "new"}, "update_tag": {"tag_id": f.tag.ID, "name": "renamed"},
		"delete_tag": {"tag_id": f.tag.ID},
	}
}

// TestDeclaredFieldsMatchWhatToolsDo checks what tools declare for edges
// that describe them before a call (MCP): OnDocument on exactly the tools
// that fall back to the current document, Ops covering what Changes
// returns, and the read-write fields on read-write tools only.
func TestDeclaredFieldsMatchWhatToolsDo(t *testing.T) {
	f := newToolFixture(t)
	ctx := context.Background()
	// An extraction for update_extraction_field's Changes to find.
	if _, err := f.db.CreateExtraction(ctx, storage.NewExtraction{DocumentID: f.doc.ID, PromptRevID: f.prompt.PromptRevID,
		Model: "ollama/qwen3:8b", Value: json.RawMessage(`{"invoice_number":"A-1","total":2}`)}); err != nil {
		t.Fatal(err)
	}
	all := declaredArgs(f)
	for _, tool := range Tools() {
		args, ok := all[tool.Name]
		if !ok {
			t.Errorf("%s: no arguments in declaredArgs", tool.Name)
			continue
		}
		raw := mustJSON(args)
		if v, err := parameterValidator(tool.Name); err != nil || len(v.Validate(raw)) > 0 {
			t.Fatalf("%s: declaredArgs %s are not valid: %v %v", tool.Name, raw, err, v.Validate(raw))
		}

		// Without a current document, only the OnDocument tools ask for one.
		// Read-write tools are asked through Changes (nothing runs).
		env := &ToolEnv{DB: f.db, Extractor: f.env.Extractor, Providers: f.env.Providers, State: &WorkingState{}, SearchCalls: new(int)}
		var err error
		if tool.Access == ReadWrite {
			_, err = tool.Changes(ctx, env, raw)
		} else {
			_, err = tool.Run(ctx, env, raw)
		}
		asks := err != nil && strings.Contains(err.Error(), "no current document")
		if asks != tool.OnDocument {
			t.Errorf("%s: OnDocument %v, but without a current document it gave %v", tool.Name, tool.OnDocument, err)
		}

		if tool.Access == ReadOnly {
			if tool.Ops != nil || tool.Overwrites || tool.Idempotent || tool.Destructive() {
				t.Errorf("%s: read-only with read-write declarations %v %v %v", tool.Name, tool.Ops, tool.Overwrites, tool.Idempotent)
			}
			continue
		}
		if len(tool.Ops) == 0 {
			t.Errorf("%s: read-write without Ops", tool.Name)
		}
		env.DocumentID = f.doc.ID
		changes, err := tool.Changes(ctx, env, raw)
		if err != nil {
			t.Errorf("%s: Changes(%s): %v", tool.Name, raw, err)
			continue
		}
		for _, c := range changes {
			if !slices.Contains(tool.Ops, c.Op) {
				t.Errorf("%s: Changes returned %s, not among its declared Ops %v", tool.Name, c, tool.Ops)
			}
		}
	}
}

func TestToolTitles(t *testing.T) {
	seen := map[string]string{}
	for _, tool := range Tools() {
		title := tool.DisplayTitle()
		if title == "" || strings.Contains(title, "_") {
			t.Errorf("%s: title %q", tool.Name, title)
		}
		if other, ok := seen[title]; ok {
			t.Errorf("%s and %s share the title %q", tool.Name, other, title)
		}
		seen[title] = tool.Name
	}
	if got := (Tool{Name: "search_docs"}).DisplayTitle(); got != "Search docs" {
		t.Errorf("fallback title = %q", got)
	}
	// Deletes and overwrites are destructive; new versions and creations are not.
	for name, want := range map[string]bool{"delete_tag": true, "update_document": true, "update_extraction_field": true,
		"update_schema": false, "create_prompt": false, "run_extraction": false, "get_document": false} {
		if tool, _ := ToolByName(name); tool.Destructive() != want {
			t.Errorf("%s: Destructive() = %v, want %v", name, !want, want)
		}
	}
}

// TestDeclaredResources: a tool offered as a resource only reads, and the
// parameter that names an item is one of its required parameters.
func TestDeclaredResources(t *testing.T) {
	n := 0
	for _, tool := range Tools() {
		r := tool.Resource
		if r == nil {
			continue
		}
		n++
		if tool.Access != ReadOnly {
			t.Errorf("%s: a resource, but %s", tool.Name, tool.Access)
		}
		if r.Name == "" || r.Collection == "" || r.Title == "" {
			t.Errorf("%s: resource %+v lacks a name, collection or title", tool.Name, *r)
		}
		var p struct {
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(tool.Parameters, &p); err != nil {
			t.Fatal(err)
		}
		if r.IDParam != "" && !slices.Contains(p.Required, r.IDParam) {
			t.Errorf("%s: resource names its item by %s, not among its required parameters %v", tool.Name, r.IDParam, p.Required)
		}
	}
	if n == 0 {
		t.Error("no tool declares a resource")
	}
}
