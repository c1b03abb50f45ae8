package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/artifacts"
)

// TestBrowserHistoryUndoesATurn: an always-approved turn creates a tag and
// renames the document; the History page shows those changes by name (no
// raw ids), and its "Undo the turn" takes both back.
func TestBrowserHistoryUndoesATurn(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	note := filepath.Join(t.TempDir(), "note.txt")
	if err := os.WriteFile(note, []byte("Invoice 12 from ACME, total 40.00 EUR."), 0o644); err != nil {
		t.Fatal(err)
	}
	model := modeltest.New(t)
	srv := startServe(t, t.TempDir(), "OLLAMA_HOST="+model.OllamaURL(), "DOCENT_MODEL=ollama/qwen3:8b")
	ctx := newBrowser(t)
	shots := &shooter{t: t, dir: artifacts.Dir(t)}

	do(t, ctx, srv, "open the printed URL", chromedp.Navigate(srv.URL), chromedp.WaitVisible(tid("auto-create")))
	do(t, ctx, srv, "upload the note", chromedp.SetUploadFiles(tid("upload-input"), []string{note}))
	waitCount(t, ctx, srv, "the note listed", `[data-testid="doc-row"]`, 1)
	docs := apiGet[struct {
		Documents []struct {
			ID string `json:"id"`
		} `json:"documents"`
	}](t, srv, "/api/documents")
	docID := docs.Documents[0].ID

	model.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{
			{ID: "t1", Name: "create_tag", Arguments: `{"name":"paid","color":"#22aa55"}`},
			{ID: "t2", Name: "update_document", Arguments: `{"name":"ACME invoice 12.txt"}`},
		}},
		modeltest.Reply{Text: "Tagged and renamed."},
	)
	var turn struct {
		HistoryTurnID string `json:"history_turn_id"`
	}
	apiSend(t, srv, "POST", "/api/documents/"+docID+"/chat", map[string]any{"message": "Tag it paid and name it after the invoice", "auto_approve": true}, &turn)
	if turn.HistoryTurnID == "" {
		t.Fatal("the turn changed things but names no history turn")
	}

	do(t, ctx, srv, "open the history", chromedp.Click(tid("nav-history")), chromedp.WaitVisible(tid("history-table")))
	waitCount(t, ctx, srv, "the three changes", `[data-testid="history-entry"]`, 3)
	ids, text := rawIDsIn(t, ctx, srv, `[data-testid="history-summary"]`)
	if len(ids) > 0 {
		t.Errorf("the history shows raw ids %q:\n%s", ids, text)
	}
	for _, want := range []string{`renamed document "note.txt" to "ACME invoice 12.txt"`, `created tag "paid"`, `imported document "note.txt"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the history does not say %q:\n%s", want, text)
		}
	}
	auditPage(t, ctx, srv, shots, "history", func(t *testing.T) {
		do(t, ctx, srv, "the history", chromedp.WaitVisible(tid("history-undo-turn")))
	})

	clickStill(t, ctx, srv, "undo the turn", `[data-testid="history-undo-turn"]`)
	waitText(t, ctx, srv, "the undo is reported", tid("history-done"), "Undone 2 changes.")
	waitCount(t, ctx, srv, "the undo's own entries listed", `[data-testid="history-entry"]`, 5)
	doc := apiGet[struct {
		Name   string   `json:"name"`
		TagIDs []string `json:"tag_ids"`
	}](t, srv, "/api/documents/"+docID)
	tags := apiGet[struct {
		Tags []struct{ Name string } `json:"tags"`
	}](t, srv, "/api/tags")
	if doc.Name != "note.txt" || len(doc.TagIDs) != 0 || len(tags.Tags) != 0 {
		t.Fatalf("after undoing the turn: document %+v, tags %+v", doc, tags.Tags)
	}
	ids, text = rawIDsIn(t, ctx, srv, `[data-testid="history-summary"]`)
	if len(ids) > 0 || !strings.Contains(text, `undid: created tag "paid"`) {
		t.Errorf("the history after the undo (raw ids %q):\n%s", ids, text)
	}
	shots.shot(ctx, "history-undone")

	// In the chat: an approved delete is announced (by a toast too) with
	// Undo for the turn, and its card has an Undo of its own, which takes
	// the call back.
	var tag struct {
		ID string `json:"id"`
	}
	apiSend(t, srv, "POST", "/api/tags", map[string]any{"name": "archive"}, &tag)
	model.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "x1", Name: "delete_tag", Arguments: `{"tag_id":"` + tag.ID + `"}`}}},
		modeltest.Reply{Text: "Deleted the tag."},
	)
	do(t, ctx, srv, "open the document's agent", chromedp.Navigate(srv.URL+"#/documents/"+docID), chromedp.WaitVisible(tid("tab-agent")),
		chromedp.Click(tid("tab-agent")), chromedp.WaitVisible(tid("chat-input")))
	do(t, ctx, srv, "ask for the delete",
		chromedp.SendKeys(tid("chat-input"), "Delete the archive tag"),
		chromedp.Click(tid("send-button")),
		chromedp.WaitVisible(card("x1", "approve-button")))
	clickStill(t, ctx, srv, "approve the delete", string(card("x1", "approve-button")))
	waitText(t, ctx, srv, "the delete is announced", tid("turn-undo"), "Done: Delete tag “archive”.")
	waitText(t, ctx, srv, "a toast announces the delete", tid("undo-toast"), "Done: Delete tag “archive”.")
	if tags := apiGet[struct {
		Tags []struct{ Name string } `json:"tags"`
	}](t, srv, "/api/tags"); len(tags.Tags) != 0 {
		t.Fatalf("tags after the approved delete: %+v", tags.Tags)
	}
	shots.shot(ctx, "approved-delete-undo")

	// Reopened, the thread keeps the Undo of the delete (its changes stand)
	// and of its card, and none for the first turn, undone above.
	do(t, ctx, srv, "reload the document's agent", chromedp.Reload(), chromedp.WaitVisible(tid("tab-agent")),
		chromedp.Click(tid("tab-agent")), chromedp.WaitVisible(card("x1", "")))
	waitText(t, ctx, srv, "the delete is announced after the reload", tid("turn-undo"), "Done: Delete tag “archive”.")
	waitCount(t, ctx, srv, "one turn to undo after the reload", `[data-testid="turn-undo"]`, 1)
	waitCount(t, ctx, srv, "one card to undo after the reload", `[data-testid="call-undo-button"]`, 1)
	waitCount(t, ctx, srv, "no toast for what was announced before the reload", `[data-testid="undo-toast"]`, 0)
	clickStill(t, ctx, srv, "undo the card", `[data-testid="call-undo-button"]`)
	do(t, ctx, srv, "the card's call is undone", chromedp.WaitVisible(tid("call-undone")))
	if tags := apiGet[struct {
		Tags []struct{ Name string } `json:"tags"`
	}](t, srv, "/api/tags"); len(tags.Tags) != 1 || tags.Tags[0].Name != "archive" {
		t.Fatalf("tags after the card's Undo: %+v", tags.Tags)
	}
}
