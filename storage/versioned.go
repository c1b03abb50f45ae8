package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// versioned describes one kind of versioned artifact, schemas or prompts: a
// table of items, each with its current name (unique in any case), and a
// table of immutable revisions numbered from 1 within their item. What the
// two kinds share (reads, names, lists, and the bookkeeping of create,
// update and delete) is written once here; each kind's file adds its own
// fields and rules.
type versioned[R revision] struct {
	noun     string // "schema": messages, journal ops and object kinds
	table    string // "schemas": the items, with id and name
	revTable string // "schema_revisions"
	alias    string // revTable's alias in columns and from
	parent   string // the revision column naming its item: "schema_id"
	prefix   string // of new item ids
	// columns are what scan reads, selected from from (revTable as alias,
	// with any joins columns need).
	columns, from string
	scan          func(scanner) (R, error)
	// key is an item's journal key; versionScope the scope undo restores
	// an item's latest version from.
	key          func(id string) string
	versionScope func(id string) scope
}

// revision is what the shared code reads of a kind's revision.
type revision interface{ head() revisionHead }

type revisionHead struct {
	ID, RevID string
	Version   int
	Name      string
}

func (r SchemaRevision) head() revisionHead {
	return revisionHead{ID: r.SchemaID, RevID: r.SchemaRevID, Version: r.Version, Name: r.Name}
}

func (r PromptRevision) head() revisionHead {
	return revisionHead{ID: r.PromptID, RevID: r.PromptRevID, Version: r.Version, Name: r.Name}
}

// col is a column of the revisions table as the queries name it.
func (v *versioned[R]) col(name string) string { return v.alias + "." + name }

// latestCond is the condition that a revision is the latest of its item.
func (v *versioned[R]) latestCond() string {
	return fmt.Sprintf(`%s = (SELECT max(version) FROM %s WHERE %s = %s)`,
		v.col("version"), v.revTable, v.parent, v.col(v.parent))
}

// one reads the revision the condition after from picks, or the error
// notFound makes when there is none.
func (v *versioned[R]) one(ctx context.Context, q queryer, notFound func() error, rest string, args ...any) (R, error) {
	r, err := v.scan(q.QueryRowContext(ctx, `SELECT `+v.columns+v.from+` `+rest, args...))
	if errors.Is(err, sql.ErrNoRows) {
		var zero R
		return zero, notFound()
	}
	return r, err
}

// latest returns the latest revision of item id.
func (v *versioned[R]) latest(ctx context.Context, q queryer, id string) (R, error) {
	return v.one(ctx, q, func() error { return Errorf(ErrNotFound, "%s %s not found", v.noun, id) },
		`WHERE `+v.col(v.parent)+` = ? ORDER BY `+v.col("version")+` DESC LIMIT 1`, id)
}

// revision returns one revision by its id.
func (v *versioned[R]) revision(ctx context.Context, q queryer, revID string) (R, error) {
	return v.one(ctx, q, func() error { return Errorf(ErrNotFound, "%s revision %s not found", v.noun, revID) },
		`WHERE `+v.col("id")+` = ?`, revID)
}

// byVersion returns item id's revision with this version; an unknown item
// is not found as such.
func (v *versioned[R]) byVersion(ctx context.Context, q queryer, id string, version int) (R, error) {
	return v.one(ctx, q, func() error {
		if _, err := v.latest(ctx, q, id); err != nil {
			return err
		}
		return Errorf(ErrNotFound, "%s %s has no version %d", v.noun, id, version)
	}, `WHERE `+v.col(v.parent)+` = ? AND `+v.col("version")+` = ?`, id, version)
}

// byName returns the latest revision of the item with this name (in any
// case, the column's collation).
func (v *versioned[R]) byName(ctx context.Context, q queryer, name string) (R, error) {
	return v.one(ctx, q, func() error { return Errorf(ErrNotFound, "%s %q not found", v.noun, name) },
		`JOIN `+v.table+` item ON item.id = `+v.col(v.parent)+` WHERE item.name = ? ORDER BY `+v.col("version")+` DESC LIMIT 1`, name)
}

// find returns the latest revision of the item with this id, the revision
// with this revision id, or the latest revision of the item with this name.
func (v *versioned[R]) find(ctx context.Context, q queryer, idOrName string) (R, error) {
	if r, err := v.latest(ctx, q, idOrName); !errors.Is(err, ErrNotFound) {
		return r, err
	}
	if r, err := v.revision(ctx, q, idOrName); !errors.Is(err, ErrNotFound) {
		return r, err
	}
	return v.byName(ctx, q, idOrName)
}

// get is latest outside a transaction.
func (v *versioned[R]) get(ctx context.Context, db *DB, id string) (R, error) {
	r, err := v.latest(ctx, db.sql, id)
	return r, translate("get "+v.noun, err)
}

// getRevision is revision outside a transaction.
func (v *versioned[R]) getRevision(ctx context.Context, db *DB, revID string) (R, error) {
	r, err := v.revision(ctx, db.sql, revID)
	return r, translate("get "+v.noun+" revision", err)
}

// findIn is find in a read transaction of its own.
func (v *versioned[R]) findIn(ctx context.Context, db *DB, idOrName string) (R, error) {
	var r R
	err := db.view(ctx, "find "+v.noun, func(tx *sql.Tx) error {
		var err error
		r, err = v.find(ctx, tx, idOrName)
		return err
	})
	return r, err
}

// checkName returns the name trimmed, or why it cannot be one.
func (v *versioned[R]) checkName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", Errorf(ErrInvalid, "%s name is empty", v.noun).On("name")
	}
	return name, checkLength(v.noun+" name", "name", name, MaxNameLength)
}

// list returns the latest revision of each item that matches f and the
// conditions more adds (with their args), by name, and how many match in
// all.
func (v *versioned[R]) list(ctx context.Context, db *DB, f ListFilter, more string, moreArgs ...any) ([]R, int, error) {
	limit, skip := pageOf(f)
	where := ` WHERE ` + v.latestCond()
	var args []any
	if s := strings.TrimSpace(f.NameSearch); s != "" {
		if err := checkListSearch(s); err != nil {
			return nil, 0, err
		}
		where += ` AND ` + v.col("name") + ` LIKE ? ESCAPE '\'`
		args = append(args, "%"+escapeLike(s)+"%")
	}
	where += more
	args = append(args, moreArgs...)
	var revs []R
	var total int
	err := db.view(ctx, "list "+v.table, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM `+v.revTable+` `+v.alias+where, args...).Scan(&total); err != nil {
			return err
		}
		var err error
		revs, err = queryRows(ctx, tx, v.scan, `SELECT `+v.columns+v.from+where+
			` ORDER BY `+v.col("name")+` COLLATE NOCASE, `+v.col(v.parent)+` LIMIT ? OFFSET ?`, append(args, limit, skip)...)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return revs, total, nil
}

// pageOf returns the limit and offset a filter asks for.
func pageOf(f ListFilter) (limit, skip int) {
	limit = f.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	return limit, max(f.Skip, 0)
}

// revisions returns every revision of item id, newest first.
func (v *versioned[R]) revisions(ctx context.Context, db *DB, id string) ([]R, error) {
	var revs []R
	err := db.view(ctx, "list "+v.noun+" revisions", func(tx *sql.Tx) error {
		var err error
		revs, err = queryRows(ctx, tx, v.scan, `SELECT `+v.columns+v.from+`
			WHERE `+v.col(v.parent)+` = ? ORDER BY `+v.col("version")+` DESC`, id)
		if err != nil {
			return err
		}
		if len(revs) == 0 {
			return Errorf(ErrNotFound, "%s %s not found", v.noun, id)
		}
		return nil
	})
	return revs, err
}

// addRevision writes an item's revision with this version, in the
// transaction that journals it.
type addRevision[R any] func(tx *writeTx, id string, version int) (R, error)

// create stores a new item called name (checked by checkName) with its
// first revision. A name in use (in any case) is a conflict that says to
// update. prepare, when given, runs first in the transaction: it checks
// what the revision links and adds to the change what the write touches
// besides the item.
func (v *versioned[R]) create(ctx context.Context, db *DB, name string, prepare func(*writeTx, *change) error, add addRevision[R]) (R, error) {
	var rev R
	err := db.update(ctx, "create "+v.noun, func(tx *writeTx) error {
		if existing, err := v.byName(ctx, tx, name); err == nil {
			h := existing.head()
			return Errorf(ErrConflict, "%s %q exists (%s %s): use update_%s to make a new version",
				v.noun, h.Name, v.parent, h.ID, v.noun).On("name")
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		id, now := newID(v.prefix), tx.nowText()
		c := change{op: "create " + v.noun, kind: v.noun, id: id, summary: fmt.Sprintf("created %s %q", v.noun, name),
			writes: []string{v.key(id)}, scopes: []scope{treeScope(v.table, id)}}
		if prepare != nil {
			if err := prepare(tx, &c); err != nil {
				return err
			}
		}
		if _, err := tx.journal(ctx, c); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+v.table+` (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)`,
			id, name, now, now); err != nil {
			return err
		}
		var err error
		rev, err = add(tx, id, 1)
		return err
	})
	return rev, err
}

// update makes a new version of item id from its latest revision. next
// works out the new revision from the latest: its name, or unchanged when
// it would store what the latest holds; it may add to the change what the
// write touches besides. Unchanged writes nothing and returns the latest
// with noChanges true. Renaming to the name of another item is a conflict.
func (v *versioned[R]) update(ctx context.Context, db *DB, id string, next func(tx *writeTx, latest R, c *change) (name string, unchanged bool, err error), add addRevision[R]) (rev R, noChanges bool, err error) {
	err = db.update(ctx, "update "+v.noun, func(tx *writeTx) error {
		latest, err := v.latest(ctx, tx, id)
		if err != nil {
			return err
		}
		h := latest.head()
		c := change{op: "update " + v.noun, kind: v.noun, id: id,
			summary: fmt.Sprintf("updated %s %q to version %d", v.noun, h.Name, h.Version+1),
			writes:  []string{v.key(id)}, scopes: []scope{v.versionScope(id)}}
		name, unchanged, err := next(tx, latest, &c)
		if err != nil || unchanged {
			rev, noChanges = latest, unchanged
			return err
		}
		if name != h.Name {
			c.summary = fmt.Sprintf("renamed %s %q to %q (version %d)", v.noun, h.Name, name, h.Version+1)
		}
		if other, err := v.nameHolder(ctx, tx, id, name); err != nil {
			return err
		} else if other != nil {
			return Errorf(ErrConflict, "%s %q exists (%s %s): choose another name", v.noun, other.Name, v.parent, other.ID).On("name")
		}
		if _, err := tx.journal(ctx, c); err != nil {
			return err
		}
		if err := v.setName(ctx, tx, id, name); err != nil {
			return err
		}
		rev, err = add(tx, id, h.Version+1)
		return err
	})
	if err != nil {
		var zero R
		return zero, false, err
	}
	return rev, noChanges, nil
}

// restore makes an item's saved version (named name) its latest again, as
// a new version, for undo: versions are history, none is rewritten. same
// says the latest already holds it.
func (v *versioned[R]) restore(ctx context.Context, tx *writeTx, id, name string, same func(latest R) bool, add addRevision[R]) error {
	latest, err := v.latest(ctx, tx, id)
	if err != nil {
		return err
	}
	if same(latest) {
		return nil
	}
	h := latest.head()
	if other, err := v.nameHolder(ctx, tx, id, name); err != nil {
		return err
	} else if other != nil {
		return Errorf(ErrConflict, "%s %q cannot get its name %q back: another %s has it now", v.noun, h.Name, name, v.noun)
	}
	if err := v.setName(ctx, tx, id, name); err != nil {
		return err
	}
	_, err = add(tx, id, h.Version+1)
	return err
}

// nameHolder returns the item other than id that has this name, or nil.
func (v *versioned[R]) nameHolder(ctx context.Context, q queryer, id, name string) (*revisionHead, error) {
	other, err := v.byName(ctx, q, name)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if h := other.head(); h.ID != id {
		return &h, nil
	}
	return nil, nil
}

// setName gives item id its new version's name and marks it updated now.
func (v *versioned[R]) setName(ctx context.Context, tx *writeTx, id, name string) error {
	_, err := tx.ExecContext(ctx, `UPDATE `+v.table+` SET name = ?, updated_at = ? WHERE id = ?`, name, tx.nowText(), id)
	return err
}

// remove deletes item id with all its revisions (the schema's foreign keys
// cascade), once check, when given, has not refused.
func (v *versioned[R]) remove(ctx context.Context, db *DB, id string, check func(tx *writeTx, latest R) error) error {
	return db.update(ctx, "delete "+v.noun, func(tx *writeTx) error {
		latest, err := v.latest(ctx, tx, id)
		if err != nil {
			return err
		}
		if check != nil {
			if err := check(tx, latest); err != nil {
				return err
			}
		}
		h := latest.head()
		if _, err := tx.journal(ctx, change{op: "delete " + v.noun, kind: v.noun, id: id,
			summary: fmt.Sprintf("deleted %s %q (%s)", v.noun, h.Name, plural(h.Version, "version")),
			writes:  []string{v.key(id)}, scopes: []scope{treeScope(v.table, id)}}); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM `+v.table+` WHERE id = ?`, id)
		return err
	})
}
