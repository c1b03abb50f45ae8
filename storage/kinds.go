package storage

import (
	"context"
	"database/sql"
	"strings"
)

// Kind is a schema that documents are of: the kinds auto-create chooses
// between, and the tables of the data view.
type Kind struct {
	// Schema is the schema's latest revision.
	Schema SchemaRevision `json:"schema"`
	// Documents is how many documents are of this kind.
	Documents int `json:"documents"`
}

// Kinds returns the schemas that are some document's kind, with how many
// documents each has, most used first.
func (db *DB) Kinds(ctx context.Context) ([]Kind, error) {
	out := []Kind{}
	err := db.view(ctx, "list kinds", func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT schema_id, count(*) FROM documents
			WHERE schema_id IS NOT NULL GROUP BY schema_id ORDER BY count(*) DESC, schema_id`)
		if err != nil {
			return err
		}
		type count struct {
			id string
			n  int
		}
		var counts []count
		for rows.Next() {
			var c count
			if err := rows.Scan(&c.id, &c.n); err != nil {
				rows.Close()
				return err
			}
			counts = append(counts, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, c := range counts {
			rev, err := latestSchema(ctx, tx, c.id)
			if err != nil {
				return err
			}
			out = append(out, Kind{Schema: rev, Documents: c.n})
		}
		return nil
	})
	return out, err
}

// SetDocumentKind makes schemaID (a schema id, revision id or name; ""
// for none) the document's kind.
func (db *DB) SetDocumentKind(ctx context.Context, documentID, schemaRef string) (Document, error) {
	var doc Document
	err := db.update(ctx, "set document kind", func(tx *writeTx) error {
		if _, err := getDocument(ctx, tx, documentID); err != nil {
			return err
		}
		var schemaID any // NULL clears the kind
		if ref := strings.TrimSpace(schemaRef); ref != "" {
			rev, err := findSchema(ctx, tx, ref)
			if err != nil {
				return err
			}
			schemaID = rev.SchemaID
		}
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET schema_id = ?, updated_at = ? WHERE id = ?`, schemaID, tx.nowText(), documentID); err != nil {
			return err
		}
		var err error
		doc, err = getDocument(ctx, tx, documentID)
		return err
	})
	return doc, err
}

// KindPrompt returns the prompt documents of this kind are extracted with:
// the newest prompt whose latest revision links the schema (not found when
// none does).
func (db *DB) KindPrompt(ctx context.Context, schemaID string) (PromptRevision, error) {
	var revs []PromptRevision
	err := db.view(ctx, "find the prompt of a kind", func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+promptRevisionColumns+promptRevisionFrom+` WHERE `+latestPromptRevision+
			` AND sr.schema_id = ? ORDER BY p.created_at DESC, p.id DESC LIMIT 1`, schemaID)
		if err != nil {
			return err
		}
		revs, err = scanPromptRevisions(rows)
		return err
	})
	if err != nil {
		return PromptRevision{}, err
	}
	if len(revs) == 0 {
		return PromptRevision{}, Errorf(ErrNotFound, "no prompt extracts with schema %s", schemaID)
	}
	return revs[0], nil
}
