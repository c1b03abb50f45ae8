package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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

// promptRevisionColumns are read by scanPromptRevision from
// prompt_revisions p.
const promptRevisionColumns = `p.prompt_id, p.id, p.version, p.name, p.content,
	coalesce(sr.schema_id, ''), coalesce(p.schema_revid, ''), coalesce(sr.version, 0), p.model, p.created_at,
	(SELECT group_concat(rt.tag_id, ',' ORDER BY t.name, t.id)
	   FROM prompt_revision_tags rt JOIN tags t ON t.id = rt.tag_id
	  WHERE rt.prompt_revid = p.id)`

const promptRevisionFrom = ` FROM prompt_revisions p LEFT JOIN schema_revisions sr ON sr.id = p.schema_revid`

// latestPromptRevision is the condition that p is the latest revision of
// its prompt.
const latestPromptRevision = `p.version = (SELECT max(version) FROM prompt_revisions WHERE prompt_id = p.prompt_id)`

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

func latestPrompt(ctx context.Context, q queryer, promptID string) (PromptRevision, error) {
	r, err := scanPromptRevision(q.QueryRowContext(ctx, `SELECT `+promptRevisionColumns+promptRevisionFrom+`
		WHERE p.prompt_id = ? ORDER BY p.version DESC LIMIT 1`, promptID))
	if errors.Is(err, sql.ErrNoRows) {
		return PromptRevision{}, Errorf(ErrNotFound, "prompt %s not found", promptID)
	}
	return r, err
}

func getPromptRevision(ctx context.Context, q queryer, revID string) (PromptRevision, error) {
	r, err := scanPromptRevision(q.QueryRowContext(ctx, `SELECT `+promptRevisionColumns+promptRevisionFrom+`
		WHERE p.id = ?`, revID))
	if errors.Is(err, sql.ErrNoRows) {
		return PromptRevision{}, Errorf(ErrNotFound, "prompt revision %s not found", revID)
	}
	return r, err
}

func promptByName(ctx context.Context, q queryer, name string) (PromptRevision, error) {
	r, err := scanPromptRevision(q.QueryRowContext(ctx, `SELECT `+promptRevisionColumns+promptRevisionFrom+`
		JOIN prompts pr ON pr.id = p.prompt_id
		WHERE pr.name = ? ORDER BY p.version DESC LIMIT 1`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return PromptRevision{}, Errorf(ErrNotFound, "prompt %q not found", name)
	}
	return r, err
}

func checkPromptName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", Errorf(ErrInvalid, "prompt name is empty").On("name")
	}
	return name, checkLength("prompt name", "name", name, MaxNameLength)
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
		rev, err = latestSchema(ctx, q, schemaID)
	} else {
		rev, err = schemaRevisionByVersion(ctx, q, schemaID, version)
	}
	if errors.Is(err, ErrNotFound) {
		if version == 0 {
			return "", Errorf(ErrInvalid, "unknown schema %s", schemaID).On("schema_id")
		}
		if _, e := latestSchema(ctx, q, schemaID); e != nil {
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
	return getPromptRevision(ctx, tx, revID)
}

// CreatePrompt stores a new prompt at version 1. A prompt with the same
// name (in any case) is a conflict that says to use update_prompt; an
// unknown schema, schema version or tag is invalid.
func (db *DB) CreatePrompt(ctx context.Context, np NewPrompt) (PromptRevision, error) {
	name, err := checkPromptName(np.Name)
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
	var rev PromptRevision
	err = db.update(ctx, "create prompt", func(tx *writeTx) error {
		if existing, err := promptByName(ctx, tx, name); err == nil {
			return Errorf(ErrConflict, "prompt %q exists (prompt_id %s): use update_prompt to make a new version",
				existing.Name, existing.PromptID).On("name")
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		if schemaID != "" {
			if f.schemaRevID, err = resolveSchemaLink(ctx, tx, schemaID, np.SchemaVersion); err != nil {
				return err
			}
		}
		if err := checkTagsExist(ctx, tx, f.tagIDs); err != nil {
			return err
		}
		id, now := newID(prefixPrompt), tx.nowText()
		c := change{op: "create prompt", kind: "prompt", id: id, summary: fmt.Sprintf("created prompt %q", name),
			writes: []string{promptKey(id)}, reads: tagKeys(&f.tagIDs), scopes: []scope{treeScope("prompts", id)}}
		if np.ForKind && schemaID != "" {
			if err := c.mayBecomeKindPrompt(ctx, tx, f.schemaRevID); err != nil {
				return err
			}
		}
		if _, err := tx.journal(ctx, c); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO prompts (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)`,
			id, name, now, now); err != nil {
			return err
		}
		if rev, err = addPromptRevision(ctx, tx, id, 1, f); err != nil {
			return err
		}
		if np.ForKind {
			return chooseKindPrompt(ctx, tx, id, false)
		}
		return nil
	})
	return rev, err
}

// UpdatePrompt makes a new version of a prompt from its latest revision and
// the fields set in p. When the result equals the latest revision it writes
// nothing and returns that revision with noChanges true. Renaming to the
// name of another prompt is a conflict.
func (db *DB) UpdatePrompt(ctx context.Context, promptID string, p PromptPatch) (PromptRevision, bool, error) {
	var name string
	var err error
	if p.Name != nil {
		if name, err = checkPromptName(*p.Name); err != nil {
			return PromptRevision{}, false, err
		}
	}
	if p.Content != nil {
		if err := checkPromptContent(*p.Content); err != nil {
			return PromptRevision{}, false, err
		}
	}
	var rev PromptRevision
	var noChanges bool
	err = db.update(ctx, "update prompt", func(tx *writeTx) error {
		latest, err := latestPrompt(ctx, tx, promptID)
		if err != nil {
			return err
		}
		f := promptFields{name: latest.Name, content: latest.Content, schemaRevID: latest.SchemaRevID,
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
				return err
			}
		}
		version := 0
		if p.SchemaVersion != nil {
			version = *p.SchemaVersion
		}
		switch {
		case p.SchemaID != nil && strings.TrimSpace(*p.SchemaID) == "":
			if version != 0 {
				return Errorf(ErrInvalid, "schema_version given without schema_id").On("schema_id")
			}
			f.schemaRevID = ""
		case p.SchemaID != nil:
			if f.schemaRevID, err = resolveSchemaLink(ctx, tx, strings.TrimSpace(*p.SchemaID), version); err != nil {
				return err
			}
		case p.SchemaVersion != nil:
			if latest.SchemaID == "" {
				return Errorf(ErrInvalid, "prompt %q links no schema: give schema_id with schema_version", latest.Name).On("schema_id")
			}
			if f.schemaRevID, err = resolveSchemaLink(ctx, tx, latest.SchemaID, version); err != nil {
				return err
			}
		}
		if samePrompt(latest, f) {
			rev, noChanges = latest, true
			return nil
		}
		c := change{op: "update prompt", kind: "prompt", id: promptID,
			summary: fmt.Sprintf("updated prompt %q to version %d", latest.Name, latest.Version+1),
			writes:  []string{promptKey(promptID)}, reads: tagKeys(&f.tagIDs), scopes: []scope{promptVersionScope(promptID)}}
		if f.name != latest.Name {
			c.summary = fmt.Sprintf("renamed prompt %q to %q (version %d)", latest.Name, f.name, latest.Version+1)
		}
		if p.ForKind && f.schemaRevID != "" {
			if err := c.mayBecomeKindPrompt(ctx, tx, f.schemaRevID); err != nil {
				return err
			}
		}
		if _, err := tx.journal(ctx, c); err != nil {
			return err
		}
		if f.name != latest.Name {
			if other, err := promptByName(ctx, tx, f.name); err == nil && other.PromptID != promptID {
				return Errorf(ErrConflict, "prompt %q exists (prompt_id %s): choose another name", other.Name, other.PromptID).On("name")
			} else if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE prompts SET name = ? WHERE id = ?`, f.name, promptID); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE prompts SET updated_at = ? WHERE id = ?`, tx.nowText(), promptID); err != nil {
			return err
		}
		if rev, err = addPromptRevision(ctx, tx, promptID, latest.Version+1, f); err != nil {
			return err
		}
		if p.ForKind {
			return chooseKindPrompt(ctx, tx, promptID, true)
		}
		return nil
	})
	if err != nil {
		return PromptRevision{}, false, err
	}
	return rev, noChanges, nil
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
	r, err := latestPrompt(ctx, db.sql, promptID)
	return r, translate("get prompt", err)
}

// GetPromptRevision returns one revision by its id.
func (db *DB) GetPromptRevision(ctx context.Context, promptRevID string) (PromptRevision, error) {
	r, err := getPromptRevision(ctx, db.sql, promptRevID)
	return r, translate("get prompt revision", err)
}

// FindPrompt returns the latest revision of the prompt with this id, the
// revision with this revision id, or the latest revision of the prompt with
// this name (in any case).
func (db *DB) FindPrompt(ctx context.Context, idOrName string) (PromptRevision, error) {
	var r PromptRevision
	err := db.view(ctx, "find prompt", func(tx *sql.Tx) error {
		var err error
		if r, err = latestPrompt(ctx, tx, idOrName); !errors.Is(err, ErrNotFound) {
			return err
		}
		if r, err = getPromptRevision(ctx, tx, idOrName); !errors.Is(err, ErrNotFound) {
			return err
		}
		r, err = promptByName(ctx, tx, idOrName)
		return err
	})
	return r, err
}

// ListPrompts returns the latest revision of each prompt that matches f, by
// name, and how many match in all.
func (db *DB) ListPrompts(ctx context.Context, f PromptFilter) ([]PromptRevision, int, error) {
	limit, skip := pageOf(ListFilter{Skip: f.Skip, Limit: f.Limit})
	where := ` WHERE ` + latestPromptRevision
	var args []any
	if s := strings.TrimSpace(f.NameSearch); s != "" {
		if err := checkListSearch(s); err != nil {
			return nil, 0, err
		}
		where += ` AND p.name LIKE ? ESCAPE '\'`
		args = append(args, "%"+escapeLike(s)+"%")
	}
	for _, tagID := range uniqueStrings(f.TagIDs) {
		where += ` AND EXISTS (SELECT 1 FROM prompt_revision_tags rt WHERE rt.prompt_revid = p.id AND rt.tag_id = ?)`
		args = append(args, tagID)
	}
	var revs []PromptRevision
	var total int
	err := db.view(ctx, "list prompts", func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM prompt_revisions p`+where, args...).Scan(&total); err != nil {
			return err
		}
		var err error
		revs, err = queryRows(ctx, tx, scanPromptRevision, `SELECT `+promptRevisionColumns+promptRevisionFrom+where+
			` ORDER BY p.name COLLATE NOCASE, p.prompt_id LIMIT ? OFFSET ?`, append(args, limit, skip)...)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return revs, total, nil
}

// ListPromptRevisions returns every revision of a prompt, newest first.
func (db *DB) ListPromptRevisions(ctx context.Context, promptID string) ([]PromptRevision, error) {
	var revs []PromptRevision
	err := db.view(ctx, "list prompt revisions", func(tx *sql.Tx) error {
		var err error
		revs, err = queryRows(ctx, tx, scanPromptRevision, `SELECT `+promptRevisionColumns+promptRevisionFrom+`
			WHERE p.prompt_id = ? ORDER BY p.version DESC`, promptID)
		if err != nil {
			return err
		}
		if len(revs) == 0 {
			return Errorf(ErrNotFound, "prompt %s not found", promptID)
		}
		return nil
	})
	return revs, err
}

// DeletePrompt deletes a prompt with all its revisions and their tag links.
// Extractions made with it are kept, without their prompt revision.
func (db *DB) DeletePrompt(ctx context.Context, promptID string) error {
	return db.update(ctx, "delete prompt", func(tx *writeTx) error {
		latest, err := latestPrompt(ctx, tx, promptID)
		if err != nil {
			return err
		}
		if _, err := tx.journal(ctx, change{op: "delete prompt", kind: "prompt", id: promptID,
			summary: fmt.Sprintf("deleted prompt %q (%s)", latest.Name, plural(latest.Version, "version")),
			writes:  []string{promptKey(promptID)}, scopes: []scope{treeScope("prompts", promptID)}}); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM prompts WHERE id = ?`, promptID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return Errorf(ErrNotFound, "prompt %s not found", promptID)
		}
		return nil
	})
}

// mayBecomeKindPrompt adds to a prompt's change the kind prompt of the
// schema of schemaRevID, which the prompt may become: undo puts it back.
func (c *change) mayBecomeKindPrompt(ctx context.Context, q queryer, schemaRevID string) error {
	rev, err := getSchemaRevision(ctx, q, schemaRevID)
	if err != nil {
		return err
	}
	c.writes = append(c.writes, kindKey(rev.SchemaID))
	c.scopes = append(c.scopes, columnsScope("schemas", rev.SchemaID, "kind_prompt_id"))
	return nil
}
