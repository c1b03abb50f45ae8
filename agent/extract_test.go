package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
)

// extractSchema is the inner JSON Schema the extraction tests link to their
// prompt.
const extractSchema = `{
	"type": "object",
	"properties": {
		"invoice_number": {"type": "string"},
		"date": {"type": "string"},
		"total": {"type": "number"},
		"currency": {"type": "string"},
		"notes": {"type": ["string", "null"]},
		"lines": {
			"type": "array",
			"items": {
				"type": "object",
				"properties": {"name": {"type": "string"}, "amount": {"type": "number"}},
				"required": ["name", "amount"],
				"additionalProperties": false
			}
		}
	},
	"required": ["invoice_number", "date", "total", "currency", "notes", "lines"],
	"additionalProperties": false
}`

// invoicePages is the text of a two-page AWS invoice, as the PDF reader
// gives it.
var invoicePages = []string{
	"Amazon Web Services, Inc.\nInvoice\nInvoice Number: 42183017\nInvoice Date: August 3, 2014\n" +
		"Account number: 5520-2221-1234\nBill to: Example GmbH, Musterstr. 1, Berlin\n" +
		"Detail            Amount\nAWS Data Transfer        $0.01\nAmazon Elastic Compute Cloud   $1.87\n",
	"Amazon Glacier   $2.22\nAmazon Simple Storage Service   $0.01\n" +
		"Total amount due (USD)   $4.11\naws.amazon.com\n",
}

// expectedInvoice is what a good model extracts from invoicePages, taken
// from the shared corpus's ground truth for AmazonWebServices.pdf when the
// corpus is there (the text above is that invoice's), else written out.
func expectedInvoice(t *testing.T) map[string]any {
	t.Helper()
	want := map[string]any{
		"invoice_number": "42183017", "date": "2014-08-03", "total": 4.11, "currency": "USD", "notes": nil,
		"lines": []any{
			map[string]any{"name": "AWS Data Transfer", "amount": 0.01},
			map[string]any{"name": "Amazon Elastic Compute Cloud", "amount": 1.87},
			map[string]any{"name": "Amazon Glacier", "amount": 2.22},
			map[string]any{"name": "Amazon Simple Storage Service", "amount": 0.01},
		},
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return want
	}
	path := filepath.Join(filepath.Dir(file), "..", "..", "shared", "corpus", "invoice2data", "AmazonWebServices.expected.json")
	if dir := os.Getenv("DOCENT_CORPUS"); dir != "" {
		path = filepath.Join(dir, "invoice2data", "AmazonWebServices.expected.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return want
	}
	var gt []struct {
		Amount        float64 `json:"amount"`
		Date          string  `json:"date"`
		InvoiceNumber string  `json:"invoice_number"`
		Currency      string  `json:"currency"`
		Lines         []struct {
			Name      string `json:"name"`
			PriceUnit string `json:"price_unit"`
		} `json:"lines"`
	}
	if err := json.Unmarshal(data, &gt); err != nil || len(gt) != 1 {
		t.Fatalf("%s: %v (%d entries)", path, err, len(gt))
	}
	lines := []any{}
	for _, l := range gt[0].Lines {
		amount, err := strconv.ParseFloat(l.PriceUnit, 64)
		if err != nil {
			t.Fatalf("%s: line %q: %v", path, l.Name, err)
		}
		lines = append(lines, map[string]any{"name": l.Name, "amount": amount})
	}
	return map[string]any{
		"invoice_number": gt[0].InvoiceNumber, "date": gt[0].Date, "total": gt[0].Amount,
		"currency": gt[0].Currency, "notes": nil, "lines": lines,
	}
}

// extractFixture is a store with an invoice, a schema and a prompt linked
// to it, and an Extractor talking to a scripted model server.
type extractFixture struct {
	db     *storage.DB
	srv    *modeltest.Server
	x      *Extractor
	doc    storage.Document
	prompt storage.PromptRevision
	want   map[string]any
}

func newExtractFixture(t *testing.T, models ...modeltest.Model) *extractFixture {
	t.Helper()
	ctx := context.Background()
	db := openStore(t)
	srv := modeltest.New(t, models...)
	doc, err := db.CreateDocument(ctx, storage.NewDocument{
		Name: "AmazonWebServices.pdf", MediaType: "application/pdf",
		Data: []byte("%PDF-1.4 test invoice"), Status: storage.StatusReady, Pages: invoicePages,
	})
	if err != nil {
		t.Fatal(err)
	}
	sch, err := CreateSchema(ctx, db, "invoice", json.RawMessage(extractSchema))
	if err != nil {
		t.Fatal(err)
	}
	prompt, err := db.CreatePrompt(ctx, storage.NewPrompt{
		Name: "aws", Content: "Extract the invoice number, date, total, currency and line items.", SchemaID: sch.SchemaID,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &extractFixture{
		db: db, srv: srv, doc: doc, prompt: prompt, want: expectedInvoice(t),
		x: &Extractor{DB: db, Providers: testRegistry(srv.OllamaURL(), srv.OpenAIURL())},
	}
}

func testRegistry(ollamaHost, openaiURL string) *provider.Registry {
	return provider.NewRegistry(provider.Config{
		OllamaHost: ollamaHost, OpenAIBaseURL: openaiURL, OpenAIKey: "test",
		IdleTimeout: 5 * time.Second, MaxRetries: -1,
	})
}

// eachWire runs fn once with an Ollama and once with an OpenAI model id.
func eachWire(t *testing.T, fn func(t *testing.T, model string)) {
	for _, wire := range []string{"ollama", "openai"} {
		t.Run(wire, func(t *testing.T) { fn(t, wire+"/qwen3:8b") })
	}
}

func (f *extractFixture) run(t *testing.T, model string) (storage.Extraction, error) {
	t.Helper()
	return f.x.Run(context.Background(), ExtractRequest{DocumentID: f.doc.ID, PromptRevID: f.prompt.PromptRevID, Model: model})
}

func (f *extractFixture) answer(t *testing.T, edit func(map[string]any)) string {
	t.Helper()
	v := map[string]any{}
	for k, x := range f.want {
		v[k] = x
	}
	if edit != nil {
		edit(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func messagesOf(t *testing.T, r modeltest.Request) []modeltest.Message {
	t.Helper()
	msgs, err := r.ChatMessages()
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// sentSchema is the JSON Schema a request carried as structured output.
func sentSchema(t *testing.T, r modeltest.Request) json.RawMessage {
	t.Helper()
	if r.Wire == "ollama" {
		return r.Format
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(r.Format, &rf); err != nil || rf.Type != "json_schema" {
		t.Fatalf("response_format %s: %v", r.Format, err)
	}
	return rf.JSONSchema.Schema
}

func TestExtractValidAnswerIsStoredWithItsUsage(t *testing.T) {
	eachWire(t, func(t *testing.T, model string) {
		f := newExtractFixture(t)
		answer := f.answer(t, nil)
		f.srv.Enqueue(modeltest.Reply{Text: answer, PromptTokens: 900, CompletionTokens: 120})
		ext, err := f.run(t, model)
		if err != nil {
			t.Fatal(err)
		}
		if ext.ValidationStatus != storage.ValidationValid || string(ext.ValidationErrors) != "[]" {
			t.Errorf("status %s, errors %s; want valid, []", ext.ValidationStatus, ext.ValidationErrors)
		}
		if !jsonEqual(t, ext.Value, []byte(answer)) || ext.RawOutput != answer {
			t.Errorf("value %s, raw %q; want %s", ext.Value, ext.RawOutput, answer)
		}
		if ext.Model != model || ext.PromptRevID != f.prompt.PromptRevID || ext.DocumentID != f.doc.ID {
			t.Errorf("stored model %q prompt %q doc %q", ext.Model, ext.PromptRevID, ext.DocumentID)
		}
		if ext.PromptTokens != 900 || ext.CompletionTokens != 120 {
			t.Errorf("usage %d/%d, want 900/120", ext.PromptTokens, ext.CompletionTokens)
		}
		if got, err := f.db.GetExtraction(context.Background(), ext.ID); err != nil || !jsonEqual(t, got.Value, ext.Value) {
			t.Errorf("stored extraction %+v, %v", got, err)
		}

		reqs := f.srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests, want 1", len(reqs))
		}
		if !jsonEqual(t, sentSchema(t, reqs[0]), []byte(extractSchema)) {
			t.Errorf("structured output sent %s, want the prompt's schema", reqs[0].Format)
		}
		msgs := messagesOf(t, reqs[0])
		if len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Role != "user" {
			t.Fatalf("messages %+v, want system and user", msgs)
		}
		if !strings.HasPrefix(msgs[0].Content, extractInstruction+"\n\n") || !strings.HasSuffix(msgs[0].Content, f.prompt.Content) {
			t.Errorf("system message %q, want the instruction then the prompt", msgs[0].Content)
		}
		for _, want := range []string{"--- page 1 ---\nAmazon Web Services", "--- page 2 ---\nAmazon Glacier", "Total amount due (USD)   $4.11"} {
			if !strings.Contains(msgs[1].Content, want) {
				t.Errorf("user message lacks %q:\n%s", want, msgs[1].Content)
			}
		}
	})
}

func TestExtractAnswerInFencesAndProseIsParsed(t *testing.T) {
	f := newExtractFixture(t)
	answer := f.answer(t, nil)
	f.srv.Enqueue(modeltest.Reply{Text: "Here is the data:\n```json\n" + answer + "\n```\nDone."})
	ext, err := f.run(t, "ollama/qwen3:8b")
	if err != nil {
		t.Fatal(err)
	}
	if ext.ValidationStatus != storage.ValidationValid || !jsonEqual(t, ext.Value, []byte(answer)) || len(f.srv.Requests()) != 1 {
		t.Errorf("status %s, value %s after %d requests; want valid, the object, 1", ext.ValidationStatus, ext.Value, len(f.srv.Requests()))
	}
}

func TestExtractWrongTypeIsRepairedOnTheSecondCall(t *testing.T) {
	eachWire(t, func(t *testing.T, model string) {
		f := newExtractFixture(t)
		bad := f.answer(t, func(v map[string]any) { v["total"] = "$4.11" })
		good := f.answer(t, nil)
		f.srv.Enqueue(
			modeltest.Reply{Text: bad, PromptTokens: 900, CompletionTokens: 120},
			modeltest.Reply{Text: good, PromptTokens: 1100, CompletionTokens: 110},
		)
		ext, err := f.run(t, model)
		if err != nil {
			t.Fatal(err)
		}
		if ext.ValidationStatus != storage.ValidationValid || !jsonEqual(t, ext.Value, []byte(good)) || ext.RawOutput != good {
			t.Errorf("status %s, value %s; want valid %s", ext.ValidationStatus, ext.Value, good)
		}
		if ext.PromptTokens != 2000 || ext.CompletionTokens != 230 {
			t.Errorf("usage %d/%d, want the sum 2000/230", ext.PromptTokens, ext.CompletionTokens)
		}
		reqs := f.srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}
		msgs := messagesOf(t, reqs[1])
		if len(msgs) != 4 || msgs[2].Role != "assistant" || msgs[2].Content != bad || msgs[3].Role != "user" {
			t.Fatalf("repair messages %+v, want history, the bad answer, the problems", msgs)
		}
		for _, want := range []string{"Your answer does not match the schema:\n- /total: ", "Answer again with the corrected JSON object only."} {
			if !strings.Contains(msgs[3].Content, want) {
				t.Errorf("repair message %q lacks %q", msgs[3].Content, want)
			}
		}
		if !jsonEqual(t, sentSchema(t, reqs[1]), []byte(extractSchema)) {
			t.Errorf("repair call sent format %s", reqs[1].Format)
		}
	})
}

func TestExtractStillInvalidAfterRepairIsStoredInvalid(t *testing.T) {
	eachWire(t, func(t *testing.T, model string) {
		f := newExtractFixture(t)
		bad := f.answer(t, func(v map[string]any) { v["total"] = "$4.11" })
		worse := f.answer(t, func(v map[string]any) { v["total"] = "4.11 USD"; delete(v, "date") })
		f.srv.Enqueue(modeltest.Reply{Text: bad}, modeltest.Reply{Text: worse})
		ext, err := f.run(t, model)
		if err != nil {
			t.Fatal(err)
		}
		if ext.ValidationStatus != storage.ValidationInvalid || !jsonEqual(t, ext.Value, []byte(worse)) || ext.RawOutput != worse {
			t.Errorf("status %s, value %s; want invalid with the second answer", ext.ValidationStatus, ext.Value)
		}
		var problems []struct{ Path, Message string }
		if err := json.Unmarshal(ext.ValidationErrors, &problems); err != nil {
			t.Fatal(err)
		}
		paths := map[string]bool{}
		for _, p := range problems {
			paths[p.Path] = p.Message != ""
		}
		if !paths["/total"] || len(problems) < 2 {
			t.Errorf("validation errors %s, want /total and the missing date", ext.ValidationErrors)
		}
		if n := len(f.srv.Requests()); n != 2 {
			t.Errorf("%d requests, want exactly 2", n)
		}
	})
}

func TestExtractNonJSONTwiceIsStoredInvalidWithoutValue(t *testing.T) {
	eachWire(t, func(t *testing.T, model string) {
		f := newExtractFixture(t)
		f.srv.Enqueue(modeltest.Reply{Text: "The invoice number is 42183017."}, modeltest.Reply{Text: "Sorry, I cannot produce JSON."})
		ext, err := f.run(t, model)
		if err != nil {
			t.Fatal(err)
		}
		if ext.ValidationStatus != storage.ValidationInvalid || string(ext.Value) != "null" || ext.RawOutput != "Sorry, I cannot produce JSON." {
			t.Errorf("status %s, value %s, raw %q; want invalid, null, the second answer", ext.ValidationStatus, ext.Value, ext.RawOutput)
		}
		if !strings.Contains(string(ext.ValidationErrors), `"path":"/"`) || !strings.Contains(string(ext.ValidationErrors), "not JSON") {
			t.Errorf("validation errors %s, want not JSON at /", ext.ValidationErrors)
		}
		reqs := f.srv.Requests()
		if len(reqs) != 2 || !strings.Contains(messagesOf(t, reqs[1])[3].Content, "- /: not JSON: ") {
			t.Errorf("%d requests; want a repair call naming the JSON problem", len(reqs))
		}
		// A field of an answer that was not JSON cannot be edited.
		if _, err := f.db.PatchExtractionField(context.Background(), ext.ID, "total", json.RawMessage(`1`)); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("patch of a null value: err = %v, want invalid", err)
		}
	})
}

// TestExtractCutOffAtTheOutputLimitSaysSo: an answer the server cut at
// its output limit (done_reason / finish_reason "length") is stored with an
// error that says so and what to do, not as mere "not JSON"; it is not
// sent back for a repair that would have even less room.
func TestExtractCutOffAtTheOutputLimitSaysSo(t *testing.T) {
	eachWire(t, func(t *testing.T, model string) {
		f := newExtractFixture(t)
		full := f.answer(t, nil)
		cut := full[:len(full)/2]
		f.srv.Enqueue(modeltest.Reply{Text: cut, DoneReason: "length", CompletionTokens: 2048}, modeltest.Reply{Text: full})
		ext, err := f.run(t, model)
		if err != nil {
			t.Fatal(err)
		}
		var problems []struct{ Path, Message string }
		if err := json.Unmarshal(ext.ValidationErrors, &problems); err != nil || len(problems) != 1 {
			t.Fatalf("validation errors %s (%v)", ext.ValidationErrors, err)
		}
		msg := problems[0].Message
		for _, want := range []string{"cut off at the model's output limit after 2048 tokens", "unexpected end of JSON input", "fewer pages"} {
			if !strings.Contains(msg, want) {
				t.Errorf("error %q does not say %q", msg, want)
			}
		}
		fix := map[string]string{"ollama/qwen3:8b": "raise DOCENT_MAX_CONTEXT", "openai/qwen3:8b": "output limit (max_tokens)"}[model]
		if !strings.Contains(msg, fix) {
			t.Errorf("error %q does not say %q", msg, fix)
		}
		if ext.ValidationStatus != storage.ValidationInvalid || ext.RawOutput != cut {
			t.Errorf("status %s, raw %q; want invalid and the cut answer", ext.ValidationStatus, ext.RawOutput)
		}
		if n := len(f.srv.Requests()); n != 1 {
			t.Errorf("%d requests: a cut-off answer is not sent back for repair", n)
		}
	})
}

func TestExtractFromADocumentOverTheWindowIsMarkedTruncated(t *testing.T) {
	// A model with an 8,192-token window, as Ollama reports it, and a
	// document of 30,000 bytes: about 7,800 tokens by Docent's estimate,
	// so it is sent, and about 10,000 as the server counts them, so
	// Ollama cuts its start and says nothing.
	f := newExtractFixture(t, modeltest.DefaultModel, modeltest.Model{Name: "tiny:1b", ContextLength: 8192, Capabilities: []string{"completion"}, Family: "llama"})
	ctx := context.Background()
	// One long page: a document of several is extracted page window by
	// page window instead (TestExtractALongDocumentInPageWindows).
	pages := []string{strings.Repeat("Amazon Glacier   $2.22\n", 30000/24) + invoicePages[1]}
	long, err := f.db.CreateDocument(ctx, storage.NewDocument{Name: "long.pdf", MediaType: "application/pdf",
		Data: []byte("%PDF-1.4 long"), Status: storage.StatusReady, Pages: pages})
	if err != nil {
		t.Fatal(err)
	}
	answer := f.answer(t, nil)
	f.srv.Enqueue(modeltest.Reply{Text: answer})
	ext, err := f.x.Run(ctx, ExtractRequest{DocumentID: long.ID, PromptRevID: f.prompt.PromptRevID, Model: "ollama/tiny:1b"})
	if err != nil {
		t.Fatal(err)
	}
	if rec := f.srv.Requests()[0]; rec.Truncated != modeltest.TruncatedStart {
		t.Fatalf("the server did not cut the prompt (%d tokens in a %d window): the test document is too short", rec.PromptTokens, rec.Window)
	}
	t.Logf("note: %s", ext.Note)
	for _, got := range []storage.Extraction{ext, mustGetExtraction(t, f.db, ext.ID)} {
		if !got.PromptTruncated || got.PromptTokens != 8192 {
			t.Errorf("prompt_truncated %v, prompt tokens %d; want true and the window, 8192", got.PromptTruncated, got.PromptTokens)
		}
		for _, want := range []string{"the model saw only the last 8,192 tokens", "Ollama cut the start", "use a model with a larger context (this one's is 8,192 tokens)", "the prompt for this document (1 page, "} {
			if !strings.Contains(got.Note, want) {
				t.Errorf("note %q does not say %q", got.Note, want)
			}
		}
	}
	// The answer is kept as the model gave it: valid, from part of the
	// document, and marked so.
	if ext.ValidationStatus != storage.ValidationValid || !jsonEqual(t, ext.Value, []byte(answer)) {
		t.Errorf("status %s, value %s", ext.ValidationStatus, ext.Value)
	}
	b, err := json.Marshal(ext)
	if err != nil || !strings.Contains(string(b), `"prompt_truncated":true`) || !strings.Contains(string(b), `"note":"the model saw only`) {
		t.Errorf("extraction JSON %s, %v", b, err)
	}

	// The same model on the short invoice: nothing cut, nothing said.
	f.srv.Enqueue(modeltest.Reply{Text: answer})
	short, err := f.run(t, "ollama/tiny:1b")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(short)
	if short.PromptTruncated || short.Note != "" || strings.Contains(string(b), "prompt_truncated") || strings.Contains(string(b), `"note"`) {
		t.Errorf("a document that fits: %s", b)
	}
}

func mustGetExtraction(t *testing.T, db *storage.DB, id string) storage.Extraction {
	t.Helper()
	ext, err := db.GetExtraction(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return ext
}

func TestExtractUsesThePromptsModelWhenTheRequestNamesNone(t *testing.T) {
	eachWire(t, func(t *testing.T, model string) {
		f := newExtractFixture(t)
		ctx := context.Background()
		rev, _, err := f.db.UpdatePrompt(ctx, f.prompt.PromptID, storage.PromptPatch{Model: &model})
		if err != nil {
			t.Fatal(err)
		}
		f.prompt = rev
		f.x.DefaultModel = "ollama/missing:1b"
		f.srv.Enqueue(modeltest.Reply{Text: f.answer(t, nil)})
		ext, err := f.run(t, "")
		if err != nil {
			t.Fatal(err)
		}
		wire, _, _ := strings.Cut(model, "/")
		if reqs := f.srv.Requests(); ext.Model != model || len(reqs) != 1 || reqs[0].Wire != wire || reqs[0].Model != "qwen3:8b" {
			t.Errorf("stored model %q, requests %+v; want the prompt's %s", ext.Model, reqs, model)
		}
	})
}

func TestExtractUsesTheDefaultModelLast(t *testing.T) {
	f := newExtractFixture(t)
	f.x.DefaultModel = "openai/qwen3:8b"
	f.srv.Enqueue(modeltest.Reply{Text: f.answer(t, nil)})
	ext, err := f.run(t, "")
	if err != nil || ext.Model != "openai/qwen3:8b" {
		t.Errorf("model %q, err %v; want the default openai/qwen3:8b", ext.Model, err)
	}
}

func TestExtractWithoutAnyModelSaysHowToChooseOne(t *testing.T) {
	f := newExtractFixture(t)
	_, err := f.run(t, "")
	if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), "no model chosen") || !strings.Contains(err.Error(), "--model") {
		t.Errorf("err = %v, want invalid naming --model", err)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("%d requests sent without a model", n)
	}
}

func TestExtractWithAModelIDWithoutProviderIsInvalid(t *testing.T) {
	f := newExtractFixture(t)
	_, err := f.run(t, "qwen3:8b")
	if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), "ollama/") {
		t.Errorf("err = %v, want invalid showing the ollama/<model> form", err)
	}
}

func TestExtractPromptWithoutSchemaIsRefused(t *testing.T) {
	f := newExtractFixture(t)
	ctx := context.Background()
	p, err := f.db.CreatePrompt(ctx, storage.NewPrompt{Name: "free", Content: "Summarise."})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.x.Run(ctx, ExtractRequest{DocumentID: f.doc.ID, PromptRevID: p.PromptRevID, Model: "ollama/qwen3:8b"})
	if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), "prompt free has no schema") || !strings.Contains(err.Error(), "update_prompt") {
		t.Errorf("err = %v, want invalid naming the prompt and update_prompt", err)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestExtractScannedDocumentIsRefusedWithItsStatus(t *testing.T) {
	f := newExtractFixture(t)
	ctx := context.Background()
	scan, err := f.db.CreateDocument(ctx, storage.NewDocument{
		Name: "scan.pdf", MediaType: "application/pdf", Data: []byte("%PDF-1.4 scan"),
		Status: storage.StatusNeedsOCR, Error: "the pages are images without text", Pages: []string{"", ""},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.x.Run(ctx, ExtractRequest{DocumentID: scan.ID, PromptRevID: f.prompt.PromptRevID, Model: "ollama/qwen3:8b"})
	if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), "scan.pdf") || !strings.Contains(err.Error(), storage.StatusNeedsOCR) {
		t.Errorf("err = %v, want invalid naming scan.pdf and needs_ocr", err)
	}
	if exts, _ := f.db.ListExtractions(ctx, scan.ID); len(exts) != 0 || len(f.srv.Requests()) != 0 {
		t.Errorf("%d extractions stored, %d requests sent", len(exts), len(f.srv.Requests()))
	}
}

func TestExtractDocumentWithoutTextIsRefused(t *testing.T) {
	f := newExtractFixture(t)
	ctx := context.Background()
	blank, err := f.db.CreateDocument(ctx, storage.NewDocument{Name: "blank.pdf", MediaType: "application/pdf", Data: []byte("%PDF blank"), Pages: []string{" \n"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.x.Run(ctx, ExtractRequest{DocumentID: blank.ID, PromptRevID: f.prompt.PromptRevID, Model: "ollama/qwen3:8b"})
	if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), "blank.pdf has no text") {
		t.Errorf("err = %v, want invalid saying blank.pdf has no text", err)
	}
}

func TestExtractTooLongForTheModelIsNotCut(t *testing.T) {
	f := newExtractFixture(t, modeltest.Model{Name: "tiny:1b", ContextLength: 64, Capabilities: []string{"completion"}, Family: "llama"})
	_, err := f.run(t, "ollama/tiny:1b")
	if !errors.Is(err, provider.ErrContextOverflow) {
		t.Fatalf("err = %v (kind %q), want context overflow", err, provider.ErrorKind(err))
	}
	chars := len([]rune("--- page 1 ---\n" + strings.TrimSpace(invoicePages[0]) + "\n\n--- page 2 ---\n" + strings.TrimSpace(invoicePages[1])))
	want := "document AmazonWebServices.pdf: 2 pages, " + strconv.Itoa(chars) + " characters: "
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %q, want it to start %q", err, want)
	}
	if exts, _ := f.db.ListExtractions(context.Background(), f.doc.ID); len(exts) != 0 || len(f.srv.Requests()) != 0 {
		t.Errorf("%d extractions stored, %d requests sent", len(exts), len(f.srv.Requests()))
	}
}

func TestExtractWithTheModelServerDownStoresNothing(t *testing.T) {
	eachWire(t, func(t *testing.T, model string) {
		f := newExtractFixture(t)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		f.x.Providers = testRegistry("http://"+addr, "http://"+addr+"/v1")
		_, err = f.run(t, model)
		if !errors.Is(err, provider.ErrUnreachable) || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "AmazonWebServices.pdf") {
			t.Errorf("err = %v (kind %q), want unreachable naming %s and the document", err, provider.ErrorKind(err), addr)
		}
		if exts, _ := f.db.ListExtractions(context.Background(), f.doc.ID); len(exts) != 0 {
			t.Errorf("%d extractions stored", len(exts))
		}
	})
}

func TestExtractFailedRepairKeepsTheFirstAnswer(t *testing.T) {
	f := newExtractFixture(t)
	bad := f.answer(t, func(v map[string]any) { v["total"] = "$4.11" })
	f.srv.Enqueue(modeltest.Reply{Text: bad}, modeltest.Reply{Fault: modeltest.Fault{Status: 400, Message: "bad request"}})
	ext, err := f.run(t, "openai/qwen3:8b")
	if err != nil {
		t.Fatal(err)
	}
	if ext.ValidationStatus != storage.ValidationInvalid || ext.RawOutput != bad || !strings.Contains(string(ext.ValidationErrors), "/total") {
		t.Errorf("status %s, raw %q, errors %s; want the first answer, invalid at /total", ext.ValidationStatus, ext.RawOutput, ext.ValidationErrors)
	}
}

func TestEditedExtractionIsValidatedAgain(t *testing.T) {
	f := newExtractFixture(t)
	ctx := context.Background()
	f.srv.Enqueue(modeltest.Reply{Text: f.answer(t, nil)})
	ext, err := f.run(t, "ollama/qwen3:8b")
	if err != nil {
		t.Fatal(err)
	}

	ext, err = f.db.PatchExtractionField(ctx, ext.ID, "lines.1.amount", json.RawMessage(`1.9`))
	if err != nil {
		t.Fatal(err)
	}
	if !ext.Edited || ext.ValidationStatus != storage.ValidationUnvalidated || !strings.Contains(string(ext.Value), `"amount":1.9`) {
		t.Errorf("after patch: edited %v, status %s, value %s", ext.Edited, ext.ValidationStatus, ext.Value)
	}
	valid, problems, err := ValidateValue(ctx, f.db, f.prompt.SchemaRevID, ext.Value)
	if err != nil || !valid || len(problems) != 0 {
		t.Errorf("ValidateValue = %v, %v, %v; want valid", valid, problems, err)
	}

	ext, err = f.db.PatchExtractionField(ctx, ext.ID, "total", json.RawMessage(`"four"`))
	if err != nil {
		t.Fatal(err)
	}
	valid, problems, err = ValidateValue(ctx, f.db, f.prompt.SchemaRevID, ext.Value)
	if err != nil || valid || len(problems) != 1 || problems[0].Path != "/total" {
		t.Errorf("ValidateValue = %v, %v, %v; want invalid at /total", valid, problems, err)
	}

	// notes is null: a path through it is an error, not a crash.
	if _, err := f.db.PatchExtractionField(ctx, ext.ID, "notes.text", json.RawMessage(`"x"`)); !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("patch through null: err = %v, want invalid", err)
	}
	if _, err := f.db.PatchExtractionField(ctx, ext.ID, "lines.9.amount", json.RawMessage(`1`)); !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("patch past the end of an array: err = %v, want invalid", err)
	}
}

func TestValidateValue(t *testing.T) {
	f := newExtractFixture(t)
	ctx := context.Background()
	valid, problems, err := ValidateValue(ctx, f.db, f.prompt.SchemaRevID, json.RawMessage(`{"total":`))
	if err != nil || valid || len(problems) != 1 || problems[0].Path != "/" || !strings.HasPrefix(problems[0].Message, "not JSON") {
		t.Errorf("broken JSON: %v, %v, %v; want one not-JSON problem at /", valid, problems, err)
	}
	if _, _, err := ValidateValue(ctx, f.db, "missing", json.RawMessage(`{}`)); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("unknown schema revision: err = %v, want not found", err)
	}
}

func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: ` {"a": 1} `, want: `{"a":1}`},
		{in: "```json\n{\"a\": {\"b\": [1]}}\n```", want: `{"a":{"b":[1]}}`},
		{in: `Sure! {"a": "}"} Hope that helps.`, want: `{"a":"}"}`},
		{in: `[1, 2]`, want: `[1,2]`},
		{in: ``, err: "empty"},
		{in: `no json here`, err: "invalid character"},
		{in: `{"a": }`, err: "invalid character"},
	} {
		got, err := parseAnswer(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseAnswer(%q) = %s, %v; want error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("parseAnswer(%q) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

// A document longer than the model's window is extracted page window by
// page window, each window's request fitting it, and the answers merged:
// the first value of each field, the items of every window.
func TestExtractALongDocumentInPageWindows(t *testing.T) {
	f, long, pages := newLongDocument(t)
	ctx := context.Background()
	// Each window answers the items its pages show; the first also the
	// number, date, total and currency.
	f.srv.Handle(func(r modeltest.Request) modeltest.Reply {
		msgs, _ := r.ChatMessages()
		user := msgs[len(msgs)-1].Content
		v := map[string]any{"invoice_number": nil, "date": nil, "total": 21, "currency": nil, "notes": nil, "lines": []any{}}
		if strings.Contains(user, "--- page 1 ---") {
			v["invoice_number"], v["date"], v["currency"] = "42", "2024-01-02", "USD"
		}
		for i := range pages {
			if strings.Contains(user, fmt.Sprintf("--- page %d ---", i+1)) {
				v["lines"] = append(v["lines"].([]any), map[string]any{"name": fmt.Sprintf("Line item %d", i+1), "amount": i + 1})
			}
		}
		b, _ := json.Marshal(v)
		return modeltest.Reply{Text: string(b)}
	})
	ext, err := f.x.Run(ctx, ExtractRequest{DocumentID: long.ID, PromptRevID: f.prompt.PromptRevID, Model: "ollama/tiny:1b"})
	if err != nil {
		t.Fatal(err)
	}
	reqs := f.srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests: the document was not split", len(reqs))
	}
	for i, r := range reqs {
		if r.Truncated != "" {
			t.Errorf("request %d was cut by the server (%d tokens in %d): a window must fit", i, r.PromptTokens, r.Window)
		}
	}
	var got struct {
		InvoiceNumber string `json:"invoice_number"`
		Lines         []struct {
			Name string `json:"name"`
		} `json:"lines"`
	}
	if err := json.Unmarshal(ext.Value, &got); err != nil {
		t.Fatal(err)
	}
	if got.InvoiceNumber != "42" || len(got.Lines) != len(pages) {
		t.Errorf("merged value %s: want the first window's number and %d lines", ext.Value, len(pages))
	}
	if ext.ValidationStatus != storage.ValidationValid || ext.PromptTruncated || !strings.Contains(ext.Note, fmt.Sprintf("extracted in %d page windows", len(reqs))) {
		t.Errorf("status %s, truncated %v, note %q", ext.ValidationStatus, ext.PromptTruncated, ext.Note)
	}
}

// newLongDocument is an extraction fixture with a model of a 4,096-token
// window and a six-page document that does not fit it, page i+1 showing
// "Line item i+1".
func newLongDocument(t *testing.T) (*extractFixture, storage.Document, []string) {
	t.Helper()
	f := newExtractFixture(t, modeltest.Model{Name: "tiny:1b", ContextLength: 4096, Capabilities: []string{"completion"}, Family: "llama"})
	pages := make([]string, 6)
	for i := range pages {
		pages[i] = fmt.Sprintf("Line item %d   $%d.00\n", i+1, i+1) + strings.Repeat("filler text of the page\n", 3000/24)
	}
	long, err := f.db.CreateDocument(context.Background(), storage.NewDocument{Name: "long.pdf", MediaType: "application/pdf",
		Data: []byte("%PDF-1.4 long"), Status: storage.StatusReady, Pages: pages})
	if err != nil {
		t.Fatal(err)
	}
	return f, long, pages
}

// A window that answers {} for a field found nothing there, like null or
// "": a later window's value fills the field instead of the empty object
// being kept as the answer.
func TestPageWindowsFillAFieldAnEarlierWindowAnsweredWithAnEmptyObject(t *testing.T) {
	f, long, _ := newLongDocument(t)
	f.srv.Handle(func(r modeltest.Request) modeltest.Reply {
		msgs, _ := r.ChatMessages()
		number := any(map[string]any{})
		if strings.Contains(msgs[len(msgs)-1].Content, "--- page 6 ---") {
			number = "42"
		}
		b, _ := json.Marshal(map[string]any{"invoice_number": number, "total": 21, "lines": []any{}})
		return modeltest.Reply{Text: string(b)}
	})
	ext, err := f.x.Run(context.Background(), ExtractRequest{DocumentID: long.ID, PromptRevID: f.prompt.PromptRevID, Model: "ollama/tiny:1b"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.srv.Requests()); n < 2 {
		t.Fatalf("%d requests: the document was not split", n)
	}
	var got struct {
		InvoiceNumber any `json:"invoice_number"`
	}
	if err := json.Unmarshal(ext.Value, &got); err != nil {
		t.Fatal(err)
	}
	if got.InvoiceNumber != "42" {
		t.Errorf("merged value %s: want the last window's invoice number 42, not the first window's {}", ext.Value)
	}
}
