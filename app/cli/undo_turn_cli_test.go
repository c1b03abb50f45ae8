package cli

import (
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
)

// idAfter is the word that follows prefix in s, "" when prefix is not in s.
func idAfter(s, prefix string) string {
	i := strings.Index(s, prefix)
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+len(prefix):])
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// A turn that changed something ends with how to undo it; `docent undo
// --turn` takes that id, and also the turn id a pause printed (the one
// given to docent approve).
func TestChatAndApprovePrintHowToUndoAndUndoTakesThePausesID(t *testing.T) {
	srv := modeltest.New(t)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("DOCENT_MODEL", "ollama/qwen3:8b")
	data := importNote(t)

	srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "t1", Name: "create_tag", Arguments: `{"name":"paid"}`}}})
	code, _, errOut := docent(t, data, "chat", "note.txt", "tag it")
	pause := idAfter(errOut, "approve with: docent approve ")
	if code != ExitOK || pause == "" || strings.Contains(errOut, "undo with:") {
		t.Fatalf("chat that paused before any change: exit %d\n%s", code, errOut)
	}
	srv.Enqueue(modeltest.Reply{Text: "Tagged."})
	code, _, errOut = docent(t, data, "approve", pause, "--all")
	turn := idAfter(errOut, "undo with: docent undo --turn ")
	if code != ExitOK || turn == "" || turn == pause {
		t.Fatalf("approve that changed something: exit %d, undo id %q (pause %s)\n%s", code, turn, pause, errOut)
	}

	code, out, errOut := docent(t, data, "undo", "--turn", pause)
	if code != ExitOK || !strings.Contains(out, `created tag "paid"`) {
		t.Fatalf("undo --turn with the pause's id: exit %d %q %s", code, out, errOut)
	}
	code, _, errOut = docent(t, data, "undo", "--turn", turn)
	if code != ExitFailure || !strings.Contains(errOut, "every change of turn "+turn+" is undone already") {
		t.Fatalf("undo --turn with the id printed after the turn: exit %d %s", code, errOut)
	}

	// A turn that changed nothing prints no way to undo it.
	srv.Enqueue(modeltest.Reply{Text: "Nothing to do."})
	if code, _, errOut := docent(t, data, "chat", "note.txt", "hello"); code != ExitOK || strings.Contains(errOut, "undo with:") {
		t.Fatalf("chat that changed nothing: exit %d\n%s", code, errOut)
	}
}
