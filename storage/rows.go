package storage

import (
	"context"
	"database/sql"
	"errors"
)

// errEnoughRows, returned by a row function of queryEach, ends the read
// there without error: for a read that stops at a budget of bytes rather
// than a count of rows, which LIMIT cannot say.
var errEnoughRows = errors.New("enough rows")

// queryRows runs a query and scans each row it returns with scan, so that a
// list read is one call: the rows are closed on every path, and an error
// met while iterating fails the read instead of cutting the list short. No
// rows is an empty list, not nil, so that JSON says [] rather than null.
func queryRows[T any](ctx context.Context, q queryer, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	out := []T{}
	err := queryEach(ctx, q, func(s scanner) error {
		v, err := scan(s)
		if err != nil {
			return err
		}
		out = append(out, v)
		return nil
	}, query, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// queryEach runs a query and calls fn for each row, for reads that fill a
// map or stream bytes rather than build a list. The first error, from fn
// or from iterating, ends it, and errEnoughRows ends it with none. The
// rows are closed before it returns, not deferred to the caller's return,
// which frees the connection before the next query of a transaction that
// reads in batches.
func queryEach(ctx context.Context, q queryer, fn func(scanner) error, query string, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); errors.Is(err, errEnoughRows) {
			return nil
		} else if err != nil {
			return err
		}
	}
	return rows.Err()
}

// queryDocumentRows is queryRows over the rows of one document, in one
// read: an unknown document is not found, not an empty list.
func queryDocumentRows[T any](ctx context.Context, db *DB, op, documentID string, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	var out []T
	err := db.view(ctx, op, func(tx *sql.Tx) error {
		if _, err := getDocument(ctx, tx, documentID); err != nil {
			return err
		}
		var err error
		out, err = queryRows(ctx, tx, scan, query, args...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scanValue scans a row of one column.
func scanValue[T any](s scanner) (T, error) {
	var v T
	err := s.Scan(&v)
	return v, err
}
