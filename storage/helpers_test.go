package storage

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/storage/fault"
)

// mustOpen opens a new database in a temporary directory, closed when the
// test ends. Its clock starts at a fixed time and moves one second per
// transaction, so "newest first" is deterministic.
func mustOpen(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "docent.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	clock := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	db.Now = func() time.Time {
		clock = clock.Add(time.Second)
		return clock
	}
	return db
}

func mustCreateDocument(t testing.TB, db *DB, nd NewDocument) Document {
	t.Helper()
	if nd.MediaType == "" {
		nd.MediaType = "text/plain"
	}
	if nd.Data == nil {
		nd.Data = []byte(nd.Name + "\x00" + strings.Join(nd.Pages, "\f"))
	}
	d, err := db.CreateDocument(context.Background(), nd)
	if err != nil {
		t.Fatalf("CreateDocument(%q): %v", nd.Name, err)
	}
	return d
}

func mustCreateTag(t testing.TB, db *DB, name string) Tag {
	t.Helper()
	tag, err := db.CreateTag(context.Background(), NewTag{Name: name})
	if err != nil {
		t.Fatalf("CreateTag(%q): %v", name, err)
	}
	return tag
}

// mustExec runs raw SQL, for rows that have no query in the store yet.
func mustExec(t testing.TB, db *DB, query string, args ...any) {
	t.Helper()
	if _, err := db.sql.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatalf("exec %q: %v", query, err)
	}
}

// execErr runs raw SQL and returns its error as the store would report it.
func execErr(db *DB, query string, args ...any) error {
	_, err := db.sql.ExecContext(context.Background(), query, args...)
	return translate("test", err)
}

// count returns the number of rows of table that match where (SQL, may be
// empty).
func count(t testing.TB, db *DB, table, where string, args ...any) int {
	t.Helper()
	q := "SELECT count(*) FROM " + table
	if where != "" {
		q += " WHERE " + where
	}
	var n int
	if err := db.sql.QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// indexedTerms counts the entries the full-text index itself holds for a
// term, read through fts5vocab rather than through the content table.
func indexedTerms(t testing.TB, db *DB, term string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab USING fts5vocab(main, chunks_fts, row)`); err != nil {
		t.Fatalf("create fts5vocab: %v", err)
	}
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT coalesce(sum(cnt), 0) FROM temp.chunks_vocab WHERE term = ?`, term).Scan(&n); err != nil {
		t.Fatalf("read fts5vocab: %v", err)
	}
	return n
}

// checkIndex runs FTS5's own check that the index agrees with the chunks.
func checkIndex(t testing.TB, db *DB) {
	t.Helper()
	mustExec(t, db, `INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')`)
}

// wantCode fails unless err is an application error with this code and, if
// msg is not empty, exactly this message.
func wantCode(t testing.TB, err error, code error, msg string) {
	t.Helper()
	if !errors.Is(err, code) {
		t.Fatalf("error = %v (%T), want code %v", err, err, code)
	}
	if msg != "" && fault.ErrorMessage(err) != msg {
		t.Fatalf("message = %q, want %q", fault.ErrorMessage(err), msg)
	}
}
