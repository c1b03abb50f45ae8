package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func mustCreateExtraction(t testing.TB, db *DB, ne NewExtraction) Extraction {
	t.Helper()
	e, err := db.CreateExtraction(context.Background(), ne)
	if err != nil {
		t.Fatalf("CreateExtraction: %v", err)
	}
	return e
}

func TestCreateAndGetExtraction(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"text"}})
	p := mustCreatePrompt(t, db, NewPrompt{Name: "Invoices", Content: "x"})

	e, err := db.CreateExtraction(ctx, NewExtraction{
		DocumentID: doc.ID, PromptRevID: p.PromptRevID, Model: "ollama/qwen3:8b", RawOutput: "{ \"total\": 1.50 }",
		Value: json.RawMessage("{ \"total\": 1.50 }"), ValidationStatus: ValidationInvalid,
		ValidationErrors: json.RawMessage(`[ {"path": "/total", "message": "want string"} ]`),
		PromptTokens:     120, CompletionTokens: 8,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Extraction{ID: e.ID, DocumentID: doc.ID, PromptRevID: p.PromptRevID, Model: "ollama/qwen3:8b",
		RawOutput: "{ \"total\": 1.50 }", OriginalValue: json.RawMessage(`{"total":1.50}`), Value: json.RawMessage(`{"total":1.50}`),
		ValidationStatus: ValidationInvalid, ValidationErrors: json.RawMessage(`[{"path":"/total","message":"want string"}]`),
		Evidence: json.RawMessage(`{}`), PromptTokens: 120, CompletionTokens: 8, CreatedAt: e.CreatedAt, UpdatedAt: e.CreatedAt}
	if !strings.HasPrefix(e.ID, "ext_") || !reflect.DeepEqual(e, want) {
		t.Errorf("created\n%+v\nwant\n%+v", e, want)
	}
	if got, err := db.GetExtraction(ctx, e.ID); err != nil || !reflect.DeepEqual(got, e) {
		t.Errorf("GetExtraction = %+v, %v", got, err)
	}

	// Output that was not JSON: null values, defaults for the rest.
	bad := mustCreateExtraction(t, db, NewExtraction{DocumentID: doc.ID, PromptRevID: p.PromptRevID, RawOutput: "Sorry, I can't."})
	if string(bad.Value) != "null" || string(bad.OriginalValue) != "null" || bad.ValidationStatus != ValidationUnvalidated ||
		string(bad.ValidationErrors) != "[]" || bad.Edited {
		t.Errorf("no-JSON extraction = %+v", bad)
	}
	if n := count(t, db, "extractions", "id = ? AND value IS NULL AND original_value IS NULL", bad.ID); n != 1 {
		t.Error("a missing value is not stored as SQL NULL")
	}
	if b, _ := json.Marshal(bad); !strings.Contains(string(b), `"value":null`) || !strings.Contains(string(b), `"extraction_id":"ext_`) {
		t.Errorf("JSON = %s", b)
	}

	for _, tt := range []struct {
		ne   NewExtraction
		code error
		msg  string
	}{
		{NewExtraction{DocumentID: "doc_nope"}, ErrNotFound, "document doc_nope not found"},
		{NewExtraction{DocumentID: doc.ID, PromptRevID: "prv_nope"}, ErrInvalid, "unknown prompt revision prv_nope"},
		{NewExtraction{DocumentID: doc.ID, Value: json.RawMessage(`{"a":`)}, ErrInvalid, "extraction value is not valid JSON"},
		{NewExtraction{DocumentID: doc.ID, ValidationStatus: "ok"}, ErrInvalid, `unknown validation status "ok" (want valid, invalid or unvalidated)`},
		{NewExtraction{DocumentID: doc.ID, ValidationErrors: json.RawMessage(`{}`)}, ErrInvalid, "validation errors must be a JSON array"},
		{NewExtraction{DocumentID: doc.ID, PromptTokens: -1}, ErrInvalid, "token counts cannot be negative"},
	} {
		_, err := db.CreateExtraction(ctx, tt.ne)
		wantCode(t, err, tt.code, tt.msg)
	}
	_, err = db.GetExtraction(ctx, "ext_nope")
	wantCode(t, err, ErrNotFound, "extraction ext_nope not found")
}

func TestListAndLatestExtractions(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "b.txt", Pages: []string{"b"}})
	other := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	empty := mustCreateDocument(t, db, NewDocument{Name: "c.txt", Pages: []string{"c"}})
	p := mustCreatePrompt(t, db, NewPrompt{Name: "P", Content: "x"})
	p2 := mustUpdatePrompt(t, db, p.PromptID, PromptPatch{Content: ptr("y")})
	q := mustCreatePrompt(t, db, NewPrompt{Name: "Q", Content: "x"})

	e1 := mustCreateExtraction(t, db, NewExtraction{DocumentID: doc.ID, PromptRevID: p.PromptRevID, Value: []byte(`1`)})
	e2 := mustCreateExtraction(t, db, NewExtraction{DocumentID: doc.ID, PromptRevID: p2.PromptRevID, Value: []byte(`2`)})
	e3 := mustCreateExtraction(t, db, NewExtraction{DocumentID: doc.ID, PromptRevID: q.PromptRevID, Value: []byte(`3`)})
	e4 := mustCreateExtraction(t, db, NewExtraction{DocumentID: other.ID, PromptRevID: p.PromptRevID, Value: []byte(`4`)})
	e5 := mustCreateExtraction(t, db, NewExtraction{DocumentID: doc.ID, PromptRevID: p.PromptRevID, Value: []byte(`5`)})

	got, err := db.ListExtractions(ctx, doc.ID)
	if err != nil || !reflect.DeepEqual(got, []Extraction{e5, e3, e2, e1}) {
		t.Errorf("ListExtractions = %+v, %v", got, err)
	}
	if got, err := db.ListExtractions(ctx, empty.ID); err != nil || got == nil || len(got) != 0 {
		t.Errorf("ListExtractions(empty) = %#v, %v; want []", got, err)
	}
	_, err = db.ListExtractions(ctx, "doc_nope")
	wantCode(t, err, ErrNotFound, "document doc_nope not found")

	for _, tt := range []struct {
		rev  string
		want Extraction
	}{{"", e5}, {p.PromptRevID, e5}, {p2.PromptRevID, e2}, {q.PromptRevID, e3}} {
		if got, err := db.LatestExtraction(ctx, doc.ID, tt.rev); err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("LatestExtraction(%q) = %s, %v; want %s", tt.rev, got.Value, err, tt.want.Value)
		}
	}
	_, err = db.LatestExtraction(ctx, empty.ID, "")
	wantCode(t, err, ErrNotFound, fmt.Sprintf("document %s has no extraction", empty.ID))
	_, err = db.LatestExtraction(ctx, other.ID, q.PromptRevID)
	wantCode(t, err, ErrNotFound, fmt.Sprintf("document %s has no extraction with prompt revision %s", other.ID, q.PromptRevID))

	// By prompt: the newest per document over every revision, by document
	// name.
	byPrompt, err := db.ListExtractionsByPrompt(ctx, p.PromptID)
	if err != nil || !reflect.DeepEqual(byPrompt, []Extraction{e4, e5}) {
		t.Errorf("ListExtractionsByPrompt(P) = %+v, %v; want e4 (a.txt), e5 (b.txt)", byPrompt, err)
	}
	byPrompt, err = db.ListExtractionsByPrompt(ctx, q.PromptID)
	if err != nil || !reflect.DeepEqual(byPrompt, []Extraction{e3}) {
		t.Errorf("ListExtractionsByPrompt(Q) = %+v, %v", byPrompt, err)
	}
	_, err = db.ListExtractionsByPrompt(ctx, "prm_nope")
	wantCode(t, err, ErrNotFound, "prompt prm_nope not found")
}

func TestPatchExtractionField(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	original := `{"total":12345678901234567890.123,"line_items":[{"amount":null},null],"vendor":"ACME"}`
	e := mustCreateExtraction(t, db, NewExtraction{DocumentID: doc.ID, Value: json.RawMessage(original),
		ValidationStatus: ValidationInvalid, ValidationErrors: json.RawMessage(`[{"path":"/x","message":"m"}]`)})

	got, err := db.PatchExtractionField(ctx, e.ID, "line_items.0.amount", json.RawMessage(` 9.9900 `))
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Value) != `{"total":12345678901234567890.123,"line_items":[{"amount":9.9900},null],"vendor":"ACME"}` ||
		string(got.OriginalValue) != original || !got.Edited || !got.UpdatedAt.After(e.UpdatedAt) || !got.CreatedAt.Equal(e.CreatedAt) ||
		got.ValidationStatus != ValidationUnvalidated || string(got.ValidationErrors) != "[]" {
		t.Errorf("patched = %+v", got)
	}
	got, err = db.PatchExtractionField(ctx, e.ID, "currency", json.RawMessage(`"EUR"`))
	if err != nil || string(got.Value) != `{"total":12345678901234567890.123,"line_items":[{"amount":9.9900},null],"vendor":"ACME","currency":"EUR"}` {
		t.Errorf("added key = %s, %v", got.Value, err)
	}
	if stored, _ := db.GetExtraction(ctx, e.ID); !reflect.DeepEqual(stored, got) {
		t.Errorf("stored %+v, returned %+v", stored, got)
	}

	for _, tt := range []struct{ path, value, msg string }{
		{"line_items.1.amount", `1`, "line_items.1: is null, cannot set amount"},
		{"vendor.name", `1`, "vendor: is a string, cannot set name"},
		{"line_items.2", `1`, "line_items: index 2 is out of range (the array has 2 items)"},
		{"line_items.first.amount", `1`, `line_items: is an array, "first" is not an index`},
		{"", `1`, "path is empty"},
		{"a..b", `1`, `path "a..b" has an empty segment`},
		{"vendor", `{bad`, "the value for vendor is not valid JSON"},
		{"vendor", ``, "the value for vendor is not valid JSON"},
	} {
		_, err := db.PatchExtractionField(ctx, e.ID, tt.path, json.RawMessage(tt.value))
		wantCode(t, err, ErrInvalid, tt.msg)
	}
	if stored, _ := db.GetExtraction(ctx, e.ID); !reflect.DeepEqual(stored, got) {
		t.Errorf("a refused patch changed the extraction: %+v", stored)
	}
	_, err = db.PatchExtractionField(ctx, "ext_nope", "a", json.RawMessage(`1`))
	wantCode(t, err, ErrNotFound, "extraction ext_nope not found")

	noJSON := mustCreateExtraction(t, db, NewExtraction{DocumentID: doc.ID, RawOutput: "not json"})
	_, err = db.PatchExtractionField(ctx, noJSON.ID, "a", json.RawMessage(`1`))
	wantCode(t, err, ErrInvalid, fmt.Sprintf("extraction %s has no value to edit (the model's output was not JSON)", noJSON.ID))

	// Validation of the edited value is recorded separately.
	v, err := db.SetExtractionValidation(ctx, e.ID, ValidationValid, nil)
	if err != nil || v.ValidationStatus != ValidationValid || string(v.ValidationErrors) != "[]" || string(v.Value) != string(got.Value) {
		t.Errorf("SetExtractionValidation = %+v, %v", v, err)
	}
	_, err = db.SetExtractionValidation(ctx, e.ID, "bad", nil)
	wantCode(t, err, ErrInvalid, "")
	_, err = db.SetExtractionValidation(ctx, "ext_nope", ValidationValid, nil)
	wantCode(t, err, ErrNotFound, "extraction ext_nope not found")
}

func TestDeletingDocumentDeletesItsExtractions(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	keep := mustCreateDocument(t, db, NewDocument{Name: "b.txt", Pages: []string{"b"}})
	p := mustCreatePrompt(t, db, NewPrompt{Name: "P", Content: "x"})
	e := mustCreateExtraction(t, db, NewExtraction{DocumentID: doc.ID, PromptRevID: p.PromptRevID, Value: []byte(`{}`)})
	k := mustCreateExtraction(t, db, NewExtraction{DocumentID: keep.ID, PromptRevID: p.PromptRevID, Value: []byte(`{}`)})

	if err := db.DeleteDocument(ctx, doc.ID); err != nil {
		t.Fatal(err)
	}
	_, err := db.GetExtraction(ctx, e.ID)
	wantCode(t, err, ErrNotFound, "")
	if _, err := db.GetExtraction(ctx, k.ID); err != nil {
		t.Errorf("another document's extraction: %v", err)
	}
	if got, err := db.ListExtractionsByPrompt(ctx, p.PromptID); err != nil || len(got) != 1 || got[0].ID != k.ID {
		t.Errorf("ListExtractionsByPrompt = %+v, %v", got, err)
	}
}
