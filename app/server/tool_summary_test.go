package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/teststore"
	"github.com/docent/docent/storage"
)

var updateCards = flag.Bool("update-cards", false, "rewrite the summaries the web UI's card tests are fed ("+cardsDir+")")

// cardsDir holds summaries as this server produces them, which the web
// UI's card tests render (frontend/src/agent/ToolCard.test.tsx).
const cardsDir = "../../frontend/src/proposals/testdata"

// The summary of a proposed call, on a store of 60 prompts, names the
// prompt that uses the schema: in the tool_calls event the web UI reads and
// from the route its Edit form asks, alike.
func TestProposalSummaryNamesThePromptAmongSixty(t *testing.T) {
	f := newFixture(t)
	teststore.SixtyPrompts(t, f.db, invoiceSchema)
	f.model.Enqueue(modeltest.Reply{Text: "I will delete it.", ToolCalls: []modeltest.ToolCall{{ID: "d1", Name: "delete_schema", Arguments: `{"schema_id":"invoice"}`}}})
	_, events := f.stream("/api/documents/"+f.doc.ID+"/chat", map[string]any{"message": "delete the schema", "stream": true})
	var live *agent.Summary
	for _, e := range events {
		if p, ok := e.Payload.(agent.ToolCallsPayload); ok && len(p.ToolCalls) == 1 {
			live = p.ToolCalls[0].Summary
		}
	}
	want := "Used by prompt “zz invoice prompt”: Docent refuses to delete a schema while a prompt uses it."
	if live == nil || live.Title != "Delete schema “invoice” and its 1 version" || len(live.Notes) != 1 || live.Notes[0] != want {
		t.Fatalf("the tool_calls event's summary: %+v", live)
	}

	var asked agent.Summary
	f.call("POST", "/api/tools/delete_schema/summary", map[string]any{"arguments": map[string]string{"schema_id": "invoice"}, "document_id": f.doc.ID}, http.StatusOK, &asked)
	if !reflect.DeepEqual(asked, *live) {
		t.Errorf("the route's summary\n%+v\ndiffers from the event's\n%+v", asked, *live)
	}
	cardFile(t, "delete-schema-sixty-prompts.json", asked)

	f.wantError("POST", "/api/tools/no_such_tool/summary", map[string]any{"arguments": map[string]any{}}, http.StatusNotFound, "not_found")
	f.wantError("POST", "/api/tools/delete_schema/summary", map[string]any{"arguments": map[string]any{}, "document_id": f.doc.ID, "thread_id": "thr_missing"}, http.StatusNotFound, "not_found")
}

// The route summarises edited arguments as the conversation stands: "the
// conversation's prompt" is its thread's.
func TestToolSummaryOfEditedArguments(t *testing.T) {
	f := newFixture(t)
	var lineItems = `{"name":"Invoice","response_format":{"type":"json_schema","json_schema":{"name":"invoice","strict":true,"schema":{"type":"object",` +
		`"properties":{"invoice_number":{"type":"string"},"line_items":{"type":"array","items":{"type":"object","properties":{"amount":{"type":"number"}},` +
		`"required":["amount"],"additionalProperties":false}}},"required":["invoice_number","line_items"],"additionalProperties":false}}}}`
	var s agent.Summary
	f.call("POST", "/api/tools/create_schema/summary", map[string]any{"arguments": json.RawMessage(lineItems), "document_id": f.doc.ID}, http.StatusOK, &s)
	if s.Title != "Create schema “Invoice” with 2 fields" || s.Fields == nil || len(s.Fields.Rows) != 3 || s.Fields.Rows[2].Path != "line_items[].amount" {
		t.Errorf("create_schema: %+v", s)
	}
	cardFile(t, "create-schema.json", s)

	ctx := context.Background()
	p, err := f.db.CreatePrompt(ctx, storage.NewPrompt{Name: "Invoice prompt", Content: "Extract."})
	if err != nil {
		t.Fatal(err)
	}
	th, err := f.db.CreateThread(ctx, f.doc.ID, "setup", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.AppendMessages(ctx, th.ID, nil, json.RawMessage(`{"prompt_revid":"`+p.PromptRevID+`"}`)); err != nil {
		t.Fatal(err)
	}
	f.call("POST", "/api/tools/run_extraction/summary", map[string]any{"arguments": map[string]any{}, "document_id": f.doc.ID, "thread_id": th.ID}, http.StatusOK, &s)
	if s.Title != "Run prompt Invoice prompt v1 on this document" {
		t.Errorf("run_extraction in the thread: %q", s.Title)
	}
}

// cardFile checks that the web UI's tests are fed the summary this server
// produces (-update-cards rewrites it).
func cardFile(t *testing.T, name string, s agent.Summary) {
	t.Helper()
	got, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join(cardsDir, name)
	if *updateCards {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(old, got) {
		t.Errorf("%s is not the summary this server produces (%v); run go test ./app/server/ -run %s -update-cards\nit is:\n%s", path, err, t.Name(), strings.TrimSpace(string(got)))
	}
}
