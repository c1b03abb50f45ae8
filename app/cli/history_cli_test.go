package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/docent/docent/storage"
)

// `docent rm` is journaled as the command's; `docent history` lists it with
// the document's name, and `docent undo` brings the document back under
// its id, text and all.
func TestHistoryAndUndoFromTheCommandLine(t *testing.T) {
	data := importNote(t)
	code, out, errOut := docent(t, data, "documents", "--json")
	var list struct{ Documents []storage.Document }
	if code != ExitOK || json.Unmarshal([]byte(out), &list) != nil || len(list.Documents) != 1 {
		t.Fatalf("documents: %d %s %s", code, out, errOut)
	}
	doc := list.Documents[0]
	if code, out, errOut := docent(t, data, "rm", doc.ID); code != ExitOK {
		t.Fatalf("rm: %d %s %s", code, out, errOut)
	}

	code, out, errOut = docent(t, data, "history", "--document", doc.ID, "--json")
	var h historyList
	if code != ExitOK || json.Unmarshal([]byte(out), &h) != nil || len(h.Entries) != 2 {
		t.Fatalf("history --json: %d %s %s", code, out, errOut)
	}
	rm, imp := h.Entries[0], h.Entries[1]
	if rm.Edge != "cli" || rm.Actor != "docent rm" || rm.Summary != `deleted document "note.txt" (1 page, 0 extractions)` ||
		imp.Actor != "docent import" || imp.Summary != `imported document "note.txt"` {
		t.Fatalf("entries %+v", h.Entries)
	}
	code, out, _ = docent(t, data, "history")
	if code != ExitOK || !strings.Contains(out, `deleted document "note.txt"`) || !strings.Contains(out, "docent rm") {
		t.Fatalf("history table:\n%s", out)
	}

	code, out, errOut = docent(t, data, "undo", fmt.Sprint(rm.ID))
	if code != ExitOK || out != fmt.Sprintf("undid %d: deleted document \"note.txt\" (1 page, 0 extractions)\n", rm.ID) {
		t.Fatalf("undo: %d %q %s", code, out, errOut)
	}
	if code, out, _ := docent(t, data, "text", doc.ID); code != ExitOK || !strings.Contains(out, "A short note.") {
		t.Fatalf("text after undo: %d %s", code, out)
	}
	code, _, errOut = docent(t, data, "undo", fmt.Sprint(rm.ID))
	if code != ExitFailure || !strings.Contains(errOut, "was undone already") {
		t.Fatalf("second undo: %d %s", code, errOut)
	}
	code, _, errOut = docent(t, data, "undo", "--turn", "turn_nothing")
	if code != ExitFailure || !strings.Contains(errOut, "turn turn_nothing changed nothing in the history") {
		t.Fatalf("undo of an unknown turn: %d %s", code, errOut)
	}
	for _, args := range [][]string{{"undo"}, {"undo", "1", "--turn", "t"}, {"undo", "x"}, {"history", "extra"}} {
		if code, _, errOut := docent(t, data, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want usage error: %s", args, code, errOut)
		}
	}
}

// A delete by an MCP client is journaled as the client's (edge mcp, actor
// the name the client gave); `docent history --json` lists it so and
// `docent undo` brings the document back under its id.
func TestUndoOfAnMCPClientsDelete(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("DOCENT_MODEL", "")
	data := importNote(t)
	code, out, errOut := docent(t, data, "documents", "--json")
	var list struct{ Documents []storage.Document }
	if code != ExitOK || json.Unmarshal([]byte(out), &list) != nil || len(list.Documents) != 1 {
		t.Fatalf("documents: %d %s %s", code, out, errOut)
	}
	doc := list.Documents[0]

	cs, stderr := startMCP(t, "--data-dir", data, "mcp")
	if res := mcpCall(t, cs, "delete_document", map[string]any{"document_id": doc.ID}); res.IsError {
		t.Fatalf("delete_document: %s\nstderr: %s", mcpText(res), stderr)
	}
	cs.Close() // the CLI works on the store the client no longer holds open

	code, out, errOut = docent(t, data, "history", "--json")
	var h historyList
	if code != ExitOK || json.Unmarshal([]byte(out), &h) != nil || len(h.Entries) != 2 {
		t.Fatalf("history --json: %d %s %s", code, out, errOut)
	}
	del := h.Entries[0]
	if del.Edge != "mcp" || del.Actor != "docent-test-client" || del.DocumentID != doc.ID || !strings.HasPrefix(del.Summary, `deleted document "note.txt"`) {
		t.Fatalf("the MCP client's delete in the history: %+v", del)
	}
	if code, out, _ := docent(t, data, "text", doc.ID); code == ExitOK {
		t.Fatalf("text of the deleted document: %s", out)
	}

	code, out, errOut = docent(t, data, "undo", fmt.Sprint(del.ID))
	if code != ExitOK || !strings.HasPrefix(out, fmt.Sprintf("undid %d: deleted document \"note.txt\"", del.ID)) {
		t.Fatalf("undo: %d %q %s", code, out, errOut)
	}
	if code, out, _ := docent(t, data, "text", doc.ID); code != ExitOK || !strings.Contains(out, "A short note.") {
		t.Fatalf("text after undo: %d %s", code, out)
	}
	code, out, errOut = docent(t, data, "history", "--json")
	if code != ExitOK || json.Unmarshal([]byte(out), &h) != nil || len(h.Entries) != 3 || h.Entries[0].Undoes != del.ID || h.Entries[1].UndoneBy != h.Entries[0].ID {
		t.Fatalf("history after the undo: %d %s %s", code, out, errOut)
	}
}
