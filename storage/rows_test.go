package storage

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// A row that fails to scan fails the whole read, and the rows are closed,
// so the connection goes back to the pool instead of staying busy.
func TestQueryRowsFailsOnABadRowAndFreesTheConnection(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	for _, name := range []string{"a", "b", "c"} {
		if _, err := db.CreateTag(ctx, NewTag{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	bad := errors.New("bad row")
	seen := 0
	got, err := queryRows(ctx, db.sql, func(s scanner) (string, error) {
		if seen++; seen == 2 {
			return "", bad
		}
		return scanValue[string](s)
	}, `SELECT name FROM tags ORDER BY name`)
	if !errors.Is(err, bad) || got != nil {
		t.Fatalf("queryRows = %q, %v; want no list and the scan's error", got, err)
	}
	if n := db.sql.Stats().InUse; n != 0 {
		t.Errorf("%d connections still in use after the failed read, want 0", n)
	}
	all, err := queryRows(ctx, db.sql, scanValue[string], `SELECT name FROM tags ORDER BY name`)
	if err != nil || len(all) != 3 || all[0] != "a" || all[2] != "c" {
		t.Errorf("queryRows = %q, %v; want [a b c]", all, err)
	}
}

// No rows is an empty list, which JSON shows as [] rather than null.
func TestQueryRowsOfNothingIsAnEmptyList(t *testing.T) {
	db := mustOpen(t)
	got, err := queryRows(context.Background(), db.sql, scanTag, `SELECT `+tagColumns+` FROM tags`)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(got); string(b) != "[]" {
		t.Errorf("no rows marshal as %s, want []", b)
	}
}

// A row function that has enough ends the read there: no error, no
// further row read, and the connection is free again.
func TestQueryEachStopsWhenARowFunctionHasEnough(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	for _, name := range []string{"a", "b", "c"} {
		if _, err := db.CreateTag(ctx, NewTag{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	err := queryEach(ctx, db.sql, func(s scanner) error {
		name, err := scanValue[string](s)
		if err != nil {
			return err
		}
		if got = append(got, name); len(got) == 2 {
			return errEnoughRows
		}
		return nil
	}, `SELECT name FROM tags ORDER BY name`)
	if err != nil || len(got) != 2 || got[1] != "b" {
		t.Fatalf("queryEach = %q, %v; want [a b] and no error", got, err)
	}
	if n := db.sql.Stats().InUse; n != 0 {
		t.Errorf("%d connections still in use after the read stopped, want 0", n)
	}
}

// A list of one document's rows says an unknown document is not found,
// and a known one without rows is an empty list.
func TestDocumentListsOfAnUnknownDocumentAreNotFound(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"one"}})
	_, err := db.ListThreads(ctx, "doc_missing")
	wantCode(t, err, ErrNotFound, "")
	_, err = db.ListExtractions(ctx, "doc_missing")
	wantCode(t, err, ErrNotFound, "")
	_, err = db.DocumentText(ctx, "doc_missing")
	wantCode(t, err, ErrNotFound, "")
	_, err = db.PageDetails(ctx, "doc_missing")
	wantCode(t, err, ErrNotFound, "")
	threads, err := db.ListThreads(ctx, doc.ID)
	if b, _ := json.Marshal(threads); err != nil || string(b) != "[]" {
		t.Errorf("threads of a document without any: %s, %v; want []", b, err)
	}
}
