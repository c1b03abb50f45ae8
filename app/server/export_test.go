package server_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/docent/docent/storage"
)

// The CSV download neutralises cells a spreadsheet would run as formulas;
// raw=1 gives them as extracted, and JSON is never changed.
func TestExportNeutralisesFormulasUnlessRaw(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	sch, err := f.db.CreateSchema(ctx, "cells", json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"},"d":{"type":"string"},"e":{"type":"string"},"n":{"type":"number"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.db.CreatePrompt(ctx, storage.NewPrompt{Name: "cells", Content: "extract", SchemaID: sch.SchemaID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.CreateExtraction(ctx, storage.NewExtraction{DocumentID: f.doc.ID, PromptRevID: p.PromptRevID, Model: testModel,
		Value: json.RawMessage(`{"a":"=1+1","b":"+A1","c":"@SUM(1)","d":"-2+3","e":"\t=1","n":-12.5}`)}); err != nil {
		t.Fatal(err)
	}
	cells := func(query string) []string {
		t.Helper()
		b := f.call("GET", "/api/prompts/"+p.PromptID+"/export?format=csv"+query, nil, http.StatusOK, nil)
		recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
		if err != nil || len(recs) != 2 {
			t.Fatalf("export%s: %q, %v", query, b, err)
		}
		return recs[1][3:9]
	}
	if got, want := cells(""), []string{"'=1+1", "'+A1", "'@SUM(1)", "'-2+3", "'\t=1", "-12.5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("safe cells %q, want %q", got, want)
	}
	if got, want := cells("&raw=1"), []string{"=1+1", "+A1", "@SUM(1)", "-2+3", "\t=1", "-12.5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("raw cells %q, want %q", got, want)
	}
	if b := f.call("GET", "/api/prompts/"+p.PromptID+"/export?format=json", nil, http.StatusOK, nil); !strings.Contains(string(b), `"a":"=1+1"`) {
		t.Errorf("JSON export changed: %s", b)
	}
	f.wantError("GET", "/api/prompts/"+p.PromptID+"/export?raw=maybe", nil, http.StatusBadRequest, "invalid")
}
