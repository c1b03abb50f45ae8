package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/docent/docent/agent/evidence"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
)

// TestExtractionIsGroundedInItsDocument: every stored extraction carries
// where each value stands; an invented value is ungrounded, and a value a
// person edits becomes edited.
func TestExtractionIsGroundedInItsDocument(t *testing.T) {
	f := newExtractFixture(t)
	f.srv.Enqueue(modeltest.Reply{Text: f.answer(t, func(v map[string]any) {
		v["invoice_number"] = "42183018" // one digit changed: not in the document
	})})
	x, err := f.run(t, "ollama/qwen3:8b")
	if err != nil {
		t.Fatal(err)
	}
	var m evidence.Map
	if err := json.Unmarshal(x.Evidence, &m); err != nil {
		t.Fatalf("evidence %s: %v", x.Evidence, err)
	}
	if e := m["total"]; e.Status != evidence.Grounded || e.Page != 2 || !strings.Contains(e.Quote, "4.11") {
		t.Errorf("total: %+v, want grounded on page 2 quoting 4.11 (evidence %s)", e, x.Evidence)
	}
	if e := m["lines.2.name"]; e.Status != evidence.Grounded || e.Page != 2 {
		t.Errorf("lines.2.name: %+v, want grounded on page 2", e)
	}
	if e := m["invoice_number"]; e.Status != evidence.Ungrounded {
		t.Errorf("a changed invoice number: %+v, want ungrounded", e)
	}
	if _, ok := m["notes"]; ok {
		t.Errorf("a null value has evidence: %+v", m["notes"])
	}

	// The model is told which values to check.
	view := viewExtraction(x)
	if !slices.Equal(view.Ungrounded, []string{"invoice_number"}) || !strings.Contains(view.Check, "update_extraction_field") {
		t.Errorf("tool view: ungrounded %v, check %q", view.Ungrounded, view.Check)
	}

	// A person's edit marks the value edited; the rest stays.
	x, _, err = PatchExtractionField(context.Background(), f.db, x.ID, "invoice_number", json.RawMessage(`"42183017"`))
	if err != nil {
		t.Fatal(err)
	}
	m = nil
	_ = json.Unmarshal(x.Evidence, &m)
	if m["invoice_number"].Status != evidence.Edited || m["total"].Status != evidence.Grounded {
		t.Errorf("after the edit: %s", x.Evidence)
	}
	// Grounding again keeps the edit.
	x, err = GroundExtraction(context.Background(), f.db, x)
	if err != nil {
		t.Fatal(err)
	}
	m = nil
	_ = json.Unmarshal(x.Evidence, &m)
	if m["invoice_number"].Status != evidence.Edited || m["total"].Status != evidence.Grounded {
		t.Errorf("grounded again: %s", x.Evidence)
	}
}

// TestEvaluateReportsPlantedErrors: an evaluation against known values
// counts exact, wrong, missing and extra values per field, stores its
// report, compares with a baseline, and never replaces the document's data.
func TestEvaluateReportsPlantedErrors(t *testing.T) {
	f := newExtractFixture(t)
	ctx := context.Background()
	truth, err := KnownValues(mustJSON(f.want))
	if err != nil {
		t.Fatal(err)
	}
	cases := []EvalCase{{DocumentID: f.doc.ID, Known: truth, Complete: true}}

	f.srv.Enqueue(modeltest.Reply{Text: f.answer(t, nil)})
	base, err := f.x.Evaluate(ctx, EvalRequest{PromptID: f.prompt.Name, Model: "ollama/qwen3:8b", Source: storage.EvalTruth, Cases: cases})
	if err != nil {
		t.Fatal(err)
	}
	if o := base.Overall; o.Known != len(truth) || o.Exact != len(truth) || o.Wrong+o.Missing+o.Extra != 0 || o.Accuracy != 1 {
		t.Errorf("the true values scored %+v, want all %d exact", o, len(truth))
	}

	// Planted: a changed digit, a missing date, an extra field.
	f.srv.Enqueue(modeltest.Reply{Text: f.answer(t, func(v map[string]any) {
		v["total"] = 4.12
		v["date"] = nil
		v["notes"] = "paid"
	})})
	rep, err := f.x.Evaluate(ctx, EvalRequest{PromptID: f.prompt.PromptID, Model: "ollama/qwen3:8b", Source: storage.EvalTruth,
		Cases: cases, BaselineID: base.EvaluationID})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range rep.Documents[0].Mismatches {
		got[m.Path] = m.Kind
	}
	want := map[string]string{"total": "wrong", "date": "missing", "notes": "extra"}
	if len(got) != len(want) || got["total"] != "wrong" || got["date"] != "missing" || got["notes"] != "extra" {
		t.Errorf("mismatches %v, want exactly %v", got, want)
	}
	if m := rep.Documents[0].Mismatches; m[len(m)-1].Kind == "wrong" && m[len(m)-1].Status != "ungrounded" {
		t.Errorf("the wrong total is not reported as ungrounded: %+v", m)
	}
	if o := rep.Overall; o.Exact != len(truth)-2 || o.Wrong != 1 || o.Missing != 1 || o.Extra != 1 {
		t.Errorf("overall %+v", o)
	}
	if b := rep.Baseline; b == nil || b.ExactChange != -2 || b.Fields["total"] != -1 || b.Fields["date"] != -1 {
		t.Errorf("baseline comparison %+v", rep.Baseline)
	}
	var lines *EvalField
	for i := range rep.Fields {
		if rep.Fields[i].Field == "lines.*.amount" {
			lines = &rep.Fields[i]
		}
	}
	if lines == nil || lines.Known != 4 || lines.Exact != 4 || lines.Grounded != 4 {
		t.Errorf("lines.*.amount scored %+v, want 4 known, exact and grounded", lines)
	}

	stored, err := f.db.ListEvaluations(ctx, f.prompt.PromptID)
	if err != nil || len(stored) != 2 || stored[0].ID != rep.EvaluationID || stored[0].BaselineID != base.EvaluationID {
		t.Errorf("stored evaluations %+v, %v", stored, err)
	}
	if xs, err := f.db.ListExtractions(ctx, f.doc.ID); err != nil || len(xs) != 0 {
		t.Errorf("an evaluation stored %d extractions (%v); it must leave the document's data alone", len(xs), err)
	}
}

// TestCorrectionsBecomeCases: the values a person corrected are what an
// evaluation against corrections checks.
func TestCorrectionsBecomeCases(t *testing.T) {
	f := newExtractFixture(t)
	ctx := context.Background()
	f.srv.Enqueue(modeltest.Reply{Text: f.answer(t, func(v map[string]any) { v["total"] = 9.99 })})
	x, err := f.run(t, "ollama/qwen3:8b")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := PatchExtractionField(ctx, f.db, x.ID, "total", json.RawMessage(`4.11`)); err != nil {
		t.Fatal(err)
	}
	cases, err := CorrectionCases(ctx, f.db, f.prompt.Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 1 || len(cases[0].Known) != 1 || !evidence.Same(cases[0].Known["total"], json.Number("4.11")) || cases[0].Complete {
		t.Fatalf("cases %+v, want one with total 4.11", cases)
	}
	// The same wrong answer again fails the regression case.
	f.srv.Enqueue(modeltest.Reply{Text: f.answer(t, func(v map[string]any) { v["total"] = 9.99 })})
	rep, err := f.x.Evaluate(ctx, EvalRequest{PromptID: f.prompt.Name, Model: "ollama/qwen3:8b", Source: storage.EvalCorrections, Cases: cases})
	if err != nil {
		t.Fatal(err)
	}
	if o := rep.Overall; o.Known != 1 || o.Wrong != 1 || o.Extra != 0 {
		t.Errorf("regression case scored %+v, want 1 wrong and no extra", o)
	}
}
