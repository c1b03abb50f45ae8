package storage

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docent/docent/storage/fault"
)

const acSchema = `{"type":"json_schema","json_schema":{"name":"invoice","schema":{"type":"object","properties":{"total":{"type":"number"}}},"strict":true}}`

// acRun makes, as an auto-create run would, a thread, a schema, a prompt
// and an extraction for doc, recording them on the claim as it goes.
func acRun(t *testing.T, db *DB, c AutoCreateClaim, name string) AutoCreateLinks {
	t.Helper()
	ctx := context.Background()
	th, err := db.CreateThread(ctx, c.DocumentID, "auto-create", "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := db.CreateSchema(ctx, name, json.RawMessage(acSchema))
	if err != nil {
		t.Fatal(err)
	}
	p, err := db.CreatePrompt(ctx, NewPrompt{Name: name, Content: "Extract.", SchemaID: s.SchemaID})
	if err != nil {
		t.Fatal(err)
	}
	x, err := db.CreateExtraction(ctx, NewExtraction{DocumentID: c.DocumentID, PromptRevID: p.PromptRevID, Value: json.RawMessage(`{"total":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	l := AutoCreateLinks{ThreadID: th.ID, SchemaID: s.SchemaID, PromptID: p.PromptID, ExtractionID: x.ID}
	if err := db.RecordAutoCreate(ctx, c, l); err != nil {
		t.Fatal(err)
	}
	return l
}

func mustClaim(t *testing.T, db *DB, docID string) AutoCreateClaim {
	t.Helper()
	c, err := db.ClaimAutoCreate(context.Background(), docID, time.Hour)
	if err != nil {
		t.Fatalf("claim %s: %v", docID, err)
	}
	return c
}

func TestAutoCreateClaimIsExclusive(t *testing.T) {
	db := mustOpen(t)
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"x"}})
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = db.ClaimAutoCreate(context.Background(), doc.ID, time.Hour)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case fault.ErrorCode(err) != "conflict":
			t.Errorf("a losing claim failed with %v, want a conflict", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d claims succeeded, want 1", won)
	}
	d, _ := db.GetDocument(context.Background(), doc.ID)
	if d.AutoCreateStatus != AutoCreateRunning || d.AutoCreateUpdatedAt == nil {
		t.Errorf("after the claim: %+v", d)
	}
}

func TestAutoCreateProposeAcceptAndNoRerun(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"x"}})
	c := mustClaim(t, db, doc.ID)
	l := acRun(t, db, c, "inv")
	d, err := db.ProposeAutoCreate(ctx, c, l, []Refusal{{Tool: "delete_document", Reason: "not made by this run"}})
	if err != nil {
		t.Fatal(err)
	}
	if d.AutoCreateStatus != AutoCreateProposed || d.AutoCreateSchemaID != l.SchemaID || d.AutoCreatePromptID != l.PromptID ||
		d.AutoCreateExtractionID != l.ExtractionID || d.AutoCreateThreadID != l.ThreadID {
		t.Fatalf("proposed document %+v, want links %+v", d, l)
	}
	if len(d.AutoCreateRefused) != 1 || d.AutoCreateRefused[0].Tool != "delete_document" {
		t.Errorf("refusals stored with the proposal: %+v, want the one delete_document", d.AutoCreateRefused)
	}
	raw, _ := json.Marshal(d)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	for _, k := range []string{"auto_create_status", "auto_create_schema_id", "auto_create_prompt_id", "auto_create_extraction_id", "auto_create_thread_id"} {
		if m[k] == nil || m[k] == "" {
			t.Errorf("JSON lacks %s: %s", k, raw)
		}
	}
	if _, err := db.ClaimAutoCreate(ctx, doc.ID, time.Nanosecond); fault.ErrorCode(err) != "conflict" {
		t.Errorf("claim of a proposed document: %v, want a conflict", err)
	}
	// The finished run's claim is spent.
	if _, err := db.FailAutoCreate(ctx, c, "late", nil); fault.ErrorCode(err) != "conflict" {
		t.Errorf("fail after propose: %v, want a conflict", err)
	}
	if d, err = db.AcceptAutoCreate(ctx, doc.ID); err != nil || d.AutoCreateStatus != AutoCreateAccepted || d.AutoCreateExtractionID != l.ExtractionID {
		t.Fatalf("accept: %+v %v", d, err)
	}
	if _, err := db.RejectAutoCreate(ctx, doc.ID); fault.ErrorCode(err) != "conflict" {
		t.Errorf("reject after accept: %v", err)
	}
	if _, err := db.AcceptAutoCreate(ctx, doc.ID); fault.ErrorCode(err) != "conflict" || !strings.Contains(err.Error(), "no proposal to accept") {
		t.Errorf("accept after accept: %v, want a conflict: no proposal to accept", err)
	}
}

func TestAutoCreateFailLeavesNothingHalfSet(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"x"}})
	older, err := db.CreateSchema(ctx, "older", json.RawMessage(acSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := mustClaim(t, db, doc.ID)
	acRun(t, db, c, "inv")
	refused := []Refusal{{Tool: "create_prompt", Reason: "an unattended run may not link to schema \"user\""}}
	d, err := db.FailAutoCreate(ctx, c, "the model timed out", refused)
	if err != nil {
		t.Fatal(err)
	}
	if d.AutoCreateStatus != AutoCreateFailed || d.AutoCreateError != "the model timed out" ||
		d.AutoCreateSchemaID != "" || d.AutoCreatePromptID != "" || d.AutoCreateExtractionID != "" || d.AutoCreateThreadID != "" {
		t.Fatalf("failed document %+v", d)
	}
	// What the failed run tried outside its scope stays with it.
	if d, err = db.GetDocument(ctx, doc.ID); err != nil || len(d.AutoCreateRefused) != 1 || d.AutoCreateRefused[0] != refused[0] {
		t.Errorf("the failed run's refusals: %+v %v, want %+v", d.AutoCreateRefused, err, refused)
	}
	for table, want := range map[string]int{"schemas": 1, "prompts": 0, "extractions": 0, "threads": 0} {
		if n := count(t, db, table, ""); n != want {
			t.Errorf("%s: %d rows, want %d", table, n, want)
		}
	}
	if _, err := db.GetSchema(ctx, older.SchemaID); err != nil {
		t.Errorf("the schema made before the run is gone: %v", err)
	}
	// A failed document can run again.
	c = mustClaim(t, db, doc.ID)
	if d, err = db.RequeueAutoCreate(ctx, c); err != nil || d.AutoCreateStatus != AutoCreatePending {
		t.Fatalf("requeue: %+v %v", d, err)
	}
}

func TestAutoCreateStaleRunIsReclaimedAndCleaned(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"x"}})
	dead := mustClaim(t, db, doc.ID)
	acRun(t, db, dead, "inv")
	// The clock moves a second per transaction: an hour is not stale yet.
	if _, err := db.ClaimAutoCreate(ctx, doc.ID, time.Hour); fault.ErrorCode(err) != "conflict" {
		t.Fatalf("claim of a fresh running document: %v, want a conflict", err)
	}
	if _, err := db.ClaimAutoCreate(ctx, doc.ID, 0); fault.ErrorCode(err) != "conflict" {
		t.Fatalf("claim with no stale age: %v, want a conflict", err)
	}
	c, err := db.ClaimAutoCreate(ctx, doc.ID, 2*time.Second)
	if err != nil || !c.Reclaimed {
		t.Fatalf("reclaim: %+v %v", c, err)
	}
	for _, table := range []string{"schemas", "prompts", "extractions", "threads"} {
		if n := count(t, db, table, ""); n != 0 {
			t.Errorf("after the reclaim %s has %d rows", table, n)
		}
	}
	// The dead run can no longer write.
	if err := db.RecordAutoCreate(ctx, dead, AutoCreateLinks{SchemaID: "sch_x"}); fault.ErrorCode(err) != "conflict" {
		t.Errorf("record with the stale claim: %v", err)
	}
	if _, err := db.ProposeAutoCreate(ctx, dead, AutoCreateLinks{SchemaID: "a", PromptID: "b", ExtractionID: "c"}, nil); fault.ErrorCode(err) != "conflict" {
		t.Errorf("propose with the stale claim: %v", err)
	}
}

// TestAutoCreateRejectRemovesWhatTheRunMadeAndNothingMore: of two
// documents whose runs share the first one's schema and prompt (nobody
// accepted either), rejecting the first removes them, the second's
// extraction with them and takes the second's proposal down (failed,
// saying why); rejecting a run that made its own prompt on a schema made
// before it removes the prompt, never that schema.
func TestAutoCreateRejectRemovesWhatTheRunMadeAndNothingMore(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	a := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	b := mustCreateDocument(t, db, NewDocument{Name: "b.txt", Pages: []string{"b"}})
	c := mustCreateDocument(t, db, NewDocument{Name: "c.txt", Pages: []string{"c"}})
	before, err := db.CreateSchema(ctx, "before", json.RawMessage(acSchema))
	if err != nil {
		t.Fatal(err)
	}
	unrelated, err := db.CreateExtraction(ctx, NewExtraction{DocumentID: a.ID, Value: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}

	ca := mustClaim(t, db, a.ID)
	la := acRun(t, db, ca, "shared")
	if _, err := db.ProposeAutoCreate(ctx, ca, la, nil); err != nil {
		t.Fatal(err)
	}
	// b reuses a's schema and prompt.
	cb := mustClaim(t, db, b.ID)
	thb, _ := db.CreateThread(ctx, b.ID, "auto-create", "")
	p, _ := db.GetPrompt(ctx, la.PromptID)
	xb, err := db.CreateExtraction(ctx, NewExtraction{DocumentID: b.ID, PromptRevID: p.PromptRevID, Value: json.RawMessage(`{"total":2}`)})
	if err != nil {
		t.Fatal(err)
	}
	lb := AutoCreateLinks{ThreadID: thb.ID, SchemaID: la.SchemaID, PromptID: la.PromptID, ExtractionID: xb.ID}
	if _, err := db.ProposeAutoCreate(ctx, cb, lb, nil); err != nil {
		t.Fatal(err)
	}
	// c's run uses the schema made before it and its own prompt.
	cc := mustClaim(t, db, c.ID)
	thc, _ := db.CreateThread(ctx, c.ID, "auto-create", "")
	pc, _ := db.CreatePrompt(ctx, NewPrompt{Name: "c-prompt", Content: "Extract.", SchemaID: before.SchemaID})
	xc1, _ := db.CreateExtraction(ctx, NewExtraction{DocumentID: c.ID, PromptRevID: pc.PromptRevID, Value: json.RawMessage(`{}`)})
	xc2, _ := db.CreateExtraction(ctx, NewExtraction{DocumentID: c.ID, PromptRevID: pc.PromptRevID, Value: json.RawMessage(`{"total":3}`)})
	if _, err := db.ProposeAutoCreate(ctx, cc, AutoCreateLinks{ThreadID: thc.ID, SchemaID: before.SchemaID, PromptID: pc.PromptID, ExtractionID: xc2.ID}, nil); err != nil {
		t.Fatal(err)
	}

	d, err := db.RejectAutoCreate(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.AutoCreateStatus != AutoCreateRejected || d.AutoCreateSchemaID != "" || d.AutoCreateExtractionID != "" || d.AutoCreateThreadID != la.ThreadID {
		t.Errorf("rejected document %+v", d)
	}
	if _, err := db.GetExtraction(ctx, la.ExtractionID); fault.ErrorCode(err) != "not_found" {
		t.Errorf("a's extraction survived the reject: %v", err)
	}
	if _, err := db.GetExtraction(ctx, unrelated.ID); err != nil {
		t.Errorf("an extraction from before the run is gone: %v", err)
	}
	if _, err := db.GetPrompt(ctx, la.PromptID); fault.ErrorCode(err) != "not_found" {
		t.Errorf("a's prompt survived the reject because b's unaccepted run used it: %v", err)
	}
	if _, err := db.GetSchema(ctx, la.SchemaID); fault.ErrorCode(err) != "not_found" {
		t.Errorf("a's schema survived the reject because b's unaccepted run used it: %v", err)
	}
	if _, err := db.GetExtraction(ctx, xb.ID); fault.ErrorCode(err) != "not_found" {
		t.Errorf("b's extraction with a's prompt survived: %v", err)
	}
	if _, err := db.GetThread(ctx, a.ID, la.ThreadID); err != nil {
		t.Errorf("the thread of the rejected run is gone: %v", err)
	}
	db2, err := db.GetDocument(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if db2.AutoCreateStatus != AutoCreateFailed || !strings.Contains(db2.AutoCreateError, `"a.txt"`) || db2.SchemaID != "" ||
		db2.AutoCreatePromptID != "" || db2.AutoCreateExtractionID != "" || db2.AutoCreateThreadID != thb.ID {
		t.Errorf("b after a's reject: status %s (%q), kind %q, links %q %q, thread %q; want failed naming a.txt, no kind or links, its thread kept",
			db2.AutoCreateStatus, db2.AutoCreateError, db2.SchemaID, db2.AutoCreatePromptID, db2.AutoCreateExtractionID, db2.AutoCreateThreadID)
	}
	if _, err := db.GetDocument(ctx, c.ID); err != nil {
		t.Fatal(err)
	} else if dc, _ := db.GetDocument(ctx, c.ID); dc.AutoCreateStatus != AutoCreateProposed {
		t.Errorf("c's proposal, which used nothing of a's, is %s", dc.AutoCreateStatus)
	}

	if _, err := db.RejectAutoCreate(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{xc1.ID, xc2.ID} {
		if _, err := db.GetExtraction(ctx, id); fault.ErrorCode(err) != "not_found" {
			t.Errorf("extraction %s of c's run survived: %v", id, err)
		}
	}
	if _, err := db.GetPrompt(ctx, pc.PromptID); fault.ErrorCode(err) != "not_found" {
		t.Errorf("c's prompt survived: %v", err)
	}
	if _, err := db.GetSchema(ctx, before.SchemaID); err != nil {
		t.Errorf("the schema made before c's run is gone: %v", err)
	}
}

// What a person uses of a proposal's work stays when the proposal is
// rejected: a prompt run by hand on another document, a schema whose
// kind's proposal was accepted. Accepting chooses the proposal's prompt
// for its kind.
func TestAutoCreateRejectKeepsWhatAPersonUses(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	a := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	b := mustCreateDocument(t, db, NewDocument{Name: "b.txt", Pages: []string{"b"}})
	mine := mustCreateDocument(t, db, NewDocument{Name: "mine.txt", Pages: []string{"mine"}})

	ca := mustClaim(t, db, a.ID)
	la := acRun(t, db, ca, "a-kind")
	if _, err := db.ProposeAutoCreate(ctx, ca, la, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.KindPrompt(ctx, la.SchemaID); fault.ErrorCode(err) != "not_found" {
		t.Errorf("a proposal's prompt is its kind's before anyone accepted it: %v", err)
	}
	// A person extracts their own document with a's prompt.
	p, _ := db.GetPrompt(ctx, la.PromptID)
	byHand, err := db.CreateExtraction(ctx, NewExtraction{DocumentID: mine.ID, PromptRevID: p.PromptRevID, Value: json.RawMessage(`{"total":5}`)})
	if err != nil {
		t.Fatal(err)
	}
	cb := mustClaim(t, db, b.ID)
	lb := acRun(t, db, cb, "b-kind")
	if _, err := db.ProposeAutoCreate(ctx, cb, lb, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AcceptAutoCreate(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if kp, err := db.KindPrompt(ctx, lb.SchemaID); err != nil || kp.PromptID != lb.PromptID {
		t.Errorf("accepting did not choose the proposal's prompt for its kind: %s %v", kp.PromptID, err)
	}

	if _, err := db.RejectAutoCreate(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.GetExtraction(ctx, byHand.ID); err != nil {
		t.Errorf("the extraction a person made with a's prompt is gone: %v", err)
	}
	if _, err := db.GetPrompt(ctx, la.PromptID); err != nil {
		t.Errorf("the prompt a person used is gone: %v", err)
	}
	if _, err := db.GetSchema(ctx, la.SchemaID); err != nil {
		t.Errorf("the schema of the prompt a person used is gone: %v", err)
	}
	if _, err := db.GetSchema(ctx, lb.SchemaID); err != nil {
		t.Errorf("the accepted schema is gone: %v", err)
	}
}

func TestQueueAutoCreate(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	a := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	b := mustCreateDocument(t, db, NewDocument{Name: "b.txt", Pages: []string{"b"}, Status: StatusNeedsOCR})
	c := mustCreateDocument(t, db, NewDocument{Name: "c.txt", Pages: []string{"c"}})
	f := mustCreateDocument(t, db, NewDocument{Name: "f.pdf", Pages: []string{""}, Status: StatusFailed, Error: "broken"})
	mustClaim(t, db, c.ID)
	// A document waiting for OCR is queued too: it runs once OCR read it.
	q, err := db.QueueAutoCreate(ctx, "", a.ID, b.ID, c.ID, f.ID)
	if err != nil || len(q) != 2 || q[0].ID != a.ID || q[1].ID != b.ID || q[1].AutoCreateStatus != AutoCreatePending {
		t.Fatalf("queue: %+v %v", q, err)
	}
	if _, err := db.QueueAutoCreate(ctx, "", "doc_nope"); fault.ErrorCode(err) != "not_found" {
		t.Errorf("queue of an unknown document: %v", err)
	}
	cands, err := db.AutoCreateCandidates(ctx)
	if err != nil || len(cands) != 2 {
		t.Errorf("candidates %+v %v", cands, err)
	}
	// Only ready documents are taken from the queue: b waits for OCR.
	if pending, err := db.PendingAutoCreates(ctx); err != nil || len(pending) != 1 || pending[0].ID != a.ID {
		t.Errorf("queue %+v %v, want a alone", pending, err)
	}
}

// The model a document is queued with is stored with it: it outlives the
// process, a queue of a pending document with another model changes it,
// one without a model leaves it, and an interrupted run goes back to the
// queue with it.
func TestQueuedAutoCreateKeepsItsModel(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "docent.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	a := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	b := mustCreateDocument(t, db, NewDocument{Name: "b.txt", Pages: []string{"b"}})
	if q, err := db.QueueAutoCreate(ctx, " ollama/llama3.2:1b ", a.ID); err != nil || len(q) != 1 || q[0].AutoCreateModel != "ollama/llama3.2:1b" {
		t.Fatalf("queue with a model: %+v %v", q, err)
	}
	if _, err := db.QueueAutoCreate(ctx, "", b.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = Open(ctx, path) // a restart
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	pending, err := db.PendingAutoCreates(ctx)
	if err != nil || len(pending) != 2 || pending[0].ID != a.ID || pending[0].AutoCreateModel != "ollama/llama3.2:1b" || pending[1].AutoCreateModel != "" {
		t.Fatalf("queue after reopening: %+v %v", pending, err)
	}
	// Queued again while pending: a model replaces it, none keeps it.
	if q, err := db.QueueAutoCreate(ctx, "openai/gpt-4o-mini", a.ID); err != nil || len(q) != 0 {
		t.Fatalf("queue of a pending document: %+v %v", q, err)
	}
	if _, err := db.QueueAutoCreate(ctx, "", a.ID); err != nil {
		t.Fatal(err)
	}
	if d, _ := db.GetDocument(ctx, a.ID); d.AutoCreateModel != "openai/gpt-4o-mini" {
		t.Errorf("model after queueing again: %q", d.AutoCreateModel)
	}
	// Interrupted: back in the queue with its model; failed: the model
	// goes, and a later run is on the default unless queued with one.
	claim := mustClaim(t, db, a.ID)
	if d, err := db.RequeueAutoCreate(ctx, claim); err != nil || d.AutoCreateStatus != AutoCreatePending || d.AutoCreateModel != "openai/gpt-4o-mini" {
		t.Errorf("requeued: %+v %v", d, err)
	}
	claim = mustClaim(t, db, a.ID)
	if d, err := db.FailAutoCreate(ctx, claim, "no such model", nil); err != nil || d.AutoCreateStatus != AutoCreateFailed || d.AutoCreateModel != "" {
		t.Errorf("failed: %+v %v", d, err)
	}
	if _, err := db.QueueAutoCreate(ctx, "ollama/llama3.2:1b", a.ID); err != nil {
		t.Fatal(err)
	}
	claim = mustClaim(t, db, a.ID)
	if d, err := db.ProposeAutoCreate(ctx, claim, acRun(t, db, claim, "a"), nil); err != nil || d.AutoCreateStatus != AutoCreateProposed || d.AutoCreateModel != "" {
		t.Errorf("proposed: %+v %v", d, err)
	}
	// The model is not part of the API's document.
	raw, _ := json.Marshal(pending[0])
	if strings.Contains(string(raw), "llama3.2") {
		t.Errorf("the document's JSON shows the queued model: %s", raw)
	}
}
