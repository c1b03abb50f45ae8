package storage

import (
	"context"
	"fmt"
	"testing"
)

// TestPageTextsReadsInBatches: a batch holds pages until it reaches the
// budget (at least one page), from the page asked for, with the
// document's page count; past the last page it is empty.
func TestPageTextsReadsInBatches(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"one", "two", "three", "four"}})
	for _, tc := range []struct {
		from, budget int
		want         string
	}{
		{1, 4, "[{1 one} {2 two}]"}, // 3 bytes, then 6 ≥ 4: stop
		{1, 100, "[{1 one} {2 two} {3 three} {4 four}]"},
		{3, 0, "[{3 three}]"}, // at least one page
		{4, 1, "[{4 four}]"},
		{5, 10, "[]"},
	} {
		got, pages, err := db.PageTexts(ctx, doc.ID, tc.from, tc.budget)
		if s := fmt.Sprint(got); err != nil || s != tc.want || pages != 4 {
			t.Errorf("from %d, budget %d: %s, %d pages, %v; want %s, 4 pages", tc.from, tc.budget, s, pages, err, tc.want)
		}
	}
	_, _, err := db.PageTexts(ctx, "doc_missing", 1, 10)
	wantCode(t, err, ErrNotFound, "")
}
