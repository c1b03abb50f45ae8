package storage

import (
	"context"
	"encoding/json"
	"testing"
)

// A chat turn's changes are keyed by its history turn id, but a person is
// shown the turn_id of each pause (docent chat, docent approve). Either
// id lists and undoes the turn's changes, also once the paused turns are
// claimed and swept; a pause saved without a turn's actor names nothing.
func TestAPausesTurnIDNamesItsTurnInTheHistory(t *testing.T) {
	db := mustOpen(t)
	base := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "t.txt", Pages: []string{"x"}})
	actor := Actor{Edge: EdgeAgent, Name: "thr_1", TurnID: "turn_history"}
	ctx := WithActor(base, actor)
	pause := func() string {
		t.Helper()
		ts, err := db.SaveTurnState(ctx, "", doc.ID, json.RawMessage(`{}`), 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ClaimTurnState(base, ts.ID); err != nil {
			t.Fatal(err)
		}
		return ts.ID
	}
	// The turn pauses before its first change and again between two.
	first := pause()
	tag, err := db.CreateTag(ctx, NewTag{Name: "paid"})
	if err != nil {
		t.Fatal(err)
	}
	second := pause()
	name := "t renamed.txt"
	if _, err := db.UpdateDocument(ctx, doc.ID, DocumentPatch{Name: &name, TagIDs: &[]string{tag.ID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SweepTurnStates(base); err != nil {
		t.Fatal(err)
	}

	want := journalFor(t, db, JournalFilter{TurnID: "turn_history"})
	if len(want) != 2 {
		t.Fatalf("the turn's entries: %+v", want)
	}
	for _, id := range []string{first, second} {
		got := journalFor(t, db, JournalFilter{TurnID: id})
		if len(got) != 2 || got[0].ID != want[0].ID || got[1].ID != want[1].ID {
			t.Errorf("history of pause %s: %+v, want the turn's two entries", id, got)
		}
	}
	res, err := db.UndoTurn(base, first, false)
	if err != nil {
		t.Fatalf("undo --turn with the first pause's id: %v", err)
	}
	if len(res.Undone) != 2 {
		t.Fatalf("undone %+v", res.Undone)
	}
	if got, _ := db.GetDocument(base, doc.ID); got.Name != "t.txt" {
		t.Fatalf("document after undo: %+v", got)
	}
	_, err = db.UndoTurn(base, second, false)
	wantCode(t, err, ErrConflict, "every change of turn "+second+" is undone already")

	lone, err := db.SaveTurnState(base, "", doc.ID, json.RawMessage(`{}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.UndoTurn(base, lone.ID, false)
	wantCode(t, err, ErrNotFound, "turn "+lone.ID+" changed nothing in the history")
	checkIntegrity(t, db)
}
