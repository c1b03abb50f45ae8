package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// This file holds what reading a document's file gave: the original bytes,
// the text of each page, and the chunks the full-text index is built from.

// DocumentContent is what reading a document's file gave: its status and
// the text of its pages.
type DocumentContent struct {
	Status string
	Error  string
	Pages  []string
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
		if _, err := getDocument(ctx, tx, id); err != nil {
			return err
		}
		// Chunks first: deleting them fires the triggers that clean the index.
		if _, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE document_id = ?`, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM pages WHERE document_id = ?`, id); err != nil {
			return err
		}
		if err := insertPages(ctx, tx, id, content.Pages); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE documents SET status = ?, error = ?, pages = ?, updated_at = ? WHERE id = ?`,
			status, content.Error, len(content.Pages), tx.nowText(), id)
		if err != nil {
			return err
		}
		doc, err = getDocument(ctx, tx, id)
		return err
	})
	return doc, err
}

// insertPages stores the text of each page and its chunks; the chunk
// triggers index them.
func insertPages(ctx context.Context, tx *writeTx, id string, pages []string) error {
	pageStmt, err := tx.PrepareContext(ctx, `INSERT INTO pages (document_id, page, text) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer pageStmt.Close()
	chunkStmt, err := tx.PrepareContext(ctx, `INSERT INTO chunks (document_id, page, ord, text) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer chunkStmt.Close()
	for i, text := range pages {
		if _, err := pageStmt.ExecContext(ctx, id, i+1, text); err != nil {
			return err
		}
		for ord, chunk := range chunkText(text, chunkSize, chunkOverlap) {
			if _, err := chunkStmt.ExecContext(ctx, id, i+1, ord, chunk); err != nil {
				return err
			}
		}
	}
	return nil
}

// DocumentFile returns the original bytes of a document.
func (db *DB) DocumentFile(ctx context.Context, id string) ([]byte, error) {
	var data []byte
	err := db.sql.QueryRowContext(ctx, `SELECT bytes FROM document_files WHERE document_id = ?`, id).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, Errorf(ErrNotFound, "document %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read document file: %w", err)
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
	pages := []string{}
	err := db.view(ctx, "read document text", func(tx *sql.Tx) error {
		if _, err := getDocument(ctx, tx, id); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT text FROM pages WHERE document_id = ? ORDER BY page`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var text string
			if err := rows.Scan(&text); err != nil {
				return err
			}
			pages = append(pages, text)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return pages, nil
}
