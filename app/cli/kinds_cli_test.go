package cli

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// kindAnswer answers a kind choice (a structured call whose format has a
// "kind" enum: "new" and the schema ids in use) with the first kind in use:
// every corpus invoice is an invoice. Other requests go to next.
func kindAnswer(next func(modeltest.Request) modeltest.Reply) func(modeltest.Request) modeltest.Reply {
	return func(r modeltest.Request) modeltest.Reply {
		var format struct {
			Properties struct {
				Kind struct {
					Enum []string `json:"enum"`
				} `json:"kind"`
			} `json:"properties"`
		}
		if len(r.Format) > 0 && json.Unmarshal(r.Format, &format) == nil && len(format.Properties.Kind.Enum) > 0 {
			kind := "new"
			for _, k := range format.Properties.Kind.Enum {
				if k != "new" {
					kind = k
					break
				}
			}
			return modeltest.Reply{Text: `{"kind":"` + kind + `","reason":"an invoice"}`}
		}
		return next(r)
	}
}

// TestAutoCreateCorpusInvoicesGivesOneTable is a folder of invoices becoming
// one table, with the scripted model: `docent auto-create --concurrency 4` over
// the corpus's zugferd and invoice2data folders, then `docent export
// --schema NAME --out out.csv`: one schema, and one row per proposed
// document. Two prompts: the first run's, and the schema's auto-create
// prompt the others extracted with (nobody has accepted the first run's
// prompt, so no other document is extracted with it).
func TestAutoCreateCorpusInvoicesGivesOneTable(t *testing.T) {
	corpus := testcorpus.Dir(t)
	srv := modeltest.New(t)
	autoCreateEnv(t, srv)
	srv.Handle(kindAnswer(autoCreateModel(0)))
	data := t.TempDir()

	code, out, errOut := docent(t, data, "auto-create", "--concurrency", "4",
		filepath.Join(corpus, "zugferd"), filepath.Join(corpus, "invoice2data"))
	// Documents without text (scans waiting for OCR) or that fail to read
	// are reported, not proposed; the batch then exits 1.
	if code != ExitOK && code != ExitFailure {
		t.Fatalf("auto-create: exit %d\n%s\n%s", code, out, clipTail(errOut, 2000))
	}
	db := openData(t, data)
	schemas, _, err := db.ListSchemas(t.Context(), storage.ListFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(schemas) != 1 {
		var names []string
		for _, s := range schemas {
			names = append(names, s.Name)
		}
		t.Fatalf("%d schemas %q, want one for the invoices\n%s", len(schemas), names, clipTail(errOut, 2000))
	}
	prompts, _, err := db.ListPrompts(t.Context(), storage.PromptFilter{Limit: 100})
	if err != nil || len(prompts) != 2 || !slices.ContainsFunc(prompts, func(p storage.PromptRevision) bool { return strings.HasSuffix(p.Name, " (auto-create)") }) {
		t.Fatalf("%d prompts (%v), want the first run's and the schema's auto-create prompt", len(prompts), err)
	}
	proposed := 0
	for _, d := range allDocuments(t, db) {
		if d.AutoCreateStatus == "proposed" {
			proposed++
		}
	}
	if proposed < 50 {
		t.Fatalf("only %d documents proposed\n%s", proposed, clipTail(errOut, 2000))
	}

	csvPath := filepath.Join(t.TempDir(), "out.csv")
	if code, out, errOut := docent(t, data, "export", "--schema", schemas[0].Name, "--out", csvPath); code != ExitOK {
		t.Fatalf("export: exit %d\n%s\n%s", code, out, errOut)
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows)-1 != proposed {
		t.Errorf("out.csv has %d rows, want one per proposed document (%d)", len(rows)-1, proposed)
	}
	seen := map[string]bool{}
	for _, r := range rows[1:] {
		if seen[r[0]] {
			t.Errorf("document %s has two rows", r[0])
		}
		seen[r[0]] = true
	}
	if !strings.Contains(strings.Join(rows[0], ","), "invoice_number") {
		t.Errorf("header %q lacks the schema's fields", rows[0])
	}
}
