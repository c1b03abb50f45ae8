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

// A thread stored before calls carried summaries is read with them: its
// assistant's call and its tool message get the summary a fresh call with
// the stored arguments gets, with names resolved through the store; a call
// of a tool that no longer exists stays without one.
func TestStoredCallsWithoutSummaryAreSummarizedOnRead(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, err := f.db.CreateSchema(ctx, "invoice", json.RawMessage(invoiceSchema)); err != nil {
		t.Fatal(err)
	}
	th, err := f.db.CreateThread(ctx, f.doc.ID, "old thread", "")
	if err != nil {
		t.Fatal(err)
	}
	// As an older version stored them: no summary anywhere.
	old := []storage.ThreadMessage{
		{Role: storage.RoleUser, Content: "delete the schema"},
		{Role: storage.RoleAssistant, Data: json.RawMessage(`{"round_index":0}`), ToolCalls: json.RawMessage(
			`[{"id":"d1","name":"delete_schema","arguments":{"schema_id":"invoice"}},{"id":"g1","name":"gone_tool","arguments":{}}]`)},
		{Role: storage.RoleTool, Content: `{"error":"rejected"}`, ToolCallID: "d1", ToolName: "delete_schema",
			Data: json.RawMessage(`{"round_index":0,"proposed_arguments":{"schema_id":"invoice"},"rejected":true,"success":false}`)},
		{Role: storage.RoleTool, Content: `{"error":"no such tool"}`, ToolCallID: "g1", ToolName: "gone_tool",
			Data: json.RawMessage(`{"round_index":0,"proposed_arguments":{},"arguments":{},"success":false}`)},
	}
	if _, err := f.db.AppendMessages(ctx, th.ID, old, nil); err != nil {
		t.Fatal(err)
	}

	var fresh agent.Summary
	f.call("POST", "/api/tools/delete_schema/summary", map[string]any{"arguments": map[string]string{"schema_id": "invoice"}, "document_id": f.doc.ID, "thread_id": th.ID}, http.StatusOK, &fresh)
	if fresh.Title != "Delete schema “invoice” and its 1 version" {
		t.Fatalf("a fresh call's summary: %+v", fresh)
	}

	var got struct {
		Messages []struct {
			ToolCalls []agent.ToolCall  `json:"tool_calls"`
			Data      agent.MessageData `json:"data"`
		} `json:"messages"`
	}
	f.call("GET", "/api/documents/"+f.doc.ID+"/chat/threads/"+th.ID, nil, http.StatusOK, &got)
	if len(got.Messages) != 4 || len(got.Messages[1].ToolCalls) != 2 {
		t.Fatalf("the thread's messages: %+v", got.Messages)
	}
	call, gone := got.Messages[1].ToolCalls[0], got.Messages[1].ToolCalls[1]
	if call.Summary == nil || !reflect.DeepEqual(*call.Summary, fresh) {
		t.Errorf("the stored call's summary\n%+v\nis not a fresh call's\n%+v", call.Summary, fresh)
	}
	if data := got.Messages[2].Data; data.Summary == nil || !reflect.DeepEqual(*data.Summary, fresh) || !data.Rejected || data.RoundIndex == nil {
		t.Errorf("the tool message's data (a summary beside what was stored): %+v", data)
	}
	if gone.Summary != nil || got.Messages[3].Data.Summary != nil {
		t.Errorf("a call of a tool that no longer exists got a summary: %+v, %+v", gone.Summary, got.Messages[3].Data.Summary)
	}
}

// A call stored with a summary from before summaries carried what the
// registry declares is read with it (the edges decide from it, not from
// the tool's name), beside what was stored.
func TestStoredSummariesGetWhatTheRegistryDeclares(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	th, err := f.db.CreateThread(ctx, f.doc.ID, "old thread", "")
	if err != nil {
		t.Fatal(err)
	}
	stored := `{"title":"Delete tag “paid” as stored","danger":true,"lines":[]}`
	old := []storage.ThreadMessage{
		{Role: storage.RoleUser, Content: "delete the tag"},
		{Role: storage.RoleAssistant, Data: json.RawMessage(`{"round_index":0}`), ToolCalls: json.RawMessage(
			`[{"id":"d1","name":"delete_tag","arguments":{"tag_id":"paid"},"summary":` + stored + `},` +
				`{"id":"l1","name":"list_tags","arguments":{},"summary":{"title":"List tags","lines":[]}}]`)},
		{Role: storage.RoleTool, Content: `{"error":"rejected"}`, ToolCallID: "d1", ToolName: "delete_tag",
			Data: json.RawMessage(`{"round_index":0,"proposed_arguments":{"tag_id":"paid"},"rejected":true,"success":false,"summary":` + stored + `}`)},
	}
	if _, err := f.db.AppendMessages(ctx, th.ID, old, nil); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Messages []struct {
			ToolCalls []agent.ToolCall  `json:"tool_calls"`
			Data      agent.MessageData `json:"data"`
		} `json:"messages"`
	}
	f.call("GET", "/api/documents/"+f.doc.ID+"/chat/threads/"+th.ID, nil, http.StatusOK, &got)
	if len(got.Messages) != 3 || len(got.Messages[1].ToolCalls) != 2 {
		t.Fatalf("the thread's messages: %+v", got.Messages)
	}
	want := agent.Summary{Title: "Delete tag “paid” as stored", Danger: true, Lines: []string{}, Writes: true, Destructive: true, Ops: []string{"delete"}}
	if s := got.Messages[1].ToolCalls[0].Summary; s == nil || !reflect.DeepEqual(*s, want) {
		t.Errorf("the stored call's summary: %+v, want %+v", s, want)
	}
	if s := got.Messages[2].Data.Summary; s == nil || !reflect.DeepEqual(*s, want) || !got.Messages[2].Data.Rejected {
		t.Errorf("the tool message's data: %+v, want its summary %+v", got.Messages[2].Data, want)
	}
	if s := got.Messages[1].ToolCalls[1].Summary; s == nil || s.Title != "List tags" || s.Writes || s.Destructive || s.Ops != nil {
		t.Errorf("a read-only call's stored summary: %+v", s)
	}
}
