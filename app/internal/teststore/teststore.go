// Package teststore fills a real store with what tests of several packages
// need alike.
package teststore

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/docent/docent/storage"
)

// SixtyPromptsUser is the one prompt of SixtyPrompts that uses the schema.
const SixtyPromptsUser = "zz invoice prompt"

// SixtyPrompts stores the schema "invoice" (responseFormat) and 60
// prompts, of which only the last by name, SixtyPromptsUser, uses it: past
// any first page of 50.
func SixtyPrompts(t testing.TB, db *storage.DB, responseFormat string) storage.SchemaRevision {
	t.Helper()
	ctx := context.Background()
	s, err := db.CreateSchema(ctx, "invoice", json.RawMessage(responseFormat))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 59 {
		if _, err := db.CreatePrompt(ctx, storage.NewPrompt{Name: fmt.Sprintf("prompt %02d", i), Content: "Read it."}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.CreatePrompt(ctx, storage.NewPrompt{Name: SixtyPromptsUser, Content: "Extract the invoice.", SchemaID: s.SchemaID}); err != nil {
		t.Fatal(err)
	}
	return s
}

// Documents stores n small one-page documents through the store's public
// API, one transaction each (the storage package's faster seeder is
// private to its tests), for benchmarks on a store of a realistic size.
func Documents(tb testing.TB, db *storage.DB, n int) {
	tb.Helper()
	ctx := context.Background()
	for i := range n {
		text := fmt.Sprintf("document %d: invoice total amount due %d", i, i*7)
		if _, err := db.CreateDocument(ctx, storage.NewDocument{
			Name: fmt.Sprintf("document-%05d.txt", i), MediaType: "text/plain", Data: []byte(text), Pages: []string{text},
		}); err != nil {
			tb.Fatal(err)
		}
	}
}
