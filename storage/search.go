package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// SearchHit is one chunk that matches a full-text search.
type SearchHit struct {
	DocumentID   string `json:"document_id"`
	DocumentName string `json:"document_name"`
	ChunkID      int64  `json:"chunk_id"`
	Page         int    `json:"page"`
	// Snippet is a short excerpt with the matching words between « and ».
	Snippet string `json:"snippet"`
	// Score is the relevance: higher is better (the negated BM25 rank).
	Score float64 `json:"score"`
}

// Chunk is a piece of a page's text, as a search hit or citation names it.
type Chunk struct {
	ID         int64  `json:"chunk_id"`
	DocumentID string `json:"document_id"`
	Page       int    `json:"page"`
	Text       string `json:"text"`
}

// Search limits.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 100
)

// Search finds the chunks that contain every word of query, best first.
// query is plain user text: words, not FTS5 syntax; a word ending in * also
// matches words that start with it. A query without words is invalid.
func (db *DB) Search(ctx context.Context, query string, limit int) ([]SearchHit, error) {
	if strings.TrimSpace(query) == "" {
		return nil, Errorf(ErrInvalid, "search query is empty")
	}
	match := ftsQuery(query)
	if match == "" {
		return nil, Errorf(ErrInvalid, "search query %q has no words to look for", query)
	}
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	// The FTS table must drive the inner query for bm25() and snippet() to
	// work; the joins for page and document name come after the limit.
	hits, err := queryRows(ctx, db.sql, func(s scanner) (SearchHit, error) {
		var h SearchHit
		err := s.Scan(&h.DocumentID, &h.DocumentName, &h.ChunkID, &h.Page, &h.Snippet, &h.Score)
		return h, err
	}, `
		WITH hits AS (
			SELECT rowid AS id,
			       snippet(chunks_fts, 0, '«', '»', '…', 16) AS snippet,
			       bm25(chunks_fts) AS rank
			  FROM chunks_fts
			 WHERE chunks_fts MATCH ?
			 ORDER BY rank
			 LIMIT ?)
		SELECT c.document_id, d.name, c.id, c.page, h.snippet, -h.rank
		  FROM hits h
		  JOIN chunks c ON c.id = h.id
		  JOIN documents d ON d.id = c.document_id
		 ORDER BY h.rank, c.id`, match, limit)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return hits, nil
}

// ftsQuery turns user text into an FTS5 query that cannot be a syntax error:
// each whitespace-separated word becomes a quoted string (quotes inside
// doubled), so AND, OR, NOT, NEAR, -, ^, :, ( and stray quotes are just
// text; the words are ANDed. A trailing * is kept as a prefix search. Words
// without a letter or digit are dropped, since the tokenizer would find
// nothing in them, and control characters separate words (FTS5 reads its
// query as a C string: a NUL would end it inside a quoted string). It returns
// "" when no word is left.
func ftsQuery(text string) string {
	text = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, text)
	var terms []string
	for _, field := range strings.Fields(text) {
		word := strings.TrimRight(field, "*")
		if !strings.ContainsFunc(word, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) {
			continue
		}
		term := `"` + strings.ReplaceAll(word, `"`, `""`) + `"`
		if len(word) < len(field) {
			term += "*"
		}
		terms = append(terms, term)
	}
	return strings.Join(terms, " ")
}

// GetChunk returns a chunk of a document. A chunk id of another document is
// not found, so a citation cannot reach outside the document it names.
func (db *DB) GetChunk(ctx context.Context, documentID string, chunkID int64) (Chunk, error) {
	var c Chunk
	err := db.sql.QueryRowContext(ctx, `SELECT id, document_id, page, text FROM chunks WHERE id = ? AND document_id = ?`,
		chunkID, documentID).Scan(&c.ID, &c.DocumentID, &c.Page, &c.Text)
	if errors.Is(err, sql.ErrNoRows) {
		return Chunk{}, Errorf(ErrNotFound, "chunk %d not found in document %s", chunkID, documentID)
	}
	if err != nil {
		return Chunk{}, fmt.Errorf("get chunk: %w", err)
	}
	return c, nil
}
