package cli

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

const invoiceSchemaJSON = `{
  "type": "object",
  "properties": {
    "invoice_number": {"type": "string"},
    "total": {"type": "number"}
  },
  "required": ["invoice_number", "total"],
  "additionalProperties": false
}`

// TestExtractFromTheCommandLine walks a user's path from an imported corpus
// invoice to a validated extraction, through both providers' real clients
// talking to the scripted model server.
func TestExtractFromTheCommandLine(t *testing.T) {
	corpus := testcorpus.Dir(t)
	srv := modeltest.New(t)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
	t.Setenv("OPENAI_API_KEY", "test-key")
	data := t.TempDir()
	schemaFile := filepath.Join(t.TempDir(), "invoice.json")
	if err := os.WriteFile(schemaFile, []byte(invoiceSchemaJSON), 0o644); err != nil {
		t.Fatal(err)
	}

	mustRun := func(args ...string) string {
		t.Helper()
		code, out, errOut := docent(t, data, args...)
		if code != ExitOK {
			t.Fatalf("docent %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}
	mustRun("import", filepath.Join(corpus, "invoice2data", "AmazonWebServices.pdf"))
	mustRun("tags", "create", "--name", "invoices", "--color", "#1f4e8c")
	mustRun("schemas", "create", "--name", "invoice", "--file", schemaFile)
	mustRun("prompts", "create", "--name", "aws", "--schema", "invoice", "--tag", "invoices",
		"--content", "Extract the invoice number and the total amount due.")

	var schemas struct {
		Schemas []storage.SchemaRevision `json:"schemas"`
	}
	if err := json.Unmarshal([]byte(mustRun("schemas", "--json")), &schemas); err != nil || len(schemas.Schemas) != 1 || schemas.Schemas[0].Version != 1 {
		t.Fatalf("schemas --json: %+v %v", schemas, err)
	}
	var prompts struct {
		Prompts []storage.PromptRevision `json:"prompts"`
	}
	if err := json.Unmarshal([]byte(mustRun("prompts", "--json")), &prompts); err != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].SchemaID != schemas.Schemas[0].SchemaID {
		t.Fatalf("prompts --json: %+v %v", prompts, err)
	}

	for _, model := range []string{"ollama/qwen3:8b", "openai/qwen3:8b"} {
		srv.Enqueue(modeltest.Reply{Text: `{"invoice_number": "42183017", "total": 4.11}`})
		var report extractReport
		out := mustRun("extract", "--prompt", "aws", "--model", model, "AmazonWebServices.pdf", "--json")
		if err := json.Unmarshal([]byte(out), &report); err != nil {
			t.Fatalf("extract --json is not JSON: %v\n%s", err, out)
		}
		if len(report.Extractions) != 1 || len(report.Errors) != 0 {
			t.Fatalf("%s: report %+v", model, report)
		}
		ext := report.Extractions[0]
		if ext.ValidationStatus != storage.ValidationValid || ext.Model != model || ext.PromptRevID != prompts.Prompts[0].PromptRevID {
			t.Errorf("%s: extraction %+v", model, ext)
		}
		var value struct {
			InvoiceNumber string  `json:"invoice_number"`
			Total         float64 `json:"total"`
		}
		if err := json.Unmarshal(ext.Value, &value); err != nil || value.InvoiceNumber != "42183017" || value.Total != 4.11 {
			t.Errorf("%s: value %s", model, ext.Value)
		}
	}
	// An answer of the wrong shape is repaired once; one still wrong after
	// that is stored as invalid, with its errors, for the user to see.
	wrong := modeltest.Reply{Text: `{"invoice_number": 42183017, "total": "4.11"}`}
	for _, tc := range []struct {
		replies []modeltest.Reply
		status  string
	}{
		{[]modeltest.Reply{wrong, {Text: `{"invoice_number": "42183017", "total": 4.11}`}}, storage.ValidationValid},
		{[]modeltest.Reply{wrong, wrong}, storage.ValidationInvalid},
	} {
		before := len(srv.Requests())
		srv.Enqueue(tc.replies...)
		var report extractReport
		if err := json.Unmarshal([]byte(mustRun("extract", "--prompt", "aws", "--model", "ollama/qwen3:8b", "AmazonWebServices.pdf", "--json")), &report); err != nil {
			t.Fatal(err)
		}
		ext := report.Extractions[0]
		if ext.ValidationStatus != tc.status || len(srv.Requests())-before != 2 {
			t.Errorf("after %d calls: status %s, want %s", len(srv.Requests())-before, ext.ValidationStatus, tc.status)
		}
		if tc.status == storage.ValidationInvalid && !strings.Contains(string(ext.ValidationErrors), "/total") {
			t.Errorf("invalid extraction without its errors: %s", ext.ValidationErrors)
		}
	}

	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if len(last.Messages) == 0 || !strings.Contains(string(last.Body), "Amazon Web Services") {
		t.Errorf("the model was not sent the document's text: %.300s", last.Body)
	}

	var models modelList
	if err := json.Unmarshal([]byte(mustRun("models", "--json")), &models); err != nil || len(models.Models) == 0 {
		t.Fatalf("models --json: %+v %v", models, err)
	}
}

func TestSchemaThatDoesNotCheckIsRefusedWithItsProblem(t *testing.T) {
	data := t.TempDir()
	file := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(file, []byte(`{"type":"object","properties":{"total":{"type":"strin"}}}`), 0o644)
	code, _, errOut := docent(t, data, "schemas", "create", "--name", "bad", "--file", file)
	if code != ExitFailure || !strings.Contains(errOut, "/properties/total/type") {
		t.Errorf("exit %d, %q; want 1 naming /properties/total/type", code, errOut)
	}
}

func TestExtractSaysHowToStartOllama(t *testing.T) {
	corpus := testcorpus.Dir(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := ln.Addr().String()
	ln.Close() // nothing listens here now: Ollama "not running"
	t.Setenv("OLLAMA_HOST", "http://"+closedAddr)
	t.Setenv("DOCENT_MODEL", "")

	data := t.TempDir()
	schemaFile := filepath.Join(t.TempDir(), "invoice.json")
	os.WriteFile(schemaFile, []byte(invoiceSchemaJSON), 0o644)
	for _, args := range [][]string{
		{"import", filepath.Join(corpus, "invoice2data", "AmazonWebServices.pdf")},
		{"schemas", "create", "--name", "invoice", "--file", schemaFile},
		{"prompts", "create", "--name", "aws", "--schema", "invoice", "--content", "Extract the invoice."},
	} {
		if code, _, errOut := docent(t, data, args...); code != ExitOK {
			t.Fatalf("%v: exit %d %s", args, code, errOut)
		}
	}
	code, _, errOut := docent(t, data, "extract", "--prompt", "aws", "--model", "ollama/qwen3:8b", "AmazonWebServices.pdf")
	if code != ExitFailure || !strings.Contains(errOut, closedAddr) || !strings.Contains(errOut, "ollama serve") {
		t.Errorf("exit %d, %q; want 1 naming the host tried and how to start Ollama", code, errOut)
	}
	code, _, errOut = docent(t, data, "extract", "--prompt", "aws", "AmazonWebServices.pdf")
	if code != ExitFailure || !strings.Contains(errOut, "--model") {
		t.Errorf("no model: exit %d, %q; want a hint to pass --model", code, errOut)
	}

	// A prompt created with --model runs with that model when extract names none.
	if code, _, errOut := docent(t, data, "prompts", "create", "--name", "aws-local", "--schema", "invoice",
		"--content", "Extract the invoice.", "--model", "ollama/qwen3:8b"); code != ExitOK {
		t.Fatalf("prompts create --model: exit %d %s", code, errOut)
	}
	code, _, errOut = docent(t, data, "extract", "--prompt", "aws-local", "AmazonWebServices.pdf")
	if code != ExitFailure || !strings.Contains(errOut, "ollama serve") {
		t.Errorf("extract with the prompt's model: exit %d, %q; want it to try Ollama", code, errOut)
	}
}
