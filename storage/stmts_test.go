package storage

import (
	"context"
	"testing"
)

// Every statement of the import's path is prepared when the store opens: a
// query text that no longer prepares (a column renamed, say) would
// otherwise fall back to being parsed at every call without a word.
func TestHotStatementsArePreparedAtOpen(t *testing.T) {
	db := mustOpen(t)
	stmts := db.stmts.get()
	for _, q := range hotStatements {
		if stmts[q] == nil {
			t.Errorf("not prepared: %.80s", q)
		}
	}
	// A document stored and read back goes through them.
	doc, err := db.CreateDocument(context.Background(), NewDocument{Name: "a.txt", MediaType: "text/plain", Data: []byte("hello"), Pages: []string{"hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := db.DocumentBySHA256(context.Background(), doc.SHA256); err != nil || got.ID != doc.ID {
		t.Fatalf("DocumentBySHA256 = %v, %v; want %s", got.ID, err, doc.ID)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db.stmts.get() != nil {
		t.Error("statements still held after Close")
	}
}
