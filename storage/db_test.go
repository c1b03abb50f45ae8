package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/docent/docent/storage/fault"
)

func TestOpenCreatesSchemaFromEmpty(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "data")
	path := filepath.Join(dir, "docent.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer db.Close()

	if db.Path() != path {
		t.Errorf("Path() = %q, want %q", db.Path(), path)
	}
	for _, p := range []string{dir, path} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]os.FileMode{true: 0o700, false: 0o600}[info.IsDir()]; info.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v (it holds the user's documents)", p, info.Mode().Perm(), want)
		}
	}
	real, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	v, err := schemaVersion(context.Background(), db.sql)
	if err != nil || v != len(real) {
		t.Fatalf("schema version = %d, %v; want %d, the last migration", v, err, len(real))
	}
	for _, table := range []string{"documents", "document_files", "pages", "chunks", "chunks_fts", "tags",
		"document_tags", "schemas", "schema_revisions", "prompts", "prompt_revisions", "prompt_revision_tags",
		"extractions", "threads", "thread_messages", "turn_states", "settings"} {
		if n := count(t, db, "sqlite_schema", "name = ?", table); n != 1 {
			t.Errorf("table %s missing", table)
		}
	}
	var fkProblems int
	if err := db.sql.QueryRow(`SELECT count(*) FROM pragma_foreign_key_check`).Scan(&fkProblems); err != nil || fkProblems != 0 {
		t.Errorf("foreign_key_check: %d problems, %v", fkProblems, err)
	}
}

func TestReopenIsNoOp(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "docent.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustCreateDocument(t, db, NewDocument{Name: "kept.txt", Pages: []string{"still here"}})
	db.Close()

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("second Open: %v", err)
	}
	defer db.Close()
	real, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "migrations", ""); n != len(real) {
		t.Errorf("migrations has %d rows after reopening, want %d (one per migration)", n, len(real))
	}
	if _, err := db.GetDocument(ctx, doc.ID); err != nil {
		t.Errorf("document lost on reopen: %v", err)
	}
}

func TestOpenRefusesNewerSchemaVersion(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "docent.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	real, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	future := len(real) + 1
	mustExec(t, db, `INSERT INTO migrations (version, name, applied_at) VALUES (?, 'future.sql', '2030-01-01T00:00:00.000Z')`, future)
	db.Close()

	_, err = Open(ctx, path)
	want := fmt.Sprintf("database schema version %d is newer than this docent (knows %d): upgrade docent", future, len(real))
	if err == nil || err.Error() != want {
		t.Fatalf("Open of a newer database: %v, want %q", err, want)
	}
	if fault.ErrorMessage(err) != want {
		t.Errorf("ErrorMessage = %q: the user must see why", fault.ErrorMessage(err))
	}
}

func TestFailedMigrationLeavesPreviousVersion(t *testing.T) {
	db := mustOpen(t)
	// The real migrations (all applied by Open), then a broken next one.
	fsys := fstest.MapFS{}
	real, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range real {
		fsys["migrations/"+m.name] = &fstest.MapFile{Data: []byte(m.sql)}
	}
	broken := fmt.Sprintf("%04d_broken.sql", len(real)+1)
	fsys["migrations/"+broken] = &fstest.MapFile{Data: []byte("CREATE TABLE half (x INTEGER); CREATE TABLE nonsense (")}
	ms, err := loadMigrations(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.applyMigrations(context.Background(), ms); err == nil || !strings.Contains(err.Error(), broken) {
		t.Fatalf("applying a broken migration: %v, want an error naming it", err)
	}
	if n := count(t, db, "sqlite_schema", "name = 'half'"); n != 0 {
		t.Error("a failed migration left a table behind")
	}
	if v, _ := schemaVersion(context.Background(), db.sql); v != len(real) {
		t.Errorf("schema version = %d after a failed migration, want %d", v, len(real))
	}
}

func TestLoadMigrationsRefusesGaps(t *testing.T) {
	_, err := loadMigrations(fstest.MapFS{
		"migrations/0001_init.sql": {Data: []byte("SELECT 1")},
		"migrations/0003_x.sql":    {Data: []byte("SELECT 1")},
	})
	if err == nil {
		t.Fatal("a gap in migration numbers was accepted")
	}
}

// Pragmas set with Exec would reach one pooled connection only; the DSN
// reaches all of them. Hold two connections at once so they are distinct.
func TestPragmasOnEveryPooledConnection(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	c1, err := db.sql.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := db.sql.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()

	for name, c := range map[string]*sql.Conn{"first": c1, "second": c2} {
		var fk, busy, sync int
		var journal string
		for pragma, dest := range map[string]any{"foreign_keys": &fk, "busy_timeout": &busy, "journal_mode": &journal, "synchronous": &sync} {
			if err := c.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(dest); err != nil {
				t.Fatalf("%s connection: PRAGMA %s: %v", name, pragma, err)
			}
		}
		if fk != 1 || busy != 10000 || journal != "wal" || sync != 1 {
			t.Errorf("%s connection: foreign_keys=%d busy_timeout=%d journal_mode=%s synchronous=%d; want 1 10000 wal 1(NORMAL)",
				name, fk, busy, journal, sync)
		}
		// And the pragma really acts: a dangling reference is refused.
		_, err := c.ExecContext(ctx, `INSERT INTO pages (document_id, page, text) VALUES ('doc_missing', 1, '')`)
		if !errors.Is(translate("insert", err), ErrConflict) {
			t.Errorf("%s connection: dangling foreign key insert gave %v, want a conflict", name, err)
		}
	}
}

func TestRowsWrittenInOneTransactionShareTheTime(t *testing.T) {
	db := mustOpen(t)
	at := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.FixedZone("x", 3600))
	db.Now = func() time.Time { return at }
	d := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"x"}})
	want := at.UTC().Truncate(time.Millisecond)
	if !d.CreatedAt.Equal(want) || !d.UpdatedAt.Equal(want) || d.CreatedAt.Location() != time.UTC {
		t.Errorf("created_at %v, updated_at %v; want both %v in UTC", d.CreatedAt, d.UpdatedAt, want)
	}
}

// A new store's migrations are applied in one transaction, not one each:
// all of them or none, recorded at one time.
func TestPendingMigrationsApplyInOneTransaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "docent.db")
	sqldb, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	tick := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	db := &DB{sql: sqldb, path: path, Now: func() time.Time { tick = tick.Add(time.Second); return tick }}
	t.Cleanup(func() { db.Close() })
	real, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}

	fsys := fstest.MapFS{}
	for _, m := range real {
		fsys["migrations/"+m.name] = &fstest.MapFile{Data: []byte(m.sql)}
	}
	broken := fmt.Sprintf("%04d_broken.sql", len(real)+1)
	fsys["migrations/"+broken] = &fstest.MapFile{Data: []byte("CREATE TABLE nonsense (")}
	withBroken, err := loadMigrations(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.applyMigrations(context.Background(), withBroken); err == nil || !strings.Contains(err.Error(), broken) {
		t.Fatalf("applying migrations ending with a broken one: %v, want an error naming it", err)
	}
	if v, _ := schemaVersion(context.Background(), db.sql); v != 0 {
		t.Errorf("schema version = %d after the last of the pending migrations failed, want 0: all or none", v)
	}
	if n := count(t, db, "sqlite_schema", "name = 'documents'"); n != 0 {
		t.Error("the migrations before the broken one left their tables")
	}

	if err := db.applyMigrations(context.Background(), real); err != nil {
		t.Fatal(err)
	}
	var times int
	if err := db.sql.QueryRow(`SELECT count(DISTINCT applied_at) FROM migrations`).Scan(&times); err != nil || times != 1 {
		t.Errorf("the %d migrations were recorded at %d times (%v), want 1: one transaction", len(real), times, err)
	}
}

// A new store has 8 KiB pages (fewer WAL frames per document than 4 KiB);
// a store made with other pages keeps them and what it holds.
func TestNewStoreHas8KiBPagesAndAnOlderOneKeepsItsOwn(t *testing.T) {
	ctx := context.Background()
	pageSize := func(db *sql.DB) int {
		t.Helper()
		var n int
		if err := db.QueryRow(`PRAGMA page_size`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := pageSize(mustOpen(t).sql); n != 8192 {
		t.Errorf("a new store's page size = %d, want 8192", n)
	}

	path := filepath.Join(t.TempDir(), "docent.db")
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=page_size(4096)&_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`CREATE TABLE older (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	doc := mustCreateDocument(t, db, NewDocument{Name: "kept.txt", Pages: []string{"still here"}})
	if n := pageSize(db.sql); n != 4096 {
		t.Errorf("an older store's page size after opening = %d, want its own 4096", n)
	}
	if text, err := db.PageText(ctx, doc.ID, 1); err != nil || text != "still here" {
		t.Fatalf("a document of the older store: %q, %v", text, err)
	}
	checkIntegrity(t, db)
}
