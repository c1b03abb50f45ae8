package cli

import (
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
)

// `docent chat` says so on stderr when the model server cut the prompt to
// fit its window (Ollama does it silently), with what to change.
func TestChatSaysWhenTheServerCutThePrompt(t *testing.T) {
	srv := modeltest.New(t)
	modelsEnv(t, srv)
	t.Setenv("DOCENT_MODEL", "ollama/qwen3:8b")
	t.Setenv("DOCENT_MAX_CONTEXT", "20000")
	srv.Enqueue(modeltest.Reply{Text: "A long list of widgets."})
	data := importNote(t)
	code, out, errOut := docent(t, data, "chat", "note.txt", "Summarize this: "+strings.Repeat("Widgets 10.00 ", 60000/14))
	if code != ExitOK || !strings.Contains(out, "A long list of widgets.") {
		t.Fatalf("chat: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if rec := srv.Requests()[0]; rec.Truncated != modeltest.TruncatedStart {
		t.Fatalf("the server did not cut the prompt (%d tokens in a %d window)", rec.PromptTokens, rec.Window)
	}
	if !strings.Contains(errOut, "! ") || !strings.Contains(errOut, "the model saw only the last 20,000 tokens") || !strings.Contains(errOut, "DOCENT_MAX_CONTEXT") {
		t.Errorf("stderr does not warn of the cut prompt:\n%s", errOut)
	}
}

// `docent chat` says so on stderr when the model server cut the answer at
// its output limit, with what to change.
func TestChatSaysWhenTheServerCutTheAnswer(t *testing.T) {
	srv := modeltest.New(t)
	modelsEnv(t, srv)
	t.Setenv("DOCENT_MODEL", "ollama/qwen3:8b")
	srv.Enqueue(modeltest.Reply{Text: "The widgets are: one, two, th", DoneReason: "length"})
	data := importNote(t)
	code, out, errOut := docent(t, data, "chat", "note.txt", "List every widget.")
	if code != ExitOK || !strings.Contains(out, "one, two, th") {
		t.Fatalf("chat: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "! the model server stopped the answer at its output limit") || !strings.Contains(errOut, "num_predict") {
		t.Errorf("stderr does not warn of the cut answer:\n%s", errOut)
	}
}
