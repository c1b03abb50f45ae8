package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/app"
	"github.com/docent/docent/storage"
)

// sqlData is a data directory with two receipts extracted with a Receipt
// schema, one of whose store names holds an escape sequence and a
// newline.
func sqlData(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	data := t.TempDir()
	db, err := storage.Open(ctx, filepath.Join(data, app.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.CreateSchema(ctx, "Receipt", json.RawMessage(`{"type":"object","properties":{"store":{"type":"string"},"total":{"type":"number"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := db.CreatePrompt(ctx, storage.NewPrompt{Name: "receipts", Content: "x", SchemaID: s.SchemaID})
	if err != nil {
		t.Fatal(err)
	}
	for i, value := range []string{`{"store":"Spar","total":2.5}`, `{"store":"Evil\u001b[2J\nCorp\u202e","total":10}`} {
		d, err := db.CreateDocument(ctx, storage.NewDocument{Name: []string{"a.jpg", "b.jpg"}[i], MediaType: "text/plain",
			Data: []byte(value), Pages: []string{"receipt"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.CreateExtraction(ctx, storage.NewExtraction{DocumentID: d.ID, PromptRevID: p.PromptRevID, Value: json.RawMessage(value)}); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

func TestSQLPrintsTableCSVAndJSON(t *testing.T) {
	data := sqlData(t)
	q := "SELECT document, store, total, NULL AS missing FROM receipt ORDER BY document"

	code, out, errOut := docent(t, data, "sql", q)
	if code != ExitOK {
		t.Fatalf("sql: %d %s", code, errOut)
	}
	want := "document  store                    total  missing\n" +
		"a.jpg     Spar                     2.5    NULL\n" +
		`b.jpg     Evil\x1b[2J\nCorp\u202e  10     NULL` + "\n"
	if out != want {
		t.Errorf("table:\n%s\nwant:\n%s", out, want)
	}
	if strings.ContainsAny(out, "\x1b\u202e") {
		t.Errorf("the table holds a raw control character: %q", out)
	}

	code, out, _ = docent(t, data, "sql", q, "--format", "csv")
	if want := "document,store,total,missing\na.jpg,Spar,2.5,\nb.jpg,\"Evil\x1b[2J\nCorp\u202e\",10,\n"; code != ExitOK || out != want {
		t.Errorf("csv (%d):\n%q\nwant\n%q", code, out, want)
	}

	code, out, _ = docent(t, data, "sql", "SELECT count(*) AS n, sum(total) AS spent FROM receipt", "--format", "json")
	if want := `{"columns":["n","spent"],"rows":[[2,12.5]],"row_count":1}`; code != ExitOK || strings.TrimSpace(out) != want {
		t.Errorf("json (%d): %s", code, out)
	}
}

func TestSQLRefusalsAreUserErrors(t *testing.T) {
	data := sqlData(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sql", "DELETE FROM receipt"}, ExitFailure, "only SELECT is allowed, not DELETE"},
		{[]string{"sql", "SELECT * FROM settings"}, ExitFailure, "settings is not a data view"},
		{[]string{"sql", "SELECT 1", "--format", "xml"}, ExitUsage, `--format "xml": want table, csv or json`},
		{[]string{"sql"}, ExitUsage, "sql needs a query"},
	} {
		code, _, errOut := docent(t, data, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, %q; want %d with %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	if code, out, _ := docent(t, data, "sql", "SELECT count(*) FROM receipt"); code != ExitOK || !strings.Contains(out, "2") {
		t.Errorf("after the refusals: %d %q", code, out)
	}
}
