package storage

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestErrorCodeAndMessage(t *testing.T) {
	for _, tc := range []struct {
		err       error
		code, msg string
	}{
		{nil, "", ""},
		{Errorf(ErrNotFound, "document %s not found", "doc_x"), "not_found", "document doc_x not found"},
		{fmt.Errorf("wrapped: %w", Errorf(ErrConflict, "tag %q exists", "x")), "conflict", `tag "x" exists`},
		{Errorf(ErrInvalid, "bad"), "invalid", "bad"},
		{Errorf(errors.New("odd"), "odd"), "internal", "odd"},
		{errors.New("disk on fire"), "internal", "Internal error."},
		{context.Canceled, "internal", "Internal error."},
	} {
		if got := ErrorCode(tc.err); got != tc.code {
			t.Errorf("ErrorCode(%v) = %q, want %q", tc.err, got, tc.code)
		}
		if got := ErrorMessage(tc.err); got != tc.msg {
			t.Errorf("ErrorMessage(%v) = %q, want %q", tc.err, got, tc.msg)
		}
	}
	err := fmt.Errorf("ctx: %w", Errorf(ErrNotFound, "gone"))
	if !errors.Is(err, ErrNotFound) || errors.Is(err, ErrConflict) {
		t.Errorf("errors.Is does not see the code through wrapping")
	}
	if err.Error() != "ctx: gone" {
		t.Errorf("Error() = %q", err.Error())
	}
}

// Constraint errors are recognised by SQLite's result code, not by text.
func TestTranslateMapsConstraintCodes(t *testing.T) {
	db := mustOpen(t)
	tag := mustCreateTag(t, db, "x")
	mustCreateDocument(t, db, NewDocument{Name: "d", TagIDs: []string{tag.ID}})
	for q, want := range map[string]error{
		`INSERT INTO tags (id, name, created_at, updated_at) VALUES ('tag_2', 'X', 'n', 'n')`:          ErrConflict, // UNIQUE
		`INSERT INTO tags (id, name, created_at, updated_at) VALUES ('` + tag.ID + `', 'y', 'n', 'n')`: ErrConflict, // PRIMARY KEY
		`INSERT INTO document_tags (document_id, tag_id) VALUES ('doc_none', 'tag_none')`:              ErrConflict, // FOREIGN KEY
		`DELETE FROM tags WHERE id IN (SELECT tag_id FROM document_tags)`:                              ErrConflict, // RESTRICT, reported as TRIGGER
		`INSERT INTO tags (id, name, created_at, updated_at) VALUES ('tag_3', ' ', 'n', 'n')`:          ErrInvalid,  // CHECK
		`INSERT INTO tags (id, name, created_at, updated_at) VALUES ('tag_4', NULL, 'n', 'n')`:         ErrInvalid,  // NOT NULL
	} {
		err := execErr(db, q)
		if !errors.Is(err, want) {
			t.Errorf("%s\n  → %v, want code %v", q, err, want)
		}
	}
	err := execErr(db, `SELECT * FROM no_such_table`)
	if err == nil || ErrorCode(err) != "internal" {
		t.Errorf("a non-constraint error became %q: %v", ErrorCode(err), err)
	}
}
