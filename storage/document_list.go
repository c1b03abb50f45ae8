package storage

import (
	"context"
	"database/sql"
	"strings"
)

// DocumentSort is what a list of documents is sorted by
// (DocumentFilter.Sort).
type DocumentSort string

// The document list's sorts.
const (
	SortCreatedAt        DocumentSort = "created_at" // the default, newest first
	SortName             DocumentSort = "name"
	SortKind             DocumentSort = "kind"               // the kind's (schema's) name
	SortAutoCreateStatus DocumentSort = "auto_create_status" // where its proposal stands
	SortExtractionStatus DocumentSort = "extraction_status"  // its latest extraction's validation status
)

// latestExtractionStatus is the validation status of document d's newest
// extraction, NULL when it has none.
const latestExtractionStatus = `(SELECT x.validation_status FROM extractions x WHERE x.document_id = d.id
	ORDER BY x.created_at DESC, x.id DESC LIMIT 1)`

// documentOrder is the ORDER BY of ListDocuments for a sort and an order
// ("asc", "desc"; "" is newest first by creation, by name and status
// a to z). Documents without a kind or an extraction come last either way;
// ties go newest first.
func documentOrder(sort DocumentSort, order string) (string, error) {
	var desc bool
	switch strings.ToLower(order) {
	case "":
		desc = sort == "" || sort == SortCreatedAt
	case "asc":
	case "desc":
		desc = true
	default:
		return "", Errorf(ErrInvalid, "unknown order %q (want asc or desc)", order)
	}
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	tie := `, d.created_at DESC, d.id DESC`
	switch sort {
	case "", SortCreatedAt:
		return `d.created_at` + dir + `, d.id` + dir, nil
	case SortName:
		return `d.name COLLATE NOCASE` + dir + tie, nil
	case SortKind:
		return `d.schema_id IS NULL, (SELECT s.name FROM schemas s WHERE s.id = d.schema_id)` + dir + tie, nil
	case SortAutoCreateStatus:
		return `d.auto_create_status` + dir + tie, nil
	case SortExtractionStatus:
		// The status is read once per document: no extraction sorts as a
		// status after every other ("~" follows the lower-case letters
		// they are written in) going up, before every other going down.
		none := `'~'`
		if desc {
			none = `''`
		}
		return `coalesce(` + latestExtractionStatus + `, ` + none + `)` + dir + tie, nil
	}
	return "", Errorf(ErrInvalid, "unknown sort %q (want %s, %s, %s, %s or %s)",
		sort, SortName, SortCreatedAt, SortKind, SortAutoCreateStatus, SortExtractionStatus)
}

// ListedDocument is a document as lists show it: with the name of its kind
// and where its latest extraction stands.
type ListedDocument struct {
	Document
	// KindName is the name of the document's kind (SchemaID), "" for none.
	KindName string `json:"kind_name"`
	// ExtractionStatus is the validation status of the document's latest
	// extraction (a Validation constant), "" when it has none.
	ExtractionStatus string `json:"extraction_status"`
}

// ListDocumentsWithKinds is ListDocuments with each document's kind name
// and extraction status.
func (db *DB) ListDocumentsWithKinds(ctx context.Context, f DocumentFilter) ([]ListedDocument, int, error) {
	docs, total, err := db.ListDocuments(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	out := make([]ListedDocument, len(docs))
	if len(docs) == 0 {
		return out, total, nil
	}
	ids := make([]any, len(docs))
	for i, d := range docs {
		out[i].Document = d
		ids[i] = d.ID
	}
	type info struct{ kind, status string }
	found := map[string]info{}
	err = db.view(ctx, "list documents with kinds", func(tx *sql.Tx) error {
		const batch = 500 // well under SQLite's limit of bound parameters
		for start := 0; start < len(ids); start += batch {
			part := ids[start:min(start+batch, len(ids))]
			err := queryEach(ctx, tx, func(s scanner) error {
				var id string
				var in info
				if err := s.Scan(&id, &in.kind, &in.status); err != nil {
					return err
				}
				found[id] = in
				return nil
			}, `SELECT d.id, coalesce((SELECT s.name FROM schemas s WHERE s.id = d.schema_id), ''),
				coalesce(`+latestExtractionStatus+`, '')
				FROM documents d WHERE d.id IN (?`+strings.Repeat(", ?", len(part)-1)+`)`, part...)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	for i := range out {
		in := found[out[i].ID]
		out[i].KindName, out[i].ExtractionStatus = in.kind, in.status
	}
	return out, total, nil
}
