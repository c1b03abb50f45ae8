// Package storage keeps everything Docent knows in one SQLite file: documents
// with their original bytes, page text and full-text index, tags, schemas,
// prompts, extractions, agent threads and paused turns, and settings.
//
// It knows nothing of HTTP, models or PDFs. Every query takes a context and
// returns *Error values (ErrNotFound, ErrConflict, ErrInvalid) for anything a
// person can act on; other errors are internal. The store owns its
// transactions: a call is atomic, and all rows written by one call agree on
// the time.
package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver, pure Go
)

// DB is the store. It is safe for concurrent use.
type DB struct {
	sql  *sql.DB
	path string

	// tables caches the tables' shapes for the journal (journal_state.go).
	tables tableCache

	// Now tells the time for the rows written. It defaults to time.Now;
	// tests set it to get fixed timestamps. Its value is taken once per
	// transaction, converted to UTC and truncated to the stored precision.
	Now func() time.Time

	// vectors are the chunk vectors of each embedding model, kept in
	// memory for search by meaning (vector_index.go).
	vectors vectorCache

	// dataConns are the read-only connections of query_data
	// (dataquery.go).
	dataConns dataConns

	// stmts are the statements every import runs, prepared (stmts.go).
	stmts stmtCache
}

// timeLayout is how times are stored: UTC, fixed width, millisecond
// precision. A fixed width makes text order equal time order, so indexes and
// comparisons (expires_at < now) work on the text; RFC3339Nano would drop
// trailing zeros and break that.
const timeLayout = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q: %w", s, err)
	}
	return t, nil
}

// Open opens the database at path, creating the file and its directory when
// they do not exist, and brings its schema up to date.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("open database: no path given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	// Create the file ourselves so that it is private: it holds the user's
	// documents. SQLite gives the -wal and -shm files the same permissions.
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	f.Close()

	sqldb, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", abs, err)
	}
	// Writers queue for a connection here rather than spin in SQLite's busy
	// handler; WAL lets the readers among them proceed side by side. Idle
	// connections are kept because each new one runs the DSN's pragmas.
	n := max(4, runtime.NumCPU())
	sqldb.SetMaxOpenConns(n)
	sqldb.SetMaxIdleConns(n)

	db := &DB{sql: sqldb, path: abs, Now: time.Now}
	if err := sqldb.PingContext(ctx); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("open database %s: %w", abs, err)
	}
	if err := db.useIncrementalVacuum(ctx); err != nil {
		sqldb.Close()
		return nil, err
	}
	if err := db.migrate(ctx); err != nil {
		sqldb.Close()
		return nil, err
	}
	// The history keeps what undo needs only for its retention: every
	// opening drops what has aged out since (journal.go).
	if _, err := db.PruneJournal(ctx); err != nil {
		sqldb.Close()
		return nil, err
	}
	db.stmts.prepare(ctx, sqldb)
	return db, nil
}

// dsn builds the connection string. Pragmas go here, not in an Exec after
// opening, because database/sql keeps a pool: an Exec reaches one connection,
// the DSN reaches every connection the pool ever opens.
//
// The file: URI form is used so that a path containing '?' or '#' cannot be
// mistaken for parameters; the driver reads the underscore parameters and
// SQLite ignores them.
//
//   - foreign_keys: SQLite leaves them off by default, per connection.
//   - busy_timeout: wait for another writer (another docent process, say)
//     instead of failing at once with SQLITE_BUSY.
//   - page_size 8192, for a new store only (a store's page size is fixed
//     once it is in WAL mode, so an existing one keeps its own): a
//     document's file, pages and index entries take fewer WAL frames than
//     with 4 KiB pages, each frame a write of its header and one of its
//     page. Measured on an import of 69 invoices (docs/benchmarks.md):
//     a third fewer writes (of a third more bytes) and less CPU; 16 KiB
//     pages wrote more than twice the bytes, every commit rewriting whole
//     pages of the indexes.
//   - journal_mode WAL: readers do not block the writer nor it them. It is
//     the driver's _journal_mode parameter, which runs after the _pragma
//     list (sorted by name, so journal_mode would come before page_size,
//     and a new file in WAL mode can no longer change its page size).
//   - synchronous NORMAL: in WAL mode a commit is not synced to disk; the
//     WAL is synced at each checkpoint. A crash of docent loses nothing
//     committed; a power cut or an OS crash may lose the commits since the
//     last checkpoint (a whole document and its journal entry, never part
//     of one), and never corrupts the file. FULL would sync every commit,
//     each document's import.
//   - _txlock=immediate: write transactions take the write lock at BEGIN,
//     so busy_timeout applies there; a deferred transaction that reads and
//     then writes can fail with SQLITE_BUSY without waiting at all. Read-only
//     transactions (sql.TxOptions{ReadOnly: true}) still begin deferred.
func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "page_size(8192)")
	q.Set("_journal_mode", "WAL")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	return fileURI(path, q)
}

// fileURI is the file: URI of path with the parameters q.
func fileURI(path string, q url.Values) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows: file:///C:/...
	}
	u := url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}
	return u.String()
}

// Close closes the database.
func (db *DB) Close() error {
	return errors.Join(db.stmts.close(), db.sql.Close(), db.dataConns.close())
}

// Path returns the absolute path of the database file.
func (db *DB) Path() string { return db.path }

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	var one int
	if err := db.sql.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("ping database: %w", err)
	}
	return nil
}

// writeTx is a write transaction with the time every row it writes uses.
type writeTx struct {
	*sql.Tx
	now    time.Time
	tables *tableCache
	stmts  map[string]*sql.Stmt // the store's prepared statements (stmts.go)
}

// nowText is the transaction's time as stored.
func (t *writeTx) nowText() string { return formatTime(t.now) }

// update runs fn in a write transaction, committing when fn returns nil and
// rolling back otherwise, so a failed call leaves nothing half-written.
// Errors are passed through translate with op.
func (db *DB) update(ctx context.Context, op string, fn func(*writeTx) error) error {
	sqltx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return translate(op, err)
	}
	t := &writeTx{Tx: sqltx, now: db.now(), tables: &db.tables, stmts: db.stmts.get()}
	if err := fn(t); err != nil {
		_ = sqltx.Rollback()
		return translate(op, err)
	}
	if err := sqltx.Commit(); err != nil {
		return translate(op, err)
	}
	return nil
}

// view runs fn in a read-only transaction, so that several queries see one
// snapshot of the database (a list and its total, say).
func (db *DB) view(ctx context.Context, op string, fn func(*sql.Tx) error) error {
	sqltx, err := db.sql.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return translate(op, err)
	}
	defer sqltx.Rollback() // read-only: there is nothing to keep
	return translate(op, fn(sqltx))
}

// now returns the clock's time as stored: UTC, whole milliseconds.
func (db *DB) now() time.Time {
	clock := db.Now
	if clock == nil {
		clock = time.Now
	}
	return clock().UTC().Truncate(time.Millisecond)
}

// queryer is what *sql.DB, *sql.Tx and *writeTx have in common, so that
// reads can run inside or outside a transaction.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}
