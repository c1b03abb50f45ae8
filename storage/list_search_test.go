package storage

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// A list's search text is held to MaxSearchQueryChars, as a search is:
// longer text is invalid, saying the limit, instead of an internal error
// from SQLite ("LIKE or GLOB pattern too complex" past 50,000 bytes).
// Text at the limit still searches.
func TestListSearchTextIsHeldToTheSearchLimit(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	// A row in each list, or SQLite never evaluates the pattern.
	mustCreateDocument(t, db, NewDocument{Name: "note.txt", Pages: []string{"a note"}})
	s, err := db.CreateSchema(ctx, "receipt", json.RawMessage(`{"type":"object","properties":{"total":{"type":"number"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreatePrompt(ctx, NewPrompt{Name: "totals", Content: "Extract.", SchemaID: s.SchemaID}); err != nil {
		t.Fatal(err)
	}
	lists := map[string]func(search string) error{
		"documents": func(s string) error {
			_, _, err := db.ListDocuments(ctx, DocumentFilter{Search: s})
			return err
		},
		"documents with kinds": func(s string) error {
			_, _, err := db.ListDocumentsWithKinds(ctx, DocumentFilter{Search: s})
			return err
		},
		"schemas": func(s string) error {
			_, _, err := db.ListSchemas(ctx, ListFilter{NameSearch: s})
			return err
		},
		"prompts": func(s string) error {
			_, _, err := db.ListPrompts(ctx, PromptFilter{NameSearch: s})
			return err
		},
	}
	for name, list := range lists {
		// é is two bytes and % is escaped to two: at the limit the pattern
		// is still far below SQLite's.
		for _, atLimit := range []string{strings.Repeat("a", MaxSearchQueryChars), strings.Repeat("é%", MaxSearchQueryChars/2)} {
			if err := list(atLimit); err != nil {
				t.Errorf("%s: search of %d characters: %v", name, MaxSearchQueryChars, err)
			}
		}
		err := list(strings.Repeat("a", 50000))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "50000 characters long; at most 2000") {
			t.Errorf("%s: search of 50,000 characters: %v, want invalid naming the limit", name, err)
		}
	}
}
