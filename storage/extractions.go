package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Validation statuses of an extraction's value against its schema.
const (
	ValidationValid       = "valid"
	ValidationInvalid     = "invalid"
	ValidationUnvalidated = "unvalidated" // no schema, not checked yet, or edited since
)

// Extraction is one run of a prompt on a document, with the value as
// edited since.
type Extraction struct {
	ID         string `json:"extraction_id"`
	DocumentID string `json:"document_id"`
	// PromptRevID is the prompt revision it ran with; "" once that prompt
	// is deleted.
	PromptRevID string `json:"prompt_revid"`
	Model       string `json:"model"`
	// RawOutput is the model's text as it came.
	RawOutput string `json:"raw_output"`
	// OriginalValue is the JSON the model produced and Value the current
	// value, which field edits change (Edited). Both are null when the
	// output was not JSON.
	OriginalValue json.RawMessage `json:"original_value"`
	Value         json.RawMessage `json:"value"`
	Edited        bool            `json:"edited"`
	// ValidationStatus is one of the Validation constants.
	ValidationStatus string `json:"validation_status"`
	// ValidationErrors is a JSON array of {path, message}.
	ValidationErrors json.RawMessage `json:"validation_errors" ts:"SchemaProblem[]"`
	// Evidence says where each value stands in the document: a JSON
	// object keyed by field path, {status, page, quote, bbox, candidates}
	// (agent/evidence). {} until the extraction is grounded.
	Evidence         json.RawMessage `json:"evidence" ts:"EvidenceMap"`
	PromptTokens     int             `json:"prompt_tokens"`
	CompletionTokens int             `json:"completion_tokens"`
	// PromptTruncated is `prompt_truncated?`: the model server cut the
	// prompt to fit the model's context window, so the model saw only part
	// of the document (Note says which part). Left out when false.
	PromptTruncated bool `json:"prompt_truncated,omitempty"`
	// Note is `note?`: what a person should know of how the run went (what
	// the model saw of a document too long for its window, and what to
	// change). Left out when there is nothing.
	Note      string    `json:"note,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// NewExtraction is what CreateExtraction stores.
type NewExtraction struct {
	DocumentID, PromptRevID, Model, RawOutput string
	// Value is the model's JSON, nil when its output was not JSON. It is
	// stored as both the original and the current value.
	Value json.RawMessage
	// ValidationStatus is one of the Validation constants; "" means
	// unvalidated.
	ValidationStatus string
	// ValidationErrors must be a JSON array; nil means [].
	ValidationErrors json.RawMessage
	// Evidence must be a JSON object keyed by field path; nil means {}.
	Evidence                       json.RawMessage
	PromptTokens, CompletionTokens int
	// PromptTruncated marks a run whose prompt the server cut to fit the
	// window; Note is for people (see Extraction).
	PromptTruncated bool
	Note            string
}

const extractionColumns = `e.id, e.document_id, coalesce(e.prompt_revid, ''), e.model, e.raw_output,
	e.original_value, e.value, e.edited, e.validation_status, e.validation_errors,
	e.evidence, e.prompt_tokens, e.completion_tokens, e.prompt_truncated, e.note, e.created_at, e.updated_at`

func scanExtraction(s scanner) (Extraction, error) {
	var e Extraction
	var orig, value sql.NullString
	var verrs, evidence, created, updated string
	err := s.Scan(&e.ID, &e.DocumentID, &e.PromptRevID, &e.Model, &e.RawOutput, &orig, &value, &e.Edited,
		&e.ValidationStatus, &verrs, &evidence, &e.PromptTokens, &e.CompletionTokens, &e.PromptTruncated, &e.Note, &created, &updated)
	if err != nil {
		return Extraction{}, err
	}
	e.OriginalValue, e.Value = nullJSON(orig), nullJSON(value)
	e.ValidationErrors = json.RawMessage(verrs)
	e.Evidence = json.RawMessage(evidence)
	var errC, errU error
	e.CreatedAt, errC = parseTime(created)
	e.UpdatedAt, errU = parseTime(updated)
	return e, errors.Join(errC, errU)
}

// nullJSON turns SQL NULL into JSON null, so the field is never empty.
func nullJSON(s sql.NullString) json.RawMessage {
	if !s.Valid {
		return json.RawMessage("null")
	}
	return json.RawMessage(s.String)
}

func getExtraction(ctx context.Context, q queryer, id string) (Extraction, error) {
	e, err := scanExtraction(q.QueryRowContext(ctx, `SELECT `+extractionColumns+` FROM extractions e WHERE e.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Extraction{}, Errorf(ErrNotFound, "extraction %s not found", id)
	}
	return e, err
}

func checkValidationStatus(status string) (string, error) {
	switch status {
	case "":
		return ValidationUnvalidated, nil
	case ValidationValid, ValidationInvalid, ValidationUnvalidated:
		return status, nil
	}
	return "", Errorf(ErrInvalid, "unknown validation status %q (want %s, %s or %s)",
		status, ValidationValid, ValidationInvalid, ValidationUnvalidated)
}

// CreateExtraction stores a run of a prompt on a document. The document
// must exist (not found otherwise); an unknown prompt revision is invalid.
// An empty PromptRevID stores an extraction without a prompt.
func (db *DB) CreateExtraction(ctx context.Context, ne NewExtraction) (Extraction, error) {
	status, err := checkValidationStatus(ne.ValidationStatus)
	if err != nil {
		return Extraction{}, err
	}
	var value any // NULL when the model produced no JSON
	if ne.Value != nil {
		c, ok := compactJSON(ne.Value)
		if !ok {
			return Extraction{}, Errorf(ErrInvalid, "extraction value is not valid JSON")
		}
		value = string(c)
	}
	verrs := "[]"
	if ne.ValidationErrors != nil {
		c, ok := compactJSON(ne.ValidationErrors)
		if !ok || c[0] != '[' {
			return Extraction{}, Errorf(ErrInvalid, "validation errors must be a JSON array")
		}
		verrs = string(c)
	}
	evidence, err := evidenceObject(ne.Evidence)
	if err != nil {
		return Extraction{}, err
	}
	if ne.PromptTokens < 0 || ne.CompletionTokens < 0 {
		return Extraction{}, Errorf(ErrInvalid, "token counts cannot be negative")
	}
	var promptRevID any
	if id := strings.TrimSpace(ne.PromptRevID); id != "" {
		promptRevID = id
	}
	var ext Extraction
	err = db.update(ctx, "create extraction", func(tx *writeTx) error {
		d, err := getDocument(ctx, tx, ne.DocumentID)
		if err != nil {
			return err
		}
		id, now := newID(prefixExtraction), tx.nowText()
		c := change{op: "extract", kind: "extraction", id: id, documentID: d.ID,
			summary: fmt.Sprintf("extracted document %q", d.Name), writes: []string{extractionKey(d.ID, id)},
			scopes: []scope{treeScope("extractions", id)}}
		if promptRevID != nil {
			rev, err := promptArtifact.revision(ctx, tx, promptRevID.(string))
			if errors.Is(err, ErrNotFound) {
				return Errorf(ErrInvalid, "unknown prompt revision %s", promptRevID)
			} else if err != nil {
				return err
			}
			// An extraction relies on the prompt and schema versions it
			// ran with: undoing those is refused while it stands.
			c.summary = fmt.Sprintf("extracted document %q with prompt %q (version %d)", d.Name, rev.Name, rev.Version)
			c.reads = []string{promptKey(rev.PromptID)}
			if rev.SchemaID != "" {
				c.reads = append(c.reads, schemaKey(rev.SchemaID))
			}
		}
		if _, err := tx.journal(ctx, c); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO extractions
			(id, document_id, prompt_revid, model, raw_output, original_value, value, edited,
			 validation_status, validation_errors, evidence, prompt_tokens, completion_tokens,
			 prompt_truncated, note, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, ne.DocumentID, promptRevID, strings.TrimSpace(ne.Model), ne.RawOutput, value, value,
			status, verrs, evidence, ne.PromptTokens, ne.CompletionTokens,
			ne.PromptTruncated, strings.TrimSpace(ne.Note), now, now)
		if err != nil {
			return err
		}
		ext, err = getExtraction(ctx, tx, id)
		return err
	})
	return ext, err
}

// GetExtraction returns the extraction with this id.
func (db *DB) GetExtraction(ctx context.Context, id string) (Extraction, error) {
	e, err := getExtraction(ctx, db.sql, id)
	return e, translate("get extraction", err)
}

// ListExtractions returns a document's extractions, newest first.
func (db *DB) ListExtractions(ctx context.Context, documentID string) ([]Extraction, error) {
	return queryDocumentRows(ctx, db, "list extractions", documentID, scanExtraction, `SELECT `+extractionColumns+` FROM extractions e
		WHERE e.document_id = ? ORDER BY e.created_at DESC, e.id DESC`, documentID)
}

// LatestExtraction returns the newest extraction of a document made with
// this prompt revision, or with any prompt when promptRevID is "".
func (db *DB) LatestExtraction(ctx context.Context, documentID, promptRevID string) (Extraction, error) {
	q := `SELECT ` + extractionColumns + ` FROM extractions e WHERE e.document_id = ?`
	args := []any{documentID}
	if promptRevID != "" {
		q += ` AND e.prompt_revid = ?`
		args = append(args, promptRevID)
	}
	q += ` ORDER BY e.created_at DESC, e.id DESC LIMIT 1`
	e, err := scanExtraction(db.sql.QueryRowContext(ctx, q, args...))
	if errors.Is(err, sql.ErrNoRows) {
		if promptRevID != "" {
			return Extraction{}, Errorf(ErrNotFound, "document %s has no extraction with prompt revision %s", documentID, promptRevID)
		}
		return Extraction{}, Errorf(ErrNotFound, "document %s has no extraction", documentID)
	}
	return e, translate("latest extraction", err)
}

// ListExtractionsByPrompt returns, for each document that a revision of the
// prompt ran on, the newest extraction made with any revision of it, ordered
// by document name. This is what an export of the prompt's results reads.
func (db *DB) ListExtractionsByPrompt(ctx context.Context, promptID string) ([]Extraction, error) {
	var out []Extraction
	err := db.view(ctx, "list extractions by prompt", func(tx *sql.Tx) error {
		if _, err := promptArtifact.latest(ctx, tx, promptID); err != nil {
			return err
		}
		var err error
		out, err = queryRows(ctx, tx, scanExtraction, `SELECT `+extractionColumns+` FROM (
				SELECT x.*, row_number() OVER (PARTITION BY x.document_id ORDER BY x.created_at DESC, x.id DESC) AS n
				  FROM extractions x JOIN prompt_revisions p ON p.id = x.prompt_revid
				 WHERE p.prompt_id = ?) e
			JOIN documents d ON d.id = e.document_id
			WHERE e.n = 1 ORDER BY d.name, d.id`, promptID)
		return err
	})
	return out, err
}

// PatchExtractionField sets the field at path (dot-separated, numeric
// segments index arrays: "line_items.0.amount") in the extraction's current
// value to value, and marks it edited; the original value stays, and the
// evidence of the path and of every path below it becomes "edited". The
// validation status goes back to unvalidated, since the value it described
// changed. A path the value does not have is invalid, naming where it
// stopped.
func (db *DB) PatchExtractionField(ctx context.Context, extractionID, path string, value json.RawMessage) (Extraction, error) {
	v, ok := compactJSON(value)
	if !ok {
		return Extraction{}, Errorf(ErrInvalid, "the value for %s is not valid JSON", path)
	}
	var ext Extraction
	err := db.update(ctx, "patch extraction", func(tx *writeTx) error {
		cur, err := getExtraction(ctx, tx, extractionID)
		if err != nil {
			return err
		}
		if string(cur.Value) == "null" && strings.TrimSpace(path) != "" {
			return Errorf(ErrInvalid, "extraction %s has no value to edit (the model's output was not JSON)", extractionID)
		}
		next, err := setJSONPath(cur.Value, path, v)
		if err != nil {
			return err
		}
		evidence, err := markEdited(cur.Evidence, path)
		if err != nil {
			return err
		}
		docName, err := nameOf(ctx, tx, "documents", cur.DocumentID)
		if err != nil {
			return err
		}
		if _, err := tx.journal(ctx, change{op: "edit field", kind: "extraction", id: extractionID, documentID: cur.DocumentID,
			summary: fmt.Sprintf("set %s of document %q to %s (was %s)", fieldLabel(path), docName, clip(string(v)), clip(valueAt(cur.Value, path))),
			writes:  []string{extractionKey(cur.DocumentID, extractionID)},
			scopes: []scope{columnsScope("extractions", extractionID, "value", "edited", "evidence",
				"validation_status", "validation_errors", "updated_at")}}); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE extractions SET value = ?, edited = 1, evidence = ?,
			validation_status = ?, validation_errors = '[]', updated_at = ? WHERE id = ?`,
			string(next), string(evidence), ValidationUnvalidated, tx.nowText(), extractionID); err != nil {
			return err
		}
		ext, err = getExtraction(ctx, tx, extractionID)
		return err
	})
	return ext, err
}

// SetExtractionValidation records the result of validating an extraction's
// current value (after an edit, say): status is one of the Validation
// constants and validationErrors a JSON array (nil means []).
func (db *DB) SetExtractionValidation(ctx context.Context, extractionID, status string, validationErrors json.RawMessage) (Extraction, error) {
	status, err := checkValidationStatus(status)
	if err != nil {
		return Extraction{}, err
	}
	verrs := "[]"
	if validationErrors != nil {
		c, ok := compactJSON(validationErrors)
		if !ok || c[0] != '[' {
			return Extraction{}, Errorf(ErrInvalid, "validation errors must be a JSON array")
		}
		verrs = string(c)
	}
	return db.setExtraction(ctx, "set extraction validation", extractionID, func(tx *writeTx) (sql.Result, error) {
		return tx.ExecContext(ctx, `UPDATE extractions SET validation_status = ?, validation_errors = ?, updated_at = ?
			WHERE id = ?`, status, verrs, tx.nowText(), extractionID)
	})
}

// setExtraction runs an UPDATE of one extraction and returns it as it is
// then; an extraction the UPDATE did not find is not found.
func (db *DB) setExtraction(ctx context.Context, op, extractionID string, exec func(*writeTx) (sql.Result, error)) (Extraction, error) {
	var ext Extraction
	err := db.update(ctx, op, func(tx *writeTx) error {
		res, err := exec(tx)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return Errorf(ErrNotFound, "extraction %s not found", extractionID)
		}
		ext, err = getExtraction(ctx, tx, extractionID)
		return err
	})
	return ext, err
}
