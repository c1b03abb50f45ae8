package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Kind is a schema that documents are of: the kinds auto-create chooses
// between, and the tables of the data view.
type Kind struct {
	// Schema is the schema's latest revision.
	Schema SchemaRevision `json:"schema"`
	// Documents is how many documents are of this kind.
	Documents int `json:"documents"`
	// PromptID is the prompt chosen for the kind (KindPrompt); "" when
	// none is.
	PromptID string `json:"prompt_id,omitempty"`
}

// Kinds returns the schemas that are some document's kind, with how many
// documents each has, most used first. One query reads them all: each
// kind's latest revision, and its prompt as kindPrompt chooses it.
func (db *DB) Kinds(ctx context.Context) ([]Kind, error) {
	kinds, err := queryRows(ctx, db.reader(), func(s scanner) (Kind, error) {
		var k Kind
		var err error
		k.Schema, err = scanSchemaRevision(extraColumns{s, []any{&k.Documents, &k.PromptID}})
		return k, err
	}, `SELECT `+schemaArtifact.columns+`, k.n,
		       coalesce((SELECT p.prompt_id FROM prompt_revisions p
		                   JOIN schema_revisions sr ON sr.id = p.schema_revid
		                  WHERE p.prompt_id = s.kind_prompt_id AND sr.schema_id = s.id
		                    AND `+promptArtifact.latestCond()+`), '')
		  FROM (SELECT schema_id, count(*) AS n FROM documents
		         WHERE schema_id IS NOT NULL GROUP BY schema_id) k
		  JOIN schemas s ON s.id = k.schema_id
		  JOIN schema_revisions r ON r.schema_id = k.schema_id AND `+schemaArtifact.latestCond()+`
		 ORDER BY k.n DESC, k.schema_id`)
	if err != nil {
		return nil, fmt.Errorf("list kinds: %w", err)
	}
	return kinds, nil
}

// SetDocumentKind makes schemaID (a schema id, revision id or name; ""
// for none) the document's kind.
func (db *DB) SetDocumentKind(ctx context.Context, documentID, schemaRef string) (Document, error) {
	var doc Document
	err := db.update(ctx, "set document kind", func(tx *writeTx) error {
		d, err := getDocument(ctx, tx, documentID)
		if err != nil {
			return err
		}
		var schemaID any // NULL clears the kind
		c := change{op: "set kind", kind: "document", id: documentID, documentID: documentID,
			writes: []string{rowKey(documentID)}, scopes: []scope{columnsScope("documents", documentID, "schema_id", "updated_at")}}
		c.summary = fmt.Sprintf("took document %q out of its kind", d.Name)
		if ref := strings.TrimSpace(schemaRef); ref != "" {
			rev, err := schemaArtifact.find(ctx, tx, ref)
			if err != nil {
				return err
			}
			schemaID = rev.SchemaID
			c.summary = fmt.Sprintf("put document %q in kind %q", d.Name, rev.Name)
			c.reads = []string{schemaKey(rev.SchemaID)}
		}
		if _, err := tx.journal(ctx, c); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET schema_id = ?, updated_at = ? WHERE id = ?`, schemaID, tx.nowText(), documentID); err != nil {
			return err
		}
		doc, err = getDocument(ctx, tx, documentID)
		return err
	})
	return doc, err
}

// KindPrompt returns the prompt documents of this kind are extracted with:
// the one chosen for the schema (chooseKindPrompt: a person created it
// linking the schema, or accepted a proposal of the kind), at its latest
// revision. Not found when none is chosen, or the chosen one links another
// schema now: no other prompt takes its place unasked.
func (db *DB) KindPrompt(ctx context.Context, schemaID string) (PromptRevision, error) {
	var rev PromptRevision
	err := db.view(ctx, "find the prompt of a kind", func(tx *sql.Tx) error {
		s, err := schemaArtifact.latest(ctx, tx, schemaID)
		if err != nil {
			return err
		}
		rev, err = kindPrompt(ctx, tx, s)
		return err
	})
	return rev, err
}

func kindPrompt(ctx context.Context, q queryer, s SchemaRevision) (PromptRevision, error) {
	var chosen sql.NullString
	if err := q.QueryRowContext(ctx, `SELECT kind_prompt_id FROM schemas WHERE id = ?`, s.SchemaID).Scan(&chosen); err != nil {
		return PromptRevision{}, err
	}
	if chosen.Valid {
		rev, err := promptArtifact.latest(ctx, q, chosen.String)
		if err == nil && rev.SchemaID == s.SchemaID {
			return rev, nil
		}
		if err != nil && !errors.Is(err, ErrNotFound) {
			return PromptRevision{}, err
		}
	}
	return PromptRevision{}, Errorf(ErrNotFound, "no prompt is chosen for schema %s: create a prompt linking it, or accept a proposal of that kind", s.Name)
}

// chooseKindPrompt makes promptID the prompt of its schema's kind. With
// onlyIfNone it does so only while the schema has no valid choice (a
// prompt that still links it). It does nothing when the prompt's latest
// revision links no schema.
func chooseKindPrompt(ctx context.Context, tx *writeTx, promptID string, onlyIfNone bool) error {
	rev, err := promptArtifact.latest(ctx, tx, promptID)
	if err != nil || rev.SchemaID == "" {
		return err
	}
	if onlyIfNone {
		s, err := schemaArtifact.latest(ctx, tx, rev.SchemaID)
		if err != nil {
			return err
		}
		if _, err := kindPrompt(ctx, tx, s); err == nil {
			return nil
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `UPDATE schemas SET kind_prompt_id = ? WHERE id = ?`, promptID, rev.SchemaID)
	return err
}
