package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
)

var schedDocID = regexp.MustCompile(`doc_[0-9A-Z]{26}`)

// schedModel answers the requests of concurrent headless runs, telling
// them apart by their content: an extraction (it has a format) gets an
// answer, a round after tool results closes the turn, and a first round
// creates a schema and a prompt named after its document and extracts.
// firstRound, when set, is called in that last case before it answers.
func schedModel(firstRound func()) func(modeltest.Request) modeltest.Reply {
	return func(r modeltest.Request) modeltest.Reply {
		msgs, err := r.ChatMessages()
		if err != nil || len(msgs) == 0 {
			return modeltest.Reply{Fault: modeltest.Fault{Status: 400, Message: "unreadable request"}}
		}
		if len(r.Format) > 0 {
			return modeltest.Reply{Text: `{"invoice_number":"A-1","total":12.5}`}
		}
		if msgs[len(msgs)-1].Role == "tool" {
			return modeltest.Reply{Text: "Done: schema, prompt and extraction are ready."}
		}
		if firstRound != nil {
			firstRound()
		}
		name := "invoice " + strings.ToLower(schedDocID.FindString(msgs[0].Content))
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{
			{Name: "create_schema", Arguments: `{"name":"` + name + `","response_format":` + acInvoiceSchema + `}`},
			{Name: "create_prompt", Arguments: `{"name":"` + name + `","content":"Extract the invoice number and total.","schema_id":"` + name + `"}`},
			{Name: "run_extraction", Arguments: `{}`},
		}}
	}
}

// moreDocuments adds n ready documents to the fixture's store.
func (f *turnFixture) moreDocuments(t *testing.T, n int) []storage.Document {
	t.Helper()
	docs := []storage.Document{f.doc}
	for i := range n {
		d, err := f.db.CreateDocument(context.Background(), storage.NewDocument{
			Name: fmt.Sprintf("invoice-%d.txt", i), MediaType: "text/plain", Data: fmt.Appendf(nil, "invoice %d", i),
			Pages: []string{fmt.Sprintf("ACME Corporation\nInvoice B-%d\nTotal due: %d.00 EUR\n", i, 10+i)},
		})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	return docs
}

// waitStatus polls a document until its auto-create status is want; the
// deadline only guards against a hang.
func waitStatus(t *testing.T, db *storage.DB, docID, want string) storage.Document {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		d, err := db.GetDocument(context.Background(), docID)
		if err != nil {
			t.Fatal(err)
		}
		if d.AutoCreateStatus == want {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("auto-create of %s is %q (%s), want %q", d.Name, d.AutoCreateStatus, d.AutoCreateError, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// At most Concurrency runs go on at once, and as many as that do.
func TestSchedulerRunsAtMostConcurrencyAtOnce(t *testing.T) {
	f := newTurnFixture(t)
	docs := f.moreDocuments(t, 3)
	// Runs with a schema given only extract, so they may overlap (runs
	// that make a new kind take turns). Their extractions wait until two
	// runs are asking the model at once (the deadline only guards against
	// a hang), then all go on.
	if _, err := f.db.CreateSchema(context.Background(), "invoice", json.RawMessage(`{"type":"json_schema","json_schema":{"name":"invoice","schema":`+acInvoiceSchema+`,"strict":true}}`)); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	asking, overlapped := 0, make(chan struct{})
	answer := schedModel(nil)
	f.srv.Handle(func(r modeltest.Request) modeltest.Reply {
		if len(r.Format) > 0 {
			mu.Lock()
			asking++
			if asking == 2 {
				close(overlapped)
			}
			mu.Unlock()
			select {
			case <-overlapped:
			case <-time.After(30 * time.Second):
			}
		}
		return answer(r)
	})
	var active, most int
	var done []string
	sched := &agent.AutoCreateScheduler{
		Creator:     func() *agent.AutoCreator { return &agent.AutoCreator{Agent: f.agent} },
		Concurrency: 2,
		Options: func(d storage.Document) agent.AutoCreateOptions {
			mu.Lock()
			defer mu.Unlock()
			active++
			most = max(most, active)
			return agent.AutoCreateOptions{SchemaID: "invoice"}
		},
		Done: func(_ context.Context, d storage.Document, res agent.AutoCreateResult, err error) {
			mu.Lock()
			defer mu.Unlock()
			active--
			if err != nil || res.Status != storage.AutoCreateProposed {
				t.Errorf("%s: %+v %v", d.Name, res, err)
			}
			done = append(done, d.ID)
		},
	}
	sched.RunAll(context.Background(), docs)
	if most != 2 || len(done) != len(docs) {
		t.Errorf("%d runs at most at once, %d of %d done; want 2 and all", most, len(done), len(docs))
	}
	for _, d := range docs {
		waitStatus(t, f.db, d.ID, storage.AutoCreateProposed)
	}
}

// Cancelling the context interrupts the run under way, which goes back to
// pending, and starts no other.
func TestSchedulerStopsOnCancelAndRequeues(t *testing.T) {
	f := newTurnFixture(t)
	docs := f.moreDocuments(t, 1)
	asked := make(chan struct{}, 8)
	f.srv.Handle(func(modeltest.Request) modeltest.Reply {
		asked <- struct{}{}
		return modeltest.Reply{Text: "never", Fault: modeltest.Fault{FirstTokenDelay: time.Hour}}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var results []agent.AutoCreateResult
	sched := &agent.AutoCreateScheduler{
		Creator:     func() *agent.AutoCreator { return &agent.AutoCreator{Agent: f.agent} },
		Concurrency: 1,
		Done: func(_ context.Context, _ storage.Document, res agent.AutoCreateResult, _ error) {
			results = append(results, res) // one run at a time
		},
	}
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		sched.RunAll(ctx, docs)
	}()
	<-asked
	cancel()
	<-ran
	if len(results) != 1 || results[0].DocumentID != docs[0].ID || results[0].Status != storage.AutoCreatePending {
		t.Errorf("results %+v, want the first document back to pending", results)
	}
	if d, _ := f.db.GetDocument(context.Background(), docs[0].ID); d.AutoCreateStatus != storage.AutoCreatePending || d.AutoCreateThreadID != "" {
		t.Errorf("interrupted document: %s, thread %q", d.AutoCreateStatus, d.AutoCreateThreadID)
	}
	if d, _ := f.db.GetDocument(context.Background(), docs[1].ID); d.AutoCreateStatus != storage.AutoCreateNone {
		t.Errorf("the document after it is %s; want it not started", d.AutoCreateStatus)
	}
}

// Serve runs what is pending when it starts and what is queued later,
// each with the model it was queued with.
func TestSchedulerServesTheQueueWithEachDocumentsModel(t *testing.T) {
	small := modeltest.Model{Name: "llama3.2:1b", ContextLength: 8192, Capabilities: []string{"completion", "tools"}, Family: "llama"}
	f := newTurnFixture(t, modeltest.DefaultModel, small)
	docs := f.moreDocuments(t, 1)
	f.srv.Handle(schedModel(nil))
	ctx := context.Background()
	if _, err := f.db.QueueAutoCreate(ctx, "ollama/llama3.2:1b", docs[0].ID); err != nil {
		t.Fatal(err)
	}
	sched := &agent.AutoCreateScheduler{
		DB:          f.db,
		Creator:     func() *agent.AutoCreator { return &agent.AutoCreator{Agent: f.agent} },
		Concurrency: 1,
	}
	serveCtx, stop := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() {
		defer close(served)
		sched.Serve(serveCtx)
	}()
	defer func() { stop(); <-served }()

	waitStatus(t, f.db, docs[0].ID, storage.AutoCreateProposed)
	for _, r := range f.srv.Requests() {
		if r.Model != "llama3.2:1b" {
			t.Errorf("the queued run asked %q, want llama3.2:1b", r.Model)
		}
	}
	before := len(f.srv.Requests())
	if _, err := f.db.QueueAutoCreate(ctx, "", docs[1].ID); err != nil {
		t.Fatal(err)
	}
	sched.Wake()
	waitStatus(t, f.db, docs[1].ID, storage.AutoCreateProposed)
	reqs := f.srv.Requests()[before:]
	if len(reqs) == 0 {
		t.Fatal("the second document asked no model")
	}
	for _, r := range reqs {
		if r.Model != "qwen3:8b" {
			t.Errorf("a run queued without a model asked %q, want the default qwen3:8b", r.Model)
		}
	}
}
