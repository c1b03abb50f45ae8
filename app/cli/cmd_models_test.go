package cli

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
	// Which OCR engines are ready, and where PP-OCR's files come from.
	if ocr := list.OCR; ocr.PPOCR != "" {
		if !strings.Contains(ocr.PPOCRFrom, "models ") || !strings.Contains(errOut, "PP-OCR is ready: "+ocr.PPOCR+" ("+ocr.PPOCRFrom+")") {
			t.Errorf("PP-OCR is ready but from %q; stderr %q", ocr.PPOCRFrom, errOut)
		}
	} else if ocr.PPOCRNote == "" || !strings.Contains(errOut, "PP-OCR is off. "+ocr.PPOCRNote) {
		t.Errorf("PP-OCR is off without saying why: %+v; stderr %q", ocr, errOut)
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

// TestModelsWithOllamaNotRunningSaysHowToStartOrInstallIt: the exact cause,
// then what to do, in order; exit 1, as no model is offered.
func TestModelsWithOllamaNotRunningSaysHowToStartOrInstallIt(t *testing.T) {
	t.Setenv("OLLAMA_HOST", "http://127.0.0.1:1")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("DOCENT_MODEL", "")
	data := t.TempDir()

	code, out, errOut := docent(t, data, "models")
	if code != ExitFailure || out != "" {
		t.Errorf("exit %d, stdout %q; want 1 and nothing listed", code, out)
	}
	for _, want := range []string{
		"warning: cannot reach Ollama at http://127.0.0.1:1", "(dial tcp 127.0.0.1:1",
		"No model yet: Ollama is not running at http://127.0.0.1:1", "Next steps:\n  1. Start Ollama (`ollama serve`",
		"https://ollama.com/download", "`curl -fsSL https://ollama.com/install.sh | sh`", "`ollama pull qwen3:8b`",
		"--model ollama/qwen3:8b", "OPENAI_BASE_URL",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}

	code, out, _ = docent(t, data, "models", "--json")
	var list modelList
	if code != ExitFailure || json.Unmarshal([]byte(out), &list) != nil {
		t.Fatalf("--json: exit %d, %s", code, out)
	}
	if list.Usable || list.Ollama.Reachable || list.Ollama.Host != "http://127.0.0.1:1" || len(list.Errors) != 1 ||
		list.PullCommand != "ollama pull qwen3:8b" || len(list.NextSteps) != 5 || list.NextSteps[0].Kind != "start_ollama" {
		t.Errorf("--json %s", out)
	}
}

// TestModelsRecommendsAPulledModelUntilOneIsChosen: models pulled but no
// default: the list, and on stderr which one to choose and how; exit 0, as
// --model can name one. Once chosen, nothing more is said.
func TestModelsRecommendsAPulledModelUntilOneIsChosen(t *testing.T) {
	srv := modeltest.New(t,
		modeltest.Model{Name: "gemma3:4b", ContextLength: 131072, Capabilities: []string{"completion", "vision"}, Family: "gemma3"},
		modeltest.DefaultModel)
	modelsEnv(t, srv)
	data := t.TempDir()

	code, out, errOut := docent(t, data, "models")
	if code != ExitOK || !strings.Contains(out, "ollama/gemma3:4b") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	embedNote := "note: search by meaning is off: run `ollama pull nomic-embed-text`, then choose ollama/nomic-embed-text as the embedding model in Settings (or --embed-model ollama/nomic-embed-text)\n"
	want := "No model yet: no default model is chosen: choose ollama/qwen3:8b in Settings\nNext steps:\n" +
		"  1. Choose ollama/qwen3:8b as the default model: in Settings, or with --model ollama/qwen3:8b (or DOCENT_MODEL) on the command line\n" +
		embedNote
	if got := afterOCRLine(t, errOut); got != want {
		t.Errorf("stderr\n%s\nwant the OCR line, then\n%s", errOut, want)
	}
	code, out, _ = docent(t, data, "models", "--json")
	var list modelList
	if code != ExitOK || json.Unmarshal([]byte(out), &list) != nil || len(list.Models) != 2 {
		t.Fatalf("--json: exit %d, %s", code, out)
	}
	if list.Usable || list.Recommended.Agent != "ollama/qwen3:8b" || list.Recommended.Extraction != "ollama/qwen3:8b" ||
		strings.Join(list.Models[1].RecommendedFor, ",") != "agent,extraction" || list.Models[0].RecommendedFor == nil || list.Ollama.Version != "0.17.4" {
		t.Errorf("--json %s", out)
	}

	code, _, errOut = docent(t, data, "--model", "ollama/qwen3:8b", "models")
	if code != ExitOK || afterOCRLine(t, errOut) != embedNote {
		t.Errorf("with a usable default: exit %d, stderr %q; want only the note on search by meaning", code, errOut)
	}
	code, out, errOut = docent(t, data, "--model", "ollama/qwen3:8b", "--embed-model", "ollama/nomic-embed-text", "models", "--json")
	var withEmbed modelList
	if code != ExitOK || afterOCRLine(t, errOut) != "" || json.Unmarshal([]byte(out), &withEmbed) != nil || withEmbed.EmbedModel != "ollama/nomic-embed-text" || withEmbed.EmbedSuggestion != nil {
		t.Errorf("with an embedding model too: exit %d, stderr %q; want nothing said\n%s", code, errOut, out)
	}
	code, _, errOut = docent(t, data, "--model", "ollama/gemma3:4b", "models")
	if code != ExitOK || !strings.HasPrefix(afterOCRLine(t, errOut), "note: ollama/gemma3:4b cannot call tools") || !strings.Contains(errOut, "ollama/qwen3:8b can") {
		t.Errorf("with a default without tools: exit %d, stderr %q", code, errOut)
	}
}

// afterOCRLine is what `docent models` says on stderr after its first
// line, which names the OCR engines that are ready (checked in
// TestModelsWithNothingPulledSaysHowToGetOne): the part about models.
func afterOCRLine(t *testing.T, errOut string) string {
	t.Helper()
	first, rest, _ := strings.Cut(errOut, "\n")
	if !strings.HasPrefix(first, "OCR") {
		t.Errorf("stderr does not start with the OCR line: %q", errOut)
	}
	return rest
}
