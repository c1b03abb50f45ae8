package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
)

// The file gives back what the store frees. SQLite keeps the pages of
// deleted rows in the file as free pages for later writes; a history that
// drops a 50 MB copy would leave a file 50 MB larger than its content
// forever. With auto_vacuum INCREMENTAL the free pages can be handed back
// to the disk, and the store does so after the calls that free much:
// undo (which drops the copy it restored from), pruning and emptying the
// history.

// autoVacuumIncremental is PRAGMA auto_vacuum's value for INCREMENTAL.
const autoVacuumIncremental = 2

// useIncrementalVacuum makes the file one whose free pages can be given
// back. A new file takes the mode at once; a file made before this mode
// existed takes it with one VACUUM, which rewrites the whole file once
// (SQLite cannot change the mode otherwise), so the first opening after
// an upgrade takes about as long as copying the file, and when the
// rewrite cannot be done now the store opens all the same.
func (db *DB) useIncrementalVacuum(ctx context.Context) error {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	defer conn.Close()
	var mode int
	if err := conn.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&mode); err != nil {
		return fmt.Errorf("read auto_vacuum: %w", err)
	}
	if mode == autoVacuumIncremental {
		return nil
	}
	// The pragma is a request the VACUUM on the same connection carries
	// out: both must run on conn.
	if _, err := conn.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return fmt.Errorf("set auto_vacuum: %w", err)
	}
	// The rewrite is an improvement, not a need: a store another process
	// holds open (docent --serve beside a CLI command), or a disk without
	// room for the copy, works as before and is rewritten at a later
	// opening.
	if _, err := conn.ExecContext(ctx, `VACUUM`); err != nil {
		slog.WarnContext(ctx, "the store keeps its free pages until it can be rewritten at a later opening",
			"path", db.path, "error", err)
	}
	return nil
}

// giveBackFreeSpace hands the file's free pages back to the disk and
// empties the WAL, so that the file is as large as what it holds. It is
// best effort: the call that freed the pages has committed, so a failure
// (a reader holding the WAL, say) is logged and the pages wait for the
// next time.
func (db *DB) giveBackFreeSpace(ctx context.Context) {
	var free int64
	if err := db.sql.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil {
		slog.WarnContext(ctx, "give back the database's free space", "error", err)
		return
	}
	if free == 0 {
		return
	}
	// incremental_vacuum frees one page per result row: every row must be
	// read, which Exec does.
	if _, err := db.sql.ExecContext(ctx, `PRAGMA incremental_vacuum`); err != nil {
		slog.WarnContext(ctx, "give back the database's free space", "error", err)
		return
	}
	// The file shrinks when the WAL is checkpointed; TRUNCATE also
	// empties the WAL, which held the pages just moved.
	if _, err := db.sql.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		slog.WarnContext(ctx, "checkpoint after giving back free space", "error", err)
	}
}

// FileSize is the bytes the store takes on disk: the database file and
// its WAL (the -shm index is a few pages and is not counted).
func (db *DB) FileSize() (int64, error) {
	var total int64
	for _, name := range []string{db.path, db.path + "-wal"} {
		fi, err := os.Stat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // no WAL until the first write
		}
		if err != nil {
			return 0, fmt.Errorf("size of the database: %w", err)
		}
		total += fi.Size()
	}
	return total, nil
}
