package server_test

import (
	"context"
	"github.com/docent/docent/app/ingest/pdftext"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/app/settings"
	"github.com/docent/docent/storage/secret"
)

// TestMain keeps the tests away from the user's keyring (saved keys go to
// the key file in each test's temporary folder), and lets this test binary
// serve as the PDF reader child of uploads, as main does for docent.
func TestMain(m *testing.M) {
	pdftext.RunChildIfRequested()
	os.Setenv(secret.KeyringEnv, "off")
	os.Exit(m.Run())
}

// withSettings gives the fixture's server live settings over its store,
// with env as the environment's provider configuration. The rules of the
// settings themselves are tested in package settings; these tests are of
// the routes over them.
func withSettings(t testing.TB, env provider.Config, envModel string) func(*server.Config) {
	return func(cfg *server.Config) {
		db := cfg.DB
		env.IdleTimeout, env.MaxRetries = 10*time.Second, -1
		ls, err := settings.NewLive(context.Background(), db, env, envModel, func(setup settings.Setup) *agent.Agent {
			reg := provider.NewRegistry(setup.Config)
			return &agent.Agent{DB: db, Providers: reg, DefaultModel: setup.DefaultModel,
				Extractor: &agent.Extractor{DB: db, Providers: reg, DefaultModel: setup.DefaultModel}}
		})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Agent, cfg.Settings = nil, ls
	}
}

type settingsBody struct {
	OllamaHost    string            `json:"ollama_host"`
	OpenAIBaseURL string            `json:"openai_base_url"`
	OpenAIKeySet  bool              `json:"openai_api_key_set"`
	DefaultModel  string            `json:"default_model"`
	Sources       map[string]string `json:"sources"`
}

type modelsBody struct {
	Models  []struct{ ID, Provider string }
	Default string
	Errors  []string
}

func (m modelsBody) has(id string) bool {
	for _, x := range m.Models {
		if x.ID == id {
			return true
		}
	}
	return false
}

const secretKey = "sk-secret-0123456789"

func TestSettingsApplyWithoutRestart(t *testing.T) {
	f := newFixture(t, withSettings(t, provider.Config{}, ""))
	var got settingsBody
	f.call("GET", "/api/settings", nil, http.StatusOK, &got)
	if got.OllamaHost != provider.DefaultOllamaHost || got.OpenAIBaseURL != provider.DefaultOpenAIBaseURL || got.OpenAIKeySet || got.DefaultModel != "" ||
		got.Sources["ollama_host"] != "default" || got.Sources["openai_api_key"] != "default" || got.Sources["default_model"] != "default" {
		t.Errorf("initial settings %+v", got)
	}

	other := modeltest.New(t, modeltest.Model{Name: "llama3.2:1b", ContextLength: 8192, Capabilities: []string{"completion", "tools"}, Family: "llama"})
	put := map[string]string{
		"ollama_host": other.OllamaURL(), "openai_base_url": f.model.OpenAIURL(),
		"openai_api_key": secretKey, "default_model": "ollama/llama3.2:1b",
	}
	b := f.call("PUT", "/api/settings", put, http.StatusOK, &got)
	if strings.Contains(string(b), secretKey) {
		t.Errorf("PUT echoed the key: %s", b)
	}
	if got.OllamaHost != other.OllamaURL() || got.OpenAIBaseURL != f.model.OpenAIURL() || !got.OpenAIKeySet || got.DefaultModel != "ollama/llama3.2:1b" ||
		got.Sources["ollama_host"] != "settings" || got.Sources["openai_api_key"] != "settings" {
		t.Errorf("after PUT %+v", got)
	}
	if b := f.call("GET", "/api/settings", nil, http.StatusOK, nil); strings.Contains(string(b), secretKey) {
		t.Errorf("GET echoed the key: %s", b)
	}
	saved, err := f.db.GetProviderSettings(context.Background())
	if err != nil || saved.OllamaHost != other.OllamaURL() || saved.OpenAIKey.Reveal() != secretKey {
		t.Errorf("saved %+v, %v", saved, err)
	}

	// The next request runs on the new providers: no restart.
	var models modelsBody
	f.call("GET", "/api/models", nil, http.StatusOK, &models)
	if !models.has("ollama/llama3.2:1b") || models.has("ollama/qwen3:8b") || !models.has("openai/qwen3:8b") || models.Default != "ollama/llama3.2:1b" || len(models.Errors) != 0 {
		t.Errorf("models after PUT %+v", models)
	}

	var test struct{ Providers []settings.Check }
	f.call("POST", "/api/settings/test", nil, http.StatusOK, &test)
	if len(test.Providers) != 2 || !test.Providers[0].OK || strings.Join(test.Providers[0].Models, ",") != "ollama/llama3.2:1b" ||
		!test.Providers[1].OK || !test.Providers[1].Configured || len(test.Providers[1].Models) == 0 {
		t.Errorf("test %+v", test)
	}
	// A test of unsaved values reports the failure and saves nothing.
	f.call("POST", "/api/settings/test", map[string]string{"ollama_host": "http://127.0.0.1:1"}, http.StatusOK, &test)
	if test.Providers[0].OK || test.Providers[0].Error == "" || test.Providers[0].URL != "http://127.0.0.1:1" || !test.Providers[1].OK {
		t.Errorf("test of a closed port %+v", test)
	}
	f.call("GET", "/api/settings", nil, http.StatusOK, &got)
	if got.OllamaHost != other.OllamaURL() {
		t.Errorf("a test changed the settings: %+v", got)
	}

	// Bad values are refused, and change nothing.
	for _, body := range []string{
		`{"ollama_host":"ftp://example.com"}`,
		`{"ollama_host":"localhost:11434"}`,
		`{"openai_base_url":"http://"}`,
		`{"openai_base_url":"not a url"}`,
		`{"default_model":"qwen3:8b"}`,
		`{"default_model":"mistral/large"}`,
		`{"openai_api_key":"two words"}`,
		`{"openai_api_key_set":true}`,
		``,
	} {
		f.wantError("PUT", "/api/settings", body, http.StatusBadRequest, "invalid")
	}
	f.wantError("POST", "/api/settings/test", `{"ollama_host":"nope"}`, http.StatusBadRequest, "invalid")
	f.call("GET", "/api/settings", nil, http.StatusOK, &got)
	if got.OllamaHost != other.OllamaURL() || got.DefaultModel != "ollama/llama3.2:1b" || !got.OpenAIKeySet {
		t.Errorf("a refused PUT changed the settings: %+v", got)
	}

	// "" removes a saved value: the default applies again.
	f.call("PUT", "/api/settings", map[string]string{"openai_api_key": "", "default_model": ""}, http.StatusOK, &got)
	if got.OpenAIKeySet || got.DefaultModel != "" || got.Sources["openai_api_key"] != "default" || got.OllamaHost != other.OllamaURL() {
		t.Errorf("after clearing %+v", got)
	}
}

// An environment variable that is set wins over the saved value, and the
// answer says so.
func TestEnvironmentWinsOverSettings(t *testing.T) {
	envServer := modeltest.New(t) // offers qwen3:8b
	f := newFixture(t, withSettings(t, provider.Config{OllamaHost: envServer.OllamaURL(), OpenAIBaseURL: envServer.OpenAIURL(), OpenAIKey: "env-key"}, testModel))
	other := modeltest.New(t, modeltest.Model{Name: "llama3.2:1b"})
	var got settingsBody
	b := f.call("PUT", "/api/settings", map[string]string{"ollama_host": other.OllamaURL(), "default_model": "ollama/llama3.2:1b"}, http.StatusOK, &got)
	if strings.Contains(string(b), "env-key") {
		t.Errorf("the key was echoed: %s", b)
	}
	if got.Sources["ollama_host"] != "env" || got.OllamaHost == other.OllamaURL() || got.Sources["default_model"] != "env" || got.DefaultModel != testModel ||
		got.Sources["openai_api_key"] != "env" || !got.OpenAIKeySet {
		t.Errorf("env did not win: %+v", got)
	}
	var models modelsBody
	f.call("GET", "/api/models", nil, http.StatusOK, &models)
	if !models.has("ollama/qwen3:8b") || models.has("ollama/llama3.2:1b") || models.Default != testModel {
		t.Errorf("models %+v", models)
	}
	saved, err := f.db.GetProviderSettings(context.Background())
	if err != nil || saved.OllamaHost != other.OllamaURL() {
		t.Errorf("the setting was not saved for later: %+v, %v", saved, err)
	}
}

func TestSettingsRoutesWithoutSettings(t *testing.T) {
	f := newFixture(t)
	f.wantError("GET", "/api/settings", nil, http.StatusServiceUnavailable, "unavailable")
	f.wantError("PUT", "/api/settings", `{}`, http.StatusServiceUnavailable, "unavailable")
}

// setupBody is GET /api/setup as a client reads it.
type setupBody struct {
	Ollama struct {
		Host      string `json:"host"`
		Reachable bool   `json:"reachable"`
		Error     string `json:"error"`
		Version   string `json:"version"`
	} `json:"ollama"`
	Models []struct {
		ID             string   `json:"id"`
		Capabilities   []string `json:"capabilities"`
		ContextLength  int      `json:"context_length"`
		RecommendedFor []string `json:"recommended_for"`
	} `json:"models"`
	DefaultModel       string `json:"default_model"`
	DefaultModelSource string `json:"default_model_source"`
	Recommended        struct{ Agent, Extraction string }
	Usable             bool   `json:"usable"`
	Reason             string `json:"reason"`
	NextSteps          []struct {
		Kind, Text, Command, URL string
	} `json:"next_steps"`
	PullCommand string `json:"pull_command"`
}

func (s setupBody) kinds() string {
	var out []string
	for _, st := range s.NextSteps {
		out = append(out, st.Kind)
	}
	return strings.Join(out, ",")
}

// A new user: Ollama not running, then running with nothing pulled, then
// with a model pulled but not chosen, then chosen in Settings.
func TestSetupFromFirstRunToUsable(t *testing.T) {
	ollama := modeltest.New(t)
	ollama.SetModels()
	f := newFixture(t, withSettings(t, provider.Config{}, ""))
	f.call("PUT", "/api/settings", map[string]string{"ollama_host": "http://127.0.0.1:1"}, http.StatusOK, nil)

	var got setupBody
	b := f.call("GET", "/api/setup", nil, http.StatusOK, &got)
	if got.Ollama.Reachable || got.Ollama.Host != "http://127.0.0.1:1" || !strings.Contains(got.Ollama.Error, "cannot reach Ollama") ||
		got.Usable || got.Models == nil || len(got.Models) != 0 || got.PullCommand != "ollama pull qwen3:8b" ||
		got.kinds() != "start_ollama,install_ollama,pull_model,choose_default,use_openai" {
		t.Errorf("Ollama not running: %s", b)
	}
	if !strings.Contains(got.Reason, "Ollama is not running") || got.NextSteps[1].URL != "https://ollama.com/download" {
		t.Errorf("Ollama not running: reason %q, steps %+v", got.Reason, got.NextSteps)
	}

	f.call("PUT", "/api/settings", map[string]string{"ollama_host": ollama.OllamaURL()}, http.StatusOK, nil)
	b = f.call("GET", "/api/setup", nil, http.StatusOK, &got)
	if !got.Ollama.Reachable || got.Ollama.Error != "" || got.Ollama.Version != "0.17.4" || got.Usable ||
		!strings.Contains(got.Reason, "has no models pulled") || got.kinds() != "pull_model,choose_default,use_openai" || got.NextSteps[0].Command != "ollama pull qwen3:8b" {
		t.Errorf("nothing pulled: %s", b)
	}

	ollama.SetModels(modeltest.Model{Name: "gemma3:4b", ContextLength: 131072, Capabilities: []string{"completion", "vision"}, Family: "gemma3"}, modeltest.DefaultModel)
	b = f.call("GET", "/api/setup", nil, http.StatusOK, &got)
	if got.Usable || got.Recommended.Agent != "ollama/qwen3:8b" || got.Recommended.Extraction != "ollama/qwen3:8b" || len(got.Models) != 2 ||
		got.DefaultModel != "" || got.DefaultModelSource != "default" || got.kinds() != "choose_default" {
		t.Errorf("pulled, not chosen: %s", b)
	}
	if m := got.Models[1]; m.ID != "ollama/qwen3:8b" || m.ContextLength != 40960 || strings.Join(m.Capabilities, ",") != "completion,tools,thinking" ||
		strings.Join(m.RecommendedFor, ",") != "agent,extraction" || len(got.Models[0].RecommendedFor) != 0 {
		t.Errorf("models: %s", b)
	}

	// The model picker saves the default model with PUT /api/settings.
	f.call("PUT", "/api/settings", map[string]string{"default_model": got.Recommended.Agent}, http.StatusOK, nil)
	b = f.call("GET", "/api/setup", nil, http.StatusOK, &got)
	if !got.Usable || got.Reason != "" || len(got.NextSteps) != 0 || got.DefaultModel != "ollama/qwen3:8b" || got.DefaultModelSource != "settings" {
		t.Errorf("chosen: %s", b)
	}
}

func TestSetupWithoutSettings(t *testing.T) {
	f := newFixture(t)
	f.wantError("GET", "/api/setup", nil, http.StatusServiceUnavailable, "unavailable")
}
