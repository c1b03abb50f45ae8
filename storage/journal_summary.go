package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Summaries of journal entries name things (documents, schemas, tags) the
// way people see them, not by id: the history is read by people.

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// nameOf reads the name column of a row by id, or the id when the row is
// gone.
func nameOf(ctx context.Context, q queryer, table, id string) (string, error) {
	var name string
	err := q.QueryRowContext(ctx, `SELECT name FROM `+quoteIdent(table)+` WHERE id = ?`, id).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return id, nil
	}
	return name, err
}

// tagNames lists tags by name, quoted, for a summary.
func tagNames(ctx context.Context, q queryer, ids []string) (string, error) {
	if len(ids) == 0 {
		return "none", nil
	}
	names := make([]string, 0, len(ids))
	for _, id := range ids {
		n, err := nameOf(ctx, q, "tags", id)
		if err != nil {
			return "", err
		}
		names = append(names, fmt.Sprintf("%q", n))
	}
	return strings.Join(names, ", "), nil
}

// documentPatchSummary says what UpdateDocument changes.
func documentPatchSummary(ctx context.Context, q queryer, d Document, p DocumentPatch) (string, error) {
	var parts []string
	if p.Name != nil && strings.TrimSpace(*p.Name) != d.Name {
		parts = append(parts, fmt.Sprintf("renamed document %q to %q", d.Name, strings.TrimSpace(*p.Name)))
	}
	if p.TagIDs != nil {
		names, err := tagNames(ctx, q, uniqueStrings(*p.TagIDs))
		if err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf("set the tags of %q to %s", d.Name, names))
	}
	if len(p.Metadata) > 0 {
		parts = append(parts, fmt.Sprintf("changed the metadata of %q", d.Name))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("updated document %q", d.Name), nil
	}
	return strings.Join(parts, "; "), nil
}

// fieldLabel names an extraction field path for a summary.
func fieldLabel(path string) string {
	if strings.TrimSpace(path) == "" {
		return "the whole value"
	}
	return path
}

// valueAt returns the JSON at a dot path of doc (as PatchExtractionField
// reads paths), "nothing" when it has none.
func valueAt(doc json.RawMessage, path string) string {
	cur := doc
	if p := strings.TrimSpace(path); p != "" {
		for _, seg := range strings.Split(p, ".") {
			var next json.RawMessage
			var obj map[string]json.RawMessage
			var arr []json.RawMessage
			switch {
			case json.Unmarshal(cur, &obj) == nil && obj != nil:
				next = obj[seg]
			case json.Unmarshal(cur, &arr) == nil:
				if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(arr) {
					next = arr[i]
				}
			}
			if next == nil {
				return "nothing"
			}
			cur = next
		}
	}
	return string(cur)
}

// clip shortens a value for a summary.
func clip(s string) string {
	const most = 60
	if r := []rune(s); len(r) > most {
		return string(r[:most]) + "…"
	}
	return s
}
