package storage

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
)

// This file holds what reading a document's file gave: the original bytes,
// the text of each page, and the chunks the full-text index is built from.

// filePartSize is the most bytes of a document's file one row holds (see
// migration 0003): a megabyte at a time is what storing or reading a file
// holds in memory, whatever the file's size.
const filePartSize = 1 << 20

// FileSource is a document's original bytes as a stream, for files too large
// to hand over as one slice.
type FileSource struct {
	// R yields the bytes; the store reads it once, to its end.
	R io.Reader
	// Size and SHA256 (hex) describe the bytes, from a pass over them the
	// caller made before (the duplicate check needs the digest before
	// anything is stored). The store checks both as it reads and stores
	// nothing if they differ: the file changed in between.
	Size   int64
	SHA256 string
}

// ErrFileChanged is the error of a file whose bytes changed while it was
// imported: the store's check of a FileSource as it stores it, and the
// importer's of its other passes over the file, return it (wrapped with
// what differed, for the log), so that a person reads one message however
// the change was noticed.
var ErrFileChanged = Errorf(ErrConflict, "the file changed while it was imported: import it again")

// Pages yields the text of each page of a slice, for the PageSource of a
// NewDocument or wherever pages are already in memory.
func Pages(pages []string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for _, p := range pages {
			if !yield(p, nil) {
				return
			}
		}
	}
}

// DocumentContent is what reading a document's file gave: its status and
// the text of its pages.
type DocumentContent struct {
	Status string
	Error  string
	// ErrorCode classifies Error (Document.ErrorCode).
	ErrorCode string
	Pages     []string
	// OCRPages are the pages (1-based) that text recognition reads (ocr.go).
	OCRPages []int
}

// ReplaceDocumentContent replaces what reading a document gave (status,
// error, pages and their index), for a file read again: say a PDF that
// failed for want of a password. Name, tags, metadata and id stay.
func (db *DB) ReplaceDocumentContent(ctx context.Context, id string, content DocumentContent) (Document, error) {
	status, err := checkStatus(content.Status)
	if err != nil {
		return Document{}, err
	}
	var doc Document
	err = db.update(ctx, "replace document content", func(tx *writeTx) error {
		cur, err := getDocument(ctx, tx, id)
		if err != nil {
			return err
		}
		// Restored back to front: the document's columns, then its pages
		// (a page deleted takes its words along), then what hangs on them.
		if _, err := tx.journal(ctx, change{op: "read document again", kind: "document", id: id, documentID: id,
			summary: fmt.Sprintf("read document %q again (%s, %s → %s, %s)", cur.Name, cur.Status, plural(cur.Pages, "page"),
				status, plural(len(content.Pages), "page")),
			writes: []string{rowKey(id)},
			scopes: []scope{rowsScope("page_words", "document_id", id), rowsScope("ocr_kept_pages", "document_id", id),
				rowsScope("chunks", "document_id", id), rowsScope("pages", "document_id", id),
				columnsScope("documents", id, "status", "error", "error_code", "pages", "updated_at")}}); err != nil {
			return err
		}
		// Chunks first: deleting them fires the triggers that clean the index.
		if _, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE document_id = ?`, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM pages WHERE document_id = ?`, id); err != nil {
			return err
		}
		if _, err := insertPages(ctx, tx, id, Pages(content.Pages)); err != nil {
			return err
		}
		if err := markOCRPages(ctx, tx, id, content.OCRPages); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE documents SET status = ?, error = ?, error_code = ?, pages = ?, updated_at = ? WHERE id = ?`,
			status, CapMessage(content.Error), content.ErrorCode, len(content.Pages), tx.nowText(), id)
		if err != nil {
			return err
		}
		doc, err = getDocument(ctx, tx, id)
		return err
	})
	return doc, err
}

const (
	insertPageSQL         = `INSERT INTO pages (document_id, page, text) VALUES (?, ?, ?)`
	insertChunkSQL        = `INSERT INTO chunks (document_id, page, ord, text) VALUES (?, ?, ?, ?)`
	insertDocumentFileSQL = `INSERT INTO document_files (document_id, bytes) VALUES (?, ?)`
	insertFilePartSQL     = `INSERT INTO document_file_parts (document_id, part, bytes) VALUES (?, ?, ?)`
)

// insertPages stores the text of each page and its chunks (the chunk
// triggers index them) and returns how many pages there were. Pages are
// taken one at a time, so a long text costs the memory of one page.
func insertPages(ctx context.Context, tx *writeTx, id string, pages iter.Seq2[string, error]) (int, error) {
	pageStmt, err := tx.PrepareContext(ctx, insertPageSQL)
	if err != nil {
		return 0, err
	}
	defer pageStmt.Close()
	chunkStmt, err := tx.PrepareContext(ctx, insertChunkSQL)
	if err != nil {
		return 0, err
	}
	defer chunkStmt.Close()
	n := 0
	for text, err := range pages {
		if err != nil {
			return n, fmt.Errorf("page %d: %w", n+1, err)
		}
		n++
		if _, err := pageStmt.ExecContext(ctx, id, n, text); err != nil {
			return n, err
		}
		for ord, chunk := range chunkText(text, chunkSize, chunkOverlap) {
			if _, err := chunkStmt.ExecContext(ctx, id, n, ord, chunk); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// insertFile stores a document's original bytes in parts of filePartSize,
// as it reads them, and checks that they are the size and digest the caller
// said: a file that changed since the caller hashed it is not stored.
func insertFile(ctx context.Context, tx *writeTx, id string, f FileSource) error {
	partStmt, err := tx.PrepareContext(ctx, insertFilePartSQL)
	if err != nil {
		return err
	}
	defer partStmt.Close()
	h := sha256.New()
	// Read at most one byte past Size, to notice a file that grew.
	r := io.TeeReader(io.LimitReader(f.R, f.Size+1), h)
	buf := make([]byte, min(f.Size+1, filePartSize))
	var size int64
	for part := 0; ; part++ {
		n, rerr := io.ReadFull(r, buf)
		if rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
			return fmt.Errorf("read the file: %w", rerr)
		}
		size += int64(n)
		var err error
		switch {
		case part == 0:
			// Always a row, even for an empty file: bytes is NOT NULL and
			// an empty file is zero bytes, not none.
			_, err = tx.ExecContext(ctx, insertDocumentFileSQL, id, buf[:n])
		case n > 0:
			_, err = partStmt.ExecContext(ctx, id, part, buf[:n])
		}
		if err != nil {
			return err
		}
		if n < len(buf) {
			break
		}
	}
	if sum := hex.EncodeToString(h.Sum(nil)); size != f.Size || sum != f.SHA256 {
		return fmt.Errorf("%w (%d bytes with SHA-256 %.12s…, then %d bytes with %.12s…)", ErrFileChanged, f.Size, f.SHA256, size, sum)
	}
	return nil
}

// DocumentFile returns the original bytes of a document.
func (db *DB) DocumentFile(ctx context.Context, id string) ([]byte, error) {
	var data []byte
	err := db.view(ctx, "read document file", func(tx *sql.Tx) error {
		var size int64
		var first []byte
		err := tx.QueryRowContext(ctx, `SELECT d.size, f.bytes FROM documents d
			JOIN document_files f ON f.document_id = d.id WHERE d.id = ?`, id).Scan(&size, &first)
		if errors.Is(err, sql.ErrNoRows) {
			return Errorf(ErrNotFound, "document %s not found", id)
		}
		if err != nil {
			return err
		}
		if int64(len(first)) == size {
			data = first // the whole file in one row: small, or stored before parts
			return nil
		}
		data = slices.Grow(first, int(size)-len(first))
		return queryEach(ctx, tx, func(s scanner) error {
			var part sql.RawBytes // valid until the next row: copied by append
			if err := s.Scan(&part); err != nil {
				return err
			}
			data = append(data, part...)
			return nil
		}, `SELECT bytes FROM document_file_parts WHERE document_id = ? ORDER BY part`, id)
	})
	if err != nil {
		return nil, err
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// PageText returns the text of one page, 1-based.
func (db *DB) PageText(ctx context.Context, id string, page int) (string, error) {
	var text string
	err := db.view(ctx, "read page", func(tx *sql.Tx) error {
		d, err := getDocument(ctx, tx, id)
		if err != nil {
			return err
		}
		if page < 1 || page > d.Pages {
			if d.Pages == 0 {
				return Errorf(ErrInvalid, "page %d out of range: document %s has no pages", page, id)
			}
			return Errorf(ErrInvalid, "page %d out of range 1-%d", page, d.Pages)
		}
		return tx.QueryRowContext(ctx, `SELECT text FROM pages WHERE document_id = ? AND page = ?`, id, page).Scan(&text)
	})
	return text, err
}

// DocumentText returns the text of every page, page 1 first.
func (db *DB) DocumentText(ctx context.Context, id string) ([]string, error) {
	return queryDocumentRows(ctx, db, "read document text", id, scanValue[string], `SELECT text FROM pages WHERE document_id = ? ORDER BY page`, id)
}
