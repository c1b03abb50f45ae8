package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
	"github.com/xuri/excelize/v2"
)

// `docent export --schema` writes a row per document whose latest
// extraction used any version of the schema, with the columns of every
// version; --prompt and --tag narrow it; --format xlsx (or an .xlsx name)
// writes a workbook.
func TestExportBySchemaFromTheCommandLine(t *testing.T) {
	data := t.TempDir()
	db := openData(t, data)
	ctx := context.Background()
	tag, err := db.CreateTag(ctx, storage.NewTag{Name: "q1"})
	if err != nil {
		t.Fatal(err)
	}
	v1, err := db.CreateSchema(ctx, "invoice", json.RawMessage(`{"type":"object","properties":{"number":{"type":"string"},"date":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.UpdateSchema(ctx, v1.SchemaID, nil, json.RawMessage(`{"type":"object","properties":{"total":{"type":"number"},"number":{"type":"string"}}}`)); err != nil {
		t.Fatal(err)
	}
	letter, err := db.CreateSchema(ctx, "letter", json.RawMessage(`{"type":"object","properties":{"subject":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	old, err := db.CreatePrompt(ctx, storage.NewPrompt{Name: "old", Content: "x", SchemaID: v1.SchemaID, SchemaVersion: 1})
	if err != nil {
		t.Fatal(err)
	}
	current, err := db.CreatePrompt(ctx, storage.NewPrompt{Name: "current", Content: "x", SchemaID: v1.SchemaID})
	if err != nil {
		t.Fatal(err)
	}
	letters, err := db.CreatePrompt(ctx, storage.NewPrompt{Name: "letters", Content: "x", SchemaID: letter.SchemaID})
	if err != nil {
		t.Fatal(err)
	}
	extract := func(name string, tags []string, runs ...struct {
		p     storage.PromptRevision
		value string
	}) {
		t.Helper()
		doc, err := db.CreateDocument(ctx, storage.NewDocument{Name: name, MediaType: "text/plain", Data: []byte(name), Pages: []string{name}, TagIDs: tags})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if _, err := db.CreateExtraction(ctx, storage.NewExtraction{DocumentID: doc.ID, PromptRevID: r.p.PromptRevID, Model: "m", Value: json.RawMessage(r.value)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	type run = struct {
		p     storage.PromptRevision
		value string
	}
	extract("a.pdf", []string{tag.ID}, run{old, `{"number":"A-1","date":"2024-01-02"}`})
	extract("b.pdf", nil, run{current, `{"number":"B-2","total":12.5}`})
	extract("c.pdf", []string{tag.ID}, run{current, `{"number":"C-3","total":1}`}, run{letters, `{"subject":"now a letter"}`})

	dir := t.TempDir()
	export := func(args ...string) string {
		t.Helper()
		code, out, errOut := docent(t, data, append([]string{"export"}, args...)...)
		if code != ExitOK {
			t.Fatalf("export %v: exit %d: %s", args, code, errOut)
		}
		return out + errOut
	}
	records := func(path string) [][]string {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}

	out := filepath.Join(dir, "all.csv")
	if msg := export("--schema", "invoice", "--out", out); !strings.Contains(msg, `exported 2 documents of schema "invoice"`) {
		t.Errorf("export says %q", msg)
	}
	recs := records(out)
	if strings.Join(recs[0], ",") != "document_id,document_name,extraction_id,total,number,date,_edited" || len(recs) != 3 {
		t.Fatalf("export --schema: %q", recs)
	}
	if got := [][]string{recs[1][1:2], recs[2][1:2]}; !reflect.DeepEqual(got, [][]string{{"a.pdf"}, {"b.pdf"}}) {
		t.Errorf("rows %q; want a.pdf (older version) and b.pdf, not c.pdf (a letter now)", got)
	}
	if recs[1][5] != "2024-01-02" || recs[2][3] != "12.5" {
		t.Errorf("values %q", recs)
	}

	export("--schema", "invoice", "--tag", "q1", "--out", out)
	if recs := records(out); len(recs) != 2 || recs[1][1] != "a.pdf" {
		t.Errorf("--tag q1: %q", recs)
	}
	export("--schema", "invoice", "--prompt", "current", "--out", out)
	if recs := records(out); len(recs) != 2 || recs[1][1] != "b.pdf" {
		t.Errorf("--prompt current: %q", recs)
	}
	// --prompt alone works as before: the prompt's latest extraction of
	// each document it ran on, c.pdf's too.
	if csvOut := export("--prompt", "current"); strings.Count(csvOut, "\n") < 3 || !strings.Contains(csvOut, "c.pdf") {
		t.Errorf("--prompt alone: %s", csvOut)
	}

	book := filepath.Join(dir, "invoices.xlsx")
	export("--schema", "invoice", "--out", book)
	f, err := excelize.OpenFile(book)
	if err != nil {
		t.Fatalf("--out .xlsx is not a workbook: %v", err)
	}
	defer f.Close()
	rows, err := f.GetRows("invoice")
	if err != nil || len(rows) != 3 || rows[2][3] != "12.5" {
		t.Errorf("workbook rows %q %v", rows, err)
	}

	for _, args := range [][]string{{}, {"--tag", "q1"}, {"--schema", "invoice", "--format", "ods"}, {"--schema", "invoice", "extra"}} {
		if code, _, errOut := docent(t, data, append([]string{"export"}, args...)...); code != ExitUsage {
			t.Errorf("export %v: exit %d, want %d: %s", args, code, ExitUsage, errOut)
		}
	}
	if code, _, errOut := docent(t, data, "export", "--schema", "nope"); code != ExitFailure || !strings.Contains(errOut, "nope") {
		t.Errorf("unknown schema: exit %d: %s", code, errOut)
	}
}

// `docent extract --model M` runs M, not the model the prompt stores: the
// model server is asked for M and the extraction records it.
func TestExtractModelFlagWinsOverThePromptsModel(t *testing.T) {
	srv := modeltest.New(t)
	srv.SetModels(modeltest.DefaultModel, modeltest.Model{Name: "llama3.2:1b", ContextLength: 8192, Capabilities: []string{"completion"}, Family: "llama"})
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("DOCENT_MODEL", "")
	data := t.TempDir()
	dir := t.TempDir()
	doc := filepath.Join(dir, "invoice.txt")
	schemaFile := filepath.Join(dir, "invoice.json")
	os.WriteFile(doc, []byte("Invoice 42183017\nTotal due: 4.11 EUR\n"), 0o644)
	os.WriteFile(schemaFile, []byte(invoiceSchemaJSON), 0o644)
	for _, args := range [][]string{
		{"import", doc},
		{"schemas", "create", "--name", "invoice", "--file", schemaFile},
		{"prompts", "create", "--name", "inv", "--schema", "invoice", "--content", "Extract.", "--model", "ollama/qwen3:8b"},
	} {
		if code, _, errOut := docent(t, data, args...); code != ExitOK {
			t.Fatalf("%v: exit %d %s", args, code, errOut)
		}
	}
	srv.Handle(func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Text: `{"invoice_number": "42183017", "total": 4.11}`}
	})
	for _, tc := range []struct {
		args      []string
		env, want string
	}{
		{[]string{"--model", "ollama/llama3.2:1b"}, "", "llama3.2:1b"},
		{nil, "", "qwen3:8b"},
		// DOCENT_MODEL is a default: the prompt's own model wins over it.
		{nil, "ollama/llama3.2:1b", "qwen3:8b"},
	} {
		t.Setenv("DOCENT_MODEL", tc.env)
		before := len(srv.Requests())
		code, out, errOut := docent(t, data, append([]string{"extract", "--prompt", "inv", "invoice.txt", "--json"}, tc.args...)...)
		var report extractReport
		if code != ExitOK || json.Unmarshal([]byte(out), &report) != nil || len(report.Extractions) != 1 {
			t.Fatalf("extract %v: exit %d %s %s", tc.args, code, out, errOut)
		}
		var asked []string
		for _, r := range srv.Requests()[before:] {
			if r.Path == "/api/chat" {
				asked = append(asked, r.Model)
			}
		}
		if len(asked) == 0 || asked[0] != tc.want || report.Extractions[0].Model != "ollama/"+tc.want {
			t.Errorf("extract %v (DOCENT_MODEL=%q): asked %q, recorded %q; want %s", tc.args, tc.env, asked, report.Extractions[0].Model, tc.want)
		}
	}
}
