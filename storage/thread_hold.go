package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"
)

// ThreadHold is a running turn's hold on its thread: while it lasts no
// other turn may start on the thread, so that two turns never interleave
// their messages. It lapses by itself when not renewed (a killed process).
type ThreadHold struct {
	ThreadID string
	token    string
}

// HoldThread marks a thread as running a turn for lease. It fails with
// ErrConflict while another turn holds the thread, saying since when.
func (db *DB) HoldThread(ctx context.Context, threadID string, lease time.Duration) (ThreadHold, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return ThreadHold{}, err
	}
	h := ThreadHold{ThreadID: threadID, token: hex.EncodeToString(b[:])}
	err := db.update(ctx, "hold thread", func(tx *writeTx) error {
		if err := threadExists(ctx, tx, threadID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE threads SET running_token = ?, running_since = ?, running_until = ?
			WHERE id = ? AND (running_token = '' OR running_until < ?)`,
			h.token, tx.nowText(), formatTime(tx.now.Add(lease)), threadID, tx.nowText())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		var since string
		if err := tx.QueryRowContext(ctx, `SELECT running_since FROM threads WHERE id = ?`, threadID).Scan(&since); err != nil {
			return err
		}
		return Errorf(ErrConflict, "a turn is already running on thread %s (since %s); wait for it to finish or stop it, then send again", threadID, since)
	})
	return h, err
}

// RenewThreadHold extends a hold by lease from now. A hold that was lost
// (it lapsed and another turn took the thread) is a conflict.
func (db *DB) RenewThreadHold(ctx context.Context, h ThreadHold, lease time.Duration) error {
	return db.update(ctx, "renew thread hold", func(tx *writeTx) error {
		res, err := tx.ExecContext(ctx, `UPDATE threads SET running_until = ? WHERE id = ? AND running_token = ?`,
			formatTime(tx.now.Add(lease)), h.ThreadID, h.token)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		return Errorf(ErrConflict, "the turn lost its hold on thread %s: it stopped for too long and another turn took the thread", h.ThreadID)
	})
}

// ReleaseThread ends a hold; releasing one that was lost, or a thread
// deleted meanwhile, does nothing.
func (db *DB) ReleaseThread(ctx context.Context, h ThreadHold) error {
	return db.update(ctx, "release thread", func(tx *writeTx) error {
		_, err := tx.ExecContext(ctx, `UPDATE threads SET running_token = '', running_since = '', running_until = ''
			WHERE id = ? AND running_token = ?`, h.ThreadID, h.token)
		return err
	})
}
