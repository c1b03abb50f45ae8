package storage

import (
	"context"
	"fmt"
	"strings"
)

// threadsDocumentColumn is threads.document_id as 0001_init.sql declared it,
// and libraryDocumentColumn the same without NOT NULL.
const (
	threadsDocumentColumn = "document_id   TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE"
	libraryDocumentColumn = "document_id   TEXT REFERENCES documents (id) ON DELETE CASCADE"
)

// allowLibraryThreads removes NOT NULL from threads.document_id, the Go part
// of migration 0017. It follows SQLite's procedure for changes that leave
// the stored rows valid (https://www.sqlite.org/lang_altertable.html, section
// 7): rewrite the table's CREATE statement in sqlite_schema and bump the
// schema version so that every connection reloads it. No row is copied, so
// the messages, paused turns and documents that refer to threads keep their
// foreign keys; the usual 12-step rebuild would need foreign keys off, which
// cannot be switched inside the migration's transaction, and with them on
// DROP TABLE threads would delete every message.
func allowLibraryThreads(ctx context.Context, tx *writeTx) (err error) {
	var create string
	if err := tx.QueryRowContext(ctx, `SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'threads'`).Scan(&create); err != nil {
		return fmt.Errorf("read the threads table's definition: %w", err)
	}
	if n := strings.Count(create, threadsDocumentColumn); n != 1 {
		// Never guess at a definition this code did not write.
		return fmt.Errorf("threads table: expected its document_id column declared once as %q, found %d times", threadsDocumentColumn, n)
	}
	var version int
	if err := tx.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `PRAGMA writable_schema = ON`); err != nil {
		return fmt.Errorf("allow the schema change: %w", err)
	}
	// The connection goes back to the pool: writable_schema must not stay on
	// for whatever it runs next, failed migration or not.
	defer func() {
		if _, offErr := tx.ExecContext(ctx, `PRAGMA writable_schema = OFF`); offErr != nil && err == nil {
			err = fmt.Errorf("end the schema change: %w", offErr)
		}
	}()
	if _, err := tx.ExecContext(ctx, `UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = 'threads'`,
		strings.Replace(create, threadsDocumentColumn, libraryDocumentColumn, 1)); err != nil {
		return fmt.Errorf("rewrite the threads table's definition: %w", err)
	}
	// PRAGMA takes no parameters: the number is formatted in.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA schema_version = %d`, version+1)); err != nil {
		return fmt.Errorf("bump schema version: %w", err)
	}
	return nil
}
