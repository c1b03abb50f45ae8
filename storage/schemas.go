package storage

import (
	"context"
	"encoding/json"
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

// schemaArtifact is the schemas' share of the versioned artifact code.
var schemaArtifact = &versioned[SchemaRevision]{
	noun: "schema", table: "schemas", revTable: "schema_revisions", alias: "r", parent: "schema_id", prefix: prefixSchema,
	columns: `r.schema_id, r.id, r.version, r.name, r.response_format, r.created_at`,
	from:    ` FROM schema_revisions r`,
	scan:    scanSchemaRevision,
	key:     schemaKey, versionScope: schemaVersionScope,
}

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
	name, err := schemaArtifact.checkName(name)
	if err != nil {
		return SchemaRevision{}, err
	}
	rf, err := normalizeResponseFormat(responseFormat)
	if err != nil {
		return SchemaRevision{}, err
	}
	return schemaArtifact.create(ctx, db, name, nil, func(tx *writeTx, id string, version int) (SchemaRevision, error) {
		return addSchemaRevision(ctx, tx, id, version, name, rf)
	})
}

func addSchemaRevision(ctx context.Context, tx *writeTx, schemaID string, version int, name, rf string) (SchemaRevision, error) {
	revID := newID(prefixSchemaRevision)
	_, err := tx.ExecContext(ctx, `INSERT INTO schema_revisions (id, schema_id, version, name, response_format, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, revID, schemaID, version, name, rf, tx.nowText())
	if err != nil {
		return SchemaRevision{}, err
	}
	return schemaArtifact.revision(ctx, tx, revID)
}

// UpdateSchema makes a new version of a schema from the latest one, with
// the name and response format given (a nil name or response format keeps
// the latest's). When nothing differs from the latest revision it writes
// nothing and returns that revision with noChanges true. Renaming to the
// name of another schema is a conflict.
func (db *DB) UpdateSchema(ctx context.Context, schemaID string, name *string, responseFormat json.RawMessage) (rev SchemaRevision, noChanges bool, err error) {
	var newName, rf string
	if name != nil {
		if newName, err = schemaArtifact.checkName(*name); err != nil {
			return SchemaRevision{}, false, err
		}
	}
	if responseFormat != nil {
		if rf, err = normalizeResponseFormat(responseFormat); err != nil {
			return SchemaRevision{}, false, err
		}
	}
	next := func(_ *writeTx, latest SchemaRevision, _ *change) (string, bool, error) {
		if name == nil {
			newName = latest.Name
		}
		if responseFormat == nil {
			rf = string(latest.ResponseFormat)
		}
		return newName, newName == latest.Name && rf == string(latest.ResponseFormat), nil
	}
	return schemaArtifact.update(ctx, db, schemaID, next, func(tx *writeTx, id string, version int) (SchemaRevision, error) {
		return addSchemaRevision(ctx, tx, id, version, newName, rf)
	})
}

// GetSchema returns the latest revision of a schema.
func (db *DB) GetSchema(ctx context.Context, schemaID string) (SchemaRevision, error) {
	return schemaArtifact.get(ctx, db, schemaID)
}

// GetSchemaRevision returns one revision by its id.
func (db *DB) GetSchemaRevision(ctx context.Context, schemaRevID string) (SchemaRevision, error) {
	return schemaArtifact.getRevision(ctx, db, schemaRevID)
}

// SchemaRevisionByVersion returns a schema's revision with this version.
func (db *DB) SchemaRevisionByVersion(ctx context.Context, schemaID string, version int) (SchemaRevision, error) {
	r, err := schemaArtifact.byVersion(ctx, db.sql, schemaID, version)
	return r, translate("get schema version", err)
}

// FindSchema returns the latest revision of the schema with this id, the
// revision with this revision id, or the latest revision of the schema with
// this name (in any case, as names are unique regardless of case).
func (db *DB) FindSchema(ctx context.Context, idOrName string) (SchemaRevision, error) {
	return schemaArtifact.findIn(ctx, db, idOrName)
}

// ListSchemas returns the latest revision of each schema that matches f, by
// name, and how many match in all.
func (db *DB) ListSchemas(ctx context.Context, f ListFilter) ([]SchemaRevision, int, error) {
	return schemaArtifact.list(ctx, db, f, "")
}

// ListSchemaRevisions returns every revision of a schema, newest first.
func (db *DB) ListSchemaRevisions(ctx context.Context, schemaID string) ([]SchemaRevision, error) {
	return schemaArtifact.revisions(ctx, db, schemaID)
}

// DeleteSchema deletes a schema with all its revisions. It is refused while
// the latest revision of a prompt links one of them; older prompt revisions
// do not count, and lose their link.
func (db *DB) DeleteSchema(ctx context.Context, schemaID string) error {
	return schemaArtifact.remove(ctx, db, schemaID, func(tx *writeTx, latest SchemaRevision) error {
		var total int
		users := ` FROM prompt_revisions p JOIN schema_revisions r ON r.id = p.schema_revid
			WHERE r.schema_id = ? AND ` + promptArtifact.latestCond()
		if err := tx.QueryRowContext(ctx, `SELECT count(*)`+users, schemaID).Scan(&total); err != nil {
			return err
		}
		if total == 0 {
			return nil
		}
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
	})
}
