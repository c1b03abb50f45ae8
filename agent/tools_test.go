package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// catalogue is docs/tools.md's tables: every tool and its access class, in order.
var catalogue = []struct {
	name   string
	access Access
}{
	{"get_ocr_text", ReadOnly}, {"get_document", ReadOnly}, {"list_documents", ReadOnly},
	{"get_extraction_result", ReadOnly}, {"get_schema", ReadOnly}, {"list_schemas", ReadOnly},
	{"validate_schema", ReadOnly}, {"validate_against_schema", ReadOnly}, {"get_prompt", ReadOnly},
	{"list_prompts", ReadOnly}, {"get_tag", ReadOnly}, {"list_tags", ReadOnly}, {"get_history", ReadOnly},
	{"help_schemas", ReadOnly}, {"help_prompts", ReadOnly}, {"list_models", ReadOnly},
	{"search_docs", ReadOnly}, {"open_citation", ReadOnly}, {"describe_data", ReadOnly}, {"query_data", ReadOnly},
	{"run_extraction", ReadWrite}, {"update_extraction_field", ReadWrite},
	{"update_document", ReadWrite}, {"delete_document", ReadWrite},
	{"create_schema", ReadWrite}, {"update_schema", ReadWrite}, {"delete_schema", ReadWrite},
	{"create_prompt", ReadWrite}, {"update_prompt", ReadWrite}, {"delete_prompt", ReadWrite},
	{"create_tag", ReadWrite}, {"update_tag", ReadWrite}, {"delete_tag", ReadWrite},
}

func TestRegistryIsTheCatalogue(t *testing.T) {
	tools := Tools()
	if len(tools) != len(catalogue) {
		t.Errorf("%d tools, the catalogue has %d", len(tools), len(catalogue))
	}
	for i, want := range catalogue {
		if i >= len(tools) {
			break
		}
		got := tools[i]
		if got.Name != want.name || got.Access != want.access {
			t.Errorf("tool %d = %s (%s), want %s (%s)", i, got.Name, got.Access, want.name, want.access)
		}
		if n := len(slices.DeleteFunc(Tools(), func(x Tool) bool { return x.Name != want.name })); n != 1 {
			t.Errorf("%s is registered %d times", want.name, n)
		}
		if tb, ok := ToolByName(want.name); !ok || tb.Name != want.name {
			t.Errorf("ToolByName(%q) = %v", want.name, ok)
		}
	}
	var ro, rw []string
	for _, c := range catalogue {
		if c.access == ReadOnly {
			ro = append(ro, c.name)
		} else {
			rw = append(rw, c.name)
		}
	}
	if got := ReadOnlyToolNames(); !slices.Equal(got, ro) {
		t.Errorf("ReadOnlyToolNames = %v, want %v", got, ro)
	}
	if got := ReadWriteToolNames(); !slices.Equal(got, rw) {
		t.Errorf("ReadWriteToolNames = %v, want %v", got, rw)
	}
	if _, ok := ToolByName("nope"); ok {
		t.Error("ToolByName(nope) found a tool")
	}
	if n := len(ProviderTools()); n != len(catalogue) {
		t.Errorf("ProviderTools has %d tools", n)
	}
}

func TestToolParametersAreStrictObjectSchemas(t *testing.T) {
	for _, tool := range Tools() {
		if tool.Description == "" || tool.Run == nil {
			t.Errorf("%s: no description or no Run", tool.Name)
		}
		var p struct {
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(tool.Parameters, &p); err != nil {
			t.Errorf("%s: parameters %s: %v", tool.Name, tool.Parameters, err)
			continue
		}
		if p.Type != "object" || p.Properties == nil || p.AdditionalProperties == nil || *p.AdditionalProperties {
			t.Errorf("%s: parameters %s: want an object with properties and additionalProperties false", tool.Name, tool.Parameters)
		}
		for _, r := range p.Required {
			if _, ok := p.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", tool.Name, r)
			}
		}
		if _, err := compileParameters(tool); err != nil {
			t.Errorf("%s: %v", tool.Name, err)
		}
	}
}

// toolFixture is a store with a tagged two-page document, an untagged one,
// a schema and a prompt linked to it, and an environment on the first
// document.
type toolFixture struct {
	db      *storage.DB
	env     *ToolEnv
	doc     storage.Document
	other   storage.Document
	tag     storage.Tag
	schema  SchemaResult
	prompt  storage.PromptRevision
	srv     *modeltest.Server
	testing *testing.T
}

var fixturePages = []string{
	"ACME Corporation\nInvoice A-1\nDate: 2024-03-01\n",
	"Widgets 10.00\nShipping 2.50\nTotal due: 12.50 EUR\n",
}

func newToolFixture(t *testing.T) *toolFixture {
	t.Helper()
	ctx := context.Background()
	db := openStore(t)
	tag, err := db.CreateTag(ctx, storage.NewTag{Name: "invoices", Color: "#112233"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := db.CreateDocument(ctx, storage.NewDocument{
		Name: "acme.pdf", MediaType: "application/pdf", Data: []byte("%PDF acme"),
		Pages: fixturePages, TagIDs: []string{tag.ID},
	})
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.CreateDocument(ctx, storage.NewDocument{
		Name: "letter.txt", MediaType: "text/plain", Data: []byte("a letter"), Pages: []string{"Dear reader, hello."},
	})
	if err != nil {
		t.Fatal(err)
	}
	sch, err := CreateSchema(ctx, db, "invoice", json.RawMessage(invoiceSchema))
	if err != nil {
		t.Fatal(err)
	}
	prompt, err := db.CreatePrompt(ctx, storage.NewPrompt{
		Name: "acme invoices", Content: "Extract the invoice number and the total as a plain number.",
		SchemaID: sch.SchemaID, TagIDs: []string{tag.ID},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.New(t)
	env := &ToolEnv{
		DB: db, DocumentID: doc.ID, State: &WorkingState{},
		Extractor: &Extractor{DB: db, Providers: testRegistry(srv.OllamaURL(), srv.OpenAIURL()), DefaultModel: "ollama/qwen3:8b"},
		Providers: testRegistry(srv.OllamaURL(), srv.OpenAIURL()),
	}
	return &toolFixture{db: db, env: env, doc: doc, other: other, tag: tag, schema: sch, prompt: prompt, srv: srv, testing: t}
}

// call runs a tool and returns its result.
func (f *toolFixture) call(name string, args any) ToolResult {
	f.testing.Helper()
	raw, ok := args.(string)
	if !ok {
		raw = string(mustJSON(args))
	}
	return CallTool(context.Background(), f.env, name, json.RawMessage(raw))
}

// ok runs a tool that must succeed and decodes its result into out.
func (f *toolFixture) ok(name string, args any, out any) ToolResult {
	f.testing.Helper()
	r := f.call(name, args)
	if !r.Success {
		f.testing.Fatalf("%s(%v): error %q", name, args, r.Error)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result, out); err != nil {
			f.testing.Fatalf("%s: result %s: %v", name, r.Result, err)
		}
	}
	return r
}

// fails runs a tool that must fail with a message containing each of want.
func (f *toolFixture) fails(name string, args any, want ...string) string {
	f.testing.Helper()
	r := f.call(name, args)
	if r.Success || r.Error == "" {
		f.testing.Fatalf("%s(%v) = success %s, want an error", name, args, r.Result)
	}
	for _, w := range want {
		if !strings.Contains(r.Error, w) {
			f.testing.Errorf("%s(%v) error %q does not say %q", name, args, r.Error, w)
		}
	}
	if got := r.Content(); !strings.HasPrefix(got, `{"error":`) {
		f.testing.Errorf("content %s is not {\"error\": ...}", got)
	}
	return r.Error
}

func TestCallToolRejectsBadCallsWithoutPanicking(t *testing.T) {
	f := newToolFixture(t)
	f.fails("no_such_tool", `{}`, `unknown tool "no_such_tool"`, "get_ocr_text")
	f.fails("get_ocr_text", `{"page_num":`, "not valid JSON")
	f.fails("get_ocr_text", `{"page_num":"two"}`, "page_num", "expected integer")
	f.fails("get_ocr_text", `{"page":2}`, `"page" is not allowed`)
	f.fails("get_schema", `{}`, "schema_revid", "missing")
	f.fails("list_documents", `{"limit":0}`, "limit")
	f.fails("list_documents", `{"limit":101}`, "limit", "at most 100")
	f.fails("get_ocr_text", `[]`, "expected object")

	// Empty and null arguments mean no arguments.
	f.ok("get_ocr_text", ``, nil)
	f.ok("get_ocr_text", `null`, nil)

	// A tool that panics (no store here) is an error result.
	r := CallTool(context.Background(), &ToolEnv{DocumentID: "doc_x"}, "get_document", json.RawMessage(`{}`))
	if r.Success || r.Error != fault.InternalMessage {
		t.Errorf("panicking tool = %+v, want an internal error result", r)
	}
}

func TestStoreErrorsAreRenderedAsTheirMessage(t *testing.T) {
	f := newToolFixture(t)
	msg := f.fails("get_schema", map[string]any{"schema_revid": "srv_missing"})
	if strings.Contains(strings.ToLower(msg), "sql") {
		t.Errorf("error leaks SQL: %q", msg)
	}
	f.fails("get_document", map[string]any{"document_id": "doc_missing"}, "not found")
	f.env.DocumentID = ""
	f.fails("get_ocr_text", `{}`, "no current document")
}

func TestGetOCRText(t *testing.T) {
	f := newToolFixture(t)
	var all struct {
		Text  string `json:"text"`
		Page  int    `json:"page"`
		Pages int    `json:"pages"`
	}
	f.ok("get_ocr_text", `{}`, &all)
	if all.Pages != 2 || all.Page != 0 || !strings.Contains(all.Text, "--- page 2 ---") || !strings.Contains(all.Text, "Total due") {
		t.Errorf("whole text = %+v", all)
	}
	var p2 struct {
		Text  string `json:"text"`
		Page  int    `json:"page"`
		Pages int    `json:"pages"`
	}
	f.ok("get_ocr_text", `{"page_num":2}`, &p2)
	if p2.Page != 2 || p2.Pages != 2 || p2.Text != fixturePages[1] {
		t.Errorf("page 2 = %+v", p2)
	}
	f.fails("get_ocr_text", `{"page_num":3}`, "page 3 out of range", "1-2")
}

func TestLongTextIsCappedWithAMarker(t *testing.T) {
	f := newToolFixture(t)
	page := strings.Repeat("x", 2990) + "\n"
	long, err := f.db.CreateDocument(context.Background(), storage.NewDocument{
		Name: "long.txt", MediaType: "text/plain", Data: []byte("long"), Pages: []string{page, page, page},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.env.DocumentID = long.ID
	var res struct {
		Text string `json:"text"`
	}
	f.ok("get_ocr_text", `{}`, &res)
	full, _ := pagesText([]string{page, page, page})
	more := len([]rune(full)) - TextCap
	marker := fmt.Sprintf("[truncated: %s more characters; call get_ocr_text with page_num (1-3)]", textfmt.Thousands(more))
	if !strings.HasSuffix(res.Text, marker) {
		t.Errorf("capped text ends %q, want marker %q", res.Text[len(res.Text)-100:], marker)
	}
	if !strings.HasPrefix(full, strings.TrimSuffix(res.Text, "\n"+marker)) || len([]rune(strings.TrimSuffix(res.Text, "\n"+marker))) != TextCap {
		t.Error("capped text is not the first 4,000 characters")
	}

	if got, cut := capText("héllo wörld", 5, "more"); !cut || got != "héllo\n[truncated: 6 more characters; more]" {
		t.Errorf("capText = %q", got)
	}
	if got, cut := capText("short", 5, "more"); cut || got != "short" {
		t.Errorf("capText short = %q", got)
	}
}

func TestGetAndListDocuments(t *testing.T) {
	f := newToolFixture(t)
	var doc struct {
		ID               string   `json:"id"`
		Pages            int      `json:"pages"`
		TagIDs           []string `json:"tag_ids"`
		AutoCreateStatus *string  `json:"auto_create_status"`
		Metadata         json.RawMessage
		Tags             []struct{ ID, Name string }
	}
	f.ok("get_document", `{}`, &doc)
	if doc.ID != f.doc.ID || doc.Pages != 2 || len(doc.Tags) != 1 || doc.Tags[0].Name != "invoices" || doc.AutoCreateStatus == nil {
		t.Errorf("get_document = %+v", doc)
	}

	var list struct {
		Documents []struct{ ID string } `json:"documents"`
		Total     int                   `json:"total"`
	}
	f.ok("list_documents", `{}`, &list)
	if list.Total != 2 || len(list.Documents) != 2 {
		t.Errorf("list_documents = %+v", list)
	}
	f.ok("list_documents", map[string]any{"tag_ids": []string{f.tag.ID}}, &list)
	if list.Total != 1 || len(list.Documents) != 1 || list.Documents[0].ID != f.doc.ID {
		t.Errorf("list_documents by tag = %+v", list)
	}
	f.ok("list_documents", map[string]any{"limit": 1, "skip": 1}, &list)
	if list.Total != 2 || len(list.Documents) != 1 {
		t.Errorf("list_documents page 2 = %+v", list)
	}
	f.ok("list_documents", map[string]any{"name_search": "letter"}, &list)
	if list.Total != 1 || list.Documents[0].ID != f.other.ID {
		t.Errorf("list_documents name_search = %+v", list)
	}
}

func TestUpdateAndDeleteDocument(t *testing.T) {
	f := newToolFixture(t)
	f.fails("update_document", `{}`, "nothing to change")
	r := f.ok("update_document", map[string]any{"name": "acme-2024.pdf", "metadata": map[string]any{"vendor": "ACME"}}, nil)
	if !strings.Contains(r.Preview, "acme-2024.pdf") {
		t.Errorf("preview %q", r.Preview)
	}
	d, err := f.db.GetDocument(context.Background(), f.doc.ID)
	if err != nil || d.Name != "acme-2024.pdf" || string(d.Metadata) != `{"vendor":"ACME"}` {
		t.Errorf("after update: %+v %v", d, err)
	}
	f.fails("update_document", map[string]any{"tag_ids": []string{"tag_missing"}})
	f.ok("delete_document", map[string]any{"document_id": f.other.ID}, nil)
	if _, err := f.db.GetDocument(context.Background(), f.other.ID); err == nil {
		t.Error("document still there")
	}
}

func TestSchemaTools(t *testing.T) {
	f := newToolFixture(t)
	var got storage.SchemaRevision
	f.ok("get_schema", map[string]any{"schema_revid": f.schema.SchemaRevID}, &got)
	if got.SchemaID != f.schema.SchemaID || got.Name != "invoice" || got.Version != 1 || len(got.ResponseFormat) == 0 {
		t.Errorf("get_schema = %+v", got)
	}
	var list struct {
		Schemas []struct{ Name string } `json:"schemas"`
		Total   int                     `json:"total"`
	}
	f.ok("list_schemas", `{"name_search":"INVO"}`, &list)
	if list.Total != 1 || list.Schemas[0].Name != "invoice" {
		t.Errorf("list_schemas = %+v", list)
	}

	// create: conflict names update_schema; a new one sets the working state.
	f.fails("create_schema", map[string]any{"name": "Invoice", "response_format": json.RawMessage(invoiceSchema)}, "update_schema")
	receipt := `{"type":"object","properties":{"shop":{"type":"string"}},"required":["shop"],"additionalProperties":false}`
	var created SchemaResult
	r := f.ok("create_schema", map[string]any{"name": "receipt", "response_format": receipt}, &created) // as a JSON string
	if created.Version != 1 || f.env.State.SchemaRevID != created.SchemaRevID {
		t.Errorf("create_schema = %+v, state %+v", created, f.env.State)
	}
	if want := fmt.Sprintf("created schema receipt v1 (%s)", created.SchemaRevID); r.Preview != want {
		t.Errorf("preview %q, want %q", r.Preview, want)
	}
	f.fails("create_schema", map[string]any{"name": "bad", "response_format": `{"type":"object","properties":{"a":{"type":"strin"}}}`}, "invalid schema")

	// update: identical is "no changes", a real change is version 2.
	var upd SchemaResult
	r = f.ok("update_schema", map[string]any{"schema_id": created.SchemaID, "response_format": json.RawMessage(receipt)}, &upd)
	if !upd.NoChanges || upd.Version != 1 || !strings.Contains(r.Preview, "no changes") {
		t.Errorf("identical update = %+v, preview %q", upd, r.Preview)
	}
	upd = SchemaResult{}
	f.ok("update_schema", map[string]any{"schema_id": "receipt", "name": "receipt2"}, &upd)
	if upd.NoChanges || upd.Version != 2 || upd.Name != "receipt2" || f.env.State.SchemaRevID != upd.SchemaRevID {
		t.Errorf("rename = %+v", upd)
	}
	f.fails("update_schema", map[string]any{"schema_id": created.SchemaID}, "nothing to change")

	// delete: refused while the latest prompt revision uses it.
	f.fails("delete_schema", map[string]any{"schema_id": f.schema.SchemaID}, "acme invoices")
	f.ok("delete_schema", map[string]any{"schema_id": created.SchemaID}, nil)
	if f.env.State.SchemaRevID != "" {
		t.Errorf("state still names the deleted schema: %+v", f.env.State)
	}
}

func TestValidateSchema(t *testing.T) {
	f := newToolFixture(t)
	var rep struct {
		Valid    bool              `json:"valid"`
		Errors   []json.RawMessage `json:"errors"`
		Warnings []struct{ Path, Message string }
	}
	f.ok("validate_schema", map[string]any{"schema": json.RawMessage(invoiceSchema)}, &rep)
	if !rep.Valid || rep.Errors != nil || rep.Warnings != nil {
		t.Errorf("valid schema = %+v", rep)
	}
	loose := `{"type":"json_schema","json_schema":{"name":"x","strict":true,"schema":{"type":"object","properties":{"a":{"type":"string"}}}}}`
	f.ok("validate_schema", map[string]any{"schema": loose}, &rep) // as a string
	if !rep.Valid || len(rep.Warnings) == 0 {
		t.Errorf("loose schema = %+v, want valid with warnings", rep)
	}
	rep.Warnings = nil
	f.ok("validate_schema", map[string]any{"schema": json.RawMessage(`{"type":"object","properties":{"a":{"type":"strin"}}}`)}, &rep)
	if rep.Valid || len(rep.Errors) == 0 {
		t.Errorf("invalid schema = %+v", rep)
	}
	f.ok("validate_schema", map[string]any{"schema": "not json"}, &rep)
	if rep.Valid || len(rep.Errors) != 1 {
		t.Errorf("non-JSON schema = %+v", rep)
	}
}

func TestValidateAgainstSchema(t *testing.T) {
	f := newToolFixture(t)
	var res struct {
		Valid  bool                             `json:"valid"`
		Errors []struct{ Path, Message string } `json:"errors"`
	}
	f.ok("validate_against_schema", map[string]any{"schema_revid": f.schema.SchemaRevID, "data": map[string]any{"invoice_number": "A-1", "total": 12.5}}, &res)
	if !res.Valid || res.Errors != nil {
		t.Errorf("valid data = %+v", res)
	}
	f.ok("validate_against_schema", map[string]any{"schema_revid": f.schema.SchemaRevID, "data": `{"invoice_number":"A-1","total":"12.50"}`}, &res)
	if res.Valid || len(res.Errors) != 1 || res.Errors[0].Path != "/total" {
		t.Errorf("invalid data = %+v", res)
	}
	f.fails("validate_against_schema", map[string]any{"schema_revid": "srv_missing", "data": map[string]any{}})
}

func TestPromptTools(t *testing.T) {
	f := newToolFixture(t)
	var got storage.PromptRevision
	f.ok("get_prompt", map[string]any{"prompt_revid": f.prompt.PromptRevID}, &got)
	if got.Name != "acme invoices" || got.SchemaRevID != f.schema.SchemaRevID || got.Content == "" {
		t.Errorf("get_prompt = %+v", got)
	}
	var list struct {
		Prompts []struct{ Name string } `json:"prompts"`
		Total   int                     `json:"total"`
	}
	f.ok("list_prompts", map[string]any{"document_id": f.doc.ID}, &list)
	if list.Total != 1 {
		t.Errorf("prompts for the tagged document = %+v", list)
	}
	f.ok("list_prompts", map[string]any{"document_id": f.other.ID}, &list)
	if list.Total != 0 || len(list.Prompts) != 0 {
		t.Errorf("prompts for the untagged document = %+v", list)
	}

	f.fails("create_prompt", map[string]any{"name": "ACME invoices", "content": "x"}, "update_prompt")
	f.fails("create_prompt", map[string]any{"name": "p", "content": "x", "model": "qwen3"}, "ollama/")
	var p1 storage.PromptRevision
	r := f.ok("create_prompt", map[string]any{"name": "receipts", "content": "Extract the total.", "schema_id": "invoice"}, &p1)
	if p1.Version != 1 || p1.SchemaID != f.schema.SchemaID || f.env.State.PromptRevID != p1.PromptRevID || !strings.Contains(r.Preview, "created prompt receipts v1") {
		t.Errorf("create_prompt = %+v, state %+v, preview %q", p1, f.env.State, r.Preview)
	}
	var p2 struct {
		storage.PromptRevision
		NoChanges bool `json:"no_changes"`
	}
	f.ok("update_prompt", map[string]any{"prompt_id": p1.PromptID, "content": "Extract the total as a plain number."}, &p2)
	if p2.Version != 2 || p2.NoChanges || p2.SchemaRevID != f.schema.SchemaRevID || f.env.State.PromptRevID != p2.PromptRevID {
		t.Errorf("update_prompt = %+v", p2)
	}
	r = f.ok("update_prompt", map[string]any{"prompt_id": p1.PromptID, "content": "Extract the total as a plain number."}, &p2)
	if !p2.NoChanges || p2.Version != 2 || !strings.Contains(r.Preview, "no changes") {
		t.Errorf("identical update_prompt = %+v", p2)
	}
	p2 = struct {
		storage.PromptRevision
		NoChanges bool `json:"no_changes"`
	}{}
	f.ok("update_prompt", map[string]any{"prompt_id": p1.PromptID, "schema_id": ""}, &p2)
	if p2.Version != 3 || p2.SchemaID != "" {
		t.Errorf("unlink = %+v", p2)
	}
	f.ok("delete_prompt", map[string]any{"prompt_id": "receipts"}, nil)
	if f.env.State.PromptRevID != "" {
		t.Errorf("state still names the deleted prompt: %+v", f.env.State)
	}
	f.fails("get_prompt", map[string]any{"prompt_revid": p1.PromptRevID})
}

func TestTagTools(t *testing.T) {
	f := newToolFixture(t)
	var tag storage.Tag
	f.ok("get_tag", map[string]any{"tag_id": f.tag.ID}, &tag)
	if tag.Name != "invoices" || tag.Color != "#112233" {
		t.Errorf("get_tag = %+v", tag)
	}
	f.fails("create_tag", map[string]any{"name": "Invoices"})
	f.ok("create_tag", map[string]any{"name": "receipts", "description": "till slips"}, &tag)
	f.ok("update_tag", map[string]any{"tag_id": "receipts", "color": "#abcdef"}, &tag)
	if tag.Color != "#abcdef" || tag.Description != "till slips" {
		t.Errorf("update_tag = %+v", tag)
	}
	var list struct {
		Tags  []storage.Tag `json:"tags"`
		Total int           `json:"total"`
	}
	f.ok("list_tags", `{}`, &list)
	if list.Total != 2 || len(list.Tags) != 2 {
		t.Errorf("list_tags = %+v", list)
	}
	f.ok("list_tags", `{"name_search":"REC","limit":1}`, &list)
	if list.Total != 1 || list.Tags[0].Name != "receipts" {
		t.Errorf("list_tags search = %+v", list)
	}
	f.fails("delete_tag", map[string]any{"tag_id": f.tag.ID}, "acme.pdf")
	f.ok("delete_tag", map[string]any{"tag_id": tag.ID}, nil)
}

func TestExtractionTools(t *testing.T) {
	f := newToolFixture(t)
	f.fails("get_extraction_result", `{}`, "no extraction", "run_extraction")
	f.fails("run_extraction", `{}`, "no prompt_revid")
	f.fails("update_extraction_field", map[string]any{"path": "total", "value": 1}, "no extraction")

	// run_extraction with the working state's prompt sets the working state.
	f.env.State.PromptRevID = f.prompt.PromptRevID
	f.srv.Enqueue(modeltest.Reply{Text: `{"invoice_number":"A-1","total":null}`})
	var run extractionResult
	r := f.ok("run_extraction", `{}`, &run)
	st := f.env.State
	if run.Extraction.ValidationStatus != storage.ValidationValid || st.Extraction == nil || st.Extraction.ID != run.Extraction.ID ||
		st.PromptRevID != f.prompt.PromptRevID || st.SchemaRevID != f.schema.SchemaRevID || run.SchemaRevID != f.schema.SchemaRevID {
		t.Fatalf("run_extraction = %+v, state %+v", run, st)
	}
	if !strings.Contains(r.Preview, "acme invoices v1: valid") {
		t.Errorf("preview %q", r.Preview)
	}

	// get_extraction_result prefers the working state.
	var got extractionResult
	f.ok("get_extraction_result", `{}`, &got)
	if got.Extraction.ID != run.Extraction.ID || got.PromptRevID != f.prompt.PromptRevID {
		t.Errorf("get_extraction_result = %+v", got)
	}

	// A path through null, a path the value does not have: errors.
	f.fails("update_extraction_field", map[string]any{"path": "total.amount", "value": 1}, "cannot set total.amount", "null")
	f.fails("update_extraction_field", map[string]any{"path": "invoice_number.0", "value": 1})
	f.fails("update_extraction_field", map[string]any{"path": "missing.x", "value": 1}, "missing")

	// A good edit is stored, validated and becomes the state.
	var upd extractionResult
	r = f.ok("update_extraction_field", map[string]any{"path": "total", "value": 12.5}, &upd)
	if string(upd.Extraction.Value) != `{"invoice_number":"A-1","total":12.5}` || !upd.Extraction.Edited ||
		upd.Extraction.ValidationStatus != storage.ValidationValid || f.env.State.Extraction.ID != upd.Extraction.ID ||
		string(f.env.State.Extraction.Value) != string(upd.Extraction.Value) {
		t.Errorf("update_extraction_field = %+v", upd)
	}
	if r.Preview != "set total = 12.5 (valid)" {
		t.Errorf("preview %q", r.Preview)
	}
	// A wrong type is stored but marked invalid, with the errors.
	f.ok("update_extraction_field", map[string]any{"path": "total", "value": "twelve"}, &upd)
	if upd.Extraction.ValidationStatus != storage.ValidationInvalid || !strings.Contains(string(upd.Extraction.ValidationErrors), "/total") {
		t.Errorf("wrong type edit = %+v", upd)
	}
	stored, err := f.db.GetExtraction(context.Background(), upd.Extraction.ID)
	if err != nil || stored.ValidationStatus != storage.ValidationInvalid || string(stored.OriginalValue) != `{"invoice_number":"A-1","total":null}` {
		t.Errorf("stored = %+v %v", stored, err)
	}

	// Without a working state, the store's newest extraction is used.
	f.env.State = &WorkingState{}
	f.ok("get_extraction_result", map[string]any{"prompt_revid": f.prompt.PromptRevID}, &got)
	if got.Extraction.ID != run.Extraction.ID || got.Extraction.ValidationStatus != storage.ValidationInvalid {
		t.Errorf("from the store = %+v", got)
	}
	f.ok("update_extraction_field", map[string]any{"path": "total", "value": 12.5}, &upd)
	if upd.Extraction.ValidationStatus != storage.ValidationValid || f.env.State.Extraction == nil {
		t.Errorf("edit of the newest = %+v", upd)
	}

	// run_extraction with an explicit prompt; a model failure is an error result.
	f.srv.Enqueue(modeltest.Reply{Fault: modeltest.Fault{Status: 400, Message: "bad request"}})
	msg := f.fails("run_extraction", map[string]any{"prompt_revid": f.prompt.PromptRevID})
	if msg == fault.InternalMessage {
		t.Errorf("model failure rendered as %q", msg)
	}
	if !strings.Contains(f.env.State.Describe(), "Current extraction value") {
		t.Errorf("Describe = %q", f.env.State.Describe())
	}
}

func TestSearchAndCitationShareALimit(t *testing.T) {
	f := newToolFixture(t)
	var res struct {
		Hits []storage.SearchHit `json:"hits"`
	}
	f.ok("search_docs", `{"query":"ACME"}`, &res)
	if len(res.Hits) != 1 || res.Hits[0].DocumentID != f.doc.ID || res.Hits[0].DocumentName != "acme.pdf" || !strings.Contains(res.Hits[0].Snippet, "«ACME»") {
		t.Fatalf("search_docs = %+v", res)
	}
	var c storage.Chunk
	f.ok("open_citation", map[string]any{"document_id": f.doc.ID, "chunk_id": res.Hits[0].ChunkID}, &c)
	if c.Page != 1 || !strings.Contains(c.Text, "Invoice A-1") {
		t.Errorf("open_citation = %+v", c)
	}
	f.fails("open_citation", map[string]any{"document_id": f.other.ID, "chunk_id": res.Hits[0].ChunkID})
	f.ok("search_docs", `{"query":"nothing matches this"}`, &res)
	if res.Hits == nil || len(res.Hits) != 0 {
		t.Errorf("no hits = %+v", res)
	}
	f.ok("search_docs", `{"query":"hello","limit":1}`, nil)
	f.fails("search_docs", `{"query":"ACME"}`, "search limit", "5")
	f.fails("open_citation", map[string]any{"document_id": f.doc.ID, "chunk_id": res.Hits}, "chunk_id")
}

func TestCitationIsCapped(t *testing.T) {
	f := newToolFixture(t)
	words := strings.Repeat("lorem ipsum dolor sit amet ", 300)
	doc, err := f.db.CreateDocument(context.Background(), storage.NewDocument{
		Name: "lorem.txt", MediaType: "text/plain", Data: []byte("lorem"), Pages: []string{words},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.env.DocumentID = doc.ID
	var res struct {
		Hits []storage.SearchHit `json:"hits"`
	}
	f.ok("search_docs", `{"query":"lorem"}`, &res)
	if len(res.Hits) == 0 {
		t.Fatal("no hits")
	}
	var c storage.Chunk
	f.ok("open_citation", map[string]any{"document_id": doc.ID, "chunk_id": res.Hits[0].ChunkID}, &c)
	full, err := f.db.GetChunk(context.Background(), doc.ID, res.Hits[0].ChunkID)
	if err != nil {
		t.Fatal(err)
	}
	if len([]rune(full.Text)) > CitationCap {
		if !strings.Contains(c.Text, "[truncated: ") || !strings.Contains(c.Text, "page_num 1") {
			t.Errorf("citation of %d characters not capped: %q", len(full.Text), c.Text[max(0, len(c.Text)-120):])
		}
	} else {
		t.Logf("chunks are %d characters; the cap is not reached", len(full.Text))
	}
}

func TestHelpAndModels(t *testing.T) {
	f := newToolFixture(t)
	var s string
	f.ok("help_schemas", `{}`, &s)
	for _, w := range []string{`"strict": true`, `"additionalProperties": false`, `["string", "null"]`, "line_items", "validate_schema", "update_schema"} {
		if !strings.Contains(s, w) {
			t.Errorf("help_schemas does not say %s", w)
		}
	}
	f.ok("help_prompts", `{}`, &s)
	for _, w := range []string{"ISO 8601", "plain numbers", "schema_id", "schema_version", "validate_schema"} {
		if !strings.Contains(s, w) {
			t.Errorf("help_prompts does not say %s", w)
		}
	}
	var models struct {
		Models []struct{ ID string } `json:"models"`
	}
	f.ok("list_models", `{}`, &models)
	if !slices.ContainsFunc(models.Models, func(m struct{ ID string }) bool { return m.ID == "ollama/qwen3:8b" }) {
		t.Errorf("list_models = %+v", models)
	}
	f.env.Providers = nil
	f.fails("list_models", `{}`, "no model providers")
}

func TestLargeResultsAreCappedAsJSON(t *testing.T) {
	data := mustJSON(map[string]string{"x": strings.Repeat("y", ResultCap+10)})
	out := capResult(data)
	if !json.Valid(out) || !strings.Contains(string(out), "truncated") {
		t.Errorf("capResult = %.200s", out)
	}
	if small := capResult([]byte(`{"a":1}`)); string(small) != `{"a":1}` {
		t.Errorf("small result changed: %s", small)
	}
}
