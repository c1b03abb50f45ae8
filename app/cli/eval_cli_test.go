package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// TestEvalAgainstCorpusTruth imports the corpus's invoice2data invoices,
// lets the scripted model answer each one's verified ground truth with
// three planted errors (a changed digit, a dropped field, an invented
// field), and checks that `docent eval --truth` reports exactly those,
// the changed digit as not found in the document; a second run with the
// errors fixed, against the first as baseline, gains exactly two values.
// Then a value corrected by hand becomes a regression case.
func TestEvalAgainstCorpusTruth(t *testing.T) {
	truthDir := filepath.Join(testcorpus.Dir(t), "invoice2data")
	data := t.TempDir()
	srv := modeltest.New(t)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("DOCENT_MODEL", "ollama/qwen3:8b")

	if code, out, errOut := docent(t, data, "import", truthDir); code != ExitOK {
		t.Fatalf("import exit %d\n%s\n%s", code, out, errOut)
	}
	db := openData(t, data)
	ctx := context.Background()
	sch, err := db.CreateSchema(ctx, "invoice", json.RawMessage(`{"type":"json_schema","json_schema":{"name":"invoice","strict":false,"schema":{"type":"object"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreatePrompt(ctx, storage.NewPrompt{Name: "invoices", Content: "Extract the invoice.", SchemaID: sch.SchemaID}); err != nil {
		t.Fatal(err)
	}

	// Each document's true values, found by the text the model is sent.
	type doc struct {
		name, text string
		truth      map[string]any
	}
	var docs []doc
	entries, _ := os.ReadDir(truthDir)
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), ".expected.verified.json")
		if !ok {
			continue
		}
		b, err := os.ReadFile(filepath.Join(truthDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var truth map[string]any
		if err := json.Unmarshal(b, &truth); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		d, err := db.FindDocument(ctx, base+".pdf")
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		pages, err := db.DocumentText(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		head := strings.TrimSpace(strings.Join(pages, "\n"))
		head = head[:min(len(head), 120)]
		docs = append(docs, doc{name: d.Name, text: head, truth: truth})
	}
	if len(docs) < 10 {
		t.Fatalf("only %d invoices with verified truth", len(docs))
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].name < docs[j].name })
	wrong, dropped, invented := docs[0], docs[1], docs[2]
	var droppedKey string
	for k, v := range dropped.truth {
		if _, nested := v.(map[string]any); !nested {
			if _, list := v.([]any); !list && (droppedKey == "" || k < droppedKey) {
				droppedKey = k
			}
		}
	}
	var wrongKey string
	for k, v := range wrong.truth {
		if _, ok := v.(float64); ok && v.(float64) > 1 && (wrongKey == "" || k < wrongKey) {
			wrongKey = k
		}
	}
	if wrongKey == "" || droppedKey == "" {
		t.Fatalf("no field to plant errors in (%s, %s)", wrong.name, dropped.name)
	}

	plant := true
	srv.Handle(func(r modeltest.Request) modeltest.Reply {
		msgs, _ := r.ChatMessages()
		var user string
		for _, m := range msgs {
			if m.Role == "user" {
				user += m.Content
			}
		}
		for _, d := range docs {
			if !strings.Contains(user, d.text) {
				continue
			}
			v := map[string]any{}
			for k, x := range d.truth {
				v[k] = x
			}
			if plant {
				switch d.name {
				case wrong.name:
					v[wrongKey] = v[wrongKey].(float64) + 1
				case dropped.name:
					delete(v, droppedKey)
				case invented.name:
					v["invented_field"] = "made up"
				}
			}
			b, _ := json.Marshal(v)
			return modeltest.Reply{Text: string(b)}
		}
		return modeltest.Reply{Text: `{}`}
	})

	eval := func(args ...string) agent.EvalReport {
		t.Helper()
		code, out, errOut := docent(t, data, append([]string{"eval", "--prompt", "invoices", "--json"}, args...)...)
		if code != ExitOK {
			t.Fatalf("eval exit %d\n%s\n%s", code, out, errOut)
		}
		var rep agent.EvalReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("eval --json: %v\n%s", err, out)
		}
		return rep
	}
	rep := eval("--truth", truthDir)
	if len(rep.Documents) != len(docs) {
		t.Errorf("evaluated %d documents, want the %d with truth", len(rep.Documents), len(docs))
	}
	got := map[string]string{}
	for _, d := range rep.Documents {
		if d.Error != "" {
			t.Errorf("%s: %s", d.DocumentName, d.Error)
		}
		for _, m := range d.Mismatches {
			got[d.DocumentName+" "+m.Path] = m.Kind + " " + m.Status
		}
	}
	want := map[string]string{
		wrong.name + " " + wrongKey:       "wrong ungrounded",
		dropped.name + " " + droppedKey:   "missing ",
		invented.name + " invented_field": "extra ungrounded",
	}
	if len(got) != len(want) {
		t.Errorf("mismatches %v\nwant exactly %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	o := rep.Overall
	if o.Wrong != 1 || o.Missing != 1 || o.Extra != 1 || o.Exact != o.Known-2 {
		t.Errorf("overall %+v", o)
	}
	t.Logf("%d values of %d invoices: %.1f%% of the exact ones found in their document", o.Known, len(docs), o.GroundedShare*100)
	// The rest are not printed as such (TestGroundingOnCorpusInvoices).
	if o.GroundedShare < 0.95 {
		t.Errorf("only %.1f%% of the true values were found in their documents, want at least 95%%", o.GroundedShare*100)
	}

	// Fixed, against the first run.
	plant = false
	again := eval("--truth", truthDir, "--baseline", rep.EvaluationID)
	if b := again.Baseline; b == nil || b.ExactChange != 2 || again.Overall.Extra != 0 {
		t.Errorf("against the baseline: %+v, extra %d", again.Baseline, again.Overall.Extra)
	}

	// A correction by hand is a regression case.
	code, out, errOut := docent(t, data, "extract", "--prompt", "invoices", "--json", wrong.name)
	if code != ExitOK {
		t.Fatalf("extract exit %d\n%s\n%s", code, out, errOut)
	}
	var extracted extractReport
	if err := json.Unmarshal([]byte(out), &extracted); err != nil || len(extracted.Extractions) != 1 {
		t.Fatalf("extract --json: %v\n%s", err, out)
	}
	if _, _, err := agent.PatchExtractionField(ctx, db, extracted.Extractions[0].ID, wrongKey, json.RawMessage(`0.5`)); err != nil {
		t.Fatal(err)
	}
	corr := eval("--corrections")
	if corr.Overall.Known != 1 || corr.Overall.Wrong != 1 || len(corr.Documents) != 1 {
		t.Errorf("corrections: %+v", corr.Overall)
	}
}
