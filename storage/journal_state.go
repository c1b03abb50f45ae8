package storage

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// This file keeps the before-state of journal entries and puts it back.
// A state is read from the store's own tables, generically: a document
// deleted is its row and every row that belongs to it (found through the
// foreign keys, so a table a later migration adds is kept too), byte for
// byte, and an undo writes those rows back with the same keys. Rows go
// one at a time and blobs are copied by SQLite itself (journal_blobs), so
// keeping or restoring a large document holds one row in memory, not the
// document.

// Scope kinds.
const (
	// scopeTree is one row (Table, column id = ID) with every row that
	// belongs to it: the rows whose foreign keys reach it, to any depth,
	// and the references to them that a delete would set to NULL.
	scopeTree = "tree"
	// scopeRows is the rows of Table whose column Where equals ID, whole,
	// or only Columns of them (an edit of some columns of an existing row).
	scopeRows = "rows"
	// scopeSchemaVersion and scopePromptVersion are the latest version of
	// a schema or prompt (ID): an undo adds a version equal to it rather
	// than rewrite the history of versions.
	scopeSchemaVersion = "schema_version"
	scopePromptVersion = "prompt_version"
)

// scope is a part of the store whose state an entry keeps.
type scope struct {
	Kind    string   `json:"kind"`
	Table   string   `json:"table,omitempty"`
	ID      string   `json:"id"`
	Where   string   `json:"where,omitempty"`
	Columns []string `json:"columns,omitempty"`
	// Refs (tree) are the rows outside the tree that referred to it with
	// ON DELETE SET NULL, when the state was read.
	Refs []nullRef `json:"refs,omitempty"`
	// Version (schema and prompt versions) is the latest version then;
	// nil when there was none.
	Version *versionState `json:"version,omitempty"`
}

func treeScope(table, id string) scope { return scope{Kind: scopeTree, Table: table, ID: id} }
func columnsScope(table, id string, cols ...string) scope {
	return scope{Kind: scopeRows, Table: table, Where: "id", ID: id, Columns: cols}
}
func rowsScope(table, where, id string) scope {
	return scope{Kind: scopeRows, Table: table, Where: where, ID: id}
}
func schemaVersionScope(id string) scope { return scope{Kind: scopeSchemaVersion, ID: id} }
func promptVersionScope(id string) scope { return scope{Kind: scopePromptVersion, ID: id} }

// nullRef is a column of a row that referred to a row in a tree.
type nullRef struct {
	Table  string   `json:"table"`
	PK     []string `json:"pk"`
	PKVals []any    `json:"pk_vals"`
	Column string   `json:"column"`
	Value  any      `json:"value"`
}

// versionState is the latest version of a schema or a prompt.
type versionState struct {
	Name           string   `json:"name"`
	ResponseFormat string   `json:"response_format,omitempty"`
	Content        string   `json:"content,omitempty"`
	SchemaRevID    string   `json:"schema_revid,omitempty"`
	Model          string   `json:"model,omitempty"`
	TagIDs         []string `json:"tag_ids,omitempty"`
}

// read reads the state of a scope: its rows (a tree's as keys only, the
// columns that find its rows, which fullRow reads whole), and for a tree
// the references to it; for a version scope, the latest version.
func (r *stateReader) read(s scope) (scope, []tableRow, error) {
	switch s.Kind {
	case scopeRows:
		rows, err := r.selectRows(s.Table, []string{s.Where}, []any{s.ID}, s.Columns)
		return s, rows, err
	case scopeTree:
		return r.readTree(s)
	case scopeSchemaVersion:
		s.Version = nil
		rev, err := schemaArtifact.latest(r.ctx, r.q, s.ID)
		if errors.Is(err, ErrNotFound) {
			return s, nil, nil
		}
		if err != nil {
			return s, nil, err
		}
		s.Version = &versionState{Name: rev.Name, ResponseFormat: string(rev.ResponseFormat)}
		return s, nil, nil
	case scopePromptVersion:
		s.Version = nil
		rev, err := promptArtifact.latest(r.ctx, r.q, s.ID)
		if errors.Is(err, ErrNotFound) {
			return s, nil, nil
		}
		if err != nil {
			return s, nil, err
		}
		s.Version = &versionState{Name: rev.Name, Content: rev.Content, SchemaRevID: rev.SchemaRevID,
			Model: rev.Model, TagIDs: rev.TagIDs}
		return s, nil, nil
	}
	return s, nil, fmt.Errorf("unknown journal scope %q", s.Kind)
}

// keyColumns are the columns of table a tree walk needs beyond its
// primary key: those other tables' foreign keys refer to.
func (r *stateReader) keyColumns(table string) []string {
	cols := []string{}
	for _, fk := range r.fks {
		if fk.parent == table {
			for _, c := range fk.to {
				if !slices.Contains(cols, c) {
					cols = append(cols, c)
				}
			}
		}
	}
	return cols
}

// fullRow reads the whole row a key row names (blobs as blobRef).
func (r *stateReader) fullRow(key tableRow) (tableRow, error) {
	ti, err := r.meta(key.Table)
	if err != nil {
		return tableRow{}, err
	}
	pk, err := r.pkOf(key)
	if err != nil {
		return tableRow{}, err
	}
	rows, err := r.selectRows(key.Table, ti.pk, pk, nil)
	if err != nil {
		return tableRow{}, err
	}
	if len(rows) != 1 {
		return tableRow{}, fmt.Errorf("read %s: the row is gone", key.Table)
	}
	return rows[0], nil
}

func (r *stateReader) readTree(s scope) (scope, []tableRow, error) {
	if r.fks == nil {
		fks, err := r.foreignKeys()
		if err != nil {
			return s, nil, err
		}
		r.fks = fks
	}
	s.Refs = nil
	seen := map[string]bool{}
	var rows []tableRow
	var visit func(table string, where []string, vals []any) error
	visit = func(table string, where []string, vals []any) error {
		found, err := r.selectRows(table, where, vals, r.keyColumns(table))
		if err != nil {
			return err
		}
		for _, row := range found {
			key, err := r.rowKey(row)
			if err != nil {
				return err
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			rows = append(rows, row)
			for _, fk := range r.fks {
				if fk.parent != table {
					continue
				}
				vals := make([]any, len(fk.to))
				for i, c := range fk.to {
					j := slices.Index(row.Cols, c)
					if j < 0 || row.Vals[j] == nil {
						vals = nil
						break
					}
					vals[i] = row.Vals[j]
				}
				if vals == nil {
					continue
				}
				if fk.onDelete != "SET NULL" {
					if err := visit(fk.child, fk.from, vals); err != nil {
						return err
					}
					continue
				}
				if len(fk.from) != 1 {
					continue // no such key in the store; a row keeps its own columns anyway
				}
				refs, err := r.selectRows(fk.child, fk.from, vals, []string{})
				if err != nil {
					return err
				}
				ti, err := r.meta(fk.child)
				if err != nil {
					return err
				}
				for _, ref := range refs {
					pk, err := r.pkOf(ref)
					if err != nil {
						return err
					}
					s.Refs = append(s.Refs, nullRef{Table: fk.child, PK: ti.pk, PKVals: encodeValues(pk),
						Column: fk.from[0], Value: encodeValue(vals[0])})
				}
			}
		}
		return nil
	}
	err := visit(s.Table, []string{"id"}, []any{s.ID})
	return s, rows, err
}

// encodeValue makes a column value JSON that decodes back to the same
// value and type: integers as numbers, text as strings, and blobs and
// floats tagged, since STRICT tables tell them apart.
func encodeValue(v any) any {
	switch x := v.(type) {
	case blobRef:
		return map[string]int{"ref": 1}
	case []byte:
		return map[string]string{"b": base64.StdEncoding.EncodeToString(x)}
	case float64:
		return map[string]float64{"f": x}
	case bool:
		if x {
			return 1
		}
		return 0
	}
	return v
}

func encodeValues(vals []any) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = encodeValue(v)
	}
	return out
}

// decodeValue reverses encodeValue on a value decoded with UseNumber.
func decodeValue(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		return x.Int64()
	case map[string]any:
		if b, ok := x["b"].(string); ok {
			return base64.StdEncoding.DecodeString(b)
		}
		if f, ok := x["f"].(json.Number); ok {
			return f.Float64()
		}
		if _, ok := x["ref"]; ok {
			return blobRef{}, nil
		}
		return nil, fmt.Errorf("unknown stored value %v", x)
	}
	return v, nil
}

func decodeValues(vals []any) ([]any, error) {
	out := make([]any, len(vals))
	for i, v := range vals {
		d, err := decodeValue(v)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

type storedRow struct {
	Cols []string `json:"c"`
	Vals []any    `json:"v"`
}

// decodeStoredRow is a row of table as journal_rows.data keeps it
// (blobs as blobRef).
func decodeStoredRow(table, data string) (tableRow, error) {
	var sr storedRow
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&sr); err != nil {
		return tableRow{}, err
	}
	vals, err := decodeValues(sr.Vals)
	if err != nil {
		return tableRow{}, err
	}
	return tableRow{Table: table, Cols: sr.Cols, Vals: vals}, nil
}

const insertJournalScopeSQL = `INSERT INTO journal_scopes (entry_id, ord, scope) VALUES (?, ?, ?)`

// saveScope reads the state of s now and stores it as scope ord of the
// entry, a row at a time; it returns the bytes stored.
func saveScope(ctx context.Context, t *writeTx, entry int64, ord int, s scope) (int64, error) {
	r := newStateReader(ctx, t)
	s, rows, err := r.read(s)
	if err != nil {
		return 0, err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return 0, err
	}
	if _, err := t.ExecContext(ctx, insertJournalScopeSQL, entry, ord, string(b)); err != nil {
		return 0, err
	}
	size := int64(len(b))
	for i, row := range rows {
		if s.Kind == scopeTree {
			if row, err = r.fullRow(row); err != nil {
				return 0, err
			}
		}
		data, err := json.Marshal(storedRow{Cols: row.Cols, Vals: encodeValues(row.Vals)})
		if err != nil {
			return 0, err
		}
		if _, err := t.ExecContext(ctx, `INSERT INTO journal_rows (entry_id, scope_ord, ord, tbl, data) VALUES (?, ?, ?, ?, ?)`,
			entry, ord, i, row.Table, string(data)); err != nil {
			return 0, err
		}
		size += int64(len(data))
		n, err := r.copyBlobs(t, row, entry, ord, i)
		if err != nil {
			return 0, err
		}
		size += n
	}
	return size, nil
}

// copyBlobs copies the blobs of a row into journal_blobs, inside SQLite,
// and returns how many bytes they hold.
func (r *stateReader) copyBlobs(t *writeTx, row tableRow, entry int64, scopeOrd, ord int) (int64, error) {
	var size int64
	var cond string
	var pk []any
	for i, c := range row.Cols {
		if _, ok := row.Vals[i].(blobRef); !ok {
			continue
		}
		if cond == "" {
			var err error
			if cond, pk, err = r.pkCond(row); err != nil {
				return 0, err
			}
		}
		// RETURNING tells the size in the same statement: no second read
		// of the bytes just copied.
		var n int64
		if err := t.QueryRowContext(r.ctx, `INSERT INTO journal_blobs (entry_id, scope_ord, ord, col, bytes)
			SELECT ?, ?, ?, ?, `+quoteIdent(c)+` FROM `+quoteIdent(row.Table)+` WHERE `+cond+`
			RETURNING length(bytes)`,
			append([]any{entry, scopeOrd, ord, c}, pk...)...).Scan(&n); err != nil {
			return 0, fmt.Errorf("keep %s.%s: %w", row.Table, c, err)
		}
		size += n
	}
	return size, nil
}

// savedState is a scope of an entry; its rows stay in journal_rows until
// they are restored, a batch at a time.
type savedState struct {
	scope scope
	entry int64
	ord   int
}

// loadScopes reads the scopes of an entry's before-state.
func loadScopes(ctx context.Context, q queryer, entry int64) ([]savedState, error) {
	var out []savedState
	err := queryEach(ctx, q, func(s scanner) error {
		var raw string
		var ord int
		if err := s.Scan(&ord, &raw); err != nil {
			return err
		}
		var sc scope
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&sc); err != nil {
			return fmt.Errorf("history entry %d: scope: %w", entry, err)
		}
		out = append(out, savedState{scope: sc, entry: entry, ord: ord})
		return nil
	}, `SELECT ord, scope FROM journal_scopes WHERE entry_id = ? ORDER BY ord`, entry)
	return out, err
}

// savedBatch is how many kept rows a restore reads at once.
const savedBatch = 64

// eachSaved calls fn with the kept rows of a scope in order, reading them
// a batch at a time (blobs stay blobRef: restore reads them row by row).
func eachSaved(ctx context.Context, q queryer, saved savedState, fn func(ord int, row tableRow) error) error {
	for next := 0; ; {
		type kept struct {
			ord         int
			table, data string
		}
		batch, err := queryRows(ctx, q, func(s scanner) (kept, error) {
			var k kept
			err := s.Scan(&k.ord, &k.table, &k.data)
			return k, err
		}, `SELECT ord, tbl, data FROM journal_rows WHERE entry_id = ? AND scope_ord = ? AND ord >= ? ORDER BY ord LIMIT ?`,
			saved.entry, saved.ord, next, savedBatch)
		if err != nil {
			return err
		}
		for _, k := range batch {
			row, err := decodeStoredRow(k.table, k.data)
			if err != nil {
				return fmt.Errorf("history entry %d: row of %s: %w", saved.entry, k.table, err)
			}
			if err := fn(k.ord, row); err != nil {
				return err
			}
			next = k.ord + 1
		}
		if len(batch) < savedBatch {
			return nil
		}
	}
}
