package server_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage"
)

// scriptAutoCreate queues the model's side of one headless run: a schema, a
// prompt, the extraction (and its own structured-output call), an answer.
func scriptAutoCreate(m *modeltest.Server, name string) {
	m.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "a1", Name: "create_schema", Arguments: `{"name":"` + name + `","response_format":` + invoiceSchema + `}`}}},
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "a2", Name: "create_prompt", Arguments: `{"name":"` + name + ` prompt","content":"Extract the invoice number and total.","schema_id":"` + name + `"}`}}},
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "a3", Name: "run_extraction", Arguments: `{"prompt_revid":"` + name + ` prompt"}`}}},
		modeltest.Reply{Text: `{"invoice_number":"A-1","total":12.5}`},
		modeltest.Reply{Text: "Proposed a schema, a prompt and an extraction."},
	)
}

// waitAutoCreate polls the document until its auto-create status is want.
func (f *fixture) waitAutoCreate(docID, want string) storage.Document {
	f.t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // only against a hang (OCR of a photo on a busy machine takes a while)
	for {
		var d storage.Document
		f.call(http.MethodGet, "/api/documents/"+docID, nil, http.StatusOK, &d)
		if d.AutoCreateStatus == want {
			return d
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("auto-create of %s is %q (%s), want %q", docID, d.AutoCreateStatus, d.AutoCreateError, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestAutoCreateFromUploadToReviewAndExport(t *testing.T) {
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
	doc := up.Documents[0]
	if doc.AutoCreateStatus != storage.AutoCreatePending && doc.AutoCreateStatus != storage.AutoCreateRunning {
		t.Errorf("an upload with auto_create answered status %q", doc.AutoCreateStatus)
	}
	d := f.waitAutoCreate(doc.ID, storage.AutoCreateProposed)
	if d.AutoCreateSchemaID == "" || d.AutoCreatePromptID == "" || d.AutoCreateExtractionID == "" || d.AutoCreateThreadID == "" {
		t.Fatalf("proposed without its links: %+v", d)
	}
	// The run's conversation is a thread of the document.
	f.call(http.MethodGet, "/api/documents/"+doc.ID+"/chat/threads/"+d.AutoCreateThreadID, nil, http.StatusOK, nil)

	// Running it again needs a reject first.
	f.wantError(http.MethodPost, "/api/documents/"+doc.ID+"/auto-create", nil, http.StatusConflict, "conflict")

	// The export of the proposal's prompt, as a download.
	req := f.request(t.Context(), http.MethodGet, "/api/prompts/"+d.AutoCreatePromptID+"/export?format=csv", nil)
	res, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(res.Body).ReadAll()
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("export: %d %v %q", res.StatusCode, err, res.Header.Get("Content-Disposition"))
	}
	if len(rows) != 2 || !strings.Contains(strings.Join(rows[0], ","), "invoice_number") || !strings.Contains(strings.Join(rows[1], ","), "A-1") {
		t.Errorf("export rows = %q", rows)
	}
	f.wantError(http.MethodGet, "/api/prompts/"+d.AutoCreatePromptID+"/export?format=ods", nil, http.StatusBadRequest, "invalid")

	// Reject removes what the run made; the document can run again.
	var rejected storage.Document
	f.call(http.MethodPost, "/api/documents/"+doc.ID+"/auto-create/reject", nil, http.StatusOK, &rejected)
	if rejected.AutoCreateStatus != storage.AutoCreateRejected {
		t.Errorf("after reject: %q", rejected.AutoCreateStatus)
	}
	f.wantError(http.MethodGet, "/api/schemas/"+d.AutoCreateSchemaID, nil, http.StatusNotFound, "not_found")

	scriptAutoCreate(f.model, "Invoice again")
	var queued storage.Document
	f.call(http.MethodPost, "/api/documents/"+doc.ID+"/auto-create", map[string]string{"model": testModel}, http.StatusAccepted, &queued)
	f.waitAutoCreate(doc.ID, storage.AutoCreateProposed)
	var accepted storage.Document
	f.call(http.MethodPost, "/api/documents/"+doc.ID+"/auto-create/accept", nil, http.StatusOK, &accepted)
	if accepted.AutoCreateStatus != storage.AutoCreateAccepted {
		t.Errorf("after accept: %q", accepted.AutoCreateStatus)
	}
	// Accepting twice, or an unknown document, are errors.
	f.wantError(http.MethodPost, "/api/documents/"+doc.ID+"/auto-create/accept", nil, http.StatusConflict, "conflict")
	f.wantError(http.MethodPost, "/api/documents/doc_missing/auto-create", nil, http.StatusNotFound, "not_found")
	f.wantError(http.MethodPost, "/api/documents/"+doc.ID+"/auto-create", map[string]string{"model": "gpt"}, http.StatusBadRequest, "invalid")
}

// The model a POST queues a document with is stored with it: after a
// restart, the next server runs the document on that model.
func TestQueuedModelSurvivesARestart(t *testing.T) {
	f := newFixture(t)
	f.srv.Close() // this server runs nothing: the queue waits for the next one
	var queued storage.Document
	f.call(http.MethodPost, "/api/documents/"+f.doc.ID+"/auto-create", map[string]string{"model": "ollama/llama3.2:1b"}, http.StatusAccepted, &queued)
	if queued.AutoCreateStatus != storage.AutoCreatePending || len(f.model.Requests()) != 0 {
		t.Fatalf("queued %q with %d model requests", queued.AutoCreateStatus, len(f.model.Requests()))
	}

	// The restart: a new store handle, a new server, a model server that
	// offers the queued model beside the default.
	f.ts.Close()
	if err := f.db.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := storage.Open(ctx, f.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	small := modeltest.New(t, modeltest.Model{Name: "llama3.2:1b", ContextLength: 8192, Capabilities: []string{"completion", "tools"}, Family: "llama"}, modeltest.DefaultModel)
	scriptAutoCreate(small, "Invoice")
	reg := provider.NewRegistry(provider.Config{OllamaHost: small.OllamaURL(), IdleTimeout: 10 * time.Second, MaxRetries: -1})
	srv := server.New(server.Config{
		DB: db, Version: "test", Assets: fstest.MapFS{"index.html": {Data: []byte("<title>Docent</title>")}},
		Agent: &agent.Agent{DB: db, Providers: reg, DefaultModel: testModel,
			Extractor: &agent.Extractor{DB: db, Providers: reg, DefaultModel: testModel}},
	})
	srv.Start(ctx)
	t.Cleanup(srv.Close)

	deadline := time.Now().Add(2 * time.Minute) // only against a hang (OCR of a photo on a busy machine takes a while)
	for {
		d, err := db.GetDocument(ctx, f.doc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d.AutoCreateStatus == storage.AutoCreateProposed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the restart auto-create is %q (%s), want proposed", d.AutoCreateStatus, d.AutoCreateError)
		}
		time.Sleep(20 * time.Millisecond)
	}
	reqs := small.Requests()
	if len(reqs) == 0 {
		t.Fatal("the run asked no model")
	}
	for _, r := range reqs {
		if r.Model != "llama3.2:1b" {
			t.Errorf("%s asked for %q, want the queued llama3.2:1b", r.Path, r.Model)
		}
	}
}

// Close stops the background work and waits for it: the run under way is
// back in the queue by the time Close returns.
func TestCloseInterruptsTheQueuedRunAndWaits(t *testing.T) {
	f := newFixture(t)
	asked := make(chan struct{}, 8)
	f.model.Handle(func(modeltest.Request) modeltest.Reply {
		asked <- struct{}{}
		return modeltest.Reply{Text: "never", Fault: modeltest.Fault{FirstTokenDelay: time.Hour}}
	})
	f.call(http.MethodPost, "/api/documents/"+f.doc.ID+"/auto-create", nil, http.StatusAccepted, nil)
	<-asked
	f.srv.Close()
	d, err := f.db.GetDocument(context.Background(), f.doc.ID)
	if err != nil || d.AutoCreateStatus != storage.AutoCreatePending || d.AutoCreateThreadID != "" {
		t.Errorf("after Close: %q, thread %q, %v; want pending with nothing left of the run", d.AutoCreateStatus, d.AutoCreateThreadID, err)
	}
}

// A photo uploaded with auto_create waits for OCR, then runs: the OCR
// worker's end wakes the auto-create queue.
func TestAutoCreateOfAnUploadedPhotoRunsAfterOCR(t *testing.T) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("tesseract is required in CI: %v", err)
		}
		t.Skip("skipping: tesseract is not installed (sudo apt-get install tesseract-ocr)")
	}
	photo, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), "sroie", "000.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	scriptAutoCreate(f.model, "Receipt")
	status, body := f.upload(map[string]string{"receipt.jpg": string(photo)}, map[string][]string{"auto_create": {"true"}})
	if status != http.StatusOK {
		t.Fatalf("upload: %d %s", status, body)
	}
	var up struct{ Documents []storage.Document }
	if err := json.Unmarshal(body, &up); err != nil || len(up.Documents) != 1 {
		t.Fatalf("upload answer %s: %v", body, err)
	}
	doc := up.Documents[0]
	if doc.Status == storage.StatusReady || doc.AutoCreateStatus != storage.AutoCreatePending {
		t.Fatalf("the photo was answered %s with auto-create %q, want waiting for OCR and pending", doc.Status, doc.AutoCreateStatus)
	}
	d := f.waitAutoCreate(doc.ID, storage.AutoCreateProposed)
	if d.Status != storage.StatusReady || d.AutoCreateExtractionID == "" {
		t.Errorf("after OCR and auto-create: %s, extraction %q", d.Status, d.AutoCreateExtractionID)
	}
}
