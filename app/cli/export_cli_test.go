package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/docent/docent/storage"
)

// `docent export` writes CSV a spreadsheet opens as text: cells that begin
// like a formula get a leading '; --raw writes them as extracted.
func TestExportCSVNeutralisesFormulasUnlessRaw(t *testing.T) {
	data := t.TempDir()
	db := openData(t, data)
	ctx := context.Background()
	doc, err := db.CreateDocument(ctx, storage.NewDocument{Name: "@evil.txt", MediaType: "text/plain", Data: []byte("x"), Pages: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	sch, err := db.CreateSchema(ctx, "cells", json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"},"d":{"type":"string"},"e":{"type":"string"},"n":{"type":"number"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := db.CreatePrompt(ctx, storage.NewPrompt{Name: "cells", Content: "extract", SchemaID: sch.SchemaID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateExtraction(ctx, storage.NewExtraction{DocumentID: doc.ID, PromptRevID: p.PromptRevID, Model: "ollama/test",
		Value: json.RawMessage(`{"a":"=1+1","b":"+A1","c":"@SUM(1)","d":"-2+3","e":"\t=1","n":-12.5}`)}); err != nil {
		t.Fatal(err)
	}
	row := func(args ...string) []string {
		t.Helper()
		code, out, errOut := docent(t, data, append([]string{"export", "--prompt", "cells"}, args...)...)
		if code != ExitOK {
			t.Fatalf("export %v: exit %d: %s", args, code, errOut)
		}
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(recs) != 2 {
			t.Fatalf("export %v: %q, %v", args, out, err)
		}
		return append([]string{recs[1][1]}, recs[1][3:9]...)
	}
	if got, want := row(), []string{"'@evil.txt", "'=1+1", "'+A1", "'@SUM(1)", "'-2+3", "'\t=1", "-12.5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("export: %q\nwant %q", got, want)
	}
	if got, want := row("--raw"), []string{"@evil.txt", "=1+1", "+A1", "@SUM(1)", "-2+3", "\t=1", "-12.5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("export --raw: %q\nwant %q", got, want)
	}
}
