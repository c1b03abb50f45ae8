package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// SchemaRevision is one immutable version of a schema: what get_schema and
// the schema routes return. SchemaID names the schema, SchemaRevID this
// version of it.
type SchemaRevision struct {
	SchemaID    string `json:"schema_id"`
	SchemaRevID string `json:"schema_revid"`
	// Version counts from 1 within the schema.
	Version int `json:"version"`
	// Name is the schema's name as of this revision.
	Name string `json:"name"`
	// ResponseFormat is the OpenAI structured-output object
	// {type: "json_schema", json_schema: {name, schema, strict}}, compact.
	// The store checks only that it is a JSON object.
	ResponseFormat json.RawMessage `json:"response_format" ts:"ResponseFormat"`
	CreatedAt      time.Time       `json:"created_at"`
}

// ListFilter selects and pages schemas (and is the base of PromptFilter).
type ListFilter struct {
	// Skip is how many items to leave out; Limit is the page size,
	// DefaultListLimit when 0.
	Skip, Limit int
	// NameSearch keeps names that contain it, ignoring case.
	NameSearch string
}

// schemaRevisionColumns are read by scanSchemaRevision from
// schema_revisions r.
const schemaRevisionColumns = `r.schema_id, r.id, r.version, r.name, r.response_format, r.created_at`

// latestSchemaRevision is the condition that r is the latest revision of
// its schema.
const latestSchemaRevision = `r.version = (SELECT max(version) FROM schema_revisions WHERE schema_id = r.schema_id)`

func scanSchemaRevision(s scanner) (SchemaRevision, error) {
	var r SchemaRevision
	var rf, created string
	if err := s.Scan(&r.SchemaID, &r.SchemaRevID, &r.Version, &r.Name, &rf, &created); err != nil {
		return SchemaRevision{}, err
	}
	r.ResponseFormat = json.RawMessage(rf)
	var err error
	r.CreatedAt, err = parseTime(created)
	return r, err
}

// latestSchema returns the latest revision of a schema by schema id.
func latestSchema(ctx context.Context, q queryer, schemaID string) (SchemaRevision, error) {
	r, err := scanSchemaRevision(q.QueryRowContext(ctx, `SELECT `+schemaRevisionColumns+`
		FROM schema_revisions r WHERE r.schema_id = ? ORDER BY r.version DESC LIMIT 1`, schemaID))
	if errors.Is(err, sql.ErrNoRows) {
		return SchemaRevision{}, Errorf(ErrNotFound, "schema %s not found", schemaID)
	}
	return r, err
}

func getSchemaRevision(ctx context.Context, q queryer, revID string) (SchemaRevision, error) {
	r, err := scanSchemaRevision(q.QueryRowContext(ctx, `SELECT `+schemaRevisionColumns+`
		FROM schema_revisions r WHERE r.id = ?`, revID))
	if errors.Is(err, sql.ErrNoRows) {
		return SchemaRevision{}, Errorf(ErrNotFound, "schema revision %s not found", revID)
	}
	return r, err
}

func schemaRevisionByVersion(ctx context.Context, q queryer, schemaID string, version int) (SchemaRevision, error) {
	r, err := scanSchemaRevision(q.QueryRowContext(ctx, `SELECT `+schemaRevisionColumns+`
		FROM schema_revisions r WHERE r.schema_id = ? AND r.version = ?`, schemaID, version))
	if errors.Is(err, sql.ErrNoRows) {
		if _, err := latestSchema(ctx, q, schemaID); err != nil {
			return SchemaRevision{}, err
		}
		return SchemaRevision{}, Errorf(ErrNotFound, "schema %s has no version %d", schemaID, version)
	}
	return r, err
}

// schemaByName returns the latest revision of the schema with this name
// (in any case, the column's collation).
func schemaByName(ctx context.Context, q queryer, name string) (SchemaRevision, error) {
	r, err := scanSchemaRevision(q.QueryRowContext(ctx, `SELECT `+schemaRevisionColumns+`
		FROM schemas s JOIN schema_revisions r ON r.schema_id = s.id
		WHERE s.name = ? ORDER BY r.version DESC LIMIT 1`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return SchemaRevision{}, Errorf(ErrNotFound, "schema %q not found", name)
	}
	return r, err
}

func checkSchemaName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", Errorf(ErrInvalid, "schema name is empty").On("name")
	}
	return name, checkLength("schema name", "name", name, MaxNameLength)
}

// normalizeResponseFormat checks that raw is a JSON object and returns it
// compact, which is how it is stored and compared.
func normalizeResponseFormat(raw json.RawMessage) (string, error) {
	c, ok := compactJSON(raw)
	if !ok || c[0] != '{' {
		return "", Errorf(ErrInvalid, "response_format must be a JSON object").On("response_format")
	}
	return string(c), nil
}

// CreateSchema stores a new schema at version 1. A schema with the same
// name (in any case) is a conflict that says to use update_schema.
func (db *DB) CreateSchema(ctx context.Context, name string, responseFormat json.RawMessage) (SchemaRevision, error) {
	name, err := checkSchemaName(name)
	if err != nil {
		return SchemaRevision{}, err
	}
	rf, err := normalizeResponseFormat(responseFormat)
	if err != nil {
		return SchemaRevision{}, err
	}
	var rev SchemaRevision
	err = db.update(ctx, "create schema", func(tx *writeTx) error {
		if existing, err := schemaByName(ctx, tx, name); err == nil {
			return Errorf(ErrConflict, "schema %q exists (schema_id %s): use update_schema to make a new version",
				existing.Name, existing.SchemaID).On("name")
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		id, now := newID(prefixSchema), tx.nowText()
		if _, err := tx.journal(ctx, change{op: "create schema", kind: "schema", id: id, summary: fmt.Sprintf("created schema %q", name),
			writes: []string{schemaKey(id)}, scopes: []scope{treeScope("schemas", id)}}); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schemas (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)`,
			id, name, now, now); err != nil {
			return err
		}
		rev, err = addSchemaRevision(ctx, tx, id, 1, name, rf)
		return err
	})
	return rev, err
}

func addSchemaRevision(ctx context.Context, tx *writeTx, schemaID string, version int, name, rf string) (SchemaRevision, error) {
	revID := newID(prefixSchemaRevision)
	_, err := tx.ExecContext(ctx, `INSERT INTO schema_revisions (id, schema_id, version, name, response_format, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, revID, schemaID, version, name, rf, tx.nowText())
	if err != nil {
		return SchemaRevision{}, err
	}
	return getSchemaRevision(ctx, tx, revID)
}

// UpdateSchema makes a new version of a schema from the latest one, with
// the name and response format given (a nil name or response format keeps
// the latest's). When nothing differs from the latest revision it writes
// nothing and returns that revision with noChanges true. Renaming to the
// name of another schema is a conflict.
func (db *DB) UpdateSchema(ctx context.Context, schemaID string, name *string, responseFormat json.RawMessage) (rev SchemaRevision, noChanges bool, err error) {
	var newName, rf string
	if name != nil {
		if newName, err = checkSchemaName(*name); err != nil {
			return SchemaRevision{}, false, err
		}
	}
	if responseFormat != nil {
		if rf, err = normalizeResponseFormat(responseFormat); err != nil {
			return SchemaRevision{}, false, err
		}
	}
	err = db.update(ctx, "update schema", func(tx *writeTx) error {
		latest, err := latestSchema(ctx, tx, schemaID)
		if err != nil {
			return err
		}
		if name == nil {
			newName = latest.Name
		}
		if responseFormat == nil {
			rf = string(latest.ResponseFormat)
		}
		if newName == latest.Name && rf == string(latest.ResponseFormat) {
			rev, noChanges = latest, true
			return nil
		}
		if other, err := schemaByName(ctx, tx, newName); err == nil && other.SchemaID != schemaID {
			return Errorf(ErrConflict, "schema %q exists (schema_id %s): choose another name", other.Name, other.SchemaID).On("name")
		} else if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		summary := fmt.Sprintf("updated schema %q to version %d", latest.Name, latest.Version+1)
		if newName != latest.Name {
			summary = fmt.Sprintf("renamed schema %q to %q (version %d)", latest.Name, newName, latest.Version+1)
		}
		if _, err := tx.journal(ctx, change{op: "update schema", kind: "schema", id: schemaID, summary: summary,
			writes: []string{schemaKey(schemaID)}, scopes: []scope{schemaVersionScope(schemaID)}}); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE schemas SET name = ?, updated_at = ? WHERE id = ?`,
			newName, tx.nowText(), schemaID); err != nil {
			return err
		}
		rev, err = addSchemaRevision(ctx, tx, schemaID, latest.Version+1, newName, rf)
		return err
	})
	if err != nil {
		return SchemaRevision{}, false, err
	}
	return rev, noChanges, nil
}

// GetSchema returns the latest revision of a schema.
func (db *DB) GetSchema(ctx context.Context, schemaID string) (SchemaRevision, error) {
	r, err := latestSchema(ctx, db.sql, schemaID)
	return r, translate("get schema", err)
}

// GetSchemaRevision returns one revision by its id.
func (db *DB) GetSchemaRevision(ctx context.Context, schemaRevID string) (SchemaRevision, error) {
	r, err := getSchemaRevision(ctx, db.sql, schemaRevID)
	return r, translate("get schema revision", err)
}

// SchemaRevisionByVersion returns a schema's revision with this version.
func (db *DB) SchemaRevisionByVersion(ctx context.Context, schemaID string, version int) (SchemaRevision, error) {
	r, err := schemaRevisionByVersion(ctx, db.sql, schemaID, version)
	return r, translate("get schema version", err)
}

// FindSchema returns the latest revision of the schema with this id, the
// revision with this revision id, or the latest revision of the schema with
// this name (in any case, as names are unique regardless of case).
func (db *DB) FindSchema(ctx context.Context, idOrName string) (SchemaRevision, error) {
	var r SchemaRevision
	err := db.view(ctx, "find schema", func(tx *sql.Tx) error {
		var err error
		r, err = findSchema(ctx, tx, idOrName)
		return err
	})
	return r, err
}

// findSchema is FindSchema inside a transaction.
func findSchema(ctx context.Context, q queryer, idOrName string) (SchemaRevision, error) {
	if r, err := latestSchema(ctx, q, idOrName); !errors.Is(err, ErrNotFound) {
		return r, err
	}
	if r, err := getSchemaRevision(ctx, q, idOrName); !errors.Is(err, ErrNotFound) {
		return r, err
	}
	return schemaByName(ctx, q, idOrName)
}

// ListSchemas returns the latest revision of each schema that matches f, by
// name, and how many match in all.
func (db *DB) ListSchemas(ctx context.Context, f ListFilter) ([]SchemaRevision, int, error) {
	limit, skip := pageOf(f)
	where := ` WHERE ` + latestSchemaRevision
	var args []any
	if s := strings.TrimSpace(f.NameSearch); s != "" {
		if err := checkListSearch(s); err != nil {
			return nil, 0, err
		}
		where += ` AND r.name LIKE ? ESCAPE '\'`
		args = append(args, "%"+escapeLike(s)+"%")
	}
	var revs []SchemaRevision
	var total int
	err := db.view(ctx, "list schemas", func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_revisions r`+where, args...).Scan(&total); err != nil {
			return err
		}
		var err error
		revs, err = queryRows(ctx, tx, scanSchemaRevision, `SELECT `+schemaRevisionColumns+` FROM schema_revisions r`+where+
			` ORDER BY r.name COLLATE NOCASE, r.schema_id LIMIT ? OFFSET ?`, append(args, limit, skip)...)
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

// ListSchemaRevisions returns every revision of a schema, newest first.
func (db *DB) ListSchemaRevisions(ctx context.Context, schemaID string) ([]SchemaRevision, error) {
	var revs []SchemaRevision
	err := db.view(ctx, "list schema revisions", func(tx *sql.Tx) error {
		var err error
		revs, err = queryRows(ctx, tx, scanSchemaRevision, `SELECT `+schemaRevisionColumns+` FROM schema_revisions r
			WHERE r.schema_id = ? ORDER BY r.version DESC`, schemaID)
		if err != nil {
			return err
		}
		if len(revs) == 0 {
			return Errorf(ErrNotFound, "schema %s not found", schemaID)
		}
		return nil
	})
	return revs, err
}

// DeleteSchema deletes a schema with all its revisions. It is refused while
// the latest revision of a prompt links one of them; older prompt revisions
// do not count, and lose their link.
func (db *DB) DeleteSchema(ctx context.Context, schemaID string) error {
	return db.update(ctx, "delete schema", func(tx *writeTx) error {
		latest, err := latestSchema(ctx, tx, schemaID)
		if err != nil {
			return err
		}
		var total int
		const users = ` FROM prompt_revisions p JOIN schema_revisions r ON r.id = p.schema_revid
			WHERE r.schema_id = ? AND ` + latestPromptRevision
		if err := tx.QueryRowContext(ctx, `SELECT count(*)`+users, schemaID).Scan(&total); err != nil {
			return err
		}
		if total > 0 {
			names, err := queryRows(ctx, tx, scanValue[string], `SELECT 'prompt ' || json_quote(p.name) || ' (' || p.prompt_id || ')'`+users+
				` ORDER BY p.name LIMIT ?`, schemaID, maxNamedUsers)
			if err != nil {
				return err
			}
			more := ""
			if total > len(names) {
				more = fmt.Sprintf(" and %d more", total-len(names))
			}
			return Errorf(ErrConflict, "schema %q is used by %s%s: link those prompts to another schema or delete them first",
				latest.Name, strings.Join(names, ", "), more)
		}
		if _, err := tx.journal(ctx, change{op: "delete schema", kind: "schema", id: schemaID,
			summary: fmt.Sprintf("deleted schema %q (%s)", latest.Name, plural(latest.Version, "version")),
			writes:  []string{schemaKey(schemaID)}, scopes: []scope{treeScope("schemas", schemaID)}}); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM schemas WHERE id = ?`, schemaID)
		return err
	})
}
