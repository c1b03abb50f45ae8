package server_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docent/docent/storage"
)

// TestMCPWritesAreTheClientsInTheHistory: a write through /mcp is in the
// history (GET /api/history) as the MCP client's, through the mcp edge,
// though the server journals its routes' writes as the person's in the UI;
// undo takes it back.
func TestMCPWritesAreTheClientsInTheHistory(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var h struct{ Entries []storage.JournalEntry }
	f.call(http.MethodGet, "/api/history", nil, http.StatusOK, &h)
	seen := len(h.Entries) // the fixture's import
	cs, err := f.connectMCP(t, testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"update_document", map[string]any{"document_id": f.doc.ID, "name": "renamed.txt"}},
		{"create_tag", map[string]any{"name": "paid"}},
	} {
		if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args}); err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", c.tool, err, res)
		}
	}

	f.call(http.MethodGet, "/api/history", nil, http.StatusOK, &h)
	h.Entries = h.Entries[:len(h.Entries)-seen] // newest first
	kinds := map[string]bool{}
	for _, e := range h.Entries {
		if e.Edge != string(storage.EdgeMCP) || e.Actor != "remote-test-client" {
			t.Errorf("entry %d (%s) is %s's through %s, want remote-test-client's through mcp", e.ID, e.Summary, e.Actor, e.Edge)
		}
		kinds[e.ObjectKind] = true
	}
	if len(h.Entries) != 2 || !kinds["document"] || !kinds["tag"] {
		t.Fatalf("history after two MCP writes: %+v", h.Entries)
	}
	var rename storage.JournalEntry
	for _, e := range h.Entries {
		if e.ObjectKind == "document" {
			rename = e
		}
	}
	f.call(http.MethodPost, "/api/history/"+strconv.FormatInt(rename.ID, 10)+"/undo", nil, http.StatusOK, nil)
	if d, err := f.db.GetDocument(ctx, f.doc.ID); err != nil || d.Name != "acme.txt" {
		t.Errorf("after undo the document is %q (%v), want acme.txt", d.Name, err)
	}
}
