package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// The tables the journal keeps rows of, as SQLite describes them: their
// columns, primary keys and foreign keys (journal_state.go walks them).

// tableRow is one row of a table, its columns in table order.
type tableRow struct {
	Table string
	Cols  []string
	Vals  []any
}

// tableInfo is a table's columns, primary key and blob columns.
type tableInfo struct {
	cols, pk []string
	blob     map[string]bool
}

// blobRef stands for a blob column's value in a row read for the journal:
// the bytes stay in SQLite (copied to journal_blobs, or read back one row
// at a time).
type blobRef struct{}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func tableMeta(ctx context.Context, q queryer, table string) (tableInfo, error) {
	ti := tableInfo{blob: map[string]bool{}}
	pkAt := map[int]string{}
	err := queryEach(ctx, q, func(s scanner) error {
		var name, typ string
		var pk, hidden int
		if err := s.Scan(&name, &typ, &pk, &hidden); err != nil {
			return err
		}
		if hidden != 0 {
			return nil // generated columns: SQLite computes them
		}
		ti.cols = append(ti.cols, name)
		if pk > 0 {
			pkAt[pk] = name
		}
		if strings.EqualFold(typ, "BLOB") {
			ti.blob[name] = true
		}
		return nil
	}, `SELECT name, type, pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid`, table)
	if err != nil {
		return tableInfo{}, err
	}
	if len(ti.cols) == 0 {
		return tableInfo{}, fmt.Errorf("table %s not found", table)
	}
	for i := 1; i <= len(pkAt); i++ {
		ti.pk = append(ti.pk, pkAt[i])
	}
	if len(ti.pk) == 0 {
		return tableInfo{}, fmt.Errorf("table %s has no primary key: its rows cannot be restored by key", table)
	}
	return ti, nil
}

// foreignKey is one foreign key of a child table to a parent table.
type foreignKey struct {
	child, parent string
	from, to      []string
	onDelete      string
}

// foreignKeys lists the store's foreign keys, but the journal's own.
func foreignKeys(ctx context.Context, q queryer) ([]foreignKey, error) {
	var out []foreignKey
	type keyID struct {
		table string
		id    int
	}
	var last keyID
	err := queryEach(ctx, q, func(s scanner) error {
		var k keyID
		var seq int
		var parent, from, to, onDelete string
		if err := s.Scan(&k.table, &k.id, &seq, &parent, &from, &to, &onDelete); err != nil {
			return err
		}
		if len(out) == 0 || k != last {
			out = append(out, foreignKey{child: k.table, parent: parent, onDelete: strings.ToUpper(onDelete)})
			last = k
		}
		fk := &out[len(out)-1]
		fk.from = append(fk.from, from)
		fk.to = append(fk.to, to)
		return nil
	}, `SELECT m.name, f.id, f.seq, f."table", f."from", coalesce(f."to", ''), f.on_delete
		FROM sqlite_schema m JOIN pragma_foreign_key_list(m.name) f
		WHERE m.type = 'table' AND m.name NOT LIKE 'journal%' AND m.name NOT LIKE 'sqlite_%'
		ORDER BY m.name, f.id, f.seq`)
	if err != nil {
		return nil, fmt.Errorf("read foreign keys: %w", err)
	}
	// A key without "to" columns refers to the parent's primary key.
	for i := range out {
		if out[i].to[0] == "" {
			ti, err := tableMeta(ctx, q, out[i].parent)
			if err != nil {
				return nil, err
			}
			out[i].to = ti.pk
		}
	}
	return out, nil
}

// tableCache keeps what the journal learns of the store's tables (their
// columns, keys and foreign keys) for the life of the DB: they change only
// with a migration, which clears it. Asking SQLite for them on every
// change tripled the cost of importing and deleting a small document.
type tableCache struct {
	mu    sync.Mutex
	metas map[string]tableInfo
	fks   []foreignKey // nil until read
}

func (c *tableCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.metas, c.fks = nil, nil
}

// stateReader reads rows of a write transaction.
type stateReader struct {
	ctx   context.Context
	q     queryer
	cache *tableCache
	fks   []foreignKey
}

func newStateReader(ctx context.Context, t *writeTx) *stateReader {
	return &stateReader{ctx: ctx, q: t, cache: t.tables}
}

func (r *stateReader) meta(table string) (tableInfo, error) {
	r.cache.mu.Lock()
	defer r.cache.mu.Unlock()
	if ti, ok := r.cache.metas[table]; ok {
		return ti, nil
	}
	ti, err := tableMeta(r.ctx, r.q, table)
	if err != nil {
		return tableInfo{}, err
	}
	if r.cache.metas == nil {
		r.cache.metas = map[string]tableInfo{}
	}
	r.cache.metas[table] = ti
	return ti, nil
}

// foreignKeys returns the store's foreign keys, from the cache.
func (r *stateReader) foreignKeys() ([]foreignKey, error) {
	r.cache.mu.Lock()
	defer r.cache.mu.Unlock()
	if r.cache.fks == nil {
		fks, err := foreignKeys(r.ctx, r.q)
		if err != nil {
			return nil, err
		}
		r.cache.fks = fks
	}
	return r.cache.fks, nil
}

// selectRows reads the rows of table where the columns equal vals,
// only cols of them (nil: all).
func (r *stateReader) selectRows(table string, where []string, vals []any, cols []string) ([]tableRow, error) {
	ti, err := r.meta(table)
	if err != nil {
		return nil, err
	}
	if cols == nil {
		cols = ti.cols
	} else {
		cols = append(slices.Clone(ti.pk), cols...)
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = quoteIdent(c)
		if ti.blob[c] {
			quoted[i] = `(` + quoteIdent(c) + ` IS NOT NULL)`
		}
	}
	q := `SELECT ` + strings.Join(quoted, ", ") + ` FROM ` + quoteIdent(table) + ` WHERE ` + equalsAll(where) +
		` ORDER BY ` + strings.Join(quoteAll(ti.pk), ", ")
	var out []tableRow
	err = queryEach(r.ctx, r.q, func(s scanner) error {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := s.Scan(ptrs...); err != nil {
			return err
		}
		for i, c := range cols {
			if ti.blob[c] {
				present, _ := vals[i].(int64)
				vals[i] = nil
				if present != 0 {
					vals[i] = blobRef{}
				}
			}
		}
		out = append(out, tableRow{Table: table, Cols: cols, Vals: vals})
		return nil
	}, q, vals...)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", table, err)
	}
	return out, nil
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = quoteIdent(n)
	}
	return out
}

// pkOf returns the primary key values of a whole or partial row.
func (r *stateReader) pkOf(row tableRow) ([]any, error) {
	ti, err := r.meta(row.Table)
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(ti.pk))
	for i, c := range ti.pk {
		j := slices.Index(row.Cols, c)
		if j < 0 {
			return nil, fmt.Errorf("row of %s without its key column %s", row.Table, c)
		}
		vals[i] = row.Vals[j]
	}
	return vals, nil
}

func (r *stateReader) rowKey(row tableRow) (string, error) {
	pk, err := r.pkOf(row)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(encodeValues(pk))
	return row.Table + "\x00" + string(b), err
}

func (r *stateReader) pkCond(row tableRow) (string, []any, error) {
	ti, err := r.meta(row.Table)
	if err != nil {
		return "", nil, err
	}
	pk, err := r.pkOf(row)
	if err != nil {
		return "", nil, err
	}
	return equalsAll(ti.pk), pk, nil
}

// placeholders is n parameters, "?, ?, ?", for a list of values.
func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// equalsAll is the condition that each of cols equals its argument.
func equalsAll(cols []string) string {
	conds := make([]string, len(cols))
	for i, c := range cols {
		conds[i] = quoteIdent(c) + ` = ?`
	}
	return strings.Join(conds, ` AND `)
}
