package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	return db.endRun(ctx, "propose auto-create", c, refused, func(tx *writeTx, d Document, refusedJSON string) error {
		x, err := getExtraction(ctx, tx, l.ExtractionID)
		if err != nil {
			return err
		}
		if x.DocumentID != d.ID {
			return Errorf(ErrInvalid, "extraction %s is not of document %s", x.ID, d.ID)
		}
		if _, err := promptArtifact.latest(ctx, tx, l.PromptID); err != nil {
			return err
		}
		if _, err := schemaArtifact.latest(ctx, tx, l.SchemaID); err != nil {
			return err
		}
		sets, args := linkSets(l)
		// The proposal's schema is the document's kind from now on.
		sets = append(sets, "schema_id = auto_create_schema_id",
			"auto_create_status = ?", "auto_create_error = ''", "auto_create_refused = ?", "auto_create_model = ''", "auto_create_updated_at = ?")
		args = append(args, AutoCreateProposed, refusedJSON, tx.nowText(), d.ID)
		_, err = tx.ExecContext(ctx, `UPDATE documents SET `+strings.Join(sets, ", ")+` WHERE id = ?`, args...)
		return err
	})
}

// FailAutoCreate ends a run that did not reach a proposal: what it made
// (its schema, prompt and extractions, unless a person uses them, and its
// thread) is removed, no link is left on the document, and the status
// becomes failed with message as the error. refused, which may be empty,
// is what the run tried outside its scope: it stays on the document
// (auto_create_refused), as a proposal's does, since a run that a
// document's text steered off its job often fails, and that is when a
// person most needs to see why.
func (db *DB) FailAutoCreate(ctx context.Context, c AutoCreateClaim, message string, refused []Refusal) (Document, error) {
	return db.endUnfinished(ctx, c, AutoCreateFailed, message, refused)
}

// RequeueAutoCreate ends a run that was interrupted (Ctrl-C, shutdown): it
// is cleaned up as a failed run, and the document goes back to pending so
// that the next batch runs it again.
func (db *DB) RequeueAutoCreate(ctx context.Context, c AutoCreateClaim) (Document, error) {
	return db.endUnfinished(ctx, c, AutoCreatePending, "", nil)
}

func (db *DB) endUnfinished(ctx context.Context, c AutoCreateClaim, status, message string, refused []Refusal) (Document, error) {
	message = CapMessage(message)
	return db.endRun(ctx, "end auto-create", c, refused, func(tx *writeTx, d Document, refusedJSON string) error {
		if err := cleanupAutoCreate(ctx, tx, d, true); err != nil {
			return err
		}
		model := d.AutoCreateModel // back in the queue, it runs on its model again
		if status != AutoCreatePending {
			model = ""
		}
		_, err := tx.ExecContext(ctx, `UPDATE documents SET auto_create_status = ?, auto_create_error = ?, auto_create_refused = ?,
			auto_create_schema_id = NULL, auto_create_prompt_id = NULL, auto_create_extraction_id = NULL,
			auto_create_thread_id = NULL, auto_create_model = ?, auto_create_updated_at = ? WHERE id = ?`, status, message, refusedJSON, model, tx.nowText(), d.ID)
		return err
	})
}

// endRun ends the claimed run of a document in one transaction, only while
// the claim holds: end writes the outcome, given the refusals as the JSON
// stored with it (none is [], not null), and the document is returned as
// it then is.
func (db *DB) endRun(ctx context.Context, op string, c AutoCreateClaim, refused []Refusal, end func(tx *writeTx, d Document, refusedJSON string) error) (Document, error) {
	if refused == nil {
		refused = []Refusal{}
	}
	refusedJSON, err := json.Marshal(refused)
	if err != nil {
		return Document{}, err
	}
	var doc Document
	err = db.update(ctx, op, func(tx *writeTx) error {
		d, err := checkClaim(ctx, tx, c)
		if err != nil {
			return err
		}
		if err := end(tx, d, string(refusedJSON)); err != nil {
			return err
		}
		doc, err = getDocument(ctx, tx, d.ID)
		return err
	})
	return doc, err
}

// AcceptAutoCreate accepts a proposal: everything stays, the status
// becomes accepted, and the proposal's prompt becomes its kind's prompt
// (KindPrompt) when the run made it, or when the kind has none chosen
// yet: until a person accepts it, no other document is extracted with
// it. Only a proposed document can be accepted.
func (db *DB) AcceptAutoCreate(ctx context.Context, documentID string) (Document, error) {
	return db.decideProposal(ctx, documentID, "accept", func(tx *writeTx, d Document) error {
		c := change{op: "accept proposal", kind: "document", id: d.ID, documentID: d.ID,
			summary: fmt.Sprintf("accepted the auto-create proposal for %q", d.Name), writes: []string{rowKey(d.ID)},
			scopes: []scope{columnsScope("documents", d.ID, "auto_create_status", "auto_create_updated_at")}}
		if d.AutoCreatePromptID != "" {
			if p, err := promptArtifact.latest(ctx, tx, d.AutoCreatePromptID); err == nil && p.SchemaID != "" {
				c.writes = append(c.writes, kindKey(p.SchemaID))
				c.scopes = append(c.scopes, columnsScope("schemas", p.SchemaID, "kind_prompt_id"))
			} else if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		if _, err := tx.journal(ctx, c); err != nil {
			return err
		}
		if d.AutoCreatePromptID != "" {
			madeByRun := d.AutoCreateThreadID != "" && ulidOf(d.AutoCreatePromptID) > ulidOf(d.AutoCreateThreadID)
			if err := chooseKindPrompt(ctx, tx, d.AutoCreatePromptID, !madeByRun); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE documents SET auto_create_status = ?, auto_create_updated_at = ? WHERE id = ?`,
			AutoCreateAccepted, tx.nowText(), d.ID)
		return err
	})
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
	return db.decideProposal(ctx, documentID, "reject", func(tx *writeTx, d Document) error {
		// What the run made may be deleted: its trees are kept whole.
		c := change{op: "reject proposal", kind: "document", id: d.ID, documentID: d.ID,
			summary: fmt.Sprintf("rejected the auto-create proposal for %q", d.Name), writes: []string{rowKey(d.ID)}}
		if d.AutoCreateSchemaID != "" {
			c.writes = append(c.writes, schemaKey(d.AutoCreateSchemaID))
			c.scopes = append(c.scopes, treeScope("schemas", d.AutoCreateSchemaID))
		}
		if d.AutoCreatePromptID != "" {
			c.writes = append(c.writes, promptKey(d.AutoCreatePromptID))
			c.scopes = append(c.scopes, treeScope("prompts", d.AutoCreatePromptID))
		}
		if d.AutoCreateExtractionID != "" {
			c.writes = append(c.writes, extractionKey(d.ID, d.AutoCreateExtractionID))
			c.scopes = append(c.scopes, treeScope("extractions", d.AutoCreateExtractionID))
		}
		c.scopes = append(c.scopes, columnsScope("documents", d.ID, "schema_id", "auto_create_status", "auto_create_error",
			"auto_create_schema_id", "auto_create_prompt_id", "auto_create_extraction_id", "auto_create_updated_at"))
		if _, err := tx.journal(ctx, c); err != nil {
			return err
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
		_, err := tx.ExecContext(ctx, `UPDATE documents SET auto_create_status = ?, auto_create_error = '',
			auto_create_schema_id = NULL, auto_create_prompt_id = NULL, auto_create_extraction_id = NULL,
			auto_create_updated_at = ? WHERE id = ?`, AutoCreateRejected, tx.nowText(), d.ID)
		return err
	})
}

// decideProposal runs decide (verb: accept or reject) on a document's
// proposal in one transaction and returns the document as it then is. A
// document without a proposal is a conflict, so that a decision made
// twice, or on a run still going, changes nothing.
func (db *DB) decideProposal(ctx context.Context, documentID, verb string, decide func(*writeTx, Document) error) (Document, error) {
	var doc Document
	err := db.update(ctx, verb+" auto-create", func(tx *writeTx) error {
		d, err := getDocument(ctx, tx, documentID)
		if err != nil {
			return err
		}
		if d.AutoCreateStatus != AutoCreateProposed {
			return Errorf(ErrConflict, "document %q has no proposal to %s (auto-create status %s)", d.Name, verb, d.AutoCreateStatus)
		}
		if err := decide(tx, d); err != nil {
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
//
// What the run made goes even when other documents' runs that nobody has
// accepted yet used it (a batch that reused the run's schema as their
// kind): those proposals are taken down with it (their extractions made
// with it removed, their status failed, saying why), since nothing a
// proposal made may stay in use once the proposal is gone. It stays only
// when a person uses it (artifactKept): a prompt chosen for a kind, an
// accepted proposal, a document a person put in the kind, an extraction
// outside every unaccepted run.
func cleanupAutoCreate(ctx context.Context, tx *writeTx, d Document, deleteThread bool) error {
	c := &autoCreateCleanup{ctx: ctx, tx: tx, done: map[string]bool{}, origin: d}
	return c.run(d, deleteThread)
}

// autoCreateCleanup is one cleanup, with the documents it has cleaned up
// so far (a chain of proposals that used each other's work ends).
type autoCreateCleanup struct {
	ctx    context.Context
	tx     *writeTx
	done   map[string]bool
	origin Document
}

// unacceptedRunExtraction is the condition that extraction e was made by
// an auto-create run nobody has accepted: on a document whose run is
// running or proposed, after that run's thread.
const unacceptedRunExtraction = `EXISTS (SELECT 1 FROM documents o WHERE o.id = e.document_id
	AND o.auto_create_status IN ('running', 'proposed') AND o.auto_create_thread_id IS NOT NULL
	AND substr(e.id, instr(e.id, '_') + 1) > substr(o.auto_create_thread_id, instr(o.auto_create_thread_id, '_') + 1))`

func (c *autoCreateCleanup) exec(q string, args ...any) (bool, error) {
	res, err := c.tx.ExecContext(c.ctx, q, args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func (c *autoCreateCleanup) exists(q string, args ...any) (bool, error) {
	var b bool
	err := c.tx.QueryRowContext(c.ctx, `SELECT `+q, args...).Scan(&b)
	return b, err
}

func (c *autoCreateCleanup) strings(q string, args ...any) ([]string, error) {
	return queryRows(c.ctx, c.tx, scanValue[string], q, args...)
}

func (c *autoCreateCleanup) run(d Document, deleteThread bool) error {
	c.done[d.ID] = true
	runStart := ""
	if d.AutoCreateThreadID != "" {
		if err := threadExists(c.ctx, c.tx, d.AutoCreateThreadID); err == nil {
			runStart = ulidOf(d.AutoCreateThreadID)
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	createdByRun := func(id string) bool {
		return id != "" && runStart != "" && ulidOf(id) > runStart
	}
	removed := false
	note := func(ok bool, err error) error {
		removed = removed || ok
		return err
	}

	// The extraction the run proposed, and, when the run created the
	// prompt, every extraction of this document made with it (earlier
	// attempts of the refinement).
	if d.AutoCreateExtractionID != "" {
		if err := note(c.exec(`DELETE FROM extractions WHERE id = ? AND document_id = ?`, d.AutoCreateExtractionID, d.ID)); err != nil {
			return err
		}
	}
	if createdByRun(d.AutoCreatePromptID) {
		if err := note(c.exec(`DELETE FROM extractions WHERE document_id = ? AND prompt_revid IN
			(SELECT id FROM prompt_revisions WHERE prompt_id = ?)`, d.ID, d.AutoCreatePromptID)); err != nil {
			return err
		}
		kept, err := c.promptKept(d.AutoCreatePromptID, d.ID)
		if err != nil {
			return err
		}
		if !kept {
			if err := note(c.removePrompt(d.AutoCreatePromptID, d.ID)); err != nil {
				return err
			}
		}
	}
	if createdByRun(d.AutoCreateSchemaID) {
		kept, err := c.schemaKept(d.AutoCreateSchemaID, d.ID)
		if err != nil {
			return err
		}
		if !kept {
			if err := note(c.removeSchema(d.AutoCreateSchemaID, d.ID)); err != nil {
				return err
			}
		}
	}
	if d.AutoCreateThreadID == "" {
		return nil
	}
	if deleteThread {
		_, err := c.tx.ExecContext(c.ctx, `DELETE FROM threads WHERE id = ? AND document_id = ?`, d.AutoCreateThreadID, d.ID)
		return err
	}
	if removed {
		// The working state named what is gone; the next turn starts clean.
		_, err := c.tx.ExecContext(c.ctx, `UPDATE threads SET working_state = '{}', updated_at = ? WHERE id = ? AND document_id = ?`,
			c.tx.nowText(), d.AutoCreateThreadID, d.ID)
		return err
	}
	return nil
}

// promptKept reports whether a person uses prompt id, apart from document
// doc: it is a kind's chosen prompt, the prompt of an accepted proposal,
// or some extraction made with it is not part of an unaccepted run.
func (c *autoCreateCleanup) promptKept(id, doc string) (bool, error) {
	return c.exists(`EXISTS (SELECT 1 FROM schemas WHERE kind_prompt_id = ?)
		OR EXISTS (SELECT 1 FROM documents WHERE id <> ? AND auto_create_status = 'accepted' AND auto_create_prompt_id = ?)
		OR EXISTS (SELECT 1 FROM extractions e JOIN prompt_revisions r ON r.id = e.prompt_revid
		            WHERE r.prompt_id = ? AND e.document_id <> ? AND NOT `+unacceptedRunExtraction+`)`,
		id, doc, id, id, doc)
}

// schemaKept reports whether a person uses schema id, apart from document
// doc: it has a prompt chosen for its kind, it is the schema of an
// accepted proposal, a document is of its kind other than by a proposal
// nobody accepted yet, or a prompt linking it is kept.
func (c *autoCreateCleanup) schemaKept(id, doc string) (bool, error) {
	kept, err := c.exists(`EXISTS (SELECT 1 FROM schemas WHERE id = ? AND kind_prompt_id IS NOT NULL)
		OR EXISTS (SELECT 1 FROM documents o WHERE o.id <> ? AND (
		       (o.auto_create_status = 'accepted' AND o.auto_create_schema_id = ?)
		    OR (o.schema_id = ? AND NOT (o.auto_create_status IN ('running', 'proposed') AND o.auto_create_schema_id = ?))))`,
		id, doc, id, id, id)
	if err != nil || kept {
		return kept, err
	}
	prompts, err := c.promptsLinking(id)
	if err != nil {
		return false, err
	}
	for _, p := range prompts {
		if kept, err := c.promptKept(p, doc); err != nil || kept {
			return kept, err
		}
	}
	return false, nil
}

// promptsLinking are the prompts whose latest revision links schema id.
func (c *autoCreateCleanup) promptsLinking(id string) ([]string, error) {
	return c.strings(`SELECT DISTINCT p.prompt_id FROM prompt_revisions p JOIN schema_revisions sr ON sr.id = p.schema_revid
		WHERE sr.schema_id = ? AND `+promptArtifact.latestCond()+` ORDER BY p.prompt_id`, id)
}

// removePrompt deletes a prompt nobody keeps with every extraction made
// with it, and takes down the proposals of other documents that used it.
func (c *autoCreateCleanup) removePrompt(id, doc string) (bool, error) {
	users, err := c.strings(`SELECT o.id FROM documents o WHERE o.id <> ? AND o.auto_create_status = 'proposed' AND (
		o.auto_create_prompt_id = ?
		OR EXISTS (SELECT 1 FROM extractions e JOIN prompt_revisions r ON r.id = e.prompt_revid WHERE e.document_id = o.id AND r.prompt_id = ?))
		ORDER BY o.id`, doc, id, id)
	if err != nil {
		return false, err
	}
	if _, err := c.exec(`DELETE FROM extractions WHERE prompt_revid IN (SELECT id FROM prompt_revisions WHERE prompt_id = ?)`, id); err != nil {
		return false, err
	}
	removed, err := c.exec(`DELETE FROM prompts WHERE id = ?`, id)
	if err != nil {
		return false, err
	}
	return removed, c.takeDown(users)
}

// removeSchema deletes a schema nobody keeps with the prompts linking it
// (removePrompt), and takes down the proposals of other documents that
// used it.
func (c *autoCreateCleanup) removeSchema(id, doc string) (bool, error) {
	users, err := c.strings(`SELECT o.id FROM documents o WHERE o.id <> ? AND o.auto_create_status = 'proposed' AND o.auto_create_schema_id = ?
		ORDER BY o.id`, doc, id)
	if err != nil {
		return false, err
	}
	prompts, err := c.promptsLinking(id)
	if err != nil {
		return false, err
	}
	for _, p := range prompts {
		if _, err := c.removePrompt(p, doc); err != nil {
			return false, err
		}
	}
	removed, err := c.exec(`DELETE FROM schemas WHERE id = ?`, id)
	if err != nil {
		return false, err
	}
	return removed, c.takeDown(users)
}

// takeDown ends the proposals of documents ids, which used what the
// cleanup removed: what their runs made is cleaned up as for a rejected
// proposal (their threads stay, to be read), their kind from the proposal
// goes, and their status becomes failed, saying why, so that they can be
// run again.
func (c *autoCreateCleanup) takeDown(ids []string) error {
	for _, id := range ids {
		if c.done[id] {
			continue
		}
		d, err := getDocument(c.ctx, c.tx, id)
		if err != nil {
			return err
		}
		if d.AutoCreateStatus != AutoCreateProposed {
			continue
		}
		if d.AutoCreateSchemaID != "" {
			if _, err := c.exec(`UPDATE documents SET schema_id = NULL WHERE id = ? AND schema_id = ?`, d.ID, d.AutoCreateSchemaID); err != nil {
				return err
			}
		}
		if err := c.run(d, false); err != nil {
			return err
		}
		why := fmt.Sprintf("the proposal used what the auto-create run of %q made, which was removed when that run was rejected or failed; run auto-create again", c.origin.Name)
		if _, err := c.exec(`UPDATE documents SET auto_create_status = ?, auto_create_error = ?,
			auto_create_schema_id = NULL, auto_create_prompt_id = NULL, auto_create_extraction_id = NULL,
			auto_create_updated_at = ? WHERE id = ?`, AutoCreateFailed, why, c.tx.nowText(), d.ID); err != nil {
			return err
		}
		if d.AutoCreateThreadID != "" {
			if _, err := c.exec(`UPDATE threads SET working_state = '{}', updated_at = ? WHERE id = ? AND document_id = ?`,
				c.tx.nowText(), d.AutoCreateThreadID, d.ID); err != nil {
				return err
			}
		}
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
	docs, err := queryRows(ctx, db.sql, scanDocument, `SELECT `+documentColumns+` FROM documents d
		WHERE d.status = ? AND d.auto_create_status NOT IN (?, ?)
		ORDER BY d.created_at, d.id`, StatusReady, AutoCreateProposed, AutoCreateAccepted)
	return docs, translate("list auto-create candidates", err)
}

// PendingAutoCreates returns the auto-create queue: the ready documents
// that are pending, in the order they were queued (an interrupted run put
// back counts as queued when it was put back).
func (db *DB) PendingAutoCreates(ctx context.Context) ([]Document, error) {
	docs, err := queryRows(ctx, db.sql, scanDocument, `SELECT `+documentColumns+` FROM documents d
		WHERE d.status = ? AND d.auto_create_status = ?
		ORDER BY d.auto_create_updated_at, d.created_at, d.id`, StatusReady, AutoCreatePending)
	return docs, translate("list the auto-create queue", err)
}
