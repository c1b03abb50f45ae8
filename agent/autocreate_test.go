package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/eventcheck"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

const acInvoiceSchema = `{"type":"object","properties":{"invoice_number":{"type":"string"},"total":{"type":"number"}},"required":["invoice_number","total"],"additionalProperties":false}`

// scriptAutoCreate enqueues what a model does in a headless run: schema,
// prompt and extraction in one round, the extraction's answer, a closing
// text.
func scriptAutoCreate(srv *modeltest.Server, name, answer string) {
	srv.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{
			{Name: "create_schema", Arguments: `{"name":"` + name + `","response_format":` + acInvoiceSchema + `}`},
			{Name: "create_prompt", Arguments: `{"name":"` + name + `","content":"Extract the invoice number and total.","schema_id":"` + name + `"}`},
			{Name: "run_extraction", Arguments: `{}`},
		}},
		modeltest.Reply{Text: answer},
		modeltest.Reply{Text: "Done: schema, prompt and extraction are ready."},
	)
}

func countRows(t *testing.T, db *storage.DB, doc storage.Document) (schemas, prompts, extractions, threads int) {
	t.Helper()
	ctx := context.Background()
	_, schemas, _ = db.ListSchemas(ctx, storage.ListFilter{})
	_, prompts, _ = db.ListPrompts(ctx, storage.PromptFilter{})
	xs, _ := db.ListExtractions(ctx, doc.ID)
	ths, _ := db.ListThreads(ctx, doc.ID)
	return schemas, prompts, len(xs), len(ths)
}

func TestAutoCreateProposesSchemaPromptAndExtractionInAThread(t *testing.T) {
	f := newTurnFixture(t)
	ctx := context.Background()
	scriptAutoCreate(f.srv, "invoice", `{"invoice_number":"A-1","total":12.5}`)
	var rec eventcheck.Recorder
	ac := &agent.AutoCreator{Agent: f.agent}
	res, err := ac.Run(ctx, f.doc.ID, agent.AutoCreateOptions{Sink: &rec})
	if err != nil {
		t.Fatalf("Run: %v (%+v)", err, res)
	}
	if err := rec.Check(); err != nil {
		t.Fatalf("events: %v\n%s", err, dumpEvents(rec.Events()))
	}
	d, _ := f.db.GetDocument(ctx, f.doc.ID)
	if d.AutoCreateStatus != storage.AutoCreateProposed || d.AutoCreateSchemaID != res.SchemaID || d.AutoCreatePromptID != res.PromptID ||
		d.AutoCreateExtractionID != res.ExtractionID || d.AutoCreateThreadID != res.ThreadID || res.Status != storage.AutoCreateProposed {
		t.Fatalf("document %+v, result %+v", d, res)
	}
	x, err := f.db.GetExtraction(ctx, res.ExtractionID)
	if err != nil || string(x.Value) != `{"invoice_number":"A-1","total":12.5}` {
		t.Errorf("extraction %s %v", x.Value, err)
	}
	th, err := f.db.GetThread(ctx, f.doc.ID, res.ThreadID)
	if err != nil {
		t.Fatal(err)
	}
	var ws agent.WorkingState
	if err := json.Unmarshal(th.WorkingState, &ws); err != nil || ws.Extraction == nil || ws.Extraction.ID != res.ExtractionID || ws.PromptRevID != res.PromptRevID {
		t.Errorf("thread working state %s", th.WorkingState)
	}
	msgs, _ := f.db.ThreadMessages(ctx, res.ThreadID)
	if len(msgs) == 0 || msgs[0].Content != agent.AutoCreateMessage {
		t.Errorf("the thread does not start with the fixed message: %+v", msgs)
	}
	if res.Usage.PromptTokens == 0 {
		t.Errorf("no usage counted: %+v", res.Usage)
	}
	// All tools ran without approval, within the run's limits.
	req := f.srv.Requests()[0]
	if len(req.Tools) == 0 {
		t.Errorf("the run's first request offered no tools")
	}

	// A second run of a proposed document does not start.
	res, err = ac.Run(ctx, f.doc.ID, agent.AutoCreateOptions{})
	if fault.ErrorCode(err) != "conflict" || !res.Skipped || res.Status != storage.AutoCreateProposed {
		t.Errorf("rerun: %+v %v", res, err)
	}
}

func TestAutoCreateThatNeverFinishesHitsTheTimeLimitAndLeavesNothing(t *testing.T) {
	f := newTurnFixture(t)
	ctx := context.Background()
	f.srv.Enqueue(modeltest.Reply{Text: "never", Fault: modeltest.Fault{FirstTokenDelay: time.Hour}})
	ac := &agent.AutoCreator{Agent: f.agent, Timeout: 200 * time.Millisecond}
	res, err := ac.Run(ctx, f.doc.ID, agent.AutoCreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("Run: %v, want a time-out", err)
	}
	d, _ := f.db.GetDocument(ctx, f.doc.ID)
	if d.AutoCreateStatus != storage.AutoCreateFailed || !strings.Contains(d.AutoCreateError, "timed out") || res.Status != storage.AutoCreateFailed ||
		d.AutoCreateThreadID != "" || d.AutoCreateSchemaID != "" {
		t.Errorf("document %+v", d)
	}
	if s, p, x, th := countRows(t, f.db, f.doc); s+p+x+th != 0 {
		t.Errorf("left behind: %d schemas, %d prompts, %d extractions, %d threads", s, p, x, th)
	}
}

func TestAutoCreateFailureAfterCreateSchemaLeavesNoOrphans(t *testing.T) {
	f := newTurnFixture(t)
	ctx := context.Background()
	before, err := f.db.CreateSchema(ctx, "before", json.RawMessage(`{"type":"json_schema","json_schema":{"name":"before","schema":{"type":"object"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{Name: "create_schema", Arguments: `{"name":"invoice","response_format":` + acInvoiceSchema + `}`}}},
		modeltest.Reply{Fault: modeltest.Fault{Status: 400, Message: "the model broke"}},
	)
	res, err := (&agent.AutoCreator{Agent: f.agent}).Run(ctx, f.doc.ID, agent.AutoCreateOptions{})
	if err == nil || res.Status != storage.AutoCreateFailed {
		t.Fatalf("Run: %+v %v", res, err)
	}
	if _, err := f.db.FindSchema(ctx, "invoice"); fault.ErrorCode(err) != "not_found" {
		t.Errorf("the run's schema is left: %v", err)
	}
	if _, err := f.db.GetSchema(ctx, before.SchemaID); err != nil {
		t.Errorf("the schema from before the run is gone: %v", err)
	}
	if s, p, x, th := countRows(t, f.db, f.doc); s != 1 || p+x+th != 0 {
		t.Errorf("left: %d schemas, %d prompts, %d extractions, %d threads", s, p, x, th)
	}
	d, _ := f.db.GetDocument(ctx, f.doc.ID)
	if d.AutoCreateStatus != storage.AutoCreateFailed || d.AutoCreateError == "" {
		t.Errorf("document %+v", d)
	}
}

func TestAutoCreateWithASchemaOnlyExtracts(t *testing.T) {
	f := newTurnFixture(t)
	ctx := context.Background()
	s, err := f.db.CreateSchema(ctx, "invoice", json.RawMessage(`{"type":"json_schema","json_schema":{"name":"invoice","schema":`+acInvoiceSchema+`,"strict":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(modeltest.Reply{Text: `{"invoice_number":"A-1","total":12.5}`})
	var rec eventcheck.Recorder
	res, err := (&agent.AutoCreator{Agent: f.agent}).Run(ctx, f.doc.ID, agent.AutoCreateOptions{SchemaID: "invoice", Sink: &rec})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := rec.Check(); err != nil {
		t.Fatalf("events: %v\n%s", err, dumpEvents(rec.Events()))
	}
	reqs := f.srv.Requests()
	if len(reqs) != 1 || len(reqs[0].Tools) != 0 || len(reqs[0].Format) == 0 {
		t.Fatalf("want one extraction request with a format and no tools, got %d requests", len(reqs))
	}
	if res.SchemaID != s.SchemaID || !res.ExtractionOnly || res.Status != storage.AutoCreateProposed {
		t.Errorf("result %+v", res)
	}
	p, err := f.db.GetPrompt(ctx, res.PromptID)
	if err != nil || p.Name != "invoice (auto-create)" || p.SchemaID != s.SchemaID {
		t.Errorf("prompt %+v %v", p, err)
	}
	// The thread can be continued: its working state is set and its
	// history pairs the call with its result.
	th, _ := f.db.GetThread(ctx, f.doc.ID, res.ThreadID)
	if !strings.Contains(string(th.WorkingState), res.ExtractionID) {
		t.Errorf("working state %s", th.WorkingState)
	}
	f.srv.Enqueue(modeltest.Reply{Text: "The total is 12.50."})
	tr, _ := f.chat(t, agent.ChatRequest{ThreadID: res.ThreadID, Message: "What is the total?"})
	if tr.WorkingState.Extraction == nil || tr.WorkingState.Extraction.ID != res.ExtractionID {
		t.Errorf("the continued turn lost the working state: %+v", tr.WorkingState)
	}

	// Nobody chose the schema's auto-create prompt for the kind: until the
	// proposal is accepted nothing else extracts with it.
	if _, err := f.db.KindPrompt(ctx, s.SchemaID); fault.ErrorCode(err) != "not_found" {
		t.Errorf("the kind has a prompt before anyone accepted one: %v", err)
	}
	// Rejecting keeps the schema (it was there before) and its auto-create
	// prompt (Docent's words, made before the run's thread: the kind's,
	// for the next run of it, not the run's) and removes the extraction.
	if _, err := f.db.RejectAutoCreate(ctx, f.doc.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.GetSchema(ctx, s.SchemaID); err != nil {
		t.Errorf("reject removed the reused schema: %v", err)
	}
	if _, err := f.db.GetExtraction(ctx, res.ExtractionID); fault.ErrorCode(err) != "not_found" {
		t.Errorf("reject kept the run's extraction: %v", err)
	}
	if _, err := f.db.GetPrompt(ctx, res.PromptID); err != nil {
		t.Errorf("reject removed the schema's auto-create prompt: %v", err)
	}
}

func TestAutoCreateLimitsRefinements(t *testing.T) {
	f := newTurnFixture(t)
	ctx := context.Background()
	// A model that never stops extracting again.
	f.srv.Handle(func(r modeltest.Request) modeltest.Reply {
		if len(r.Format) > 0 {
			return modeltest.Reply{Text: `{"invoice_number":"A-1","total":12.5}`}
		}
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{
			{Name: "create_schema", Arguments: `{"name":"invoice","response_format":` + acInvoiceSchema + `}`},
			{Name: "create_prompt", Arguments: `{"name":"invoice","content":"Extract.","schema_id":"invoice"}`},
			{Name: "run_extraction", Arguments: `{}`},
		}}
	})
	res, err := (&agent.AutoCreator{Agent: f.agent}).Run(ctx, f.doc.ID, agent.AutoCreateOptions{})
	if err != nil || res.Status != storage.AutoCreateProposed {
		t.Fatalf("Run: %+v %v", res, err)
	}
	xs, _ := f.db.ListExtractions(ctx, f.doc.ID)
	if len(xs) != 3 {
		t.Errorf("%d extractions ran, want the limit, 3", len(xs))
	}
	if s, p, _, _ := countRows(t, f.db, f.doc); s != 1 || p != 1 {
		t.Errorf("%d schemas and %d prompts, want one each", s, p)
	}
}

// TestAutoCreateInterruptedGoesBackToPending: cancelling the run (Ctrl-C,
// shutdown) removes what it made and queues the document again.
func TestAutoCreateInterruptedGoesBackToPending(t *testing.T) {
	f := newTurnFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	f.srv.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{Name: "create_schema", Arguments: `{"name":"invoice","response_format":` + acInvoiceSchema + `}`}}},
		modeltest.Reply{Text: "never", Fault: modeltest.Fault{FirstTokenDelay: time.Hour}},
	)
	sink := agent.SinkFunc(func(e agent.Event) error {
		if r, ok := e.Payload.(agent.ToolResultPayload); ok && r.Name == "create_schema" {
			cancel() // while the next model call waits
		}
		return nil
	})
	res, err := (&agent.AutoCreator{Agent: f.agent}).Run(ctx, f.doc.ID, agent.AutoCreateOptions{Sink: sink})
	if err == nil || res.Status != storage.AutoCreatePending {
		t.Fatalf("Run: %+v %v", res, err)
	}
	d, _ := f.db.GetDocument(context.Background(), f.doc.ID)
	if d.AutoCreateStatus != storage.AutoCreatePending || d.AutoCreateSchemaID != "" {
		t.Errorf("document %+v", d)
	}
	if s, p, x, th := countRows(t, f.db, f.doc); s+p+x+th != 0 {
		t.Errorf("left: %d schemas, %d prompts, %d extractions, %d threads", s, p, x, th)
	}
}

// cancelSink deletes the run's document and cancels the run at the first
// event, so that putting the document back in the queue fails.
type cancelSink struct {
	db     *storage.DB
	doc    string
	cancel context.CancelFunc
	done   bool
}

func (s *cancelSink) Emit(agent.Event) error {
	if !s.done {
		s.done = true
		_ = s.db.DeleteDocument(context.Background(), s.doc)
		s.cancel()
	}
	return nil
}

func TestAutoCreateInterruptedReportsAFailedRequeue(t *testing.T) {
	f := newTurnFixture(t)
	scriptAutoCreate(f.srv, "invoice", `{"invoice_number":"A-1","total":12.5}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := (&agent.AutoCreator{Agent: f.agent}).Run(ctx, f.doc.ID, agent.AutoCreateOptions{Sink: &cancelSink{db: f.db, doc: f.doc.ID, cancel: cancel}})
	if err == nil || !strings.Contains(err.Error(), "interrupted") || !strings.Contains(err.Error(), "back in the queue") {
		t.Errorf("Run: %v, want the interruption and the failed requeue", err)
	}
}

// An interrupted run goes back to the queue with nothing of its attempt:
// the calls it had made outside its scope are neither in its result nor on
// the document, since the run that counts is the next one.
func TestAutoCreateInterruptedKeepsNoRefusals(t *testing.T) {
	f := newTurnFixture(t)
	v := plantVictims(t, f.db)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.srv.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{Name: "delete_document", Arguments: `{"document_id":"` + v.doc.ID + `"}`}}},
		modeltest.Reply{Text: "never", Fault: modeltest.Fault{FirstTokenDelay: time.Hour}},
	)
	refused := false
	sink := agent.SinkFunc(func(e agent.Event) error {
		if r, ok := e.Payload.(agent.ToolResultPayload); ok && r.Name == "delete_document" {
			refused = strings.HasPrefix(r.Error, "refused: ")
			cancel() // while the next model call waits
		}
		return nil
	})
	res, err := (&agent.AutoCreator{Agent: f.agent}).Run(ctx, f.doc.ID, agent.AutoCreateOptions{Sink: sink})
	if !refused {
		t.Fatalf("the run's delete_document was not refused: %+v %v", res, err)
	}
	if err == nil || res.Status != storage.AutoCreatePending {
		t.Fatalf("Run: %+v %v, want interrupted and pending", res, err)
	}
	if len(res.Refused) != 0 {
		t.Errorf("the interrupted run's result keeps its attempt's refusals %+v", res.Refused)
	}
	d, err := f.db.GetDocument(context.Background(), f.doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.AutoCreateStatus != storage.AutoCreatePending || len(d.AutoCreateRefused) != 0 {
		t.Errorf("requeued document: %s with refusals %+v, want pending with none", d.AutoCreateStatus, d.AutoCreateRefused)
	}
	v.checkUntouched(t, f.db)
}
