package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// UndoResult says what an undo did.
type UndoResult struct {
	// Undone are the entries taken back, as they are now (UndoneBy set),
	// in the order they were undone: newest first.
	Undone []JournalEntry `json:"undone"`
	// Entries are the undo's own journal entries, one per entry undone;
	// undoing one of them again redoes the change.
	Entries []JournalEntry `json:"entries"`
}

// Undo takes back one entry of the journal, in one transaction: the state
// the entry kept is put back (a deleted document with its id, bytes,
// pages, words, extractions and tags; a schema or prompt as a new version
// equal to the one before), and the undo is itself an entry. It is refused,
// saying why, when the entry was undone already, its saved state was
// dropped, or a later change depends on it (a newer edit of the same
// object, an extraction made with a schema since), unless cascade is set:
// then those later changes are undone first, newest first.
func (db *DB) Undo(ctx context.Context, entryID int64, cascade bool) (UndoResult, error) {
	var res UndoResult
	err := db.update(ctx, "undo", func(t *writeTx) error {
		u := &undoer{ctx: ctx, t: t, cascade: cascade, res: &res}
		if err := u.begin(); err != nil {
			return err
		}
		return u.undo(entryID)
	})
	if err != nil {
		return UndoResult{}, err
	}
	db.giveBackFreeSpace(ctx)
	return res, nil
}

// UndoTurn undoes every change a chat turn made, newest first, in one
// transaction: all or none. turnID is the turn's history_turn_id or the
// turn_id of one of its pauses.
func (db *DB) UndoTurn(ctx context.Context, turnID string, cascade bool) (UndoResult, error) {
	turn, err := historyTurn(ctx, db.sql, turnID)
	if err != nil {
		return UndoResult{}, translate("undo turn", err)
	}
	return db.undoGroup(ctx, "turn", turnID, "turn_id = ?", []any{turn}, cascade)
}

// UndoCall undoes the changes of one tool call of a chat turn, newest
// first, in one transaction: an approved card's Undo.
func (db *DB) UndoCall(ctx context.Context, turnID, callID string, cascade bool) (UndoResult, error) {
	if strings.TrimSpace(callID) == "" || strings.TrimSpace(turnID) == "" {
		return UndoResult{}, Errorf(ErrInvalid, "no call given to undo")
	}
	turn, err := historyTurn(ctx, db.sql, turnID)
	if err != nil {
		return UndoResult{}, translate("undo call", err)
	}
	return db.undoGroup(ctx, "call "+callID+" of turn", turnID, "turn_id = ? AND call_id = ?", []any{turn, callID}, cascade)
}

// UndoRun undoes every change an auto-create run made, newest first, in
// one transaction: all or none.
func (db *DB) UndoRun(ctx context.Context, runID string, cascade bool) (UndoResult, error) {
	return db.undoGroup(ctx, "run", runID, "run_id = ?", []any{runID}, cascade)
}

// undoGroup undoes the entries where cond holds (on the journal's own
// columns, with args), newest first; what and id name the group in
// messages.
func (db *DB) undoGroup(ctx context.Context, what, id, cond string, args []any, cascade bool) (UndoResult, error) {
	if strings.TrimSpace(id) == "" {
		return UndoResult{}, Errorf(ErrInvalid, "no %s given to undo", what)
	}
	var res UndoResult
	err := db.update(ctx, "undo "+what, func(t *writeTx) error {
		ids, err := queryRows(ctx, t, scanValue[int64], `SELECT id FROM journal WHERE `+cond+`
			AND undone_by IS NULL AND undoes IS NULL ORDER BY id DESC`, args...)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			var n int
			if err := t.QueryRowContext(ctx, `SELECT count(*) FROM journal WHERE `+cond, args...).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return Errorf(ErrConflict, "every change of %s %s is undone already", what, id)
			}
			return Errorf(ErrNotFound, "%s %s changed nothing in the history", what, id)
		}
		u := &undoer{ctx: ctx, t: t, cascade: cascade, res: &res}
		if err := u.begin(); err != nil {
			return err
		}
		for _, e := range ids {
			if u.done[e] {
				continue // undone with a later one it depended on
			}
			if err := u.undo(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return UndoResult{}, err
	}
	db.giveBackFreeSpace(ctx)
	return res, nil
}

// undoStepHook, when set (by a test), is called inside the transaction
// after each entry an undo has taken back, with how many so far.
var undoStepHook func(done int)

// undoer is one undo transaction.
type undoer struct {
	ctx     context.Context
	t       *writeTx
	cascade bool
	res     *UndoResult
	done    map[int64]bool
}

func (u *undoer) begin() error {
	u.done = map[int64]bool{}
	// Rows come back table by table; a row may be written before the row
	// it refers to (a paused turn before its thread). The keys are checked
	// at commit instead, where a broken one still fails the whole undo.
	_, err := u.t.ExecContext(u.ctx, `PRAGMA defer_foreign_keys = ON`)
	return err
}

func (u *undoer) undo(entryID int64) error {
	ctx, t := u.ctx, u.t
	e, err := getJournalEntry(ctx, t, entryID)
	if err != nil {
		return err
	}
	if e.UndoneBy != 0 {
		return Errorf(ErrConflict, "history entry %d (%s) was undone already, by entry %d", e.ID, e.Summary, e.UndoneBy)
	}
	if e.Pruned {
		return Errorf(ErrConflict, "history entry %d (%s) can no longer be undone: what it changed was kept only for the retention period", e.ID, e.Summary)
	}
	later, err := dependents(ctx, t, e.ID)
	if err != nil {
		return err
	}
	if len(later) > 0 {
		if !u.cascade {
			return undoRefused(e, later)
		}
		for _, l := range later {
			if u.done[l.ID] {
				continue
			}
			if err := u.undo(l.ID); err != nil {
				return err
			}
		}
	}
	saved, err := loadScopes(ctx, t, e.ID)
	if err != nil {
		return err
	}
	if len(saved) == 0 {
		return Errorf(ErrConflict, "history entry %d (%s) kept nothing to undo", e.ID, e.Summary)
	}
	if err := checkReimported(ctx, t, saved); err != nil {
		return err
	}
	writes, reads, err := entryKeys(ctx, t, e.ID)
	if err != nil {
		return err
	}
	scopes := make([]scope, len(saved))
	for i, s := range saved {
		scopes[i] = scope{Kind: s.scope.Kind, Table: s.scope.Table, ID: s.scope.ID, Where: s.scope.Where, Columns: s.scope.Columns}
	}
	summary := "undid: " + e.Summary
	if e.Undoes != 0 {
		summary = "redid: " + strings.TrimPrefix(strings.TrimPrefix(e.Summary, "undid: "), "redid: ")
	}
	undoID, err := t.journal(ctx, change{op: "undo", kind: e.ObjectKind, id: e.ObjectID, documentID: e.DocumentID,
		summary: summary, writes: writes, reads: reads, scopes: scopes, undoes: e.ID})
	if err != nil {
		return err
	}
	// Scopes back to front: the last one a change read is the nearest to
	// what it wrote.
	for i := len(saved) - 1; i >= 0; i-- {
		if err := restore(ctx, t, saved[i]); err != nil {
			return fmt.Errorf("undo history entry %d: %w", e.ID, err)
		}
	}
	// An entry undone is never undone again (a redo is the undo of the
	// undo, which keeps its own state): what it kept has no use left.
	if _, err := t.ExecContext(ctx, `DELETE FROM journal_scopes WHERE entry_id = ?`, e.ID); err != nil {
		return err
	}
	if _, err := t.ExecContext(ctx, `UPDATE journal SET undone_by = ?, size = 0 WHERE id = ?`, undoID, e.ID); err != nil {
		return err
	}
	u.done[e.ID] = true
	if undoStepHook != nil {
		undoStepHook(len(u.done))
	}
	undone, err := getJournalEntry(ctx, t, e.ID)
	if err != nil {
		return err
	}
	entry, err := getJournalEntry(ctx, t, undoID)
	if err != nil {
		return err
	}
	u.res.Undone = append(u.res.Undone, undone)
	u.res.Entries = append(u.res.Entries, entry)
	return nil
}

// dependents are the later entries, not undone, that changed or relied on
// something the entry changed, newest first. A later undo of a change made
// after the entry does not count (the two cancel out), but a redo does.
func dependents(ctx context.Context, q queryer, entryID int64) ([]JournalEntry, error) {
	return queryRows(ctx, q, scanJournalEntry, `SELECT `+journalColumns+` FROM journal j
		WHERE j.id > ?1 AND j.undone_by IS NULL
		  AND NOT EXISTS (SELECT 1 FROM journal x WHERE x.id = j.undoes AND x.id > ?1 AND x.undoes IS NULL)
		  AND EXISTS (SELECT 1 FROM journal_keys k JOIN journal_keys w ON w.entry_id = ?1 AND w.writes = 1
		        AND (k.key = w.key OR substr(k.key, 1, length(w.key) + 1) = w.key || '/'
		             OR substr(w.key, 1, length(k.key) + 1) = k.key || '/')
		      WHERE k.entry_id = j.id)
		ORDER BY j.id DESC`, entryID)
}

func entryKeys(ctx context.Context, q queryer, entryID int64) (writes, reads []string, err error) {
	err = queryEach(ctx, q, func(s scanner) error {
		var key string
		var w bool
		if err := s.Scan(&key, &w); err != nil {
			return err
		}
		if w {
			writes = append(writes, key)
		} else {
			reads = append(reads, key)
		}
		return nil
	}, `SELECT key, writes FROM journal_keys WHERE entry_id = ? ORDER BY key`, entryID)
	return writes, reads, err
}

// UndoRefusedError says that an entry is not undone because later changes
// depend on it; undoing with cascade undoes those too.
type UndoRefusedError struct {
	Entry JournalEntry
	Later []JournalEntry
	err   *Error
}

func undoRefused(e JournalEntry, later []JournalEntry) *UndoRefusedError {
	var names []string
	for i, l := range later {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(later)-5))
			break
		}
		names = append(names, fmt.Sprintf("entry %d (%s)", l.ID, l.Summary))
	}
	return &UndoRefusedError{Entry: e, Later: later, err: Errorf(ErrConflict,
		"history entry %d (%s) is not undone: later changes depend on it: %s; undo those first, or undo them together (cascade)",
		e.ID, e.Summary, strings.Join(names, "; "))}
}

func (e *UndoRefusedError) Error() string { return e.err.Message }

// Unwrap returns the *Error, so the refusal is a conflict.
func (e *UndoRefusedError) Unwrap() error { return e.err }

// checkReimported refuses to bring a deleted document back while another
// document holds the same bytes (it was imported again since): the store
// keeps one document per file.
func checkReimported(ctx context.Context, q queryer, saved []savedState) error {
	for _, s := range saved {
		if s.scope.Kind != scopeTree || s.scope.Table != "documents" {
			continue
		}
		var data string
		err := q.QueryRowContext(ctx, `SELECT data FROM journal_rows WHERE entry_id = ? AND scope_ord = ? AND tbl = 'documents'`,
			s.entry, s.ord).Scan(&data)
		if errors.Is(err, sql.ErrNoRows) {
			continue // the document did not exist then
		}
		if err != nil {
			return err
		}
		row, err := decodeStoredRow("documents", data)
		if err != nil {
			return fmt.Errorf("history entry %d: the document's row: %w", s.entry, err)
		}
		var sha, name string
		for i, c := range row.Cols {
			switch c {
			case "sha256":
				sha, _ = row.Vals[i].(string)
			case "name":
				name, _ = row.Vals[i].(string)
			}
		}
		var otherID, otherName string
		err = q.QueryRowContext(ctx, `SELECT id, name FROM documents WHERE sha256 = ? AND id <> ?`, sha, s.scope.ID).
			Scan(&otherID, &otherName)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return err
		}
		return Errorf(ErrConflict, "document %q cannot come back: the same file was imported again since as %q (%s); delete that copy first",
			name, otherName, otherID)
	}
	return nil
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// restoreSchemaVersion makes the saved version of a schema its latest
// again, as a new version (versions are history: none is rewritten).
func restoreSchemaVersion(ctx context.Context, t *writeTx, s scope) error {
	if s.Version == nil {
		return nil // the schema did not exist: its tree scope removes it
	}
	v := s.Version
	return schemaArtifact.restore(ctx, t, s.ID, v.Name, func(latest SchemaRevision) bool {
		return latest.Name == v.Name && string(latest.ResponseFormat) == v.ResponseFormat
	}, func(t *writeTx, id string, version int) (SchemaRevision, error) {
		return addSchemaRevision(ctx, t, id, version, v.Name, v.ResponseFormat)
	})
}

// restorePromptVersion is restoreSchemaVersion for a prompt.
func restorePromptVersion(ctx context.Context, t *writeTx, s scope) error {
	if s.Version == nil {
		return nil
	}
	v := s.Version
	f := promptFields{name: v.Name, content: v.Content, schemaRevID: v.SchemaRevID, model: v.Model, tagIDs: v.TagIDs}
	return promptArtifact.restore(ctx, t, s.ID, v.Name, func(latest PromptRevision) bool {
		return samePrompt(latest, f)
	}, writePrompt(ctx, &f, false))
}
