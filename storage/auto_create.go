package storage

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Auto-create statuses of a document: where the headless agent's proposal
// (a schema, a prompt and an extraction, made in a thread of the document)
// stands.
//
//	none → pending → running → proposed → accepted
//	                         ↘ failed    ↘ rejected
//
// A document that is failed or rejected may be queued or claimed again; one
// left running by a run that stopped (a killed process) is reclaimed once
// its claim is older than the caller's stale age.
const (
	AutoCreateNone     = "none"
	AutoCreatePending  = "pending"
	AutoCreateRunning  = "running"
	AutoCreateProposed = "proposed"
	AutoCreateAccepted = "accepted"
	AutoCreateRejected = "rejected"
	AutoCreateFailed   = "failed"
)

// AutoCreateClaim is one run's hold on a document, from ClaimAutoCreate.
// Every later write of the run passes it, and is refused once another run
// has taken the document over.
type AutoCreateClaim struct {
	DocumentID string
	// Token is the claim's time as stored; the run's writes check that the
	// document still carries it.
	Token string
	// Reclaimed is set when the document had been left running by another
	// run for longer than the stale age; what that run had made was cleaned
	// up as for a failed run.
	Reclaimed bool
	// Document is the document as claimed (status running).
	Document Document
}

// AutoCreateLinks name what a run made or proposes. Empty fields are left
// as they are by RecordAutoCreate.
type AutoCreateLinks struct {
	ThreadID     string
	SchemaID     string
	PromptID     string
	ExtractionID string
}

// Refusal is a tool call that an unattended run made outside its scope
// and that was refused instead of run.
type Refusal struct {
	Tool   string `json:"tool"`
	Reason string `json:"reason"`
}

// autoCreateClaimable are the statuses a run may claim from without
// conditions.
var autoCreateClaimable = []string{AutoCreateNone, AutoCreatePending, AutoCreateFailed, AutoCreateRejected}

func isOneOf(s string, set []string) bool {
	for _, v := range set {
		if s == v {
			return true
		}
	}
	return false
}

// QueueAutoCreate marks documents pending (the upload option auto_create,
// POST .../auto-create, `docent import --auto-create`), to run with model
// ("" is the default model of whoever runs them; see
// Document.AutoCreateModel). Only documents that are ready, or waiting for
// OCR (they run once it has read them), and whose status is none, failed
// or rejected are queued; the others are left as they are, except
// that a document pending already takes model when one is given. It
// returns the documents queued. An unknown id is not found, and then none
// is queued.
func (db *DB) QueueAutoCreate(ctx context.Context, model string, documentIDs ...string) ([]Document, error) {
	model = strings.TrimSpace(model)
	queued := []Document{}
	err := db.update(ctx, "queue auto-create", func(tx *writeTx) error {
		for _, id := range uniqueStrings(documentIDs) {
			d, err := getDocument(ctx, tx, id)
			if err != nil {
				return err
			}
			if d.Status == StatusReady && d.AutoCreateStatus == AutoCreatePending && model != "" {
				if _, err := tx.ExecContext(ctx, `UPDATE documents SET auto_create_model = ? WHERE id = ?`, model, id); err != nil {
					return err
				}
				continue
			}
			canRun := d.Status == StatusReady || d.Status == StatusNeedsOCR || d.Status == StatusOCR
			if !canRun || !isOneOf(d.AutoCreateStatus, []string{AutoCreateNone, AutoCreateFailed, AutoCreateRejected}) {
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE documents SET auto_create_status = ?, auto_create_error = '',
				auto_create_model = ?, auto_create_updated_at = ? WHERE id = ?`, AutoCreatePending, model, tx.nowText(), id); err != nil {
				return err
			}
			if d, err = getDocument(ctx, tx, id); err != nil {
				return err
			}
			queued = append(queued, d)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return queued, nil
}

// ClaimAutoCreate takes a document for one auto-create run, atomically: of
// two processes claiming the same document, one gets it and the other a
// conflict. A document can be claimed when it is ready and its status is
// none, pending, failed or rejected, or running with a claim older than
// staleAfter (a run that stopped without finishing; 0 never reclaims). A
// reclaimed document is first cleaned up as a failed run would be. A
// proposed or accepted document is a conflict: reject it first to run
// again.
func (db *DB) ClaimAutoCreate(ctx context.Context, documentID string, staleAfter time.Duration) (AutoCreateClaim, error) {
	var claim AutoCreateClaim
	err := db.update(ctx, "claim auto-create", func(tx *writeTx) error {
		d, err := getDocument(ctx, tx, documentID)
		if err != nil {
			return err
		}
		if d.Status != StatusReady {
			return Errorf(ErrInvalid, "document %q cannot be auto-created: its status is %s", d.Name, d.Status)
		}
		reclaim := false
		switch {
		case isOneOf(d.AutoCreateStatus, autoCreateClaimable):
		case d.AutoCreateStatus == AutoCreateRunning:
			since := d.AutoCreateUpdatedAt
			if staleAfter <= 0 || since == nil || !since.Before(tx.now.Add(-staleAfter)) {
				at := ""
				if since != nil {
					at = " since " + formatTime(*since)
				}
				return Errorf(ErrConflict, "document %q is already being auto-created%s", d.Name, at)
			}
			reclaim = true
		default:
			return Errorf(ErrConflict, "document %q is already %s: accept or reject that proposal first", d.Name, d.AutoCreateStatus)
		}
		if reclaim {
			if err := cleanupAutoCreate(ctx, tx, d, true); err != nil {
				return err
			}
		}
		token := tx.nowText()
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET auto_create_status = ?, auto_create_error = '', auto_create_refused = '[]',
			auto_create_schema_id = NULL, auto_create_prompt_id = NULL, auto_create_extraction_id = NULL,
			auto_create_thread_id = NULL, auto_create_updated_at = ? WHERE id = ?`, AutoCreateRunning, token, d.ID); err != nil {
			return err
		}
		d, err = getDocument(ctx, tx, d.ID)
		claim = AutoCreateClaim{DocumentID: d.ID, Token: token, Reclaimed: reclaim, Document: d}
		return err
	})
	return claim, err
}

// checkClaim returns the document when the claim still holds it.
func checkClaim(ctx context.Context, tx *writeTx, c AutoCreateClaim) (Document, error) {
	d, err := getDocument(ctx, tx, c.DocumentID)
	if err != nil {
		return Document{}, err
	}
	if d.AutoCreateStatus != AutoCreateRunning || d.AutoCreateUpdatedAt == nil || formatTime(*d.AutoCreateUpdatedAt) != c.Token {
		return Document{}, Errorf(ErrConflict, "the auto-create run of document %q no longer holds it (status %s): another run took it over", d.Name, d.AutoCreateStatus)
	}
	return d, nil
}

// RecordAutoCreate notes on a running document what its run has made so
// far (the non-empty fields of l), so that a run that stops without
// finishing can be cleaned up by the next claim.
func (db *DB) RecordAutoCreate(ctx context.Context, c AutoCreateClaim, l AutoCreateLinks) error {
	return db.update(ctx, "record auto-create", func(tx *writeTx) error {
		if _, err := checkClaim(ctx, tx, c); err != nil {
			return err
		}
		sets, args := linkSets(l)
		if len(sets) == 0 {
			return nil
		}
		_, err := tx.ExecContext(ctx, `UPDATE documents SET `+strings.Join(sets, ", ")+` WHERE id = ?`, append(args, c.DocumentID)...)
		return err
	})
}

func linkSets(l AutoCreateLinks) ([]string, []any) {
	var sets []string
	var args []any
	for _, f := range []struct{ col, v string }{
		{"auto_create_thread_id", l.ThreadID}, {"auto_create_schema_id", l.SchemaID},
		{"auto_create_prompt_id", l.PromptID}, {"auto_create_extraction_id", l.ExtractionID},
	} {
		if f.v != "" {
			sets, args = append(sets, f.col+" = ?"), append(args, f.v)
		}
	}
	return sets, args
}

// ProposeAutoCreate ends a run with its proposal: the schema, prompt and
// extraction (all three required, the extraction of this document) and the
// thread. The status becomes proposed. refused, which may be empty, is
// what the run tried outside its scope; it stays with the proposal for
// the review.
func (db *DB) ProposeAutoCreate(ctx context.Context, c AutoCreateClaim, l AutoCreateLinks, refused []Refusal) (Document, error) {
	if l.SchemaID == "" || l.PromptID == "" || l.ExtractionID == "" {
		return Document{}, Errorf(ErrInvalid, "a proposal needs a schema, a prompt and an extraction")
	}
	if refused == nil {
		refused = []Refusal{}
	}
	refusedJSON, err := json.Marshal(refused)
	if err != nil {
		return Document{}, err
	}
	var doc Document
	err = db.update(ctx, "propose auto-create", func(tx *writeTx) error {
		d, err := checkClaim(ctx, tx, c)
		if err != nil {
			return err
		}
		x, err := getExtraction(ctx, tx, l.ExtractionID)
		if err != nil {
			return err
		}
		if x.DocumentID != d.ID {
			return Errorf(ErrInvalid, "extraction %s is not of document %s", x.ID, d.ID)
		}
		if _, err := latestPrompt(ctx, tx, l.PromptID); err != nil {
			return err
		}
		if _, err := latestSchema(ctx, tx, l.SchemaID); err != nil {
			return err
		}
		sets, args := linkSets(l)
		// The proposal's schema is the document's kind from now on.
		sets = append(sets, "schema_id = auto_create_schema_id",
			"auto_create_status = ?", "auto_create_error = ''", "auto_create_refused = ?", "auto_create_model = ''", "auto_create_updated_at = ?")
		args = append(args, AutoCreateProposed, string(refusedJSON), tx.nowText(), d.ID)
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET `+strings.Join(sets, ", ")+` WHERE id = ?`, args...); err != nil {
			return err
		}
		doc, err = getDocument(ctx, tx, d.ID)
		return err
	})
	return doc, err
}

// FailAutoCreate ends a run that did not reach a proposal: what it made
// (its schema, prompt and extractions, unless something else uses them,
// and its thread) is removed, no link is left on the document, and the
// status becomes failed with message as the error.
func (db *DB) FailAutoCreate(ctx context.Context, c AutoCreateClaim, message string) (Document, error) {
	return db.endUnfinished(ctx, c, AutoCreateFailed, message)
}

// RequeueAutoCreate ends a run that was interrupted (Ctrl-C, shutdown): it
// is cleaned up as a failed run, and the document goes back to pending so
// that the next batch runs it again.
func (db *DB) RequeueAutoCreate(ctx context.Context, c AutoCreateClaim) (Document, error) {
	return db.endUnfinished(ctx, c, AutoCreatePending, "")
}

func (db *DB) endUnfinished(ctx context.Context, c AutoCreateClaim, status, message string) (Document, error) {
	message = CapMessage(message)
	var doc Document
	err := db.update(ctx, "end auto-create", func(tx *writeTx) error {
		d, err := checkClaim(ctx, tx, c)
		if err != nil {
			return err
		}
		if err := cleanupAutoCreate(ctx, tx, d, true); err != nil {
			return err
		}
		model := d.AutoCreateModel // back in the queue, it runs on its model again
		if status != AutoCreatePending {
			model = ""
		}
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET auto_create_status = ?, auto_create_error = ?, auto_create_refused = '[]',
			auto_create_schema_id = NULL, auto_create_prompt_id = NULL, auto_create_extraction_id = NULL,
			auto_create_thread_id = NULL, auto_create_model = ?, auto_create_updated_at = ? WHERE id = ?`, status, message, model, tx.nowText(), d.ID); err != nil {
			return err
		}
		doc, err = getDocument(ctx, tx, d.ID)
		return err
	})
	return doc, err
}

// AcceptAutoCreate accepts a proposal: everything stays, the status
// becomes accepted. Only a proposed document can be accepted.
func (db *DB) AcceptAutoCreate(ctx context.Context, documentID string) (Document, error) {
	var doc Document
	err := db.update(ctx, "accept auto-create", func(tx *writeTx) error {
		d, err := getDocument(ctx, tx, documentID)
		if err != nil {
			return err
		}
		if d.AutoCreateStatus != AutoCreateProposed {
			return Errorf(ErrConflict, "document %q has no proposal to accept (auto-create status %s)", d.Name, d.AutoCreateStatus)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET auto_create_status = ?, auto_create_updated_at = ? WHERE id = ?`,
			AutoCreateAccepted, tx.nowText(), d.ID); err != nil {
			return err
		}
		doc, err = getDocument(ctx, tx, d.ID)
		return err
	})
	return doc, err
}

// RejectAutoCreate rejects a proposal in one transaction: the extraction
// the run made is deleted, and so are the prompt and the schema it created
// unless something else uses them (another document's auto-create, a
// prompt revision linking the schema, extractions of the prompt on other
// documents). Schemas and prompts that existed before the run are never
// deleted. The thread stays, with an empty working state, so the
// conversation can still be read; the document keeps its link to it. The
// status becomes rejected.
func (db *DB) RejectAutoCreate(ctx context.Context, documentID string) (Document, error) {
	var doc Document
	err := db.update(ctx, "reject auto-create", func(tx *writeTx) error {
		d, err := getDocument(ctx, tx, documentID)
		if err != nil {
			return err
		}
		if d.AutoCreateStatus != AutoCreateProposed {
			return Errorf(ErrConflict, "document %q has no proposal to reject (auto-create status %s)", d.Name, d.AutoCreateStatus)
		}
		// The proposal's kind goes with it (a schema the run made is gone
		// with the cleanup anyway; a reused one stays, but not as this
		// document's kind).
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET schema_id = NULL WHERE id = ? AND schema_id = ?`, d.ID, d.AutoCreateSchemaID); err != nil {
			return err
		}
		if err := cleanupAutoCreate(ctx, tx, d, false); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET auto_create_status = ?, auto_create_error = '',
			auto_create_schema_id = NULL, auto_create_prompt_id = NULL, auto_create_extraction_id = NULL,
			auto_create_updated_at = ? WHERE id = ?`, AutoCreateRejected, tx.nowText(), d.ID); err != nil {
			return err
		}
		doc, err = getDocument(ctx, tx, d.ID)
		return err
	})
	return doc, err
}

// cleanupAutoCreate removes what the run recorded on d made, as the
// functions above describe. A schema or prompt counts as made by the run
// when its id was made after the id of the run's thread (ids are ULIDs:
// they sort in the order they were made, strictly within one process and
// by the millisecond across processes; the thread is the first thing a run
// makes). Without a thread (deleted by the user since, or never started)
// only the recorded extraction is removed, so that nothing older is ever
// deleted.
func cleanupAutoCreate(ctx context.Context, tx *writeTx, d Document, deleteThread bool) error {
	runStart := ""
	if d.AutoCreateThreadID != "" {
		if err := threadExists(ctx, tx, d.AutoCreateThreadID); err == nil {
			runStart = ulidOf(d.AutoCreateThreadID)
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	createdByRun := func(id string) bool {
		return id != "" && runStart != "" && ulidOf(id) > runStart
	}
	removed := false
	exec := func(q string, args ...any) error {
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n > 0 {
			removed = true
		}
		return err
	}

	// The extraction the run proposed, and, when the run created the
	// prompt, every extraction of this document made with it (earlier
	// attempts of the refinement).
	if d.AutoCreateExtractionID != "" {
		if err := exec(`DELETE FROM extractions WHERE id = ? AND document_id = ?`, d.AutoCreateExtractionID, d.ID); err != nil {
			return err
		}
	}
	if createdByRun(d.AutoCreatePromptID) {
		if err := exec(`DELETE FROM extractions WHERE document_id = ? AND prompt_revid IN
			(SELECT id FROM prompt_revisions WHERE prompt_id = ?)`, d.ID, d.AutoCreatePromptID); err != nil {
			return err
		}
		var used bool
		if err := tx.QueryRowContext(ctx, `SELECT
				EXISTS (SELECT 1 FROM documents WHERE id <> ? AND auto_create_prompt_id = ?)
			 OR EXISTS (SELECT 1 FROM extractions e JOIN prompt_revisions p ON p.id = e.prompt_revid
			             WHERE p.prompt_id = ? AND e.document_id <> ?)`,
			d.ID, d.AutoCreatePromptID, d.AutoCreatePromptID, d.ID).Scan(&used); err != nil {
			return err
		}
		if !used {
			if err := exec(`DELETE FROM prompts WHERE id = ?`, d.AutoCreatePromptID); err != nil {
				return err
			}
		}
	}
	if createdByRun(d.AutoCreateSchemaID) {
		var used bool
		if err := tx.QueryRowContext(ctx, `SELECT
				EXISTS (SELECT 1 FROM documents WHERE id <> ? AND auto_create_schema_id = ?)
			 OR EXISTS (SELECT 1 FROM prompt_revisions p JOIN schema_revisions r ON r.id = p.schema_revid
			             WHERE r.schema_id = ?)`,
			d.ID, d.AutoCreateSchemaID, d.AutoCreateSchemaID).Scan(&used); err != nil {
			return err
		}
		if !used {
			if err := exec(`DELETE FROM schemas WHERE id = ?`, d.AutoCreateSchemaID); err != nil {
				return err
			}
		}
	}
	if d.AutoCreateThreadID == "" {
		return nil
	}
	if deleteThread {
		_, err := tx.ExecContext(ctx, `DELETE FROM threads WHERE id = ? AND document_id = ?`, d.AutoCreateThreadID, d.ID)
		return err
	}
	if removed {
		// The working state named what is gone; the next turn starts clean.
		_, err := tx.ExecContext(ctx, `UPDATE threads SET working_state = '{}', updated_at = ? WHERE id = ? AND document_id = ?`,
			tx.nowText(), d.AutoCreateThreadID, d.ID)
		return err
	}
	return nil
}

// ulidOf is the ULID part of an id ("sch_01J…" → "01J…").
func ulidOf(id string) string {
	_, u, _ := strings.Cut(id, "_")
	return u
}

// AutoCreateCandidates returns the ready documents a batch over all
// documents (`docent auto-create --all`) runs: those not proposed or
// accepted, oldest first. Running ones are included; claiming them tells
// whether they are stale.
func (db *DB) AutoCreateCandidates(ctx context.Context) ([]Document, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+documentColumns+` FROM documents d
		WHERE d.status = ? AND d.auto_create_status NOT IN (?, ?)
		ORDER BY d.created_at, d.id`, StatusReady, AutoCreateProposed, AutoCreateAccepted)
	if err != nil {
		return nil, translate("list auto-create candidates", err)
	}
	docs, err := scanDocuments(rows)
	return docs, translate("list auto-create candidates", err)
}

// PendingAutoCreates returns the auto-create queue: the ready documents
// that are pending, in the order they were queued (an interrupted run put
// back counts as queued when it was put back).
func (db *DB) PendingAutoCreates(ctx context.Context) ([]Document, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+documentColumns+` FROM documents d
		WHERE d.status = ? AND d.auto_create_status = ?
		ORDER BY d.auto_create_updated_at, d.created_at, d.id`, StatusReady, AutoCreatePending)
	if err != nil {
		return nil, translate("list the auto-create queue", err)
	}
	docs, err := scanDocuments(rows)
	return docs, translate("list the auto-create queue", err)
}
