package storage

import (
	"context"
	"database/sql"
)

// PageText is the text of one page of a document.
type PageText struct {
	Page int
	Text string
}

// PageTexts returns the text of a document's pages from page from on, in
// order, as many as fit budget bytes (always at least one page when there
// is one), and the document's page count. It is for answers too large to
// hold whole (a 256 MiB text is 4,096 pages): a caller reads batch after
// batch and writes each out before the next, so no read transaction stays
// open while a slow client reads, and memory is a batch, not the text.
// No page from on (from past the last page) is an empty batch.
func (db *DB) PageTexts(ctx context.Context, id string, from, budget int) ([]PageText, int, error) {
	var out []PageText
	pages := 0
	err := db.view(ctx, "read document text", func(tx *sql.Tx) error {
		d, err := getDocument(ctx, tx, id)
		if err != nil {
			return err
		}
		pages = d.Pages
		size := 0
		// Stopping as soon as the budget is reached, not at the next row,
		// leaves the next page's text unread.
		return queryEach(ctx, tx, func(s scanner) error {
			var p PageText
			if err := s.Scan(&p.Page, &p.Text); err != nil {
				return err
			}
			out = append(out, p)
			if size += len(p.Text); size >= budget {
				return errEnoughRows
			}
			return nil
		}, `SELECT page, text FROM pages WHERE document_id = ? AND page >= ? ORDER BY page`, id, from)
	})
	if err != nil {
		return nil, 0, err
	}
	return out, pages, nil
}

// MorePageTexts is the batch of page texts that follows batch, read by
// PageTexts from a document of pages pages, within budget bytes: none
// when batch held the last page. Should the document's page count have
// changed since (read again with a password, say), the rest would not
// belong to what came before, and it is a conflict.
func (db *DB) MorePageTexts(ctx context.Context, id string, batch []PageText, pages, budget int) ([]PageText, error) {
	if len(batch) == 0 || batch[len(batch)-1].Page >= pages {
		return nil, nil
	}
	next, n, err := db.PageTexts(ctx, id, batch[len(batch)-1].Page+1, budget)
	if err != nil {
		return nil, err
	}
	if n != pages {
		return nil, Errorf(ErrConflict, "the pages of document %s changed from %d to %d while its text was read", id, pages, n)
	}
	return next, nil
}
