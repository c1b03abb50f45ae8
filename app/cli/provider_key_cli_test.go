package cli

import (
	"net/http"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
)

// `docent chat` against a model server that quotes the request's
// Authorization header in its error body prints the failure without the
// API key: the provider took it out.
func TestChatFailurePrintsNoAPIKey(t *testing.T) {
	const key = "sk-proj-4fQ9xT2mV7bN1cR8kL3wZ6yH0jD5sA"
	srv := modeltest.New(t)
	modelsEnv(t, srv)
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("DOCENT_MODEL", "openai/qwen3:8b")
	srv.Enqueue(modeltest.Reply{Fault: modeltest.Fault{Status: http.StatusUnauthorized, Message: "invalid key", QuoteAuthorization: true}})
	data := importNote(t)
	code, out, errOut := docent(t, data, "chat", "note.txt", "hi")
	if code == ExitOK || !strings.Contains(errOut, "invalid key") {
		t.Fatalf("chat: exit %d, want a failure with the server's message\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if got := srv.Requests()[len(srv.Requests())-1].Header.Get("Authorization"); got != "Bearer "+key {
		t.Fatalf("the request's Authorization header is %q: nothing to quote", got)
	}
	if strings.Contains(out+errOut, key) {
		t.Errorf("docent chat printed the API key:\nstdout: %s\nstderr: %s", out, errOut)
	}
}
