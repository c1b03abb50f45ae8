package server_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/docent/docent/storage"
)

func TestSQLRouteAnswersOneSelectAndRefusesWrites(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	s, err := f.db.CreateSchema(ctx, "Invoice", json.RawMessage(invoiceSchema))
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.db.CreatePrompt(ctx, storage.NewPrompt{Name: "invoices", Content: "x", SchemaID: s.SchemaID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.CreateExtraction(ctx, storage.NewExtraction{DocumentID: f.doc.ID, PromptRevID: p.PromptRevID,
		Value: json.RawMessage(`{"invoice_number":"A-1","total":12.5}`)}); err != nil {
		t.Fatal(err)
	}
	sql := func(q string) string { return "/api/sql?q=" + url.QueryEscape(q) }

	b := f.call("GET", sql("SELECT document, invoice_number, total FROM invoice"), nil, 200, nil)
	if want := `{"columns":["document","invoice_number","total"],"rows":[["acme.txt","A-1",12.5]],"row_count":1}`; strings.TrimSpace(string(b)) != want {
		t.Errorf("answer %s, want %s", b, want)
	}
	for q, want := range map[string]string{
		"DELETE FROM invoice":                  "only SELECT is allowed, not DELETE",
		"SELECT value FROM settings":           "settings is not a data view",
		"SELECT 1; SELECT 2":                   "more than one statement",
		"":                                     "the query is empty",
		"SELECT * FROM invoice WHERE totl > 1": "no such column: totl",
	} {
		if msg := f.wantError("GET", sql(q), nil, 400, "invalid"); !strings.Contains(msg, want) {
			t.Errorf("%q: %q, want %q", q, msg, want)
		}
	}
	if n, err := f.db.QueryData(ctx, storage.DataQuery{SQL: "SELECT count(*) FROM invoice", MaxRows: 1}); err != nil || n.Rows[0][0] != int64(1) {
		t.Errorf("after the refusals: %+v %v", n, err)
	}
}
