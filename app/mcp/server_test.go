package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	docentmcp "github.com/docent/docent/app/mcp"
	"github.com/docent/docent/storage"
)

// fixture is a store with one two-page invoice, the agent on it with the
// scripted model server, and an MCP client connected to Docent's MCP
// server over the SDK's in-memory transport.
type fixture struct {
	db     *storage.DB
	agent  *agent.Agent
	models *modeltest.Server
	doc    storage.Document
	client *sdk.ClientSession
}

func newFixture(t *testing.T, readOnly bool) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "docent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	doc, err := db.CreateDocument(ctx, storage.NewDocument{Name: "acme.txt", MediaType: "text/plain", Data: []byte("acme"),
		Pages: []string{"ACME Corporation\nInvoice A-1\n", "Total due: 12.50 EUR\n"}})
	if err != nil {
		t.Fatal(err)
	}
	models := modeltest.New(t)
	reg := provider.NewRegistry(provider.Config{OllamaHost: models.OllamaURL(), IdleTimeout: 5 * time.Second, MaxRetries: -1})
	a := &agent.Agent{DB: db, Providers: reg, DefaultModel: "ollama/qwen3:8b",
		Extractor: &agent.Extractor{DB: db, Providers: reg, DefaultModel: "ollama/qwen3:8b"}}
	f := &fixture{db: db, agent: a, models: models, doc: doc}
	f.client = connect(t, func() *agent.Agent { return f.agent }, readOnly, nil)
	return f
}

// connect connects an MCP client to a server on the agent over the SDK's
// in-memory transport.
func connect(t testing.TB, a func() *agent.Agent, readOnly bool, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	srv := docentmcp.NewServer(docentmcp.Options{Agent: a, Edge: "test", Version: "test"}, readOnly)
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := sdk.NewClient(&sdk.Implementation{Name: "docent-test", Version: "1"}, opts)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool; it fails the test on a protocol error, which no tool
// call should give.
func (f *fixture) call(t *testing.T, name string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := f.client.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", name, args, err)
	}
	return res
}

// ok calls a tool that must succeed and decodes its structured content.
func (f *fixture) ok(t *testing.T, name string, args any, out any) *sdk.CallToolResult {
	t.Helper()
	res := f.call(t, name, args)
	if res.IsError {
		t.Fatalf("%s(%v): tool error %q", name, args, text(res))
	}
	if out != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, raw, err)
		}
	}
	return res
}

// fails calls a tool that must come back as a tool error saying each of want.
func (f *fixture) fails(t *testing.T, name string, args any, want ...string) {
	t.Helper()
	res := f.call(t, name, args)
	if !res.IsError {
		t.Fatalf("%s(%v) = %s, want a tool error", name, args, text(res))
	}
	for _, w := range want {
		if !strings.Contains(text(res), w) {
			t.Errorf("%s(%v): error %q does not say %q", name, args, text(res), w)
		}
	}
}

// text is a result's text content, joined.
func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func listTools(t *testing.T, cs *sdk.ClientSession) map[string]*sdk.Tool {
	t.Helper()
	out := map[string]*sdk.Tool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = tool
	}
	return out
}

func TestToolsAreTheRegistryWithAnnotations(t *testing.T) {
	f := newFixture(t, false)
	tools := listTools(t, f.client)
	if len(tools) != len(agent.Tools()) {
		t.Errorf("%d tools listed, the registry has %d", len(tools), len(agent.Tools()))
	}
	for _, at := range agent.Tools() {
		mt, ok := tools[at.Name]
		if !ok {
			t.Errorf("%s is not listed", at.Name)
			continue
		}
		if mt.Description != at.Description || mt.Title != at.DisplayTitle() || mt.Annotations == nil || mt.Annotations.Title != at.DisplayTitle() {
			t.Errorf("%s: listed as %q / %q (%+v)", at.Name, mt.Title, mt.Description, mt.Annotations)
			continue
		}
		if mt.Annotations.ReadOnlyHint != (at.Access == agent.ReadOnly) {
			t.Errorf("%s: readOnlyHint %v, access %s", at.Name, mt.Annotations.ReadOnlyHint, at.Access)
		}
		schema, _ := json.Marshal(mt.InputSchema)
		var in struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		if err := json.Unmarshal(schema, &in); err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(in.Required, "document_id"); got != (at.OnDocument || at.Name == "open_citation") {
			t.Errorf("%s: document_id required = %v (input schema %s)", at.Name, got, schema)
		}
	}
	for name, want := range map[string]struct{ destructive, idempotent bool }{
		"delete_document": {true, true}, "update_document": {true, true}, "update_extraction_field": {true, true},
		"create_schema": {false, false}, "update_schema": {false, true}, "run_extraction": {false, false},
	} {
		a := tools[name].Annotations
		if a.DestructiveHint == nil || *a.DestructiveHint != want.destructive || a.IdempotentHint != want.idempotent {
			t.Errorf("%s: destructiveHint %v, idempotentHint %v; want %v, %v", name, a.DestructiveHint, a.IdempotentHint, want.destructive, want.idempotent)
		}
	}
}

func TestReadOnlyListsNoWriteTool(t *testing.T) {
	f := newFixture(t, true)
	tools := listTools(t, f.client)
	if len(tools) != len(agent.ReadOnlyToolNames()) {
		t.Errorf("%d tools listed read-only, want the %d read-only ones", len(tools), len(agent.ReadOnlyToolNames()))
	}
	for name, tool := range tools {
		if !tool.Annotations.ReadOnlyHint {
			t.Errorf("read-only server lists %s", name)
		}
	}
	// A write tool is unknown there: an error, and the server stays up.
	if _, err := f.client.CallTool(context.Background(), &sdk.CallToolParams{Name: "delete_document", Arguments: map[string]any{"document_id": f.doc.ID}}); err == nil {
		t.Error("delete_document ran on a read-only server")
	}
	if _, err := f.db.GetDocument(context.Background(), f.doc.ID); err != nil {
		t.Errorf("the document is gone: %v", err)
	}
	f.ok(t, "get_document", map[string]any{"document_id": f.doc.ID}, nil)
}

func TestToolCallsOnADocument(t *testing.T) {
	f := newFixture(t, false)
	var page struct {
		Text  string `json:"text"`
		Pages int    `json:"pages"`
	}
	f.ok(t, "get_ocr_text", map[string]any{"document_id": f.doc.ID, "page_num": 2}, &page)
	if page.Text != "Total due: 12.50 EUR\n" || page.Pages != 2 {
		t.Errorf("get_ocr_text = %+v", page)
	}
	// The text content is the same JSON.
	res := f.ok(t, "get_ocr_text", map[string]any{"document_id": f.doc.ID}, nil)
	if !strings.Contains(text(res), "--- page 2 ---") {
		t.Errorf("text content %q", text(res))
	}

	// Bad ids, missing document_id, wrong argument types, unknown tools:
	// errors, and the server stays up.
	f.fails(t, "get_ocr_text", map[string]any{"document_id": "doc_nope"}, "doc_nope")
	f.fails(t, "get_ocr_text", map[string]any{}, "document_id is required")
	f.fails(t, "get_ocr_text", map[string]any{"document_id": 7}, "document_id must be")
	f.fails(t, "get_ocr_text", map[string]any{"document_id": f.doc.ID, "page_num": "two"}, "invalid arguments for get_ocr_text", "page_num")
	f.fails(t, "get_schema", map[string]any{"schema_revid": "nope"}, "nope")
	if _, err := f.client.CallTool(context.Background(), &sdk.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Error("an unknown tool was called")
	}
	f.ok(t, "list_documents", map[string]any{}, nil)

	// A write with the document named: update_document keeps its own
	// document_id parameter.
	var upd struct {
		Name string `json:"name"`
	}
	res = f.ok(t, "update_document", map[string]any{"document_id": f.doc.ID, "name": "renamed.txt"}, &upd)
	if upd.Name != "renamed.txt" || !strings.HasPrefix(text(res), "updated document renamed.txt") {
		t.Errorf("update_document = %+v, text %q", upd, text(res))
	}

	// The write is in the history as the client's, through MCP, and undo
	// takes it back.
	entries, err := f.db.ListJournal(context.Background(), storage.JournalFilter{DocumentID: f.doc.ID, Edge: string(storage.EdgeMCP)})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Actor != "docent-test" {
		t.Fatalf("history of the MCP write: %+v, want one entry by docent-test", entries)
	}
	if _, err := f.db.Undo(context.Background(), entries[0].ID, false); err != nil {
		t.Fatalf("undo the MCP write: %v", err)
	}
	if d, err := f.db.GetDocument(context.Background(), f.doc.ID); err != nil || d.Name != "acme.txt" {
		t.Errorf("after undo: name %q (%v), want acme.txt", d.Name, err)
	}
}
