package server_test

import (
	"net/http"
	"testing"

	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage"
)

// TestAskThreadRoutes: a library thread is listed, read, renamed and
// deleted under /api/ask/threads, where a document's thread is not found
// (nor the library's under a document).
func TestAskThreadRoutes(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	lib, err := f.db.CreateThread(ctx, "", "Totals", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.AppendMessages(ctx, lib.ID, []storage.ThreadMessage{{Role: storage.RoleUser, Content: "How much?"}, {Role: storage.RoleAssistant, Content: "42.75"}}, nil); err != nil {
		t.Fatal(err)
	}
	docThread, err := f.db.CreateThread(ctx, f.doc.ID, "About acme", "")
	if err != nil {
		t.Fatal(err)
	}
	threadID := lib.ID

	var list struct{ Threads []storage.Thread }
	f.call("GET", "/api/ask/threads", nil, http.StatusOK, &list)
	if len(list.Threads) != 1 || list.Threads[0].ID != threadID || list.Threads[0].DocumentID != "" || list.Threads[0].MessageCount != 2 {
		t.Errorf("library threads %+v", list.Threads)
	}
	var th server.ThreadWithMessages
	f.call("GET", "/api/ask/threads/"+threadID, nil, http.StatusOK, &th)
	if th.ID != threadID || len(th.Messages) != 2 || th.Messages[1].Content != "42.75" {
		t.Errorf("the library thread %+v", th)
	}

	// A document's thread is not the library's, nor the other way round.
	f.wantError("GET", "/api/ask/threads/"+docThread.ID, nil, http.StatusNotFound, "not_found")
	f.wantError("PATCH", "/api/ask/threads/"+docThread.ID, map[string]any{"title": "x"}, http.StatusNotFound, "not_found")
	f.wantError("DELETE", "/api/ask/threads/"+docThread.ID, nil, http.StatusNotFound, "not_found")
	f.wantError("GET", "/api/documents/"+f.doc.ID+"/chat/threads/"+threadID, nil, http.StatusNotFound, "not_found")
	f.wantError("DELETE", "/api/documents/"+f.doc.ID+"/chat/threads/"+threadID, nil, http.StatusNotFound, "not_found")

	var renamed storage.Thread
	f.call("PATCH", "/api/ask/threads/"+threadID, map[string]any{"title": "Spending"}, http.StatusOK, &renamed)
	if renamed.ID != threadID || renamed.Title != "Spending" {
		t.Errorf("renamed %+v", renamed)
	}
	f.wantError("PATCH", "/api/ask/threads/"+threadID, map[string]any{}, http.StatusBadRequest, "invalid")
	var gone storage.Thread
	f.call("DELETE", "/api/ask/threads/"+threadID, nil, http.StatusOK, &gone)
	if gone.ID != threadID || gone.Title != "Spending" {
		t.Errorf("deleted %+v", gone)
	}
	f.wantError("GET", "/api/ask/threads/"+threadID, nil, http.StatusNotFound, "not_found")
	if b := f.call("GET", "/api/ask/threads", nil, http.StatusOK, nil); string(b) != `{"threads":[]}`+"\n" {
		t.Errorf("library threads after the delete: %s", b)
	}
	if _, err := f.db.GetThread(ctx, f.doc.ID, docThread.ID); err != nil {
		t.Errorf("the document's thread after the library's went: %v", err)
	}
}
