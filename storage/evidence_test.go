package storage

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

func TestExtractionEvidenceIsStoredAndEditsMarkIt(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"Total 4.11"}})
	p := mustCreatePrompt(t, db, NewPrompt{Name: "Invoices", Content: "x"})
	ev := `{"total":{"page":1,"quote":"4.11","status":"grounded"},"lines.0.amount":{"status":"ungrounded"},` +
		`"lines.0.sku":{"page":1,"quote":"A1","status":"grounded"},"lines.10.sku":{"status":"ungrounded"}}`
	x := mustCreateExtraction(t, db, NewExtraction{DocumentID: doc.ID, PromptRevID: p.PromptRevID,
		Value:    json.RawMessage(`{"total":4.11,"lines":[{"amount":1,"sku":"A1"}]}`),
		Evidence: json.RawMessage(ev)})
	if !jsonEqual(x.Evidence, ev) {
		t.Fatalf("stored evidence = %s", x.Evidence)
	}

	// Patching an object marks everything below it, and only that.
	x, err := db.PatchExtractionField(ctx, x.ID, "lines.0", json.RawMessage(`{"amount":2,"sku":"B"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"total":{"page":1,"quote":"4.11","status":"grounded"},"lines.0":{"status":"edited"},` +
		`"lines.0.amount":{"status":"edited"},"lines.0.sku":{"status":"edited"},"lines.10.sku":{"status":"ungrounded"}}`
	if !jsonEqual(x.Evidence, want) {
		t.Errorf("after patching lines.0 evidence = %s\nwant %s", x.Evidence, want)
	}

	if _, err := db.CreateExtraction(ctx, NewExtraction{DocumentID: doc.ID, Evidence: json.RawMessage(`[1]`)}); !errors.Is(err, ErrInvalid) {
		t.Errorf("evidence that is not an object: %v, want invalid", err)
	}
	y, err := db.SetExtractionEvidence(ctx, x.ID, json.RawMessage(`{"total":{"status":"ambiguous"}}`))
	if err != nil || !jsonEqual(y.Evidence, `{"total":{"status":"ambiguous"}}`) {
		t.Errorf("SetExtractionEvidence = %s, %v", y.Evidence, err)
	}
	if _, err := db.SetExtractionEvidence(ctx, "ext_missing", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetExtractionEvidence of a missing extraction: %v", err)
	}
}

func TestDocumentWordsReadsEveryPageWithWords(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "scan.pdf", Pages: []string{"", "", ""}, OCRPages: []int{1, 2, 3},
		Status: StatusNeedsOCR})
	job, err := db.ClaimOCR(ctx, doc.ID, false, 60e9)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.FinishOCR(ctx, &job, []OCRPage{
		{Page: 1, Text: "TOTAL 9.00", Source: SourceOCR, Words: &PageWords{Width: 100, Height: 200, DPI: 300,
			Words: []Word{{X: 1, Y: 2, W: 30, H: 10, Conf: 91, Text: "TOTAL"}, {X: 40, Y: 2, W: 20, H: 10, Conf: 88, Text: "9.00"}}}},
		{Page: 3, Text: "x", Source: SourceOCR, Words: &PageWords{Width: 10, Height: 10, Words: []Word{{W: 1, H: 1, Text: "x"}}}},
	}, StatusReady, "")
	if err != nil {
		t.Fatal(err)
	}
	words, err := db.DocumentWords(ctx, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(words) != 2 || len(words[1].Words) != 2 || words[1].Words[1].Text != "9.00" || words[1].Width != 100 || words[3].Words[0].Text != "x" {
		t.Errorf("DocumentWords = %+v", words)
	}
	if _, err := db.DocumentWords(ctx, "doc_missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("DocumentWords of a missing document: %v", err)
	}
}

func TestEvaluationsAreStoredPerPrompt(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	p := mustCreatePrompt(t, db, NewPrompt{Name: "Invoices", Content: "x"})
	first, err := db.CreateEvaluation(ctx, NewEvaluation{PromptRevID: p.PromptRevID, Model: "ollama/m", Source: EvalTruth,
		Report: json.RawMessage(`{"overall": {"exact": 3}}`)})
	if err != nil {
		t.Fatal(err)
	}
	second, err := db.CreateEvaluation(ctx, NewEvaluation{PromptRevID: p.PromptRevID, Source: EvalCorrections,
		BaselineID: first.ID, Report: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if first.PromptID != p.PromptID || second.BaselineID != first.ID || string(first.Report) != `{"overall":{"exact":3}}` {
		t.Errorf("created %+v and %+v", first, second)
	}
	list, err := db.ListEvaluations(ctx, p.PromptID)
	if err != nil || len(list) != 2 || list[0].ID != second.ID {
		t.Errorf("ListEvaluations = %+v, %v", list, err)
	}
	for _, bad := range []NewEvaluation{
		{PromptRevID: p.PromptRevID, Source: "guess", Report: json.RawMessage(`{}`)},
		{PromptRevID: p.PromptRevID, Source: EvalTruth, Report: json.RawMessage(`[]`)},
	} {
		if _, err := db.CreateEvaluation(ctx, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("CreateEvaluation(%+v) = %v, want invalid", bad, err)
		}
	}
	if _, err := db.CreateEvaluation(ctx, NewEvaluation{PromptRevID: p.PromptRevID, Source: EvalTruth, BaselineID: "evl_x",
		Report: json.RawMessage(`{}`)}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown baseline: %v", err)
	}
	if _, err := db.GetEvaluation(ctx, first.ID); err != nil {
		t.Error(err)
	}
}

// jsonEqual compares JSON texts by value.
func jsonEqual(got json.RawMessage, want string) bool {
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal([]byte(want), &b) != nil {
		return false
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
