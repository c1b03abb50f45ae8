package storage

import (
	"context"
	"testing"
)

// TestRowFilterWithNULIsRefused: SQLite reads bound text up to its first
// NUL, so a filter "\x00" reached the filter function as "" and matched
// every row. Such a filter (or a path with a NUL) is now a client error,
// not a silent "everything".
func TestRowFilterWithNULIsRefused(t *testing.T) {
	ctx := context.Background()
	f := newRowsFixture(t)
	a := f.doc(t, "a.pdf")
	b := f.doc(t, "b.pdf")
	f.extract(t, a, f.pInv, `{"number":"A-1","seller":{"name":"ACME"}}`, ValidationValid)
	f.extract(t, b, f.pInv, `{"number":"B-2","seller":{"name":"Globex"}}`, ValidationValid)

	for _, q := range []SchemaRowsQuery{
		{Filters: []RowFilter{{"seller.name", "\x00"}}},
		{Filters: []RowFilter{{"seller.name", "acme\x00globex"}}},
		{Filters: []RowFilter{{RowKeyDocumentName, "\x00"}}},
		{Filters: []RowFilter{{"seller\x00.name", "acme"}}},
		{Sort: "number\x00"},
	} {
		q.SchemaID = f.invoice.SchemaID
		rows, total, err := f.db.SchemaRows(ctx, q)
		if err == nil {
			t.Errorf("%+q: %d rows (%s) of %d, want the query refused", q.Filters, len(rows), rowNames(rows), total)
			continue
		}
		wantCode(t, err, ErrInvalid, "")
	}
	// A filter without a NUL still works.
	rows, _, err := f.db.SchemaRows(ctx, SchemaRowsQuery{SchemaID: f.invoice.SchemaID, Filters: []RowFilter{{"seller.name", "acme"}}})
	if err != nil || rowNames(rows) != "a.pdf" {
		t.Errorf("filter acme: %q %v", rowNames(rows), err)
	}
}
