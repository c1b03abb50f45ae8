package app

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
)

// modelsEnv points the providers at srv's Ollama alone.
func modelsEnv(t *testing.T, srv *modeltest.Server) {
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("DOCENT_MODEL", "")
}

// TestModelsWithNothingPulledSaysHowToGetOne: Ollama runs but has no
// model; `docent models` says so, prints the exact pull command, and fails.
func TestModelsWithNothingPulledSaysHowToGetOne(t *testing.T) {
	srv := modeltest.New(t)
	srv.SetModels()
	modelsEnv(t, srv)
	data := t.TempDir()

	code, out, errOut := docent(t, data, "models")
	if code != ExitFailure || out != "" {
		t.Errorf("exit %d, stdout %q; want 1 and nothing listed", code, out)
	}
	for _, want := range []string{"no models", "Ollama at " + srv.OllamaURL(), "`ollama pull qwen3:8b`"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q does not say %q", errOut, want)
		}
	}

	code, out, errOut = docent(t, data, "models", "--json")
	var list modelList
	if code != ExitFailure || json.Unmarshal([]byte(out), &list) != nil || list.Models == nil || len(list.Models) != 0 {
		t.Errorf("--json: exit %d, stdout %q; want 1 and an empty list", code, out)
	}
	if !strings.Contains(errOut, "ollama pull qwen3:8b") {
		t.Errorf("--json stderr %q lacks the pull command", errOut)
	}

	// The default model, when it is an Ollama one, is the one to pull.
	code, _, errOut = docent(t, data, "--model", "ollama/gemma3:4b", "models")
	if code != ExitFailure || !strings.Contains(errOut, "`ollama pull gemma3:4b`") {
		t.Errorf("with --model: exit %d, %q; want the pull command of gemma3:4b", code, errOut)
	}
}

// TestModelsShowsOllamasContextLengthAndCapabilities: the context column
// comes from /api/show, as Registry.Limits reads it.
func TestModelsShowsOllamasContextLengthAndCapabilities(t *testing.T) {
	srv := modeltest.New(t, modeltest.DefaultModel,
		modeltest.Model{Name: "gemma3:4b", ContextLength: 131072, Capabilities: []string{"completion", "vision"}, Family: "gemma3"})
	modelsEnv(t, srv)
	data := t.TempDir()

	code, out, errOut := docent(t, data, "models")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, row := range [][]string{
		{"ollama/qwen3:8b", "ollama", "40960", "completion,tools,thinking"},
		{"ollama/gemma3:4b", "ollama", "131072", "completion,vision"},
	} {
		found := false
		for _, line := range strings.Split(out, "\n") {
			if strings.Join(strings.Fields(line), " ") == strings.Join(row, " ") {
				found = true
			}
		}
		if !found {
			t.Errorf("no row %v in:\n%s", row, out)
		}
	}

	code, out, _ = docent(t, data, "models", "--json")
	var list modelList
	if code != ExitOK || json.Unmarshal([]byte(out), &list) != nil || len(list.Models) != 2 {
		t.Fatalf("--json: exit %d, %s", code, out)
	}
	if m := list.Models[0]; m.ContextLength != 40960 || !m.Has("tools") {
		t.Errorf("--json first model %+v, want context 40960 and tools", m)
	}
}
