package storage

import (
	"context"
	"encoding/json"
	"testing"
)

func TestPeekTurnStateDoesNotClaim(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	th := mustCreateThread(t, db, doc.ID, "t")
	ts, err := db.SaveTurnState(ctx, th.ID, doc.ID, json.RawMessage(`{"round":1}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	if peek, err := db.PeekTurnState(ctx, ts.ID); err != nil || peek.DocumentID != doc.ID || string(peek.State) != `{"round":1}` || !peek.ConsumedAt.IsZero() {
		t.Fatalf("PeekTurnState = %+v, %v", peek, err)
	}
	// The lookup does not claim the turn.
	if _, err := db.ClaimDocumentTurnState(ctx, doc.ID, ts.ID); err != nil {
		t.Fatalf("claim after lookup: %v", err)
	}
	_, err = db.PeekTurnState(ctx, "turn_missing")
	wantCode(t, err, ErrNotFound, "turn turn_missing is unknown")
}
