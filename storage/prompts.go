package storage

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"
)

// PromptRevision is one immutable version of a prompt: what get_prompt and
// the prompt routes return.
type PromptRevision struct {
	PromptID    string `json:"prompt_id"`
	PromptRevID string `json:"prompt_revid"`
	// Version counts from 1 within the prompt.
	Version int    `json:"version"`
	Name    string `json:"name"`
	Content string `json:"content"`
	// The schema revision the prompt extracts with, resolved when the
	// revision was written; empty when there is none (never linked, or that
	// schema was deleted since).
	SchemaID      string `json:"schema_id,omitempty"`
	SchemaRevID   string `json:"schema_revid,omitempty"`
	SchemaVersion int    `json:"schema_version,omitempty"`
	// Model is a provider-prefixed model id, or "" for the default.
	Model string `json:"model,omitempty"`
	// TagIDs are ordered by tag name; never nil.
	TagIDs    []string  `json:"tag_ids"`
	CreatedAt time.Time `json:"created_at"`
}

// NewPrompt is what CreatePrompt stores.
type NewPrompt struct {
	Name, Content string
	// SchemaID links a schema; SchemaVersion picks its version, 0 the
	// latest. The link is stored as that schema revision.
	SchemaID      string
	SchemaVersion int
	Model         string
	TagIDs        []string
	// ForKind makes the prompt its schema's kind prompt (KindPrompt): set
	// when a person creates it (the HTTP API, the CLI, a chat call a
	// person approved), never by an unattended run.
	ForKind bool
}

// PromptPatch is what UpdatePrompt changes; nil fields carry over from the
// latest revision.
type PromptPatch struct {
	Name, Content *string
	// SchemaID links another schema, or unlinks with "". SchemaVersion
	// picks its version (0 the latest); alone, it picks another version of
	// the schema linked now. With neither, the link stays on the same
	// schema revision.
	SchemaID      *string
	SchemaVersion *int
	Model         *string
	// TagIDs, when set, replaces the tags.
	TagIDs *[]string
	// ForKind (a person changes the prompt) makes the new revision's schema
	// choose this prompt for its kind when it has no prompt chosen yet.
	ForKind bool
}

// PromptFilter selects and pages prompts.
type PromptFilter struct {
	Skip, Limit int
	NameSearch  string
	// TagIDs: the latest revision must have all of them.
	TagIDs []string
}

// promptArtifact is the prompts' share of the versioned artifact code.
var promptArtifact = &versioned[PromptRevision]{
	noun: "prompt", table: "prompts", revTable: "prompt_revisions", alias: "p", parent: "prompt_id", prefix: prefixPrompt,
	columns: `p.prompt_id, p.id, p.version, p.name, p.content,
	coalesce(sr.schema_id, ''), coalesce(p.schema_revid, ''), coalesce(sr.version, 0), p.model, p.created_at,
	(SELECT group_concat(rt.tag_id, ',' ORDER BY t.name, t.id)
	   FROM prompt_revision_tags rt JOIN tags t ON t.id = rt.tag_id
	  WHERE rt.prompt_revid = p.id)`,
	from: ` FROM prompt_revisions p LEFT JOIN schema_revisions sr ON sr.id = p.schema_revid`,
	scan: scanPromptRevision,
	key:  promptKey, versionScope: promptVersionScope,
}

func scanPromptRevision(s scanner) (PromptRevision, error) {
	var r PromptRevision
	var created string
	var tags sql.NullString
	err := s.Scan(&r.PromptID, &r.PromptRevID, &r.Version, &r.Name, &r.Content,
		&r.SchemaID, &r.SchemaRevID, &r.SchemaVersion, &r.Model, &created, &tags)
	if err != nil {
		return PromptRevision{}, err
	}
	r.TagIDs = []string{}
	if tags.String != "" {
		r.TagIDs = strings.Split(tags.String, ",")
	}
	r.CreatedAt, err = parseTime(created)
	return r, err
}

func checkPromptContent(content string) error {
	if strings.TrimSpace(content) == "" {
		return Errorf(ErrInvalid, "prompt content is empty").On("content")
	}
	return nil
}

// resolveSchemaLink returns the id of the schema revision a prompt links:
// version of schemaID, or its latest when version is 0. An unknown schema or
// version is invalid (it is an argument of the prompt, not what was asked
// for).
func resolveSchemaLink(ctx context.Context, q queryer, schemaID string, version int) (string, error) {
	if version < 0 {
		return "", Errorf(ErrInvalid, "schema_version %d is not a version (versions count from 1)", version).On("schema_version")
	}
	var rev SchemaRevision
	var err error
	if version == 0 {
		rev, err = schemaArtifact.latest(ctx, q, schemaID)
	} else {
		rev, err = schemaArtifact.byVersion(ctx, q, schemaID, version)
	}
	if errors.Is(err, ErrNotFound) {
		if version == 0 {
			return "", Errorf(ErrInvalid, "unknown schema %s", schemaID).On("schema_id")
		}
		if _, e := schemaArtifact.latest(ctx, q, schemaID); e != nil {
			return "", Errorf(ErrInvalid, "unknown schema %s", schemaID).On("schema_id")
		}
		return "", Errorf(ErrInvalid, "schema %s has no version %d", schemaID, version).On("schema_version")
	}
	return rev.SchemaRevID, err
}

// promptFields are the values of one prompt revision as written.
type promptFields struct {
	name, content, schemaRevID, model string
	tagIDs                            []string
}

func addPromptRevision(ctx context.Context, tx *writeTx, promptID string, version int, f promptFields) (PromptRevision, error) {
	revID := newID(prefixPromptRevision)
	var link any
	if f.schemaRevID != "" {
		link = f.schemaRevID
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO prompt_revisions (id, prompt_id, version, name, content, schema_revid, model, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, revID, promptID, version, f.name, f.content, link, f.model, tx.nowText())
	if err != nil {
		return PromptRevision{}, err
	}
	for _, tagID := range f.tagIDs {
		if _, err := tx.ExecContext(ctx, `INSERT INTO prompt_revision_tags (prompt_revid, tag_id) VALUES (?, ?)`, revID, tagID); err != nil {
			return PromptRevision{}, err
		}
	}
	return promptArtifact.revision(ctx, tx, revID)
}

// writePrompt is the addRevision of a prompt revision with the fields f
// holds when it runs. forKind (a person writes it) then makes the prompt
// its schema's kind prompt: a new prompt always, a new version only while
// the kind has none.
func writePrompt(ctx context.Context, f *promptFields, forKind bool) addRevision[PromptRevision] {
	return func(tx *writeTx, promptID string, version int) (PromptRevision, error) {
		rev, err := addPromptRevision(ctx, tx, promptID, version, *f)
		if err == nil && forKind {
			err = chooseKindPrompt(ctx, tx, promptID, version > 1)
		}
		return rev, err
	}
}

// CreatePrompt stores a new prompt at version 1. A prompt with the same
// name (in any case) is a conflict that says to use update_prompt; an
// unknown schema, schema version or tag is invalid.
func (db *DB) CreatePrompt(ctx context.Context, np NewPrompt) (PromptRevision, error) {
	name, err := promptArtifact.checkName(np.Name)
	if err != nil {
		return PromptRevision{}, err
	}
	if err := checkPromptContent(np.Content); err != nil {
		return PromptRevision{}, err
	}
	model := strings.TrimSpace(np.Model)
	schemaID := strings.TrimSpace(np.SchemaID)
	if schemaID == "" && np.SchemaVersion != 0 {
		return PromptRevision{}, Errorf(ErrInvalid, "schema_version given without schema_id").On("schema_id")
	}
	f := promptFields{name: name, content: np.Content, model: model, tagIDs: uniqueStrings(np.TagIDs)}
	prepare := func(tx *writeTx, c *change) error {
		if schemaID != "" {
			var err error
			if f.schemaRevID, err = resolveSchemaLink(ctx, tx, schemaID, np.SchemaVersion); err != nil {
				return err
			}
		}
		if err := checkTagsExist(ctx, tx, f.tagIDs); err != nil {
			return err
		}
		return c.promptWrites(ctx, tx, f, np.ForKind)
	}
	return promptArtifact.create(ctx, db, name, prepare, writePrompt(ctx, &f, np.ForKind))
}

// UpdatePrompt makes a new version of a prompt from its latest revision and
// the fields set in p. When the result equals the latest revision it writes
// nothing and returns that revision with noChanges true. Renaming to the
// name of another prompt is a conflict.
func (db *DB) UpdatePrompt(ctx context.Context, promptID string, p PromptPatch) (PromptRevision, bool, error) {
	var name string
	var err error
	if p.Name != nil {
		if name, err = promptArtifact.checkName(*p.Name); err != nil {
			return PromptRevision{}, false, err
		}
	}
	if p.Content != nil {
		if err := checkPromptContent(*p.Content); err != nil {
			return PromptRevision{}, false, err
		}
	}
	var f promptFields
	next := func(tx *writeTx, latest PromptRevision, c *change) (string, bool, error) {
		f = promptFields{name: latest.Name, content: latest.Content, schemaRevID: latest.SchemaRevID,
			model: latest.Model, tagIDs: latest.TagIDs}
		if p.Name != nil {
			f.name = name
		}
		if p.Content != nil {
			f.content = *p.Content
		}
		if p.Model != nil {
			f.model = strings.TrimSpace(*p.Model)
		}
		if p.TagIDs != nil {
			f.tagIDs = uniqueStrings(*p.TagIDs)
			if err := checkTagsExist(ctx, tx, f.tagIDs); err != nil {
				return "", false, err
			}
		}
		if err := f.relink(ctx, tx, latest, p); err != nil {
			return "", false, err
		}
		if samePrompt(latest, f) {
			return f.name, true, nil
		}
		return f.name, false, c.promptWrites(ctx, tx, f, p.ForKind)
	}
	return promptArtifact.update(ctx, db, promptID, next, writePrompt(ctx, &f, p.ForKind))
}

// relink applies p's schema link to f, the fields of a new version of
// latest.
func (f *promptFields) relink(ctx context.Context, q queryer, latest PromptRevision, p PromptPatch) error {
	version := 0
	if p.SchemaVersion != nil {
		version = *p.SchemaVersion
	}
	var err error
	switch {
	case p.SchemaID != nil && strings.TrimSpace(*p.SchemaID) == "":
		if version != 0 {
			return Errorf(ErrInvalid, "schema_version given without schema_id").On("schema_id")
		}
		f.schemaRevID = ""
	case p.SchemaID != nil:
		f.schemaRevID, err = resolveSchemaLink(ctx, q, strings.TrimSpace(*p.SchemaID), version)
	case p.SchemaVersion != nil:
		if latest.SchemaID == "" {
			return Errorf(ErrInvalid, "prompt %q links no schema: give schema_id with schema_version", latest.Name).On("schema_id")
		}
		f.schemaRevID, err = resolveSchemaLink(ctx, q, latest.SchemaID, version)
	}
	return err
}

// promptWrites adds to a prompt's change the tags its new revision reads
// and, when a person writes it (forKind) with a schema, the kind prompt it
// may become.
func (c *change) promptWrites(ctx context.Context, q queryer, f promptFields, forKind bool) error {
	c.reads = tagKeys(&f.tagIDs)
	if forKind && f.schemaRevID != "" {
		return c.mayBecomeKindPrompt(ctx, q, f.schemaRevID)
	}
	return nil
}

// samePrompt reports whether f would store what r holds (tags in any order).
func samePrompt(r PromptRevision, f promptFields) bool {
	if r.Name != f.name || r.Content != f.content || r.SchemaRevID != f.schemaRevID || r.Model != f.model {
		return false
	}
	a, b := slices.Clone(r.TagIDs), slices.Clone(f.tagIDs)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// GetPrompt returns the latest revision of a prompt.
func (db *DB) GetPrompt(ctx context.Context, promptID string) (PromptRevision, error) {
	return promptArtifact.get(ctx, db, promptID)
}

// GetPromptRevision returns one revision by its id.
func (db *DB) GetPromptRevision(ctx context.Context, promptRevID string) (PromptRevision, error) {
	return promptArtifact.getRevision(ctx, db, promptRevID)
}

// FindPrompt returns the latest revision of the prompt with this id, the
// revision with this revision id, or the latest revision of the prompt with
// this name (in any case).
func (db *DB) FindPrompt(ctx context.Context, idOrName string) (PromptRevision, error) {
	return promptArtifact.findIn(ctx, db, idOrName)
}

// ListPrompts returns the latest revision of each prompt that matches f, by
// name, and how many match in all.
func (db *DB) ListPrompts(ctx context.Context, f PromptFilter) ([]PromptRevision, int, error) {
	var tags string
	var args []any
	for _, tagID := range uniqueStrings(f.TagIDs) {
		tags += ` AND EXISTS (SELECT 1 FROM prompt_revision_tags rt WHERE rt.prompt_revid = p.id AND rt.tag_id = ?)`
		args = append(args, tagID)
	}
	return promptArtifact.list(ctx, db, ListFilter{Skip: f.Skip, Limit: f.Limit, NameSearch: f.NameSearch}, tags, args...)
}

// ListPromptRevisions returns every revision of a prompt, newest first.
func (db *DB) ListPromptRevisions(ctx context.Context, promptID string) ([]PromptRevision, error) {
	return promptArtifact.revisions(ctx, db, promptID)
}

// DeletePrompt deletes a prompt with all its revisions and their tag links.
// Extractions made with it are kept, without their prompt revision.
func (db *DB) DeletePrompt(ctx context.Context, promptID string) error {
	return promptArtifact.remove(ctx, db, promptID, nil)
}

// mayBecomeKindPrompt adds to a prompt's change the kind prompt of the
// schema of schemaRevID, which the prompt may become: undo puts it back.
func (c *change) mayBecomeKindPrompt(ctx context.Context, q queryer, schemaRevID string) error {
	rev, err := schemaArtifact.revision(ctx, q, schemaRevID)
	if err != nil {
		return err
	}
	c.writes = append(c.writes, kindKey(rev.SchemaID))
	c.scopes = append(c.scopes, columnsScope("schemas", rev.SchemaID, "kind_prompt_id"))
	return nil
}
