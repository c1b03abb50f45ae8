package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The journal (migration 0015) records every change to documents, schemas,
// prompts, tags, kinds and extractions as one entry, written by the store in
// the transaction of the change, so that no change is ever made without
// its entry nor an entry kept for a change that was rolled back. Who made
// the change comes with the context (WithActor), so the store's functions
// journal themselves without a parameter for it; undo is in
// journal_undo.go, the before-states in journal_state.go.

// Edge is the door a change came through.
type Edge string

// The edges.
const (
	EdgeAgent      Edge = "agent"       // a tool call of a chat turn, approved or automatic
	EdgeAutoCreate Edge = "auto_create" // an auto-create run's tool call
	EdgeUI         Edge = "ui"          // a person in the web UI or the desktop app
	EdgeCLI        Edge = "cli"         // a docent command
	EdgeMCP        Edge = "mcp"         // an MCP client
	// EdgeSystem is a change no edge set an actor for: the store's own
	// tests, a background job. It is journaled all the same.
	EdgeSystem Edge = "system"
)

// Edges lists the edges, for checking a filter.
var Edges = []Edge{EdgeAgent, EdgeAutoCreate, EdgeUI, EdgeCLI, EdgeMCP, EdgeSystem}

// Actor is who made a change, carried by the context (WithActor).
type Actor struct {
	Edge Edge
	// Name is the actor as people read it: the thread of a chat turn,
	// "person" in the UI, the CLI command ("docent delete"), the MCP
	// client's name.
	Name string
	// TurnID is the chat turn (agent edge) and RunID the auto-create run
	// (its thread); undo takes back a turn's or a run's entries as one.
	TurnID string
	RunID  string
	// CallID is the tool call of the turn or run: undo takes back one
	// approved call's changes too.
	CallID string
}

// ActorPerson is the actor name of changes a person makes in the UI.
const ActorPerson = "person"

type actorKey struct{}

// WithActor returns a context whose store writes are journaled as a's.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor ctx carries, if any.
func ActorFrom(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok
}

// actorOf is the actor a write is journaled as: the context's, or the
// system edge.
func actorOf(ctx context.Context) Actor {
	a, ok := ActorFrom(ctx)
	if !ok || a.Edge == "" {
		return Actor{Edge: EdgeSystem, Name: a.Name, TurnID: a.TurnID, RunID: a.RunID, CallID: a.CallID}
	}
	return a
}

// JournalEntry is one change in the journal.
type JournalEntry struct {
	ID         int64     `json:"id"`
	At         time.Time `json:"at"`
	Edge       string    `json:"edge" ts:"'agent' | 'auto_create' | 'ui' | 'cli' | 'mcp' | 'system'"`
	Actor      string    `json:"actor"`
	TurnID     string    `json:"turn_id,omitempty"`
	RunID      string    `json:"run_id,omitempty"`
	CallID     string    `json:"call_id,omitempty"`
	Op         string    `json:"op"`
	ObjectKind string    `json:"object_kind"`
	ObjectID   string    `json:"object_id"`
	DocumentID string    `json:"document_id,omitempty"`
	// Summary says what changed with names, not ids.
	Summary string `json:"summary"`
	// Undoes is the entry this one undid; UndoneBy the entry that undid
	// this one.
	Undoes   int64 `json:"undoes,omitempty"`
	UndoneBy int64 `json:"undone_by,omitempty"`
	// Size is the bytes of before-state the entry keeps: 0 once it is
	// undone (nothing can use them then). Pruned says the retention
	// dropped them, so the entry can no longer be undone.
	Size   int64 `json:"size"`
	Pruned bool  `json:"pruned,omitempty"`
}

// change is what a store function tells the journal about its change.
type change struct {
	op         string // "delete document"
	kind, id   string // the object
	documentID string
	summary    string
	// writes are the keys the change writes, reads those it relies on
	// (see journal_keys in migration 0015).
	writes, reads []string
	// scopes are the parts of the store whose state before the change
	// an undo restores.
	scopes []scope
	// undoes is set on the entry of an undo.
	undoes int64
}

// Keys of objects, as journal_keys holds them.
func documentKey(id string) string    { return "document:" + id }
func rowKey(documentID string) string { return documentKey(documentID) + "/row" }
func extractionKey(documentID, id string) string {
	return documentKey(documentID) + "/extraction:" + id
}
func schemaKey(id string) string { return "schema:" + id }
func kindKey(schemaID string) string {
	return schemaKey(schemaID) + "/kind"
}
func promptKey(id string) string { return "prompt:" + id }
func tagKey(id string) string    { return "tag:" + id }

const (
	insertJournalSQL = `INSERT INTO journal (at, edge, actor, turn_id, run_id, call_id, op, object_kind, object_id,
		document_id, summary, undoes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	insertJournalKeySQL = `INSERT INTO journal_keys (key, entry_id, writes) VALUES (?, ?, ?)
		ON CONFLICT (key, entry_id) DO UPDATE SET writes = max(writes, excluded.writes)`
	updateJournalSizeSQL = `UPDATE journal SET size = ? WHERE id = ?`
)

// journal records c as an entry of the transaction, before the change is
// written: it reads the before-state of c's scopes now. It returns the
// entry's id.
func (t *writeTx) journal(ctx context.Context, c change) (int64, error) {
	a := actorOf(ctx)
	var undoes any
	if c.undoes != 0 {
		undoes = c.undoes
	}
	res, err := t.ExecContext(ctx, insertJournalSQL, t.nowText(), string(a.Edge), a.Name, a.TurnID, a.RunID, a.CallID, c.op, c.kind, c.id, c.documentID,
		CapMessage(c.summary), undoes)
	if err != nil {
		return 0, fmt.Errorf("journal %s: %w", c.op, err)
	}
	entry, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("journal %s: %w", c.op, err)
	}
	// Reads first: a key both read and written is kept as written.
	for writes, keys := range [][]string{c.reads, c.writes} {
		for _, key := range uniqueStrings(keys) {
			if _, err := t.ExecContext(ctx, insertJournalKeySQL, key, entry, writes); err != nil {
				return 0, fmt.Errorf("journal %s: %w", c.op, err)
			}
		}
	}
	var size int64
	for i, s := range c.scopes {
		n, err := saveScope(ctx, t, entry, i, s)
		if err != nil {
			return 0, fmt.Errorf("journal %s: %w", c.op, err)
		}
		size += n
	}
	if _, err := t.ExecContext(ctx, updateJournalSizeSQL, size, entry); err != nil {
		return 0, fmt.Errorf("journal %s: %w", c.op, err)
	}
	return entry, nil
}

// JournalFilter selects entries for ListJournal.
type JournalFilter struct {
	DocumentID string
	Edge       string
	// Actor matches the actor name, the turn or the run.
	Actor string
	// TurnID is the turn's id in the history or the turn_id of one of its
	// pauses (historyTurn).
	TurnID string
	RunID  string
	// CallID, with TurnID, selects one tool call's changes.
	CallID string
	// Limit is the page size, 100 when 0; Before lists entries older than
	// this id (the next page).
	Limit  int
	Before int64
}

const journalColumns = `j.id, j.at, j.edge, j.actor, j.turn_id, j.run_id, j.call_id, j.op, j.object_kind, j.object_id,
	j.document_id, j.summary, coalesce(j.undoes, 0), coalesce(j.undone_by, 0), j.size, j.pruned`

func scanJournalEntry(s scanner) (JournalEntry, error) {
	var e JournalEntry
	var at string
	err := s.Scan(&e.ID, &at, &e.Edge, &e.Actor, &e.TurnID, &e.RunID, &e.CallID, &e.Op, &e.ObjectKind, &e.ObjectID,
		&e.DocumentID, &e.Summary, &e.Undoes, &e.UndoneBy, &e.Size, &e.Pruned)
	if err != nil {
		return JournalEntry{}, err
	}
	e.At, err = parseTime(at)
	return e, err
}

// ListJournal returns the entries that match f, newest first.
func (db *DB) ListJournal(ctx context.Context, f JournalFilter) ([]JournalEntry, error) {
	var conds []string
	var args []any
	add := func(cond string, a ...any) { conds, args = append(conds, cond), append(args, a...) }
	if f.DocumentID != "" {
		add(`j.document_id = ?`, f.DocumentID)
	}
	if f.Edge != "" {
		known := false
		for _, e := range Edges {
			known = known || string(e) == f.Edge
		}
		if !known {
			return nil, Errorf(ErrInvalid, "unknown edge %q (want agent, auto_create, ui, cli, mcp or system)", f.Edge)
		}
		add(`j.edge = ?`, f.Edge)
	}
	if f.Actor != "" {
		add(`(j.actor = ? OR j.turn_id = ? OR j.run_id = ?)`, f.Actor, f.Actor, f.Actor)
	}
	if f.TurnID != "" {
		turn, err := historyTurn(ctx, db.sql, f.TurnID)
		if err != nil {
			return nil, translate("list history", err)
		}
		add(`j.turn_id = ?`, turn)
	}
	if f.RunID != "" {
		add(`j.run_id = ?`, f.RunID)
	}
	if f.CallID != "" {
		add(`j.call_id = ?`, f.CallID)
	}
	if f.Before > 0 {
		add(`j.id < ?`, f.Before)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	where := ""
	if len(conds) > 0 {
		where = ` WHERE ` + strings.Join(conds, ` AND `)
	}
	out, err := queryRows(ctx, db.sql, scanJournalEntry, `SELECT `+journalColumns+` FROM journal j`+where+
		` ORDER BY j.id DESC LIMIT ?`, append(args, limit)...)
	return out, translate("list history", err)
}

// GetJournalEntry returns one entry.
func (db *DB) GetJournalEntry(ctx context.Context, id int64) (JournalEntry, error) {
	e, err := getJournalEntry(ctx, db.sql, id)
	return e, translate("get history entry", err)
}

func getJournalEntry(ctx context.Context, q queryer, id int64) (JournalEntry, error) {
	e, err := scanJournalEntry(q.QueryRowContext(ctx, `SELECT `+journalColumns+` FROM journal j WHERE j.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return JournalEntry{}, Errorf(ErrNotFound, "history entry %d not found", id)
	}
	return e, err
}

// JournalStats is what the journal holds.
type JournalStats struct {
	Entries int64 `json:"entries"`
	// Bytes is the before-state kept for undo (deleted documents' bytes
	// among it).
	Bytes int64 `json:"bytes"`
}

// JournalStats says how many entries the journal holds and how many bytes
// of before-state.
func (db *DB) JournalStats(ctx context.Context) (JournalStats, error) {
	var s JournalStats
	err := db.sql.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(CASE WHEN pruned = 0 THEN size END), 0) FROM journal`).
		Scan(&s.Entries, &s.Bytes)
	return s, translate("journal size", err)
}

// SettingJournalRetentionDays is how many days an entry's before-state
// (deleted documents' bytes among it) is kept, a JSON number; 30 when not
// saved.
const SettingJournalRetentionDays = "journal_retention_days"

// DefaultJournalRetention is the retention when none is saved.
const DefaultJournalRetention = 30 * 24 * time.Hour

// JournalRetention returns the saved retention, or the default.
func (db *DB) JournalRetention(ctx context.Context) (time.Duration, error) {
	var days float64
	ok, err := db.GetSetting(ctx, SettingJournalRetentionDays, &days)
	if err != nil || !ok || days <= 0 {
		return DefaultJournalRetention, err
	}
	return time.Duration(days * float64(24*time.Hour)), nil
}

// PruneJournal drops the before-state of entries older than the retention:
// they stay in the history but can no longer be undone. It returns how
// many entries it pruned. The space they held goes back to the disk.
func (db *DB) PruneJournal(ctx context.Context) (int, error) {
	keep, err := db.JournalRetention(ctx)
	if err != nil {
		return 0, err
	}
	// Most openings find nothing to prune: a read, not a write lock.
	var due bool
	if err := db.sql.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM journal WHERE at < ? AND pruned = 0)`,
		formatTime(db.now().Add(-keep))).Scan(&due); err != nil {
		return 0, translate("prune history", err)
	}
	if !due {
		return 0, nil
	}
	var n int
	err = db.update(ctx, "prune history", func(tx *writeTx) error {
		cutoff := formatTime(tx.now.Add(-keep))
		if _, err := tx.ExecContext(ctx, `DELETE FROM journal_scopes WHERE entry_id IN
			(SELECT id FROM journal WHERE at < ? AND pruned = 0)`, cutoff); err != nil {
			return err
		}
		// A pause that old names changes that can no longer be undone.
		if _, err := tx.ExecContext(ctx, `DELETE FROM journal_pauses WHERE at < ?`, cutoff); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE journal SET pruned = 1 WHERE at < ? AND pruned = 0`, cutoff)
		if err != nil {
			return err
		}
		m, err := res.RowsAffected()
		n = int(m)
		return err
	})
	if err != nil {
		return 0, err
	}
	db.giveBackFreeSpace(ctx)
	return n, nil
}

// EmptyJournal deletes every entry, and with them all kept before-state;
// the space they held goes back to the disk.
func (db *DB) EmptyJournal(ctx context.Context) error {
	defer db.giveBackFreeSpace(ctx)
	return db.update(ctx, "empty history", func(tx *writeTx) error {
		// Entries refer to each other (undoes, undone_by): unlink first so
		// the SET NULL actions have nothing left to do row by row.
		if _, err := tx.ExecContext(ctx, `UPDATE journal SET undoes = NULL, undone_by = NULL`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM journal`)
		return err
	})
}

// tagKeys are the keys of tags a change sets (nil: none).
func tagKeys(ids *[]string) []string {
	if ids == nil {
		return nil
	}
	out := make([]string, 0, len(*ids))
	for _, id := range *ids {
		out = append(out, tagKey(id))
	}
	return out
}

// NewHistoryTurnID makes the id a chat turn's changes are journaled with
// (Actor.TurnID).
func NewHistoryTurnID() string { return newID(prefixTurn) }

// historyTurn is the turn id the history keys a chat turn's changes by,
// for an id a person was shown: a pause's turn_id (what docent chat and
// approve print, what approve takes) stands for its turn's
// history_turn_id; any other id is taken as that id itself.
func historyTurn(ctx context.Context, q queryer, id string) (string, error) {
	var turn string
	err := q.QueryRowContext(ctx, `SELECT turn_id FROM journal_pauses WHERE pause_id = ?`, id).Scan(&turn)
	if errors.Is(err, sql.ErrNoRows) {
		return id, nil
	}
	if err != nil {
		return "", fmt.Errorf("look up turn %s: %w", id, err)
	}
	return turn, nil
}
