package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/app/server"
)

// A model server that quotes the request's Authorization header in its
// error body does not get the API key into the chat's 502 or its error
// event: the provider took it out.
func TestChatFailureShowsNoAPIKey(t *testing.T) {
	const key = "sk-proj-4fQ9xT2mV7bN1cR8kL3wZ6yH0jD5sA"
	model := modeltest.New(t)
	f := newFixture(t, func(c *server.Config) {
		reg := provider.NewRegistry(provider.Config{
			OllamaHost: model.OllamaURL(), OpenAIBaseURL: model.OpenAIURL(), OpenAIKey: key,
			IdleTimeout: 10 * time.Second, MaxRetries: -1,
		})
		c.Agent = &agent.Agent{DB: c.DB, Providers: reg, DefaultModel: "openai/qwen3:8b",
			Extractor: &agent.Extractor{DB: c.DB, Providers: reg, DefaultModel: "openai/qwen3:8b"}}
	})
	fault := modeltest.Reply{Fault: modeltest.Fault{Status: http.StatusInternalServerError, Message: "upstream failed", QuoteAuthorization: true}}
	path := "/api/documents/" + f.doc.ID + "/chat"

	model.Enqueue(fault)
	status, b := f.do("POST", path, map[string]any{"message": "hi"})
	if status != http.StatusBadGateway || !strings.Contains(string(b), "upstream failed") {
		t.Errorf("chat: %d %s, want a 502 with the server's message", status, b)
	}
	model.Enqueue(fault)
	raw, evs := f.stream(path, map[string]any{"message": "hi", "stream": true})
	if last := evs[len(evs)-1]; last.Type != agent.EventError || !strings.Contains(last.Payload.(agent.ErrorPayload).Error, "upstream failed") {
		t.Errorf("streamed chat ends with %+v, want the server's error", last)
	}
	if got := model.Requests()[0].Header.Get("Authorization"); got != "Bearer "+key {
		t.Fatalf("the request's Authorization header is %q: nothing to quote", got)
	}
	for name, text := range map[string]string{"502": string(b), "error event": raw} {
		if strings.Contains(text, key) {
			t.Errorf("%s holds the API key: %s", name, text)
		}
	}
}
