package storage

import (
	"context"
	"database/sql"
	"errors"
)

// FilePart returns part n of a document's original bytes, as they are
// stored: part 0 is the first megabyte (or the whole file, when it was
// stored before files were split), parts 1, 2, … follow, and past the last
// part it returns nil. It is for answers too large to hold whole: a caller
// writes each part out before it reads the next, each in its own short
// read, so memory is a part, not the file.
func (db *DB) FilePart(ctx context.Context, id string, part int) ([]byte, error) {
	var b []byte
	err := db.view(ctx, "read document file", func(tx *sql.Tx) error {
		if part == 0 {
			err := tx.QueryRowContext(ctx, `SELECT bytes FROM document_files WHERE document_id = ?`, id).Scan(&b)
			if errors.Is(err, sql.ErrNoRows) {
				return Errorf(ErrNotFound, "document %s not found", id)
			}
			if b == nil {
				b = []byte{} // an empty file is zero bytes, not none
			}
			return err
		}
		err := tx.QueryRowContext(ctx, `SELECT bytes FROM document_file_parts WHERE document_id = ? AND part = ?`, id, part).Scan(&b)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}
