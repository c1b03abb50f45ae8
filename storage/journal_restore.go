package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// restore puts a saved state back: rows the scope holds now and did not
// then are deleted, rows it held then are written back with their keys
// (rows unchanged are left alone), references are set again, and a
// version that differs is added as a new version.
func restore(ctx context.Context, t *writeTx, saved savedState) error {
	r := newStateReader(ctx, t)
	s := saved.scope
	switch s.Kind {
	case scopeSchemaVersion:
		return restoreSchemaVersion(ctx, t, s)
	case scopePromptVersion:
		return restorePromptVersion(ctx, t, s)
	}
	_, current, err := r.read(s)
	if err != nil {
		return err
	}
	partial := s.Kind == scopeRows && s.Columns != nil
	if !partial {
		before := map[string]bool{}
		err := eachSaved(ctx, t, saved, func(_ int, row tableRow) error {
			k, err := r.rowKey(row)
			before[k] = true
			return err
		})
		if err != nil {
			return err
		}
		// Children first: a row another row must not outlive (ON DELETE
		// RESTRICT) goes after it.
		for i := len(current) - 1; i >= 0; i-- {
			k, err := r.rowKey(current[i])
			if err != nil {
				return err
			}
			if !before[k] {
				if err := r.deleteRow(t, current[i]); err != nil {
					return err
				}
			}
		}
	}
	err = eachSaved(ctx, t, saved, func(ord int, row tableRow) error {
		if err := r.loadBlobs(saved, ord, row); err != nil {
			return err
		}
		return r.writeRow(t, row, partial)
	})
	if err != nil {
		return err
	}
	for _, ref := range s.Refs {
		pk, err := decodeValues(ref.PKVals)
		if err != nil {
			return err
		}
		v, err := decodeValue(ref.Value)
		if err != nil {
			return err
		}
		// Only where the reference is still cleared: one made since stays.
		if _, err := t.ExecContext(ctx, `UPDATE `+quoteIdent(ref.Table)+` SET `+quoteIdent(ref.Column)+` = ? WHERE `+
			equalsAll(ref.PK)+` AND `+quoteIdent(ref.Column)+` IS NULL`, append([]any{v}, pk...)...); err != nil {
			return fmt.Errorf("restore the link of %s.%s: %w", ref.Table, ref.Column, err)
		}
	}
	return nil
}

// loadBlobs reads the kept bytes of a row's blobs in place of their refs.
func (r *stateReader) loadBlobs(saved savedState, ord int, row tableRow) error {
	for i, c := range row.Cols {
		if _, ok := row.Vals[i].(blobRef); !ok {
			continue
		}
		var b []byte
		if err := r.q.QueryRowContext(r.ctx, `SELECT bytes FROM journal_blobs WHERE entry_id = ? AND scope_ord = ? AND ord = ? AND col = ?`,
			saved.entry, saved.ord, ord, c).Scan(&b); err != nil {
			return fmt.Errorf("history entry %d: the kept %s of %s: %w", saved.entry, c, row.Table, err)
		}
		row.Vals[i] = b
	}
	return nil
}

func (r *stateReader) deleteRow(t *writeTx, row tableRow) error {
	cond, pk, err := r.pkCond(row)
	if err != nil {
		return err
	}
	if _, err := t.ExecContext(r.ctx, `DELETE FROM `+quoteIdent(row.Table)+` WHERE `+cond, pk...); err != nil {
		return fmt.Errorf("delete from %s: %w", row.Table, err)
	}
	return nil
}

// writeRow writes a saved row back: nothing when the row is there with the
// same values, an update of its columns when it is there with others, an
// insert when it is gone (a partial row is only ever updated).
func (r *stateReader) writeRow(t *writeTx, row tableRow, partial bool) error {
	cond, pk, err := r.pkCond(row)
	if err != nil {
		return err
	}
	ti, err := r.meta(row.Table)
	if err != nil {
		return err
	}
	cur := make([]any, len(row.Cols))
	ptrs := make([]any, len(row.Cols))
	for i := range cur {
		ptrs[i] = &cur[i]
	}
	err = t.QueryRowContext(r.ctx, `SELECT `+strings.Join(quoteAll(row.Cols), ", ")+` FROM `+quoteIdent(row.Table)+
		` WHERE `+cond, pk...).Scan(ptrs...)
	exists := err == nil
	if err != nil && !isNoRows(err) {
		return fmt.Errorf("read %s: %w", row.Table, err)
	}
	if exists && sameValues(cur, row.Vals) {
		return nil
	}
	var sets []string
	var setVals []any
	for i, c := range row.Cols {
		if !slices.Contains(ti.pk, c) {
			sets = append(sets, quoteIdent(c)+` = ?`)
			setVals = append(setVals, row.Vals[i])
		}
	}
	switch {
	case exists && len(sets) > 0:
		_, err = t.ExecContext(r.ctx, `UPDATE `+quoteIdent(row.Table)+` SET `+strings.Join(sets, ", ")+` WHERE `+cond,
			append(setVals, pk...)...)
	case exists:
		return nil
	case partial:
		return nil // the row is gone; the entry that removed it is journaled after this one
	default:
		_, err = t.ExecContext(r.ctx, `INSERT INTO `+quoteIdent(row.Table)+` (`+strings.Join(quoteAll(row.Cols), ", ")+
			`) VALUES (`+placeholders(len(row.Cols))+`)`, row.Vals...)
	}
	if err != nil {
		return fmt.Errorf("write back %s: %w", row.Table, err)
	}
	return nil
}

func sameValues(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if x, ok := a[i].([]byte); ok {
			if y, ok := b[i].([]byte); !ok || !bytes.Equal(x, y) {
				return false
			}
			continue
		}
		ea, _ := json.Marshal(encodeValue(a[i]))
		eb, _ := json.Marshal(encodeValue(b[i]))
		if !bytes.Equal(ea, eb) {
			return false
		}
	}
	return true
}
