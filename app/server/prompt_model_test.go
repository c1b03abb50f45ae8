package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// A prompt's model is checked as the settings' default model is, on the
// HTTP routes as in the agent's tools.
func TestPromptModelIsChecked(t *testing.T) {
	f := newFixture(t)
	msg := f.wantError(http.MethodPost, "/api/prompts", map[string]any{"name": "p", "content": "x", "model": "anthropic/claude"}, http.StatusBadRequest, "invalid")
	if !strings.Contains(msg, `unknown provider "anthropic"`) {
		t.Errorf("create with an unknown provider: %q", msg)
	}
	var p struct {
		PromptID string `json:"prompt_id"`
	}
	f.call(http.MethodPost, "/api/prompts", map[string]any{"name": "p", "content": "x", "model": "ollama/qwen3:8b"}, http.StatusCreated, &p)
	msg = f.wantError(http.MethodPut, "/api/prompts/"+p.PromptID, map[string]any{"model": "qwen3:8b"}, http.StatusBadRequest, "invalid")
	if !strings.Contains(msg, "name it with its provider") {
		t.Errorf("update without a provider: %q", msg)
	}
}
