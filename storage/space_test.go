package storage

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fileSize is the store's size on disk after a checkpoint: the database
// file and its WAL, read from the disk.
func fileSize(t testing.TB, db *DB) int64 {
	t.Helper()
	if _, err := db.sql.ExecContext(context.Background(), `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, name := range []string{db.Path(), db.Path() + "-wal"} {
		fi, err := os.Stat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		total += fi.Size()
	}
	return total
}

// mib renders a size for a failure message.
func mib(n int64) float64 { return float64(n) / (1 << 20) }

// Deleting a 50 MB document and undoing it, five times over, leaves the
// file about the document's size: an undone delete drops the copy it kept
// (nothing can undo it again) and the pages it held go back to the disk.
// Each undo still brings the document back whole. Before, every cycle
// left a copy: 301 MB after five.
func TestDeleteAndUndoCyclesDoNotGrowTheFile(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	const size = 50 << 20
	data := make([]byte, size)
	rand.Read(data)
	doc := mustCreateDocument(t, db, NewDocument{Name: "big.bin", Data: data, MediaType: "application/octet-stream", Pages: []string{"x"}})
	for cycle := 1; cycle <= 5; cycle++ {
		if err := db.DeleteDocument(ctx, doc.ID); err != nil {
			t.Fatalf("cycle %d: delete: %v", cycle, err)
		}
		del := journalFor(t, db, JournalFilter{DocumentID: doc.ID, Limit: 1})[0]
		res, err := db.Undo(ctx, del.ID, false)
		if err != nil {
			t.Fatalf("cycle %d: undo: %v", cycle, err)
		}
		if undone := res.Undone[0]; undone.Size != 0 {
			t.Errorf("cycle %d: the undone delete says it keeps %d bytes", cycle, undone.Size)
		}
		if n := count(t, db, "journal_blobs", "entry_id = ?", del.ID); n != 0 {
			t.Errorf("cycle %d: the undone delete keeps %d blobs", cycle, n)
		}
	}
	back, err := db.DocumentFile(ctx, doc.ID)
	if err != nil || len(back) != size {
		t.Fatalf("file after five undos: %d bytes, %v", len(back), err)
	}
	got := fileSize(t, db)
	t.Logf("after five delete-and-undo cycles of a 50 MiB document: %.1f MiB on disk", mib(got))
	if got > 120<<20 {
		t.Errorf("after five delete-and-undo cycles of a 50 MiB document the store is %.1f MiB on disk, want under 120", mib(got))
	}
	st, err := db.JournalStats(ctx)
	if err != nil || st.Bytes > 1<<20 {
		t.Errorf("the history says it keeps %d bytes after every delete was undone (%v)", st.Bytes, err)
	}
	checkIntegrity(t, db)

	// The last undo can still be undone (a redo, deleting the document
	// again), and that redo undone in turn.
	undo := journalFor(t, db, JournalFilter{DocumentID: doc.ID, Limit: 1})[0]
	if _, err := db.Undo(ctx, undo.ID, false); err != nil {
		t.Fatalf("redo of the delete: %v", err)
	}
	redo := journalFor(t, db, JournalFilter{DocumentID: doc.ID, Limit: 1})[0]
	if _, err := db.Undo(ctx, redo.ID, false); err != nil {
		t.Fatalf("undo of the redo: %v", err)
	}
	if back, err := db.DocumentFile(ctx, doc.ID); err != nil || len(back) != size {
		t.Fatalf("file after undoing the redo: %d bytes, %v", len(back), err)
	}
	checkIntegrity(t, db)
}

// Emptying the history and pruning it give the space of what they drop
// back to the disk: the file shrinks by the deleted document's size.
func TestEmptyingAndPruningTheHistoryShrinkTheFile(t *testing.T) {
	ctx := context.Background()
	const size = 16 << 20
	for name, drop := range map[string]func(*DB) error{
		"empty": func(db *DB) error { return db.EmptyJournal(ctx) },
		"prune": func(db *DB) error {
			now := db.now()
			db.Now = func() time.Time { return now.Add(DefaultJournalRetention + time.Hour) }
			n, err := db.PruneJournal(ctx)
			if err == nil && n == 0 {
				t.Errorf("prune: nothing pruned")
			}
			return err
		},
	} {
		db := mustOpen(t)
		data := make([]byte, size)
		rand.Read(data)
		doc := mustCreateDocument(t, db, NewDocument{Name: "big.bin", Data: data, MediaType: "application/octet-stream", Pages: []string{"x"}})
		if err := db.DeleteDocument(ctx, doc.ID); err != nil {
			t.Fatal(err)
		}
		kept := fileSize(t, db)
		if kept < size {
			t.Fatalf("%s: the store is %.1f MiB with the deleted document kept, less than the document", name, mib(kept))
		}
		if err := drop(db); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := fileSize(t, db)
		t.Logf("%s: %.1f MiB on disk with the %d MiB document kept, %.1f MiB after", name, mib(kept), size>>20, mib(got))
		if got > kept-size {
			t.Errorf("%s: the store is %.1f MiB on disk, was %.1f with the %d MiB document kept", name, mib(got), mib(kept), size>>20)
		}
		checkIntegrity(t, db)
	}
}

// A store made before the file could give space back (auto_vacuum NONE)
// is rewritten once when opened, keeping everything, and gives space back
// from then on.
func TestOpenTurnsOnIncrementalVacuumOnAnOlderStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "docent.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustCreateDocument(t, db, NewDocument{Name: "kept.txt", Pages: []string{"still here"}})
	db.Close()
	// Make it a store of before: auto_vacuum NONE.
	raw, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	raw.SetMaxOpenConns(1)
	for _, q := range []string{`PRAGMA auto_vacuum = NONE`, `VACUUM`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var mode int
	if err := raw.QueryRow(`PRAGMA auto_vacuum`).Scan(&mode); err != nil || mode != 0 {
		t.Fatalf("auto_vacuum of the old store = %d, %v", mode, err)
	}
	raw.Close()

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.sql.QueryRow(`PRAGMA auto_vacuum`).Scan(&mode); err != nil || mode != 2 {
		t.Fatalf("auto_vacuum after opening = %d, %v; want 2 (incremental)", mode, err)
	}
	if text, err := db.PageText(ctx, doc.ID, 1); err != nil || text != "still here" {
		t.Fatalf("the document after the rewrite: %q, %v", text, err)
	}
	checkIntegrity(t, db)
}
