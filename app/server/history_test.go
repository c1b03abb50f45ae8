package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
)

// documentState is what the API shows of a document: its row, the hash of
// its bytes, its pages, words, extractions and tags.
func (f *fixture) documentState(id string) string {
	f.t.Helper()
	var d storage.Document
	f.call("GET", "/api/documents/"+id, nil, http.StatusOK, &d)
	status, file := f.do("GET", "/api/documents/"+id+"/file", nil)
	if status != http.StatusOK {
		f.t.Fatalf("file of %s: %d", id, status)
	}
	sum := sha256.Sum256(file)
	text := f.call("GET", "/api/documents/"+id+"/text", nil, http.StatusOK, nil)
	words := f.call("GET", "/api/documents/"+id+"/pages/1/words", nil, http.StatusOK, nil)
	exts := f.call("GET", "/api/documents/"+id+"/extractions", nil, http.StatusOK, nil)
	row, _ := json.Marshal(d)
	return fmt.Sprintf("document %s\nfile sha256 %s\ntext %s\nwords %s\nextractions %s", row, hex.EncodeToString(sum[:]), text, words, exts)
}

func (f *fixture) history(query string) []storage.JournalEntry {
	f.t.Helper()
	var h struct{ Entries []storage.JournalEntry }
	f.call("GET", "/api/history"+query, nil, http.StatusOK, &h)
	return h.Entries
}

// An approved delete_document, undone through the API, brings the document
// back exactly: same id, bytes, pages, words, extractions and tags.
func TestApprovedDeleteIsUndoneThroughTheAPI(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	other, err := f.db.CreateDocument(ctx, storage.NewDocument{Name: "old.txt", MediaType: "text/plain",
		Data: []byte("Old invoice B-2"), Pages: []string{"Old invoice B-2\nTotal 7.00\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.db.SetPageWords(ctx, other.ID, map[int]storage.PageWords{1: {Width: 612, Height: 792,
		Words: []storage.Word{{X: 10, Y: 20, W: 30, H: 8, Conf: 0.97, Text: "Old"}}}}); err != nil {
		t.Fatal(err)
	}
	var tag storage.Tag
	f.call("POST", "/api/tags", map[string]any{"name": "paid"}, http.StatusCreated, &tag)
	f.call("PATCH", "/api/documents/"+other.ID, map[string]any{"tag_ids": []string{tag.ID}}, http.StatusOK, nil)
	if _, err := f.db.CreateExtraction(ctx, storage.NewExtraction{DocumentID: other.ID,
		Value: json.RawMessage(`{"invoice_number":"B-2","total":7}`)}); err != nil {
		t.Fatal(err)
	}
	before := f.documentState(other.ID)

	f.model.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "d1", Name: "delete_document", Arguments: `{"document_id":"` + other.ID + `"}`}}})
	var paused agent.TurnResult
	f.call("POST", "/api/documents/"+f.doc.ID+"/chat", map[string]any{"message": "delete the old one"}, http.StatusOK, &paused)
	if !paused.Paused() {
		t.Fatalf("the delete did not wait for approval: %+v", paused)
	}
	f.model.Enqueue(modeltest.Reply{Text: "Deleted."})
	var done agent.TurnResult
	f.call("POST", "/api/documents/"+f.doc.ID+"/chat/approve", map[string]any{"turn_id": paused.TurnID,
		"approvals": []map[string]any{{"call_id": "d1", "approved": true}}}, http.StatusOK, &done)
	f.call("GET", "/api/documents/"+other.ID, nil, http.StatusNotFound, nil)
	if done.HistoryTurnID == "" {
		t.Fatalf("the turn that deleted says no history turn: %+v", done)
	}

	es := f.history("?document=" + other.ID)
	del := es[0]
	if del.Op != "delete document" || del.Edge != "agent" || del.TurnID != done.HistoryTurnID ||
		del.Summary != `deleted document "old.txt" (1 page, 1 extraction)` {
		t.Fatalf("newest entry of the document: %+v", del)
	}
	if len(es) < 3 || es[2].Edge != "ui" || es[2].Actor != "person" || es[2].Summary != `set the tags of "old.txt" to "paid"` {
		t.Fatalf("the tagging entry: %+v", es[1:])
	}

	var res storage.UndoResult
	f.call("POST", fmt.Sprintf("/api/history/%d/undo", del.ID), nil, http.StatusOK, &res)
	if len(res.Undone) != 1 || res.Undone[0].ID != del.ID || res.Entries[0].Edge != "ui" {
		t.Fatalf("undo answer %+v", res)
	}
	if after := f.documentState(other.ID); after != before {
		t.Fatalf("after undo:\n%s\nwant:\n%s", after, before)
	}
	// Undone once: a second undo is a conflict that says so.
	msg := f.wantError("POST", fmt.Sprintf("/api/history/%d/undo", del.ID), nil, http.StatusConflict, "conflict")
	if !strings.Contains(msg, "undone already") {
		t.Errorf("second undo: %q", msg)
	}
	f.wantError("POST", "/api/history/999999/undo", nil, http.StatusNotFound, "not_found")
	f.wantError("POST", "/api/history/abc/undo", nil, http.StatusNotFound, "not_found")
}

// An "always approve" turn that updated a schema and extracted three times
// with it is undone as one: the schema's version before comes back as a new
// version and the three extractions go.
func TestAlwaysApproveTurnIsUndoneAsOne(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var schema storage.SchemaRevision
	f.call("POST", "/api/schemas", map[string]any{"name": "invoice", "response_format": responseFormat("invoice", invoiceSchema)}, http.StatusCreated, &schema)
	var prompt storage.PromptRevision
	f.call("POST", "/api/prompts", map[string]any{"name": "invoices", "content": "Extract the invoice number and total.", "schema_id": schema.SchemaID}, http.StatusCreated, &prompt)

	newSchema := strings.Replace(invoiceSchema, `"total":{"type":"number"}`, `"total":{"type":"number","description":"with tax"}`, 1)
	var calls []modeltest.ToolCall
	calls = append(calls, modeltest.ToolCall{ID: "u1", Name: "update_schema", Arguments: `{"schema_id":"` + schema.SchemaID + `","response_format":` + string(responseFormat("invoice", newSchema)) + `}`})
	f.model.Enqueue(modeltest.Reply{ToolCalls: calls})
	for i := range 3 {
		f.model.Enqueue(
			modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: fmt.Sprint("x", i), Name: "run_extraction", Arguments: `{"prompt_revid":"invoices"}`}}},
			modeltest.Reply{Text: `{"invoice_number":"A-1","total":12.5}`},
		)
	}
	f.model.Enqueue(modeltest.Reply{Text: "Updated the schema and extracted again."})
	var done agent.TurnResult
	f.call("POST", "/api/documents/"+f.doc.ID+"/chat", map[string]any{"message": "add the tax note and extract", "auto_approve": true}, http.StatusOK, &done)
	if done.Paused() || done.HistoryTurnID == "" {
		t.Fatalf("turn result %+v", done)
	}
	turn := f.history("?turn=" + done.HistoryTurnID)
	if len(turn) != 4 || turn[3].Summary != `updated schema "invoice" to version 2` {
		var sums []string
		for _, e := range turn {
			sums = append(sums, e.Summary)
		}
		t.Fatalf("the turn's entries: %q", sums)
	}
	exts, err := f.db.ListExtractions(ctx, f.doc.ID)
	if err != nil || len(exts) != 3 {
		t.Fatalf("%d extractions after the turn, %v", len(exts), err)
	}
	// The schema update alone cannot go: the extractions used it.
	msg := f.wantError("POST", fmt.Sprintf("/api/history/%d/undo", turn[3].ID), nil, http.StatusConflict, "conflict")
	if !strings.Contains(msg, "later changes depend on it") {
		t.Errorf("undo of the schema alone: %q", msg)
	}

	var res storage.UndoResult
	f.call("POST", "/api/history/turns/"+done.HistoryTurnID+"/undo", nil, http.StatusOK, &res)
	if len(res.Undone) != 4 {
		t.Fatalf("undid %d entries, want 4", len(res.Undone))
	}
	if exts, _ := f.db.ListExtractions(ctx, f.doc.ID); len(exts) != 0 {
		t.Fatalf("%d extractions after undoing the turn", len(exts))
	}
	got, err := f.db.GetSchema(ctx, schema.SchemaID)
	if err != nil || got.Version != 3 || string(got.ResponseFormat) != string(schema.ResponseFormat) {
		t.Fatalf("schema after undo: version %d %s, %v; want version 3 equal to version 1", got.Version, got.ResponseFormat, err)
	}
	f.wantError("POST", "/api/history/turns/"+done.HistoryTurnID+"/undo", nil, http.StatusConflict, "conflict")
}

// A data-view cell edit (PATCH of an extraction field) is undone: the value
// and its evidence come back.
func TestCellEditIsUndone(t *testing.T) {
	f := newFixture(t)
	ext, err := f.db.CreateExtraction(context.Background(), storage.NewExtraction{DocumentID: f.doc.ID,
		Value: json.RawMessage(`{"invoice_number":"A-1","total":12.5}`), Evidence: json.RawMessage(`{"total":{"status":"found","page":2}}`)})
	if err != nil {
		t.Fatal(err)
	}
	f.call("PATCH", "/api/documents/"+f.doc.ID+"/extractions/"+ext.ID, map[string]any{"path": "total", "value": 13}, http.StatusOK, nil)
	edit := f.history("?edge=ui")[0]
	if edit.Summary != `set total of document "acme.txt" to 13 (was 12.5)` || edit.Actor != "person" {
		t.Fatalf("edit entry %+v", edit)
	}
	f.call("POST", fmt.Sprintf("/api/history/%d/undo", edit.ID), map[string]any{}, http.StatusOK, nil)
	got, err := f.db.GetExtraction(context.Background(), ext.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Value) != string(ext.Value) || got.Edited || string(got.Evidence) != string(ext.Evidence) {
		t.Fatalf("after undo: %s edited=%v evidence %s", got.Value, got.Edited, got.Evidence)
	}
}

// An accepted auto-create proposal: the accept is undone (the proposal is
// back), and the run's own changes are undone as one run.
func TestAcceptedProposalIsUndone(t *testing.T) {
	f := newFixture(t)
	scriptAutoCreate(f.model, "Invoice")
	status, body := f.upload(map[string]string{"a1.txt": "ACME invoice A-1\nTotal due: 12.50 EUR"}, map[string][]string{"auto_create": {"true"}})
	if status != http.StatusOK {
		t.Fatalf("upload: %d %s", status, body)
	}
	var up struct{ Documents []storage.Document }
	if err := json.Unmarshal(body, &up); err != nil || len(up.Documents) != 1 {
		t.Fatalf("upload answer %s: %v", body, err)
	}
	d := f.waitAutoCreate(up.Documents[0].ID, storage.AutoCreateProposed)
	run := f.history("?run=" + d.AutoCreateThreadID)
	if len(run) != 3 || run[0].Edge != "auto_create" {
		t.Fatalf("the run's entries: %+v", run)
	}
	f.call("POST", "/api/documents/"+d.ID+"/auto-create/accept", nil, http.StatusOK, nil)
	accept := f.history("?document=" + d.ID)[0]
	if accept.Summary != `accepted the auto-create proposal for "a1.txt"` {
		t.Fatalf("accept entry %+v", accept)
	}
	// The run's schema cannot go while the accept stands on it.
	f.wantError("POST", "/api/history/runs/"+d.AutoCreateThreadID+"/undo", nil, http.StatusConflict, "conflict")

	f.call("POST", fmt.Sprintf("/api/history/%d/undo", accept.ID), nil, http.StatusOK, nil)
	var back storage.Document
	f.call("GET", "/api/documents/"+d.ID, nil, http.StatusOK, &back)
	if back.AutoCreateStatus != storage.AutoCreateProposed {
		t.Fatalf("after undoing the accept: %s", back.AutoCreateStatus)
	}
	if _, err := f.db.KindPrompt(context.Background(), d.AutoCreateSchemaID); err == nil {
		t.Fatal("the kind prompt chosen by the accept stayed")
	}

	var res storage.UndoResult
	f.call("POST", "/api/history/runs/"+d.AutoCreateThreadID+"/undo", nil, http.StatusOK, &res)
	if len(res.Undone) != 3 {
		t.Fatalf("undid %d of the run's changes", len(res.Undone))
	}
	if _, err := f.db.GetSchema(context.Background(), d.AutoCreateSchemaID); err == nil {
		t.Fatal("the run's schema stayed")
	}
}

// Two undos of one entry at once through the API: one 200, one 409.
func TestConcurrentUndosThroughTheAPI(t *testing.T) {
	f := newFixture(t)
	f.call("DELETE", "/api/documents/"+f.doc.ID, nil, http.StatusOK, nil)
	del := f.history("")[0]
	statuses := make([]int, 4)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Go(func() { statuses[i], _ = f.do("POST", fmt.Sprintf("/api/history/%d/undo", del.ID), nil) })
	}
	wg.Wait()
	ok := 0
	for _, s := range statuses {
		switch s {
		case http.StatusOK:
			ok++
		case http.StatusConflict:
		default:
			t.Errorf("undo answered %d", s)
		}
	}
	if ok != 1 {
		t.Fatalf("statuses %v, want one 200", statuses)
	}
	f.call("GET", "/api/documents/"+f.doc.ID, nil, http.StatusOK, nil)
}

// The settings say how much the history holds; emptying it drops all.
func TestHistorySettings(t *testing.T) {
	f := newFixture(t)
	var hs struct {
		RetentionDays float64 `json:"retention_days"`
		Entries       int64   `json:"entries"`
		Bytes         int64   `json:"bytes"`
	}
	f.call("GET", "/api/history/settings", nil, http.StatusOK, &hs)
	if hs.RetentionDays != 30 || hs.Entries != 1 || hs.Bytes == 0 {
		t.Fatalf("settings %+v", hs)
	}
	f.call("PUT", "/api/history/settings", map[string]any{"retention_days": 7}, http.StatusOK, &hs)
	if hs.RetentionDays != 7 {
		t.Fatalf("after PUT: %+v", hs)
	}
	f.wantError("PUT", "/api/history/settings", map[string]any{"retention_days": 0}, http.StatusBadRequest, "invalid")
	f.call("DELETE", "/api/history", nil, http.StatusOK, &hs)
	if hs.Entries != 0 || hs.Bytes != 0 {
		t.Fatalf("after emptying: %+v", hs)
	}
	f.wantError("GET", "/api/history?edge=fax", nil, http.StatusBadRequest, "invalid")
}

// An approved card's Undo takes back that call's changes alone.
func TestUndoOneCallOfATurn(t *testing.T) {
	f := newFixture(t)
	f.model.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{
			{ID: "t1", Name: "create_tag", Arguments: `{"name":"paid"}`},
			{ID: "t2", Name: "create_tag", Arguments: `{"name":"urgent"}`},
		}},
		modeltest.Reply{Text: "Two tags."},
	)
	var done agent.TurnResult
	f.call("POST", "/api/documents/"+f.doc.ID+"/chat", map[string]any{"message": "make two tags", "auto_approve": true}, http.StatusOK, &done)
	es := f.history("?turn=" + done.HistoryTurnID + "&call=t2")
	if len(es) != 1 || es[0].CallID != "t2" || es[0].Summary != `created tag "urgent"` {
		t.Fatalf("the call's entries: %+v", es)
	}
	var res storage.UndoResult
	f.call("POST", "/api/history/turns/"+done.HistoryTurnID+"/undo", map[string]any{"call_id": "t2"}, http.StatusOK, &res)
	if len(res.Undone) != 1 || res.Undone[0].CallID != "t2" {
		t.Fatalf("undid %+v", res.Undone)
	}
	var tags struct{ Tags []storage.Tag }
	f.call("GET", "/api/tags", nil, http.StatusOK, &tags)
	if len(tags.Tags) != 1 || tags.Tags[0].Name != "paid" {
		t.Fatalf("tags after undoing the second call: %+v", tags.Tags)
	}
	msg := f.wantError("POST", "/api/history/turns/"+done.HistoryTurnID+"/undo", map[string]any{"call_id": "t2"}, http.StatusConflict, "conflict")
	if msg != "every change of call t2 of turn "+done.HistoryTurnID+" is undone already" {
		t.Errorf("second undo of the call: %q", msg)
	}
}
