package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
)

// evidenceObject checks an extraction's evidence for storing: a JSON object,
// compacted; nil is {}.
func evidenceObject(raw json.RawMessage) (string, error) {
	if raw == nil {
		return "{}", nil
	}
	c, ok := compactJSON(raw)
	if !ok || c[0] != '{' {
		return "", Errorf(ErrInvalid, "extraction evidence must be a JSON object keyed by field path")
	}
	return string(c), nil
}

// editedEvidence is the evidence of a value a person set.
var editedEvidence = json.RawMessage(`{"status":"edited"}`)

// markEdited returns evidence with path, and every path below it, marked
// as set by a person: where the model's value stood no longer says
// anything about the value there now.
func markEdited(evidence json.RawMessage, path string) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(evidence) > 0 {
		if err := json.Unmarshal(evidence, &m); err != nil {
			return nil, Errorf(ErrInvalid, "stored evidence is not a JSON object: %v", err)
		}
	}
	for k := range m {
		if strings.HasPrefix(k, path+".") {
			m[k] = editedEvidence
		}
	}
	m[path] = editedEvidence
	return json.Marshal(m) // sorted keys: stable text
}

// SetExtractionEvidence replaces an extraction's evidence (a JSON object
// keyed by field path): grounding an extraction made before evidence
// existed, or again after its document's words changed.
func (db *DB) SetExtractionEvidence(ctx context.Context, extractionID string, evidence json.RawMessage) (Extraction, error) {
	ev, err := evidenceObject(evidence)
	if err != nil {
		return Extraction{}, err
	}
	return db.setExtraction(ctx, "set extraction evidence", extractionID, func(tx *writeTx) (sql.Result, error) {
		return tx.ExecContext(ctx, `UPDATE extractions SET evidence = ? WHERE id = ?`, ev, extractionID)
	})
}

// DocumentWords returns the stored words of each page of a document that
// has them (text-layer PDFs from import, scans from OCR), keyed by page
// number: what grounding reads, once per extraction.
func (db *DB) DocumentWords(ctx context.Context, documentID string) (map[int]PageWords, error) {
	out := map[int]PageWords{}
	err := db.view(ctx, "read document words", func(tx *sql.Tx) error {
		if _, err := getDocument(ctx, tx, documentID); err != nil {
			return err
		}
		return queryEach(ctx, tx, func(s scanner) error {
			var page int
			var pw PageWords
			var words string
			if err := s.Scan(&page, &pw.Width, &pw.Height, &pw.DPI, &words); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(words), &pw.Words); err != nil {
				return fmt.Errorf("words of page %d of %s: %w", page, documentID, err)
			}
			out[page] = pw
			return nil
		}, `SELECT page, width, height, dpi, words FROM page_words
			WHERE document_id = ? ORDER BY page`, documentID)
	})
	return out, err
}
