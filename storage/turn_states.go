package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// DefaultTurnTTL is how long a paused turn waits for its approval when
// SaveTurnState is given no TTL.
const DefaultTurnTTL = 30 * time.Minute

// TurnState is a turn paused for approval: what the agent needs to resume
// it, saved under a single-use turn id.
type TurnState struct {
	ID string `json:"turn_id"`
	// ThreadID is "" for a stateless turn (the client carries the history).
	ThreadID   string `json:"thread_id,omitempty"`
	DocumentID string `json:"document_id"`
	// State is the agent's JSON object, stored as given (compacted).
	State     json.RawMessage `json:"state"`
	CreatedAt time.Time       `json:"created_at"`
	ExpiresAt time.Time       `json:"expires_at"`
	// ConsumedAt is when the turn was claimed; zero until then.
	ConsumedAt time.Time `json:"consumed_at,omitzero"`
}

const turnStateColumns = `id, coalesce(thread_id, ''), document_id, state, created_at, expires_at, consumed_at`

func scanTurnState(s scanner) (TurnState, error) {
	var ts TurnState
	var state, created, expires string
	var consumed sql.NullString
	if err := s.Scan(&ts.ID, &ts.ThreadID, &ts.DocumentID, &state, &created, &expires, &consumed); err != nil {
		return TurnState{}, err
	}
	ts.State = json.RawMessage(state)
	var errC, errE, errU error
	ts.CreatedAt, errC = parseTime(created)
	ts.ExpiresAt, errE = parseTime(expires)
	if consumed.Valid {
		ts.ConsumedAt, errU = parseTime(consumed.String)
	}
	return ts, errors.Join(errC, errE, errU)
}

func getTurnState(ctx context.Context, q queryer, turnID string) (TurnState, error) {
	ts, err := scanTurnState(q.QueryRowContext(ctx, `SELECT `+turnStateColumns+` FROM turn_states WHERE id = ?`, turnID))
	if errors.Is(err, sql.ErrNoRows) {
		return TurnState{}, Errorf(ErrNotFound, "turn %s is unknown", turnID)
	}
	return ts, err
}

// SaveTurnState saves a paused turn under a new turn id, to be claimed once
// within ttl (DefaultTurnTTL when ttl <= 0). state must be a JSON object.
// threadID is "" for a stateless turn; otherwise the thread must belong to
// the document. An unknown document or thread is not found. When ctx
// carries an actor with a TurnID (the turn's id in the history), the new
// id names that turn's changes in the history too (journal_pauses).
func (db *DB) SaveTurnState(ctx context.Context, threadID, documentID string, state json.RawMessage, ttl time.Duration) (TurnState, error) {
	c, ok := compactJSON(state)
	if !ok || c[0] != '{' {
		return TurnState{}, Errorf(ErrInvalid, "turn state must be a JSON object")
	}
	if ttl <= 0 {
		ttl = DefaultTurnTTL
	}
	var ts TurnState
	err := db.update(ctx, "save turn state", func(tx *writeTx) error {
		if _, err := getDocument(ctx, tx, documentID); err != nil {
			return err
		}
		var thread any // NULL for a stateless turn
		if threadID != "" {
			if _, err := getThread(ctx, tx, documentID, threadID); err != nil {
				return err
			}
			thread = threadID
		}
		id := newID(prefixTurn)
		expires := tx.now.Add(ttl).Truncate(time.Millisecond)
		_, err := tx.ExecContext(ctx, `INSERT INTO turn_states (id, thread_id, document_id, state, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?)`, id, thread, documentID, string(c), tx.nowText(), formatTime(expires))
		if err != nil {
			return err
		}
		if a, ok := ActorFrom(ctx); ok && a.TurnID != "" {
			if _, err := tx.ExecContext(ctx, `INSERT INTO journal_pauses (pause_id, turn_id, at) VALUES (?, ?, ?)`,
				id, a.TurnID, tx.nowText()); err != nil {
				return err
			}
		}
		ts, err = getTurnState(ctx, tx, id)
		return err
	})
	return ts, err
}

// ClaimTurnState takes a paused turn to resume it. A turn is claimed once:
// of two claims of the same id, even from two processes at once, exactly one
// gets the state; the other fails and must run nothing. An unknown, already
// claimed or expired id is not found, with a message that says which.
func (db *DB) ClaimTurnState(ctx context.Context, turnID string) (TurnState, error) {
	return db.claimTurnState(ctx, "", turnID)
}

// ClaimDocumentTurnState is ClaimTurnState for a turn of one document: a
// turn of another document is unknown and stays unclaimed, so that an
// approval sent through the wrong document's path neither runs nor spends
// the turn.
func (db *DB) ClaimDocumentTurnState(ctx context.Context, documentID, turnID string) (TurnState, error) {
	if documentID == "" {
		return TurnState{}, Errorf(ErrInvalid, "no document given for turn %s", turnID)
	}
	return db.claimTurnState(ctx, documentID, turnID)
}

func (db *DB) claimTurnState(ctx context.Context, documentID, turnID string) (TurnState, error) {
	var ts TurnState
	err := db.update(ctx, "claim turn", func(tx *writeTx) error {
		now := tx.nowText()
		// The conditional update is the claim: whichever transaction sets
		// consumed_at first wins, and the others match no row.
		q := `UPDATE turn_states SET consumed_at = ? WHERE id = ? AND consumed_at IS NULL AND expires_at > ?`
		args := []any{now, turnID, now}
		if documentID != "" {
			q += ` AND document_id = ?`
			args = append(args, documentID)
		}
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return err
		}
		claimed, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if ts, err = getTurnState(ctx, tx, turnID); err != nil {
			return err
		}
		switch {
		case claimed == 1:
			return nil
		case documentID != "" && ts.DocumentID != documentID:
			return Errorf(ErrNotFound, "turn %s is unknown", turnID)
		case !ts.ConsumedAt.IsZero():
			return Errorf(ErrNotFound, "turn %s was already approved", turnID)
		default:
			return Errorf(ErrNotFound, "turn %s expired at %s (turns expire after %s)",
				turnID, clockTime(ts.ExpiresAt, tx.now), humanDuration(ts.ExpiresAt.Sub(ts.CreatedAt)))
		}
	})
	if err != nil {
		return TurnState{}, err
	}
	return ts, nil
}

// SweepTurnStates deletes the turn states that expired at or before now, by
// the store's clock (the one that set their expiry), and those claimed at or
// before now, and returns how many it deleted. Once
// swept, a claimed turn's id reads as unknown rather than already approved;
// either way a second approval fails.
func (db *DB) SweepTurnStates(ctx context.Context) (int, error) {
	var n int64
	err := db.update(ctx, "sweep turn states", func(tx *writeTx) error {
		at := tx.nowText()
		res, err := tx.ExecContext(ctx, `DELETE FROM turn_states WHERE expires_at <= ? OR consumed_at <= ?`, at, at)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// clockTime shows t in local time for a message: the time of day when t is
// on the same day as now, with the date otherwise.
func clockTime(t, now time.Time) string {
	t, now = t.Local(), now.Local()
	if t.Year() == now.Year() && t.YearDay() == now.YearDay() {
		return t.Format("15:04")
	}
	return t.Format("2006-01-02 15:04")
}

// humanDuration says a TTL in words: "30 minutes", "1 hour", "90 seconds".
func humanDuration(d time.Duration) string {
	unit := func(n int64, name string) string {
		if n == 1 {
			return "1 " + name
		}
		return fmt.Sprintf("%d %ss", n, name)
	}
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return unit(int64(d/time.Hour), "hour")
	case d >= time.Minute && d%time.Minute == 0:
		return unit(int64(d/time.Minute), "minute")
	case d >= time.Second:
		return unit(int64(d.Round(time.Second)/time.Second), "second")
	}
	return d.String()
}
