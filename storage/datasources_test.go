package storage

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// sourceNames are the documents of a query's sources, in their order.
func sourceNames(s *DataSources) []string {
	out := []string{}
	for _, r := range s.Rows {
		out = append(out, r.Document)
	}
	return out
}

func querySources(t *testing.T, db *DB, q string) DataResult {
	t.Helper()
	res, err := db.QueryData(context.Background(), DataQuery{SQL: q, MaxRows: 100, Sources: true})
	if err != nil {
		t.Fatalf("QueryData(%q): %v", q, err)
	}
	if res.Sources == nil {
		t.Fatalf("QueryData(%q) with Sources gave none", q)
	}
	return res
}

func TestQueryDataSourcesAreTheRowsTheQueryRead(t *testing.T) {
	ctx := context.Background()
	f := newRowsFixture(t)
	a, b, c := f.doc(t, "a.pdf"), f.doc(t, "b.pdf"), f.doc(t, "c.pdf")
	f.doc(t, "never.pdf")
	xa := f.extract(t, a, f.pInv, `{"number":"A-1","total":10.5}`, ValidationValid)
	xb := f.extract(t, b, f.pInv, `{"number":"B-2","total":20}`, ValidationValid)
	f.extract(t, c, f.pInv, `{"number":"C-3","total":5}`, ValidationValid)
	if _, err := f.db.SetExtractionEvidence(ctx, xa.ID, json.RawMessage(`{"total":{"page":1,"quote":"10,50","status":"grounded"},"number":{"page":1,"quote":"A-1","status":"grounded"}}`)); err != nil {
		t.Fatal(err)
	}

	// A single-view aggregate: the rows its WHERE kept, each with its
	// document, extraction, the fields the query named and their evidence.
	res := querySources(t, f.db, `SELECT SUM(total) FROM invoice WHERE total > 6`)
	if got := rowsJSON(t, res); got != `[[30.5]]` {
		t.Fatalf("sum = %s", got)
	}
	s := res.Sources
	if got := sourceNames(s); !reflect.DeepEqual(got, []string{"a.pdf", "b.pdf"}) || s.Note != "" {
		t.Fatalf("sources of the sum: %v (note %q), want a.pdf and b.pdf, the rows with total > 6", got, s.Note)
	}
	byDoc := map[string]DataSourceRow{}
	for _, r := range s.Rows {
		byDoc[r.Document] = r
	}
	if r := byDoc["a.pdf"]; r.View != "invoice" || r.DocumentID != a.ID || r.ExtractionID != xa.ID || !reflect.DeepEqual(r.Fields, []string{"total"}) ||
		!strings.Contains(string(r.Evidence), `"quote":"10,50"`) {
		t.Errorf("a.pdf's source: %+v", r)
	}
	if r := byDoc["b.pdf"]; r.ExtractionID != xb.ID || string(r.Evidence) != `{}` {
		t.Errorf("b.pdf's source: %+v (its extraction has no evidence)", r)
	}

	// Grouped: every row the WHERE kept, whatever the grouping and limit.
	s = querySources(t, f.db, `SELECT number, sum(total) AS s FROM invoice i GROUP BY number ORDER BY s DESC LIMIT 1`).Sources
	if got := sourceNames(s); len(got) != 3 {
		t.Errorf("sources of a grouped query: %v, want all 3 rows", got)
	}
	// Not an aggregate: the rows it returned, in its order and limit.
	s = querySources(t, f.db, `SELECT DISTINCT total AS t FROM invoice WHERE t < 15 ORDER BY t LIMIT 1`).Sources
	if got := sourceNames(s); !reflect.DeepEqual(got, []string{"c.pdf"}) {
		t.Errorf("sources of a list: %v, want c.pdf", got)
	}
	// Several views, or a WITH: said, not guessed.
	s = querySources(t, f.db, `SELECT sum(total) FROM invoice JOIN documents USING (document_id)`).Sources
	if len(s.Rows) != 0 || !strings.Contains(s.Note, "several views (documents, invoice)") {
		t.Errorf("join's sources: %+v", s)
	}
	s = querySources(t, f.db, `WITH x AS (SELECT total FROM invoice) SELECT sum(total) FROM x`).Sources
	if len(s.Rows) != 0 || !strings.Contains(s.Note, "not a plain SELECT over one view") {
		t.Errorf("WITH's sources: %+v", s)
	}
	// A refused query is refused as without sources.
	_, err := f.db.QueryData(ctx, DataQuery{SQL: `SELECT * FROM settings`, MaxRows: 10, Sources: true})
	wantInvalid(t, "a base table", err, "settings is not a data view")
}

func TestSourceSelect(t *testing.T) {
	for _, c := range []struct{ in, sel, view string }{
		{`SELECT sum(total) FROM receipt WHERE total > 1`, `SELECT document_id, document, extraction_id FROM receipt WHERE total > 1`, "receipt"},
		{`select count(*) from "Receipt" r where r.kind = 'x;(' group by 1`, `SELECT document_id, document, extraction_id from "Receipt" r where r.kind = 'x;(' `, "receipt"},
		{`SELECT total FROM receipt ORDER BY total LIMIT 2`, `SELECT document_id, document, extraction_id,  total FROM receipt ORDER BY total LIMIT 2`, "receipt"},
		{`SELECT total FROM receipt, documents`, "", ""},
		{`SELECT total FROM receipt UNION SELECT 1`, "", ""},
		{`SELECT (SELECT 1 FROM a JOIN b) FROM receipt`, `SELECT document_id, document, extraction_id,  (SELECT 1 FROM a JOIN b) FROM receipt`, "receipt"},
		{`SELECT total FROM (SELECT * FROM receipt)`, "", ""},
	} {
		sel, view := sourceSelect(c.in)
		if sel != c.sel || view != c.view {
			t.Errorf("sourceSelect(%q) =\n %q, %q\nwant\n %q, %q", c.in, sel, view, c.sel, c.view)
		}
	}
}
