package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Tag labels documents and prompt revisions. Names are unique regardless of
// case.
type Tag struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Color is "#RRGGBB", or "" for the UI's default.
	Color       string    `json:"color"`
	Description string    `json:"description"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// NewTag is what CreateTag stores.
type NewTag struct {
	Name, Color, Description string
}

// TagPatch changes the fields that are set.
type TagPatch struct {
	Name, Color, Description *string
}

var colorPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`) })

const tagColumns = `id, name, color, description, created_at, updated_at`

func scanTag(s scanner) (Tag, error) {
	var t Tag
	var created, updated string
	if err := s.Scan(&t.ID, &t.Name, &t.Color, &t.Description, &created, &updated); err != nil {
		return Tag{}, err
	}
	var errC, errU error
	t.CreatedAt, errC = parseTime(created)
	t.UpdatedAt, errU = parseTime(updated)
	return t, errors.Join(errC, errU)
}

func getTag(ctx context.Context, q queryer, id string) (Tag, error) {
	t, err := scanTag(q.QueryRowContext(ctx, `SELECT `+tagColumns+` FROM tags WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Tag{}, Errorf(ErrNotFound, "tag %s not found", id)
	}
	return t, err
}

// tagByName finds a tag by name, ignoring case (the column's collation).
func tagByName(ctx context.Context, q queryer, name string) (Tag, error) {
	t, err := scanTag(q.QueryRowContext(ctx, `SELECT `+tagColumns+` FROM tags WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return Tag{}, Errorf(ErrNotFound, "tag %q not found", name)
	}
	return t, err
}

func checkTagName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", Errorf(ErrInvalid, "tag name is empty").On("name")
	}
	return name, checkLength("tag name", "name", name, MaxNameLength)
}

func checkTagDescription(description string) (string, error) {
	description = strings.TrimSpace(description)
	return description, checkLength("tag description", "description", description, MaxDescriptionLength)
}

func checkColor(color string) (string, error) {
	color = strings.TrimSpace(color)
	if color != "" && !colorPattern().MatchString(color) {
		return "", Errorf(ErrInvalid, "tag color %q is not of the form #RRGGBB", color).On("color")
	}
	return color, nil
}

// CreateTag stores a new tag. A tag with the same name (in any case) is a
// conflict.
func (db *DB) CreateTag(ctx context.Context, nt NewTag) (Tag, error) {
	name, err := checkTagName(nt.Name)
	if err != nil {
		return Tag{}, err
	}
	color, err := checkColor(nt.Color)
	if err != nil {
		return Tag{}, err
	}
	description, err := checkTagDescription(nt.Description)
	if err != nil {
		return Tag{}, err
	}
	var tag Tag
	err = db.update(ctx, "create tag", func(tx *writeTx) error {
		tag, err = createTag(ctx, tx, NewTag{Name: name, Color: color, Description: description})
		return err
	})
	return tag, err
}

func createTag(ctx context.Context, tx *writeTx, nt NewTag) (Tag, error) {
	if existing, err := tagByName(ctx, tx, nt.Name); err == nil {
		return Tag{}, Errorf(ErrConflict, "tag %q exists", existing.Name).On("name")
	} else if !errors.Is(err, ErrNotFound) {
		return Tag{}, err
	}
	id := newID(prefixTag)
	if _, err := tx.journal(ctx, change{op: "create tag", kind: "tag", id: id, summary: fmt.Sprintf("created tag %q", nt.Name),
		writes: []string{tagKey(id)}, scopes: []scope{treeScope("tags", id)}}); err != nil {
		return Tag{}, err
	}
	now := tx.nowText()
	_, err := tx.ExecContext(ctx, `INSERT INTO tags (`+tagColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
		id, nt.Name, nt.Color, nt.Description, now, now)
	if err != nil {
		return Tag{}, err
	}
	return getTag(ctx, tx, id)
}

// EnsureTag returns the tag with this name (in any case), creating it when
// there is none.
func (db *DB) EnsureTag(ctx context.Context, name string) (Tag, error) {
	name, err := checkTagName(name)
	if err != nil {
		return Tag{}, err
	}
	var tag Tag
	err = db.update(ctx, "ensure tag", func(tx *writeTx) error {
		tag, err = tagByName(ctx, tx, name)
		if errors.Is(err, ErrNotFound) {
			tag, err = createTag(ctx, tx, NewTag{Name: name})
		}
		return err
	})
	return tag, err
}

// GetTag returns the tag with this id.
func (db *DB) GetTag(ctx context.Context, id string) (Tag, error) {
	t, err := getTag(ctx, db.sql, id)
	return t, translate("get tag", err)
}

// FindTag returns the tag with this id or, failing that, this name (in any
// case).
func (db *DB) FindTag(ctx context.Context, idOrName string) (Tag, error) {
	t, err := getTag(ctx, db.sql, idOrName)
	if errors.Is(err, ErrNotFound) {
		t, err = tagByName(ctx, db.sql, idOrName)
	}
	return t, translate("find tag", err)
}

// ListTags returns every tag, by name.
func (db *DB) ListTags(ctx context.Context) ([]Tag, error) {
	tags, err := queryRows(ctx, db.sql, scanTag, `SELECT `+tagColumns+` FROM tags ORDER BY name, id`)
	if err != nil {
		return nil, fmt.Errorf("list tags: %w", err)
	}
	return tags, nil
}

// UpdateTag changes the fields set in p and returns the tag. Renaming to the
// name of another tag is a conflict; changing only the case of its own name
// is allowed.
func (db *DB) UpdateTag(ctx context.Context, id string, p TagPatch) (Tag, error) {
	var sets []string
	var args []any
	if p.Name != nil {
		name, err := checkTagName(*p.Name)
		if err != nil {
			return Tag{}, err
		}
		sets, args = append(sets, "name = ?"), append(args, name)
	}
	if p.Color != nil {
		color, err := checkColor(*p.Color)
		if err != nil {
			return Tag{}, err
		}
		sets, args = append(sets, "color = ?"), append(args, color)
	}
	if p.Description != nil {
		description, err := checkTagDescription(*p.Description)
		if err != nil {
			return Tag{}, err
		}
		sets, args = append(sets, "description = ?"), append(args, description)
	}
	var tag Tag
	err := db.update(ctx, "update tag", func(tx *writeTx) error {
		cur, err := getTag(ctx, tx, id)
		if err != nil {
			return err
		}
		if p.Name != nil {
			other, err := tagByName(ctx, tx, strings.TrimSpace(*p.Name))
			if err == nil && other.ID != id {
				return Errorf(ErrConflict, "tag %q exists", other.Name).On("name")
			} else if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		if len(sets) > 0 {
			summary := fmt.Sprintf("changed tag %q", cur.Name)
			if p.Name != nil && strings.TrimSpace(*p.Name) != cur.Name {
				summary = fmt.Sprintf("renamed tag %q to %q", cur.Name, strings.TrimSpace(*p.Name))
			}
			if _, err := tx.journal(ctx, change{op: "update tag", kind: "tag", id: id, summary: summary,
				writes: []string{tagKey(id)},
				scopes: []scope{columnsScope("tags", id, "name", "color", "description", "updated_at")}}); err != nil {
				return err
			}
			q := `UPDATE tags SET ` + strings.Join(append(sets, "updated_at = ?"), ", ") + ` WHERE id = ?`
			if _, err := tx.ExecContext(ctx, q, append(args, tx.nowText(), id)...); err != nil {
				return err
			}
		}
		tag, err = getTag(ctx, tx, id)
		return err
	})
	return tag, err
}

// maxNamedUsers is how many users of a tag an error message names.
const maxNamedUsers = 5

// DeleteTag deletes a tag that nothing uses. While documents or prompt
// revisions carry it, it is a conflict whose message names up to five of
// them, so the user knows where to remove it first.
func (db *DB) DeleteTag(ctx context.Context, id string) error {
	return db.update(ctx, "delete tag", func(tx *writeTx) error {
		tag, err := getTag(ctx, tx, id)
		if err != nil {
			return err
		}
		users, total, err := tagUsers(ctx, tx, id)
		if err != nil {
			return err
		}
		if total > 0 {
			more := ""
			if total > len(users) {
				more = fmt.Sprintf(" and %d more", total-len(users))
			}
			return Errorf(ErrConflict, "tag %q is in use by %s%s: remove the tag there first",
				tag.Name, strings.Join(users, ", "), more)
		}
		if _, err := tx.journal(ctx, change{op: "delete tag", kind: "tag", id: id, summary: fmt.Sprintf("deleted tag %q", tag.Name),
			writes: []string{tagKey(id)}, scopes: []scope{treeScope("tags", id)}}); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM tags WHERE id = ?`, id)
		return err
	})
}

// tagUsers describes up to maxNamedUsers documents and prompt revisions that
// carry the tag, and counts them all.
func tagUsers(ctx context.Context, tx *writeTx, tagID string) ([]string, int, error) {
	var total int
	err := tx.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM document_tags WHERE tag_id = ?) +
		(SELECT count(*) FROM prompt_revision_tags WHERE tag_id = ?)`, tagID, tagID).Scan(&total)
	if err != nil || total == 0 {
		return nil, total, err
	}
	users, err := queryRows(ctx, tx, scanValue[string], `
		SELECT * FROM (
			SELECT 'document ' || d.id || ' (' || json_quote(d.name) || ')'
			  FROM document_tags dt JOIN documents d ON d.id = dt.document_id
			 WHERE dt.tag_id = ? ORDER BY d.name LIMIT ?)
		UNION ALL
		SELECT * FROM (
			SELECT 'prompt revision ' || r.id || ' (' || json_quote(r.name) || ' v' || r.version || ')'
			  FROM prompt_revision_tags rt JOIN prompt_revisions r ON r.id = rt.prompt_revid
			 WHERE rt.tag_id = ? ORDER BY r.name, r.version LIMIT ?)
		LIMIT ?`, tagID, maxNamedUsers, tagID, maxNamedUsers, maxNamedUsers)
	return users, total, err
}

// checkTagsExist reports the ids among ids that name no tag, as an invalid
// request: otherwise the insert would fail with a bare foreign key error.
func checkTagsExist(ctx context.Context, tx *writeTx, ids []string) error {
	var unknown []string
	for _, id := range ids {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM tags WHERE id = ?`, id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			unknown = append(unknown, id)
		} else if err != nil {
			return err
		}
	}
	switch len(unknown) {
	case 0:
		return nil
	case 1:
		return Errorf(ErrInvalid, "unknown tag %s", unknown[0]).On("tag_ids")
	}
	return Errorf(ErrInvalid, "unknown tags %s", strings.Join(unknown, ", ")).On("tag_ids")
}

// setDocumentTags links a document to tags that are known to exist.
func setDocumentTags(ctx context.Context, tx *writeTx, docID string, tagIDs []string) error {
	for _, tagID := range tagIDs {
		if _, err := tx.ExecContext(ctx, `INSERT INTO document_tags (document_id, tag_id) VALUES (?, ?)`, docID, tagID); err != nil {
			return err
		}
	}
	return nil
}
