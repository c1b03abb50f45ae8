package settings_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/app/settings"
)

var (
	qwen  = modeltest.DefaultModel // qwen3:8b: completion, tools, thinking
	gemma = modeltest.Model{Name: "gemma3:4b", ContextLength: 131072, Capabilities: []string{"completion", "vision"}, Family: "gemma3"}
	embed = modeltest.Model{Name: "nomic-embed-text:latest", ContextLength: 2048, Capabilities: []string{"embedding"}, Family: "nomic-bert"}
)

// inspect runs Inspect on an Ollama at host alone.
func inspect(t *testing.T, host, defaultModel string) settings.Status {
	t.Helper()
	return settings.Inspect(context.Background(), provider.Config{OllamaHost: host, IdleTimeout: 10 * time.Second, MaxRetries: -1}, defaultModel)
}

func kinds(st settings.Status) []string {
	var out []string
	for _, s := range st.NextSteps {
		out = append(out, s.Kind)
	}
	return out
}

func wantKinds(t *testing.T, st settings.Status, want ...string) {
	t.Helper()
	if got := kinds(st); !slices.Equal(got, want) {
		t.Errorf("next steps %v, want %v:\n%+v", got, want, st.NextSteps)
	}
}

// The suggestions are one short list, the first of them the provider's.
func TestPullSuggestions(t *testing.T) {
	var names []string
	for _, s := range settings.PullSuggestions {
		names = append(names, s.Model)
	}
	if !slices.Equal(names, []string{"qwen3:8b", "qwen3:4b", "llama3.2:3b"}) || names[0] != provider.SuggestedModel {
		t.Errorf("suggestions %v", names)
	}
}

func TestSetupWithOllamaNotRunning(t *testing.T) {
	st := inspect(t, "http://127.0.0.1:1", "")
	if st.Ollama.Reachable || st.Ollama.Host != "http://127.0.0.1:1" || st.Ollama.Version != "" || st.Usable {
		t.Errorf("status %+v", st)
	}
	// The exact reason: the provider's sentence and the cause under it.
	for _, want := range []string{"cannot reach Ollama at http://127.0.0.1:1", "`ollama serve`", "(dial tcp 127.0.0.1:1"} {
		if !strings.Contains(st.Ollama.Error, want) {
			t.Errorf("error %q lacks %q", st.Ollama.Error, want)
		}
	}
	for _, want := range []string{"Ollama is not running at http://127.0.0.1:1", "`ollama serve`", settings.OllamaDownloadURL, "`ollama pull qwen3:8b`", "OpenAI-compatible"} {
		if !strings.Contains(st.Reason, want) {
			t.Errorf("reason %q lacks %q", st.Reason, want)
		}
	}
	wantKinds(t, st, settings.StepStartOllama, settings.StepInstallOllama, settings.StepPullModel, settings.StepChooseDefault, settings.StepUseOpenAI)
	install := st.NextSteps[1]
	if install.Command != "curl -fsSL https://ollama.com/install.sh | sh" || install.URL != "https://ollama.com/download" {
		t.Errorf("install step %+v", install)
	}
	if pull := st.NextSteps[2]; pull.Command != "ollama pull qwen3:8b" || !strings.Contains(pull.Text, "`ollama pull qwen3:4b`") || !strings.Contains(pull.Text, "`ollama pull llama3.2:3b`") {
		t.Errorf("pull step %+v", pull)
	}
	if st.PullCommand != "ollama pull qwen3:8b" || len(st.PullSuggestions) != 3 || st.PullSuggestions[1].Command != "ollama pull qwen3:4b" {
		t.Errorf("pull command %q, suggestions %+v", st.PullCommand, st.PullSuggestions)
	}
	if st.Models == nil || len(st.Models) != 0 {
		t.Errorf("models %+v, want []", st.Models)
	}
	if !strings.HasPrefix(st.Hint(), "No model yet: Ollama is not running") {
		t.Errorf("hint %q", st.Hint())
	}

	// With a default model, it is that one to pull once Ollama runs.
	st = inspect(t, "http://127.0.0.1:1", "ollama/gemma3:4b")
	if st.PullCommand != "ollama pull gemma3:4b" || strings.Contains(st.Reason, "ollama pull") {
		t.Errorf("with a default: pull %q, reason %q", st.PullCommand, st.Reason)
	}
	wantKinds(t, st, settings.StepStartOllama, settings.StepInstallOllama, settings.StepUseOpenAI)

	// An OLLAMA_HOST that is no URL: fix it.
	st = inspect(t, "http://[::1", "")
	if st.Ollama.Reachable || !strings.Contains(st.Ollama.Error, "is not a host or URL") || !strings.HasPrefix(st.Reason, "the Ollama host is not a URL") {
		t.Errorf("bad host %+v", st)
	}
	wantKinds(t, st, settings.StepFixOllamaHost, settings.StepUseOpenAI)
}

func TestSetupWithNothingPulled(t *testing.T) {
	srv := modeltest.New(t)
	srv.SetModels()
	st := inspect(t, srv.OllamaURL(), "")
	if !st.Ollama.Reachable || st.Ollama.Error != "" || st.Ollama.Version != "0.17.4" || st.Usable || len(st.Models) != 0 {
		t.Errorf("status %+v", st)
	}
	if want := "Ollama at " + srv.OllamaURL() + " has no models pulled: run `ollama pull qwen3:8b`"; !strings.HasPrefix(st.Reason, want) {
		t.Errorf("reason %q, want %q…", st.Reason, want)
	}
	wantKinds(t, st, settings.StepPullModel, settings.StepChooseDefault, settings.StepUseOpenAI)
	if !strings.Contains(st.NextSteps[1].Text, "ollama/qwen3:8b") {
		t.Errorf("choose step %+v", st.NextSteps[1])
	}
}

func TestSetupRecommendsAPulledModel(t *testing.T) {
	srv := modeltest.New(t, gemma, embed, qwen)

	// No default model: the one that calls tools is recommended for both.
	st := inspect(t, srv.OllamaURL(), "")
	if st.Usable || st.Recommended != (settings.Recommended{Agent: "ollama/qwen3:8b", Extraction: "ollama/qwen3:8b"}) {
		t.Errorf("status %+v", st)
	}
	if st.Reason != "no default model is chosen: choose ollama/qwen3:8b in Settings" {
		t.Errorf("reason %q", st.Reason)
	}
	wantKinds(t, st, settings.StepChooseDefault)
	var ids []string
	for _, m := range st.Models {
		ids = append(ids, m.ID+"="+strings.Join(m.RecommendedFor, "+"))
		if m.ID == "ollama/gemma3:4b" && (m.ContextLength != 131072 || !m.Has("vision") || m.Has("tools")) {
			t.Errorf("gemma %+v", m)
		}
	}
	if strings.Join(ids, " ") != "ollama/gemma3:4b= ollama/nomic-embed-text:latest= ollama/qwen3:8b=agent+extraction" {
		t.Errorf("models %v", ids)
	}

	// The recommended default: usable, nothing to do.
	st = inspect(t, srv.OllamaURL(), "ollama/qwen3:8b")
	if !st.Usable || st.Reason != "" || len(st.NextSteps) != 0 || st.Hint() != "" {
		t.Errorf("with qwen3:8b as default %+v", st)
	}

	// A default without tools works (through the text protocol), and the
	// step says which pulled model does better.
	st = inspect(t, srv.OllamaURL(), "ollama/gemma3:4b")
	if !st.Usable || st.Recommended.Agent != "ollama/qwen3:8b" {
		t.Errorf("with gemma3:4b as default %+v", st)
	}
	wantKinds(t, st, settings.StepNoTools)
	if !strings.Contains(st.NextSteps[0].Text, "ollama/gemma3:4b cannot call tools") || !strings.Contains(st.NextSteps[0].Text, "ollama/qwen3:8b can") {
		t.Errorf("no-tools step %+v", st.NextSteps[0])
	}

	// An embedding model cannot chat.
	st = inspect(t, srv.OllamaURL(), "ollama/nomic-embed-text:latest")
	if st.Usable || !strings.Contains(st.Reason, "cannot chat") {
		t.Errorf("with an embedding model as default %+v", st)
	}
	wantKinds(t, st, settings.StepChooseDefault)

	// A default that is not pulled: its own pull command.
	st = inspect(t, srv.OllamaURL(), "ollama/llama3.2:3b")
	if st.Usable || st.PullCommand != "ollama pull llama3.2:3b" || !strings.Contains(st.Reason, "is not pulled: run `ollama pull llama3.2:3b`") {
		t.Errorf("with a default not pulled %+v", st)
	}
	wantKinds(t, st, settings.StepPullModel, settings.StepChooseDefault)

	// A default that is no model id.
	st = inspect(t, srv.OllamaURL(), "qwen3:8b")
	if st.Usable || !strings.Contains(st.Reason, "name it with its provider") {
		t.Errorf("with an unprefixed default %+v", st)
	}
}

func TestSetupWithoutAModelThatCallsTools(t *testing.T) {
	srv := modeltest.New(t, gemma, embed)
	st := inspect(t, srv.OllamaURL(), "")
	if st.Usable || st.Recommended != (settings.Recommended{Extraction: "ollama/gemma3:4b"}) || st.PullCommand != "ollama pull qwen3:8b" {
		t.Errorf("status %+v", st)
	}
	if !strings.HasPrefix(st.Reason, "none of the pulled models can call tools: run `ollama pull qwen3:8b`") {
		t.Errorf("reason %q", st.Reason)
	}
	wantKinds(t, st, settings.StepPullModel, settings.StepChooseDefault)

	// Only an embedding model: as good as none.
	srv.SetModels(embed)
	st = inspect(t, srv.OllamaURL(), "")
	if st.Usable || st.Recommended != (settings.Recommended{}) || !strings.Contains(st.Reason, "has no model pulled that can chat") {
		t.Errorf("embedding only %+v", st)
	}
}

// A model of the OpenAI-compatible server is usable as the default while
// Ollama is down; its capabilities are unknown, so it is not recommended.
func TestSetupWithAnOpenAICompatibleServer(t *testing.T) {
	srv := modeltest.New(t)
	cfg := provider.Config{OllamaHost: "http://127.0.0.1:1", OpenAIBaseURL: srv.OpenAIURL(), OpenAIKey: "sk-test", MaxRetries: -1}
	st := settings.Inspect(context.Background(), cfg, "openai/qwen3:8b")
	if !st.Usable || st.Ollama.Reachable || !st.OpenAI.Configured || !st.OpenAI.Reachable || len(st.Models) != 1 || st.Recommended != (settings.Recommended{}) {
		t.Errorf("status %+v", st)
	}
	st = settings.Inspect(context.Background(), cfg, "")
	if st.Usable || st.Reason != "no default model is chosen: choose one of the models offered in Settings" {
		t.Errorf("without a default %+v", st)
	}
	st = settings.Inspect(context.Background(), cfg, "openai/gpt-4o")
	if st.Usable || !strings.Contains(st.Reason, "is not offered by the OpenAI-compatible server at "+srv.OpenAIURL()) {
		t.Errorf("a default it does not offer %+v", st)
	}
	st = settings.Inspect(context.Background(), provider.Config{OllamaHost: "http://127.0.0.1:1", MaxRetries: -1}, "openai/gpt-4o")
	if st.Usable || st.OpenAI.Configured || !strings.Contains(st.Reason, "needs an OpenAI-compatible server") {
		t.Errorf("an OpenAI default without a server %+v", st)
	}
}

// Live.Status reads the settings in effect and says where the default
// model comes from.
func TestLiveStatus(t *testing.T) {
	srv := modeltest.New(t)
	f := newFixture(t, provider.Config{OllamaHost: srv.OllamaURL()}, "")
	st, err := f.live.Status(context.Background())
	if err != nil || st.Usable || st.DefaultModelSource != "default" || st.Recommended.Agent != "ollama/qwen3:8b" {
		t.Fatalf("before choosing %+v, %v", st, err)
	}
	f.put(map[string]string{"default_model": "ollama/qwen3:8b"})
	if st, err = f.live.Status(context.Background()); err != nil || !st.Usable || st.DefaultModel != "ollama/qwen3:8b" || st.DefaultModelSource != "settings" {
		t.Errorf("after choosing %+v, %v", st, err)
	}
	env := newFixture(t, provider.Config{OllamaHost: srv.OllamaURL()}, "ollama/qwen3:8b")
	if st, err = env.live.Status(context.Background()); err != nil || !st.Usable || st.DefaultModelSource != "env" {
		t.Errorf("from the environment %+v, %v", st, err)
	}
}
