package cli

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app"
	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// TestMain lets a test run the docent command in a child process that it
// can kill for real: the test binary re-executed with DOCENT_TEST_MAIN=1
// runs Run with the JSON array of arguments in DOCENT_TEST_ARGS, as
// main does.
func TestMain(m *testing.M) {
	pdftext.RunChildIfRequested() // the PDF reader's child is this binary too
	if os.Getenv("DOCENT_TEST_MAIN") == "1" {
		var args []string
		if err := json.Unmarshal([]byte(os.Getenv("DOCENT_TEST_ARGS")), &args); err != nil {
			fmt.Fprintln(os.Stderr, "DOCENT_TEST_ARGS:", err)
			os.Exit(ExitUsage)
		}
		os.Exit(Run(context.Background(), args, System()))
	}
	os.Exit(m.Run())
}

var docIDPattern = regexp.MustCompile(`doc_[0-9A-Z]{26}`)

// extractionAnswer is the scripted model's extraction of a document text:
// made from the text, so every document gets its own values.
func extractionAnswer(text string) string {
	sum := sha256.Sum256([]byte(text))
	return fmt.Sprintf(`{"invoice_number":"INV-%X","total":%d.25}`, sum[:4], len(text)%10000)
}

// autoCreateModel scripts a model for concurrent headless runs, telling
// the requests apart by their content: an extraction (it has a format) is
// answered from the text; the first round of a run creates a schema and a
// prompt named after the document and runs the extraction; the round after
// the tool results closes the turn. delay, when set, is every reply's
// latency.
func autoCreateModel(delay time.Duration) func(modeltest.Request) modeltest.Reply {
	return func(r modeltest.Request) modeltest.Reply {
		fault := modeltest.Fault{FirstTokenDelay: delay}
		msgs, err := r.ChatMessages()
		if err != nil || len(msgs) == 0 {
			return modeltest.Reply{Fault: modeltest.Fault{Status: 400, Message: "unreadable request"}}
		}
		last := msgs[len(msgs)-1]
		if len(r.Format) > 0 {
			return modeltest.Reply{Text: extractionAnswer(last.Content), Fault: fault}
		}
		if last.Role == "tool" {
			return modeltest.Reply{Text: "Done: schema, prompt and extraction are ready.", Fault: fault}
		}
		id := docIDPattern.FindString(msgs[0].Content)
		name := "invoice " + strings.ToLower(id[len(id)-8:])
		return modeltest.Reply{Fault: fault, ToolCalls: []modeltest.ToolCall{
			{Name: "validate_schema", Arguments: `{"schema":` + compactSchema + `}`},
			{Name: "create_schema", Arguments: `{"name":"` + name + `","response_format":` + compactSchema + `}`},
			{Name: "create_prompt", Arguments: `{"name":"` + name + `","content":"Extract the invoice number and the total.","schema_id":"` + name + `"}`},
			{Name: "run_extraction", Arguments: `{}`},
		}}
	}
}

const compactSchema = `{"type":"object","properties":{"invoice_number":{"type":"string"},"total":{"type":"number"}},"required":["invoice_number","total"],"additionalProperties":false}`

// autoCreateEnv points the providers at a scripted server.
func autoCreateEnv(t *testing.T, srv *modeltest.Server) {
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("DOCENT_MODEL", "ollama/qwen3:8b")
}

// corpusInvoices copies n small corpus invoices into a folder of their own.
func corpusInvoices(t *testing.T, n int) string {
	t.Helper()
	corpus := testcorpus.Dir(t)
	names := []string{
		"v1_ZUGFeRD_1p0_COMFORT_Haftpflichtversicherung_Versicherungssteuer.pdf",
		"v1_ZUGFeRD_1p0_COMFORT_Kraftfahrversicherung_Bruttopreise.pdf",
		"v1_ZUGFeRD_1p0_COMFORT_Sachversicherung_berechneter_Steuersatz.pdf",
		"v1_ZUGFeRD_1p0_BASIC_Einfach.pdf",
		"v2_Facture_FR_MINIMUM.pdf",
	}[:n]
	dir := t.TempDir()
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(corpus, "zugferd", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// textInvoices writes n small text invoices.
func textInvoices(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		text := fmt.Sprintf("ACME GmbH\nInvoice %03d\nTotal due: %d.00 EUR\n", i+1, 100+i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("invoice-%03d.txt", i+1)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func openData(t *testing.T, data string) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(data, app.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func allDocuments(t *testing.T, db *storage.DB) []storage.Document {
	t.Helper()
	docs, _, err := db.ListDocuments(context.Background(), storage.DocumentFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// checkProposedOnce checks that every document is proposed, with exactly
// one thread (the run's) and one extraction (the proposed one).
func checkProposedOnce(t *testing.T, db *storage.DB, docs []storage.Document) {
	t.Helper()
	ctx := context.Background()
	for _, d := range docs {
		if d.AutoCreateStatus != storage.AutoCreateProposed || d.AutoCreateSchemaID == "" || d.AutoCreatePromptID == "" || d.AutoCreateExtractionID == "" {
			t.Errorf("%s: status %s (%s), schema %q prompt %q extraction %q", d.Name, d.AutoCreateStatus, d.AutoCreateError,
				d.AutoCreateSchemaID, d.AutoCreatePromptID, d.AutoCreateExtractionID)
			continue
		}
		ths, _ := db.ListThreads(ctx, d.ID)
		if len(ths) != 1 || ths[0].ID != d.AutoCreateThreadID {
			t.Errorf("%s: %d threads, want the run's one (%s)", d.Name, len(ths), d.AutoCreateThreadID)
		}
		xs, _ := db.ListExtractions(ctx, d.ID)
		if len(xs) != 1 || xs[0].ID != d.AutoCreateExtractionID {
			t.Errorf("%s: %d extractions, want the proposed one", d.Name, len(xs))
		}
	}
}

// checkExportParsesBack exports a prompt to CSV and compares every cell
// with the stored extraction it came from.
func checkExportParsesBack(t *testing.T, data string, db *storage.DB, prompt string, wantRows int) {
	t.Helper()
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "out.csv")
	if code, out, errOut := docent(t, data, "export", "--prompt", prompt, "--out", file); code != ExitOK {
		t.Fatalf("export: exit %d\n%s\n%s", code, out, errOut)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse: %v", err)
	}
	want := "document_id,document_name,extraction_id,invoice_number,total,_edited"
	if len(recs) == 0 || strings.Join(recs[0], ",") != want {
		t.Fatalf("header %v, want %s", recs, want)
	}
	if len(recs)-1 != wantRows {
		t.Fatalf("%d rows, want %d", len(recs)-1, wantRows)
	}
	for _, rec := range recs[1:] {
		x, err := db.GetExtraction(ctx, rec[2])
		if err != nil {
			t.Fatalf("row %v: %v", rec, err)
		}
		d, _ := db.GetDocument(ctx, x.DocumentID)
		var v map[string]json.RawMessage
		if err := json.Unmarshal(x.Value, &v); err != nil {
			t.Fatal(err)
		}
		var number string
		_ = json.Unmarshal(v["invoice_number"], &number)
		if rec[0] != d.ID || rec[1] != d.Name || rec[3] != number || rec[4] != string(v["total"]) || rec[5] != "" {
			t.Errorf("row %q, stored %s %s %s", rec, d.ID, d.Name, x.Value)
		}
	}
}

func TestAutoCreateBatchOfCorpusInvoicesAtConcurrency2(t *testing.T) {
	dir := corpusInvoices(t, 4)
	srv := modeltest.New(t)
	autoCreateEnv(t, srv)
	srv.Handle(autoCreateModel(0))
	data := t.TempDir()

	code, out, errOut := docent(t, data, "auto-create", "--concurrency", "2", dir)
	t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
	if code != ExitOK {
		t.Fatalf("auto-create: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	for _, want := range []string{"DOCUMENT", "STATUS", "SCHEMA", "FIELDS", "TOKENS", "proposed", "2/2"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "auto-create: proposed 4") || !strings.Contains(errOut, "[4/4]") {
		t.Errorf("stderr:\n%s", errOut)
	}
	db := openData(t, data)
	docs := allDocuments(t, db)
	if len(docs) != 4 {
		t.Fatalf("%d documents", len(docs))
	}
	checkProposedOnce(t, db, docs)

	// A second run skips what is proposed, and asks the model nothing.
	before := len(srv.Requests())
	code, out, errOut = docent(t, data, "auto-create", "--json", "--all")
	if code != ExitOK || len(srv.Requests()) != before {
		t.Fatalf("rerun: exit %d, %d new model requests\n%s\n%s", code, len(srv.Requests())-before, out, errOut)
	}
	if !strings.Contains(errOut, "nothing to auto-create") {
		t.Errorf("rerun stderr: %s", errOut)
	}

	// Each document's prompt exports to a CSV that parses back.
	db2 := openData(t, data)
	for _, d := range allDocuments(t, db2) {
		checkExportParsesBack(t, data, db2, d.AutoCreatePromptID, 1)
	}
}

// TestAutoCreateWithASchemaOnlyExtractsAndExportsTheBatch: with --schema
// the model is only asked to extract (no tools), every document shares one
// prompt, and that prompt's export holds the whole batch.
func TestAutoCreateWithASchemaOnlyExtractsAndExportsTheBatch(t *testing.T) {
	dir := corpusInvoices(t, 4)
	srv := modeltest.New(t)
	autoCreateEnv(t, srv)
	srv.Handle(autoCreateModel(0))
	data := t.TempDir()
	schemaFile := filepath.Join(t.TempDir(), "invoice.json")
	if err := os.WriteFile(schemaFile, []byte(compactSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := docent(t, data, "schemas", "create", "--name", "invoice", "--file", schemaFile); code != ExitOK {
		t.Fatal(errOut)
	}
	code, out, errOut := docent(t, data, "auto-create", "--schema", "invoice", "--concurrency", "2", "--json", dir)
	if code != ExitOK {
		t.Fatalf("auto-create: exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Errorf("%d model requests, want one extraction per document", len(reqs))
	}
	for _, r := range reqs {
		if len(r.Tools) > 0 || len(r.Format) == 0 {
			t.Errorf("a request offered tools or no format: %s", r.Body)
		}
	}
	// stdout is NDJSON: events with a document_id, a result per document,
	// a summary.
	results, summaries := 0, 0
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var line struct {
			Type         string `json:"type"`
			DocumentID   string `json:"document_id"`
			Status       string `json:"status"`
			FieldsFilled int    `json:"fields_filled"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("not NDJSON: %q", sc.Text())
		}
		switch line.Type {
		case "auto_create_result":
			results++
			if line.Status != storage.AutoCreateProposed || line.FieldsFilled != 2 {
				t.Errorf("result %s", sc.Text())
			}
		case "auto_create_summary":
			summaries++
		case "auto_create_estimate":
		default:
			if line.DocumentID == "" {
				t.Errorf("an event without document_id: %s", sc.Text())
			}
		}
	}
	if results != 4 || summaries != 1 {
		t.Errorf("%d results and %d summaries", results, summaries)
	}
	db := openData(t, data)
	docs := allDocuments(t, db)
	checkProposedOnce(t, db, docs)
	s, _ := db.FindSchema(context.Background(), "invoice")
	for _, d := range docs {
		if d.AutoCreateSchemaID != s.SchemaID || d.AutoCreatePromptID != docs[0].AutoCreatePromptID {
			t.Errorf("%s: schema %s prompt %s, want the shared ones", d.Name, d.AutoCreateSchemaID, d.AutoCreatePromptID)
		}
	}
	checkExportParsesBack(t, data, db, "invoice (auto-create)", 4)
}

func TestAutoCreateSharedReusesTheFirstDocumentsSchema(t *testing.T) {
	dir := textInvoices(t, 3)
	srv := modeltest.New(t)
	autoCreateEnv(t, srv)
	srv.Handle(autoCreateModel(0))
	data := t.TempDir()
	if code, out, errOut := docent(t, data, "auto-create", "--shared", "--concurrency", "2", dir); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	db := openData(t, data)
	docs := allDocuments(t, db)
	checkProposedOnce(t, db, docs)
	_, schemas, _ := db.ListSchemas(context.Background(), storage.ListFilter{})
	_, prompts, _ := db.ListPrompts(context.Background(), storage.PromptFilter{})
	if schemas != 1 || prompts != 1 {
		t.Errorf("%d schemas and %d prompts, want the first document's only", schemas, prompts)
	}
	checkExportParsesBack(t, data, db, docs[0].AutoCreatePromptID, 3)
}

func TestAutoCreateTimeLimitFailsCleanly(t *testing.T) {
	dir := textInvoices(t, 1)
	srv := modeltest.New(t)
	autoCreateEnv(t, srv)
	srv.Handle(func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Text: "never", Fault: modeltest.Fault{FirstTokenDelay: time.Hour}}
	})
	data := t.TempDir()
	code, out, errOut := docent(t, data, "auto-create", "--timeout", "300ms", dir)
	if code != ExitFailure || !strings.Contains(errOut, "timed out after 300ms") || !strings.Contains(out, "failed") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	db := openData(t, data)
	d := allDocuments(t, db)[0]
	if d.AutoCreateStatus != storage.AutoCreateFailed || d.AutoCreateThreadID != "" || d.AutoCreateSchemaID != "" {
		t.Errorf("document %+v", d)
	}
	if ths, _ := db.ListThreads(context.Background(), d.ID); len(ths) != 0 {
		t.Errorf("the failed run left %d threads", len(ths))
	}
}

func TestExportUsage(t *testing.T) {
	data := t.TempDir()
	if code, _, _ := docent(t, data, "export"); code != ExitUsage {
		t.Errorf("export without --prompt: exit %d", code)
	}
	if code, _, _ := docent(t, data, "export", "--prompt", "p", "--format", "xls"); code != ExitUsage {
		t.Errorf("export --format xls: exit %d", code)
	}
	if code, _, errOut := docent(t, data, "export", "--prompt", "nope"); code != ExitFailure || !strings.Contains(errOut, "not found") {
		t.Errorf("export of an unknown prompt: exit %d %s", code, errOut)
	}
	if code, _, _ := docent(t, data, "auto-create"); code != ExitUsage {
		t.Errorf("auto-create without paths: exit %d", code)
	}
}

// TestAutoCreateKilledMidBatchResumesWithoutDuplicates runs a batch in a
// child process, kills it (SIGKILL) once the first document is proposed
// and the second is running, then runs the batch again: the second
// document, left running by the dead process, is reclaimed and every
// document ends with one schema, one prompt, one extraction and one thread.
func TestAutoCreateKilledMidBatchResumesWithoutDuplicates(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := textInvoices(t, 3)
	srv := modeltest.New(t)
	autoCreateEnv(t, srv)
	data := t.TempDir()
	if code, _, errOut := docent(t, data, "import", dir); code != ExitOK {
		t.Fatal(errOut)
	}
	db := openData(t, data)
	docs := allDocuments(t, db)

	// The first document to run goes through; the next one's model never
	// answers while the child lives.
	var mu sync.Mutex
	first, blocking := "", true
	blocked := make(chan struct{}, 16)
	script := autoCreateModel(0)
	srv.Handle(func(r modeltest.Request) modeltest.Reply {
		msgs, _ := r.ChatMessages()
		id := ""
		if len(msgs) > 0 {
			id = docIDPattern.FindString(msgs[0].Content)
		}
		mu.Lock()
		if first == "" && id != "" {
			first = id
		}
		block := blocking && id != "" && id != first
		mu.Unlock()
		if block {
			blocked <- struct{}{}
			return modeltest.Reply{Text: "never", Fault: modeltest.Fault{FirstTokenDelay: time.Hour}}
		}
		return script(r)
	})

	args, _ := json.Marshal([]string{"--data-dir", data, "auto-create", "--all", "--concurrency", "1", "--json"})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DOCENT_TEST_MAIN=1", "DOCENT_TEST_ARGS="+string(args))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// Wait for the first result, then for the second document to be asked.
	for line := range lines {
		if strings.Contains(line, `"type":"auto_create_result"`) {
			if !strings.Contains(line, `"status":"proposed"`) {
				t.Fatalf("the first document did not reach a proposal: %s\n%s", line, stderr.String())
			}
			break
		}
	}
	<-blocked
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed = true
	go func() {
		for range lines {
		}
	}()
	_ = cmd.Wait()
	if cmd.ProcessState.ExitCode() != -1 {
		t.Fatalf("the child was not killed: %v", cmd.ProcessState)
	}

	ctx := context.Background()
	running := 0
	for _, d := range allDocuments(t, db) {
		if d.AutoCreateStatus == storage.AutoCreateRunning {
			running++
		}
	}
	if running != 1 {
		t.Fatalf("after the kill %d documents are running, want the one that was cut off", running)
	}

	mu.Lock()
	blocking = false
	mu.Unlock()
	// The dead process's claim is reclaimed at once with --stale-after
	// (by default it would be after the timeout plus a minute).
	code, out, errOut := docent(t, data, "auto-create", "--all", "--stale-after", "1ms")
	if code != ExitOK {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, errOut)
	}
	docs = allDocuments(t, db)
	checkProposedOnce(t, db, docs)
	_, schemas, _ := db.ListSchemas(ctx, storage.ListFilter{})
	_, prompts, _ := db.ListPrompts(ctx, storage.PromptFilter{})
	if schemas != 3 || prompts != 3 {
		t.Errorf("%d schemas and %d prompts for 3 documents", schemas, prompts)
	}
}

// TestRejectFromTheStoreAfterABatch: rejecting one document's proposal
// removes its schema, prompt and extraction and leaves the others'.
func TestRejectAfterABatchRemovesOnlyItsOwn(t *testing.T) {
	dir := textInvoices(t, 2)
	srv := modeltest.New(t)
	autoCreateEnv(t, srv)
	srv.Handle(autoCreateModel(0))
	data := t.TempDir()
	if code, out, errOut := docent(t, data, "auto-create", dir); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	db := openData(t, data)
	ctx := context.Background()
	docs := allDocuments(t, db)
	gone, kept := docs[0], docs[1]
	if _, err := db.RejectAutoCreate(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.GetSchema(ctx, gone.AutoCreateSchemaID); fault.ErrorCode(err) != "not_found" {
		t.Errorf("the rejected schema is left: %v", err)
	}
	if _, err := db.GetPrompt(ctx, gone.AutoCreatePromptID); fault.ErrorCode(err) != "not_found" {
		t.Errorf("the rejected prompt is left: %v", err)
	}
	for _, id := range []string{kept.AutoCreateSchemaID} {
		if _, err := db.GetSchema(ctx, id); err != nil {
			t.Errorf("the other document's schema is gone: %v", err)
		}
	}
	if _, err := db.GetExtraction(ctx, kept.AutoCreateExtractionID); err != nil {
		t.Errorf("the other document's extraction is gone: %v", err)
	}
	// The rejected document runs again with --all.
	if code, out, errOut := docent(t, data, "auto-create", "--all"); code != ExitOK || !strings.Contains(errOut, "proposed 1") {
		t.Errorf("rerun after reject: exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestImportAutoCreateQueuesForTheNextBatch(t *testing.T) {
	dir := textInvoices(t, 2)
	srv := modeltest.New(t)
	autoCreateEnv(t, srv)
	srv.Handle(autoCreateModel(0))
	data := t.TempDir()
	code, _, errOut := docent(t, data, "import", "--auto-create", dir)
	if code != ExitOK || !strings.Contains(errOut, "queued 2 documents for auto-create") || len(srv.Requests()) != 0 {
		t.Fatalf("import --auto-create: exit %d, %d model requests\n%s", code, len(srv.Requests()), errOut)
	}
	db := openData(t, data)
	for _, d := range allDocuments(t, db) {
		if d.AutoCreateStatus != storage.AutoCreatePending {
			t.Errorf("%s: %s", d.Name, d.AutoCreateStatus)
		}
	}
	code, out, errOut := docent(t, data, "show", allDocuments(t, db)[0].ID, "--json")
	if code != ExitOK || !strings.Contains(out, `"auto_create_status": "pending"`) && !strings.Contains(out, `"auto_create_status":"pending"`) {
		t.Errorf("show --json: %s %s", out, errOut)
	}
	if code, out, errOut := docent(t, data, "auto-create", "--all"); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	checkProposedOnce(t, db, allDocuments(t, db))
}

// `docent import --auto-create --model M` stores M with each queued
// document: the next batch (another process, after a restart) runs them on
// M rather than on DOCENT_MODEL, and --model on the batch wins over both.
func TestImportAutoCreateWithAModelRunsOnIt(t *testing.T) {
	small := modeltest.Model{Name: "llama3.2:1b", ContextLength: 8192, Capabilities: []string{"completion", "tools"}, Family: "llama"}
	srv := modeltest.New(t, modeltest.DefaultModel, small)
	autoCreateEnv(t, srv) // DOCENT_MODEL is ollama/qwen3:8b
	srv.Handle(autoCreateModel(0))
	data := t.TempDir()
	dir := textInvoices(t, 2)
	if code, _, errOut := docent(t, data, "import", "--auto-create", "--model", "llama3.2:1b", dir); code != ExitUsage || !strings.Contains(errOut, "--model") {
		t.Errorf("a model without its provider: exit %d\n%s", code, errOut)
	}
	code, _, errOut := docent(t, data, "import", "--auto-create", "--model", "ollama/llama3.2:1b", dir)
	if code != ExitOK || !strings.Contains(errOut, "queued 2 documents for auto-create") {
		t.Fatalf("import --auto-create --model: exit %d\n%s", code, errOut)
	}
	if code, out, errOut := docent(t, data, "auto-create", "--all"); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model requests")
	}
	for _, r := range reqs {
		if r.Model != "llama3.2:1b" {
			t.Errorf("%s asked for %q, want the queued llama3.2:1b", r.Path, r.Model)
		}
	}
	db := openData(t, data)
	checkProposedOnce(t, db, allDocuments(t, db))

	// Queued with a model again, run with --model: the flag wins.
	ctx := context.Background()
	for _, d := range allDocuments(t, db) {
		if _, err := db.RejectAutoCreate(ctx, d.ID); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errOut := docent(t, data, "import", "--auto-create", "--model", "ollama/llama3.2:1b", dir); code != ExitOK {
		t.Fatalf("import again: exit %d\n%s", code, errOut)
	}
	before := len(srv.Requests())
	if code, out, errOut := docent(t, data, "--model", "ollama/qwen3:8b", "auto-create", "--all"); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if len(srv.Requests()) == before {
		t.Fatal("the second batch asked no model")
	}
	for _, r := range srv.Requests()[before:] {
		if r.Model != "qwen3:8b" {
			t.Errorf("with --model, %s asked for %q", r.Path, r.Model)
		}
	}
}

// TestAutoCreateTheZugferdFolderAtConcurrency4 is a batch as a person runs it:
// `docent auto-create --concurrency 4 ../shared/corpus/zugferd`. Docent
// reads every PDF there, and each gets a proposal and one thread.
func TestAutoCreateTheZugferdFolderAtConcurrency4(t *testing.T) {
	folder := filepath.Join(testcorpus.Dir(t), "zugferd")
	srv := modeltest.New(t)
	autoCreateEnv(t, srv)
	srv.Handle(autoCreateModel(0))
	data := t.TempDir()

	code, out, errOut := docent(t, data, "auto-create", "--concurrency", "4", folder)
	if code != ExitOK {
		t.Fatalf("auto-create: exit %d\n%s\n%s", code, out, errOut)
	}
	pdfs, err := filepath.Glob(filepath.Join(folder, "*.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	db := openData(t, data)
	docs := allDocuments(t, db)
	if len(docs) != len(pdfs) {
		t.Fatalf("%d documents from %d PDFs\n%s", len(docs), len(pdfs), errOut)
	}
	checkProposedOnce(t, db, docs)
	if !strings.Contains(errOut, fmt.Sprintf("auto-create: proposed %d", len(pdfs))) {
		t.Errorf("stderr does not report %d proposals:\n%s", len(pdfs), clipTail(errOut, 600))
	}
}

// clipTail is the end of s, at most n bytes.
func clipTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// TestAutoCreateSkippingARunningDocumentSaysHowToTakeItOver: a process
// that crashed or was killed leaves its document marked running; the next
// batch skips it, and says since when, when it is taken over, and that
// --stale-after takes it over at once.
func TestAutoCreateSkippingARunningDocumentSaysHowToTakeItOver(t *testing.T) {
	srv := modeltest.New(t)
	autoCreateEnv(t, srv)
	data := t.TempDir()
	if code, _, errOut := docent(t, data, "import", textInvoices(t, 1)); code != ExitOK {
		t.Fatal(errOut)
	}
	db := openData(t, data)
	doc := allDocuments(t, db)[0]
	// What the dead process's claim left behind.
	claim, err := db.ClaimAutoCreate(context.Background(), doc.ID, 0)
	if err != nil || claim.Document.AutoCreateUpdatedAt == nil {
		t.Fatalf("claim: %+v, %v", claim, err)
	}
	since := *claim.Document.AutoCreateUpdatedAt

	code, out, errOut := docent(t, data, "auto-create", "--all")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	// The default time limit is 2m, plus a minute's grace.
	for _, want := range []string{
		"skipped, still marked running:\n  " + doc.Name + ": still marked running since " + clockTime(since),
		"taken over after 3m0s (at " + clockTime(since.Add(3*time.Minute)) + ")",
		"or at once with --stale-after 1s",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests for a skipped document", n)
	}
}

// TestAutoCreateWithAnUnknownProviderNamesTheModelOnce: the model id is
// quoted once in the error, not once by each layer it passes.
func TestAutoCreateWithAnUnknownProviderNamesTheModelOnce(t *testing.T) {
	srv := modeltest.New(t)
	autoCreateEnv(t, srv)
	t.Setenv("DOCENT_MODEL", "anthropic/claude")
	code, out, errOut := docent(t, t.TempDir(), "auto-create", textInvoices(t, 1))
	want := `invoice-001.txt: model "anthropic/claude": unknown provider "anthropic", want ollama or openai: name it as ollama/<model>`
	if code != ExitFailure || !strings.Contains(errOut, want) || strings.Contains(errOut, `model "anthropic/claude": model`) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, errOut, ExitFailure, want)
	}
	if strings.Contains(out, `model "anthropic/claude": model`) {
		t.Errorf("stdout repeats the prefix:\n%s", out)
	}
}
