package storage

import (
	"context"
	"errors"
	"testing"
)

func TestKindsFollowProposalsMovesAndRejects(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	a := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"x"}})
	b := mustCreateDocument(t, db, NewDocument{Name: "b.txt", Pages: []string{"y"}})
	c := mustClaim(t, db, a.ID)
	l := acRun(t, db, c, "inv")
	d, err := db.ProposeAutoCreate(ctx, c, l, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.SchemaID != l.SchemaID {
		t.Fatalf("a proposal's schema is the document's kind: kind %q, want %q", d.SchemaID, l.SchemaID)
	}
	if d, err = db.SetDocumentKind(ctx, b.ID, "inv"); err != nil || d.SchemaID != l.SchemaID {
		t.Fatalf("moving a document by the schema's name: %q %v", d.SchemaID, err)
	}
	kinds, err := db.Kinds(ctx)
	if err != nil || len(kinds) != 1 || kinds[0].Documents != 2 || kinds[0].Schema.SchemaID != l.SchemaID {
		t.Fatalf("kinds %+v %v, want one schema with 2 documents", kinds, err)
	}
	if _, err := db.SetDocumentKind(ctx, b.ID, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("moving to an unknown schema: %v", err)
	}
	if d, err = db.SetDocumentKind(ctx, b.ID, ""); err != nil || d.SchemaID != "" {
		t.Errorf("clearing a kind: %q %v", d.SchemaID, err)
	}
	if d, err = db.RejectAutoCreate(ctx, a.ID); err != nil || d.SchemaID != "" {
		t.Errorf("a rejected proposal keeps its kind: %q %v", d.SchemaID, err)
	}
}
