package storage

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// The SQLite driver parses a statement each time it is run unless it was
// prepared, and preparing the statements that store a document (the
// documents query with its tags subquery, the inserts whose triggers keep
// the full-text index) cost an import about a tenth of its time in the
// parent process. These statements are prepared once: database/sql keeps a
// prepared *sql.Stmt per connection of the pool, and a transaction reuses
// the one of its own connection (Tx.StmtContext), preparing it there the
// first time only.
//
// writeTx's and cachedQueryer's Exec, Query, QueryRow and Prepare look a
// query up by its text: call sites keep their SQL, and a query not in the
// list runs as it always did.
var hotStatements = []string{
	documentBySHA256SQL,
	getDocumentSQL,
	insertJournalSQL,
	insertJournalKeySQL,
	insertJournalScopeSQL,
	updateJournalSizeSQL,
	insertDocumentSQL,
	insertDocumentFileSQL,
	insertFilePartSQL,
	insertPageSQL,
	insertChunkSQL,
	updateDocumentPagesSQL,
	putPageWordsSQL,
}

// stmtCache holds the prepared hot statements.
type stmtCache struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt // nil before prepare and after close
}

// prepare prepares the hot statements on db. Open calls it once the schema
// is up to date, before any transaction of the store: preparing takes a
// connection from the pool, which a caller holding one could wait for
// without end. A statement that does not prepare is left out, and runs
// unprepared where it is used (where its error, if it has one, shows).
func (c *stmtCache) prepare(ctx context.Context, db *sql.DB) {
	stmts := make(map[string]*sql.Stmt, len(hotStatements))
	for _, q := range hotStatements {
		if s, err := db.PrepareContext(ctx, q); err == nil {
			stmts[q] = s
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stmts = stmts
}

// get returns the prepared statements (nil before prepare and after close).
func (c *stmtCache) get() map[string]*sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stmts
}

// close closes the prepared statements; later lookups find none.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, s := range c.stmts {
		errs = append(errs, s.Close())
	}
	c.stmts = nil
	return errors.Join(errs...)
}

// ExecContext runs query with the transaction's copy of its prepared
// statement when it is a hot one.
func (t *writeTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s := t.stmts[query]; s != nil {
		ts := t.Tx.StmtContext(ctx, s)
		defer ts.Close()
		return ts.ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, query, args...)
}

// QueryRowContext is ExecContext's lookup for a query of one row. The
// transaction's statement stays open until the transaction ends, since the
// row is read after this returns.
func (t *writeTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if s := t.stmts[query]; s != nil {
		return t.Tx.StmtContext(ctx, s).QueryRowContext(ctx, args...)
	}
	return t.Tx.QueryRowContext(ctx, query, args...)
}

// PrepareContext returns the transaction's copy of a hot statement, which
// the caller closes as any other; other queries are prepared as usual.
func (t *writeTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	if s := t.stmts[query]; s != nil {
		return t.Tx.StmtContext(ctx, s), nil
	}
	return t.Tx.PrepareContext(ctx, query)
}

// cachedQueryer reads outside a transaction with the prepared hot
// statements.
type cachedQueryer struct {
	db    *sql.DB
	stmts map[string]*sql.Stmt
}

// reader is the queryer for reads outside a transaction.
func (db *DB) reader() cachedQueryer { return cachedQueryer{db: db.sql, stmts: db.stmts.get()} }

func (q cachedQueryer) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s := q.stmts[query]; s != nil {
		return s.QueryContext(ctx, args...)
	}
	return q.db.QueryContext(ctx, query, args...)
}

func (q cachedQueryer) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if s := q.stmts[query]; s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return q.db.QueryRowContext(ctx, query, args...)
}
