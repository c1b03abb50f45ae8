package storage

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// migrationFiles are the schema changes, applied in order of their number
// prefix (0001_init.sql, 0002_….sql). A released migration is never edited:
// a change to the schema is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
	// after, when set, runs in the migration's transaction after its SQL:
	// a change that plain SQL cannot make (see migrationSteps).
	after func(context.Context, *writeTx) error
}

// migrationSteps are the Go parts of migrations, by file name.
var migrationSteps = map[string]func(context.Context, *writeTx) error{
	"0017_library_threads.sql": allowLibraryThreads,
}

// loadMigrations reads the embedded migrations and checks that they are
// numbered 1, 2, 3… without gaps, so a missing file cannot be skipped.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, name := range names {
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		version, err := strconv.Atoi(num)
		if !ok || err != nil || version < 1 {
			return nil, fmt.Errorf("migration %s: name must start with a positive number and '_'", base)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: version, name: base, sql: string(body), after: migrationSteps[base]})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: expected number %d", m.name, i+1)
		}
	}
	return ms, nil
}

// migrate brings the schema up to date. The pending migrations run in one
// transaction together with the rows that record them, so a failed
// migration leaves the database at the version it had: a new store is made
// whole or not at all, and pays for one commit rather than one for each of
// its migrations. The write lock taken at BEGIN (see dsn) makes two
// processes opening a new database at once safe: the second waits, then
// sees the versions already recorded and skips them.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	return db.applyMigrations(ctx, ms)
}

func (db *DB) applyMigrations(ctx context.Context, ms []migration) error {
	const createTable = `CREATE TABLE IF NOT EXISTS migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL
	) STRICT`
	if _, err := db.sql.ExecContext(ctx, createTable); err != nil {
		return fmt.Errorf("create migrations table: %w", err)
	}
	current, err := schemaVersion(ctx, db.sql)
	if err != nil {
		return err
	}
	if current > len(ms) {
		return newerSchema(current, len(ms))
	}
	if current == len(ms) {
		return nil
	}
	defer db.tables.clear() // the migrations may have changed them
	return db.update(ctx, "apply migrations", func(tx *writeTx) error {
		v, err := schemaVersion(ctx, tx)
		if err != nil {
			return err
		}
		if v > len(ms) { // a newer docent migrated it meanwhile
			return newerSchema(v, len(ms))
		}
		for _, m := range ms[v:] { // from v: another process may have applied some meanwhile
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			if m.after != nil {
				if err := m.after(ctx, tx); err != nil {
					return fmt.Errorf("migration %s: %w", m.name, err)
				}
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				m.version, m.name, tx.nowText()); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
		}
		return nil
	})
}

// newerSchema refuses a store that a newer docent migrated: an old binary
// would not know the new columns' rules and could write rows the newer one
// rejects.
func newerSchema(version, known int) error {
	return Errorf(ErrConflict, "database schema version %d is newer than this docent (knows %d): upgrade docent", version, known)
}

// schemaVersion is the number of the last migration applied, 0 for a new
// database.
func schemaVersion(ctx context.Context, q queryer) (int, error) {
	var v sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT max(version) FROM migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return int(v.Int64), nil
}
