package server_test

import (
	"net/http"
	"testing"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
)

// The turn_id of a turn's pause, the id a client was shown to approve
// with, names the turn's changes in the history as its history_turn_id
// does: GET /api/history?turn= lists them and the turn's undo takes them
// back, after the pause was approved.
func TestAPausesTurnIDListsAndUndoesItsTurn(t *testing.T) {
	f := newFixture(t)
	f.model.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "t1", Name: "create_tag", Arguments: `{"name":"paid"}`}}})
	var paused agent.TurnResult
	f.call("POST", "/api/documents/"+f.doc.ID+"/chat", map[string]any{"message": "tag it"}, http.StatusOK, &paused)
	if !paused.Paused() {
		t.Fatalf("create_tag did not wait for approval: %+v", paused)
	}
	f.model.Enqueue(modeltest.Reply{Text: "Tagged."})
	var done agent.TurnResult
	f.call("POST", "/api/documents/"+f.doc.ID+"/chat/approve", map[string]any{"turn_id": paused.TurnID,
		"approvals": []map[string]any{{"call_id": "t1", "approved": true}}}, http.StatusOK, &done)
	if done.HistoryTurnID == "" || done.HistoryTurnID == paused.TurnID {
		t.Fatalf("history_turn_id %q, pause turn_id %q", done.HistoryTurnID, paused.TurnID)
	}

	es := f.history("?turn=" + paused.TurnID)
	if len(es) != 1 || es[0].TurnID != done.HistoryTurnID || es[0].Summary != `created tag "paid"` {
		t.Fatalf("GET /api/history?turn=<the pause's turn_id>: %+v", es)
	}
	var res storage.UndoResult
	f.call("POST", "/api/history/turns/"+paused.TurnID+"/undo", nil, http.StatusOK, &res)
	if len(res.Undone) != 1 || res.Undone[0].ID != es[0].ID {
		t.Fatalf("undo of the turn by its pause's id: %+v", res)
	}
	var tags struct{ Tags []storage.Tag }
	f.call("GET", "/api/tags", nil, http.StatusOK, &tags)
	if len(tags.Tags) != 0 {
		t.Fatalf("tags after the undo: %+v", tags.Tags)
	}
}
