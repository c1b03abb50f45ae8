package storage

import (
	"errors"
	"fmt"

	"github.com/docent/docent/storage/fault"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The store's errors are domain errors (package fault): a code and a
// message for a person. These names let the store, and callers branching on
// what the store returned (errors.Is(err, storage.ErrNotFound)), say so in
// its own terms; an error that is not the store's is made with fault
// directly.
type Error = fault.Error

// The codes the store uses.
const (
	ErrNotFound = fault.NotFound
	ErrConflict = fault.Conflict
	ErrInvalid  = fault.Invalid
)

// Errorf returns a store error with the given code (fault.Errorf).
func Errorf(code fault.Code, format string, args ...any) *Error {
	return fault.Errorf(code, format, args...)
}

// DuplicateError is returned by CreateDocument when a document with the same
// bytes is already stored. It wraps an *Error with code ErrConflict, so it
// renders like any other conflict, and carries the existing document so that
// an importer can say where the first copy went.
type DuplicateError struct {
	Existing Document
	err      *Error
}

func newDuplicateError(existing Document) *DuplicateError {
	return &DuplicateError{
		Existing: existing,
		err:      Errorf(ErrConflict, "already imported as %s (%q)", existing.ID, existing.Name),
	}
}

func (e *DuplicateError) Error() string { return e.err.Message }

// Unwrap returns the *Error, so fault.Describe and
// errors.Is(err, ErrConflict) treat a duplicate as a conflict.
func (e *DuplicateError) Unwrap() error { return e.err }

// constraintCode returns SQLite's extended result code when err is a
// constraint violation, else 0. The driver enables extended result codes, so
// the code says which kind of constraint failed; the error text is never
// looked at, because it changes between driver versions.
func constraintCode(err error) int {
	var se *sqlite.Error
	if !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_CONSTRAINT {
		return 0
	}
	return se.Code()
}

// translate turns a database error into an application error where the
// database refused the data (a constraint), and otherwise wraps it with what
// was being done (op, e.g. "create tag"), which makes it an internal error.
// Queries check what they can beforehand and say so precisely; this is the
// one place that maps whatever still reaches a constraint, such as a race
// between two processes.
func translate(op string, err error) error {
	if err == nil {
		return nil
	}
	var appErr *Error
	if errors.As(err, &appErr) {
		return err
	}
	switch constraintCode(err) {
	case 0:
		return fmt.Errorf("%s: %w", op, err)
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_ROWID:
		return Errorf(ErrConflict, "%s: a record with the same key already exists", op)
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY, sqlite3.SQLITE_CONSTRAINT_TRIGGER:
		// On insert or update the row names a record that does not exist; on
		// delete another record still uses this one. SQLite reports ON DELETE
		// RESTRICT as a trigger failure (that is how it implements it), like
		// the RAISE of the schema's own triggers, which guard stored state
		// (revisions are immutable). Either way the request conflicts with
		// what is stored.
		return Errorf(ErrConflict, "%s: it conflicts with related records (one it refers to is missing, one still refers to it, or it may not change)", op)
	default: // CHECK, NOT NULL, DATATYPE and the rest: the values are wrong
		return Errorf(ErrInvalid, "%s: the data breaks a rule of the database (%s)", op, constraintName(constraintCode(err)))
	}
}

// constraintName names a constraint kind for messages.
func constraintName(code int) string {
	switch code {
	case sqlite3.SQLITE_CONSTRAINT_CHECK:
		return "check"
	case sqlite3.SQLITE_CONSTRAINT_NOTNULL:
		return "not null"
	case sqlite3.SQLITE_CONSTRAINT_DATATYPE:
		return "data type"
	}
	return "constraint"
}
