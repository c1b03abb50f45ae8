package storage

import (
	"errors"
	"testing"

	"github.com/docent/docent/storage/fault"
)

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
	if err == nil || fault.ErrorCode(err) != "internal" {
		t.Errorf("a non-constraint error became %q: %v", fault.ErrorCode(err), err)
	}
}
