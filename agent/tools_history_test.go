package agent

import (
	"context"
	"testing"

	"github.com/docent/docent/storage"
)

// get_history answers "what did you change?": the current document's
// changes, newest first, with who made them; others' are not in it.
func TestGetHistoryListsTheDocumentsChanges(t *testing.T) {
	f := newToolFixture(t)
	ctx := storage.WithActor(context.Background(), storage.Actor{Edge: storage.EdgeAgent, Name: "thr_1", TurnID: "turn_1"})
	if r := CallTool(ctx, f.env, "update_document", []byte(`{"name":"renamed.txt"}`)); !r.Success {
		t.Fatalf("update_document: %s", r.Error)
	}
	name := "other renamed.txt"
	if _, err := f.db.UpdateDocument(context.Background(), f.other.ID, storage.DocumentPatch{Name: &name}); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Changes []historyChange `json:"changes"`
	}
	f.ok("get_history", `{"limit":5}`, &out)
	if len(out.Changes) < 2 {
		t.Fatalf("changes %+v", out.Changes)
	}
	newest := out.Changes[0]
	if newest.Edge != "agent" || newest.TurnID != "turn_1" || newest.Summary != `renamed document "`+f.doc.Name+`" to "renamed.txt"` {
		t.Fatalf("newest change %+v", newest)
	}
	for _, c := range out.Changes {
		if c.Summary == `renamed document "letter.txt" to "other renamed.txt"` {
			t.Fatalf("another document's change is listed: %+v", c)
		}
	}
}
