package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// openAtVersion opens a new database migrated only up to version, as an
// older docent left it.
func openAtVersion(t *testing.T, path string, version int) *DB {
	t.Helper()
	sqldb, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	db := &DB{sql: sqldb, path: path, Now: time.Now}
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.applyMigrations(context.Background(), ms[:version]); err != nil {
		t.Fatalf("migrating to %d: %v", version, err)
	}
	return db
}

// dumpThreads is every row of threads and thread_messages, as text.
func dumpThreads(t *testing.T, db *DB) []string {
	t.Helper()
	var out []string
	for _, q := range []string{
		`SELECT id || '|' || document_id || '|' || title || '|' || model || '|' || working_state || '|' || created_at || '|' || updated_at FROM threads ORDER BY id`,
		`SELECT id || '|' || thread_id || '|' || seq || '|' || role || '|' || content || '|' || coalesce(tool_calls, '') || '|' || data FROM thread_messages ORDER BY id`,
		`SELECT id || '|' || coalesce(thread_id, '') || '|' || document_id FROM turn_states ORDER BY id`,
	} {
		rows, err := db.sql.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		rows.Close()
	}
	return out
}

func TestMigration17KeepsThreadsAndAllowsLibraryThreads(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "docent.db")
	old := openAtVersion(t, path, 16)
	doc := mustCreateDocument(t, old, NewDocument{Name: "a.txt", Pages: []string{"text"}})
	// Written as version 16's code wrote them: raw rows, since the store's
	// functions are this version's.
	mustExec(t, old, `INSERT INTO threads (id, document_id, title, model, working_state, created_at, updated_at)
		VALUES ('thr_old', ?, 'Old', 'ollama/m', '{"extraction":"x"}', '2024-01-01T00:00:00.000Z', '2024-01-02T00:00:00.000Z')`, doc.ID)
	mustExec(t, old, `INSERT INTO thread_messages (thread_id, seq, role, content, tool_calls, data, created_at) VALUES
		('thr_old', 0, 'user', 'hello', NULL, '{}', '2024-01-01T00:00:00.000Z'),
		('thr_old', 1, 'assistant', '', '[{"id":"c1","name":"search_docs","arguments":{}}]', '{"round":0}', '2024-01-01T00:00:00.000Z')`)
	mustExec(t, old, `INSERT INTO turn_states (id, thread_id, document_id, state, created_at, expires_at)
		VALUES ('ts_old', 'thr_old', ?, '{}', '2024-01-01T00:00:00.000Z', '2999-01-01T00:00:00.000Z')`, doc.ID)
	if err := execErr(old, `INSERT INTO threads (id, document_id, created_at, updated_at) VALUES ('thr_null', NULL, 'x', 'x')`); err == nil {
		t.Fatal("version 16 accepted a thread without a document: the test does not start from the old schema")
	}
	before := dumpThreads(t, old)
	old.sql.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("migrating to the current version: %v", err)
	}
	defer db.Close()
	if after := dumpThreads(t, db); !reflect.DeepEqual(after, before) {
		t.Errorf("rows changed by the migration:\nbefore %q\nafter  %q", before, after)
	}
	for _, check := range []string{`PRAGMA integrity_check`, `PRAGMA foreign_key_check`} {
		rows, err := db.sql.Query(check)
		if err != nil {
			t.Fatal(err)
		}
		var problems []string
		for rows.Next() {
			cols, _ := rows.Columns()
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			if len(vals) == 1 && vals[0] == "ok" {
				continue
			}
			problems = append(problems, fmt.Sprint(vals...))
		}
		rows.Close()
		if len(problems) > 0 {
			t.Errorf("%s: %v", check, problems)
		}
	}
	var writable int
	for i := 0; i < 8; i++ { // every pooled connection the migration may have used
		if err := db.sql.QueryRow(`PRAGMA writable_schema`).Scan(&writable); err != nil || writable != 0 {
			t.Fatalf("writable_schema = %d, %v after the migration; want it off", writable, err)
		}
	}

	// Foreign keys still hold: a message of an unknown thread is refused,
	// and deleting the document still takes its threads and messages.
	if err := execErr(db, `INSERT INTO thread_messages (thread_id, seq, role, created_at) VALUES ('thr_nowhere', 0, 'user', 'x')`); err == nil {
		t.Error("a message of an unknown thread was stored: foreign keys no longer enforced")
	}
	if err := execErr(db, `INSERT INTO threads (id, document_id, created_at, updated_at) VALUES ('thr_bad', 'doc_nowhere', 'x', 'x')`); err == nil {
		t.Error("a thread of an unknown document was stored")
	}
	lib, err := db.CreateThread(ctx, "", "All my receipts", "")
	if err != nil {
		t.Fatalf("library thread after the migration: %v", err)
	}
	mustAppend(t, db, lib.ID, nil, ThreadMessage{Role: RoleUser, Content: "how much?"})
	if err := db.DeleteDocument(ctx, doc.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "thread_messages", "thread_id = 'thr_old'"); n != 0 {
		t.Errorf("deleting the document left %d messages of its thread", n)
	}
	if n := count(t, db, "thread_messages", "thread_id = ?", lib.ID); n != 1 {
		t.Errorf("the library thread has %d messages after a document was deleted, want 1", n)
	}
	if _, err := db.GetThread(ctx, "", lib.ID); err != nil {
		t.Errorf("library thread lost: %v", err)
	}
}

// TestAllowLibraryThreadsRefusesAnUnknownDefinition: a threads table whose
// definition is not the one this code expects (here: already changed) is
// left alone, and the connection's writable_schema is off afterwards.
func TestAllowLibraryThreadsRefusesAnUnknownDefinition(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	var before string
	if err := db.sql.QueryRow(`SELECT sql FROM sqlite_schema WHERE name = 'threads'`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	err := db.update(ctx, "test", func(tx *writeTx) error { return allowLibraryThreads(ctx, tx) })
	if err == nil || !strings.Contains(err.Error(), "expected its document_id column declared once") {
		t.Fatalf("changing an unexpected threads table: %v, want a refusal", err)
	}
	var after string
	if err := db.sql.QueryRow(`SELECT sql FROM sqlite_schema WHERE name = 'threads'`).Scan(&after); err != nil || after != before {
		t.Errorf("threads definition changed by a refusal: %v\n%s", err, after)
	}
}

// TestLibraryThreads: documentID "" is the library, for every thread call,
// and a document's thread is never found as the library's nor vice versa.
func TestLibraryThreads(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"text"}})
	docThread := mustCreateThread(t, db, doc.ID, "about a")
	lib := mustCreateThread(t, db, "", "  Spending ")
	if lib.DocumentID != "" || lib.Title != "Spending" {
		t.Errorf("library thread = %+v", lib)
	}
	b, _ := json.Marshal(lib)
	if !strings.Contains(string(b), `"document_id":""`) {
		t.Errorf("library thread JSON %s lacks document_id \"\"", b)
	}
	older := mustCreateThread(t, db, "", "older")
	mustAppend(t, db, lib.ID, nil, ThreadMessage{Role: RoleUser, Content: "how much?"}, ThreadMessage{Role: RoleAssistant, Content: "12 [1]"})

	if got, err := db.GetThread(ctx, "", lib.ID); err != nil || got.ID != lib.ID || got.MessageCount != 2 {
		t.Errorf("GetThread library = %+v, %v", got, err)
	}
	_, err := db.GetThread(ctx, "", docThread.ID)
	wantCode(t, err, ErrNotFound, "the library has no thread "+docThread.ID+" (a document's thread continues in that document's chat)")
	_, err = db.GetThread(ctx, doc.ID, lib.ID)
	wantCode(t, err, ErrNotFound, "document "+doc.ID+" has no thread "+lib.ID)
	_, err = db.RenameThread(ctx, "", docThread.ID, "x")
	wantCode(t, err, ErrNotFound, "")
	wantCode(t, db.TruncateThread(ctx, "", docThread.ID, 0), ErrNotFound, "")
	wantCode(t, db.DeleteThread(ctx, "", docThread.ID), ErrNotFound, "")
	wantCode(t, db.DeleteThread(ctx, doc.ID, lib.ID), ErrNotFound, "")
	list, err := db.ListThreads(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, th := range list {
		ids = append(ids, th.ID)
	}
	if want := []string{lib.ID, older.ID}; !reflect.DeepEqual(ids, want) {
		t.Errorf("library threads %v, want %v (most recent first, no document's thread)", ids, want)
	}
	if docs, err := db.ListThreads(ctx, doc.ID); err != nil || len(docs) != 1 || docs[0].ID != docThread.ID {
		t.Errorf("document threads = %+v, %v; want only its own", docs, err)
	}

	if th, err := db.RenameThread(ctx, "", lib.ID, "Taxis"); err != nil || th.Title != "Taxis" {
		t.Errorf("RenameThread library = %+v, %v", th, err)
	}
	if err := db.TruncateThread(ctx, "", lib.ID, 1); err != nil {
		t.Fatal(err)
	}
	if th, _ := db.GetThread(ctx, "", lib.ID); th.MessageCount != 1 {
		t.Errorf("after truncating to 1: %d messages", th.MessageCount)
	}
	if err := db.DeleteThread(ctx, "", older.ID); err != nil {
		t.Fatal(err)
	}
	_, err = db.GetThread(ctx, "", older.ID)
	wantCode(t, err, ErrNotFound, "")
	if _, err := db.GetThread(ctx, doc.ID, docThread.ID); err != nil {
		t.Errorf("document thread touched by library calls: %v", err)
	}
	// Holding works the same for a library thread.
	h, err := db.HoldThread(ctx, lib.ID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.HoldThread(ctx, lib.ID, time.Minute)
	wantCode(t, err, ErrConflict, "")
	if err := db.ReleaseThread(ctx, h); err != nil {
		t.Fatal(err)
	}
}
