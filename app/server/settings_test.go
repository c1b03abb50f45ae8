package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/secret"
)

// TestMain keeps the tests away from the user's keyring: saved keys go to
// the key file in each test's temporary folder.
func TestMain(m *testing.M) {
	os.Setenv(secret.KeyringEnv, "off")
	os.Exit(m.Run())
}

// withSettings gives the fixture's server live settings over its store,
// with env as the environment's provider configuration.
func withSettings(t testing.TB, env provider.Config, envModel string) func(*server.Config) {
	return func(cfg *server.Config) {
		db := cfg.DB
		env.IdleTimeout, env.MaxRetries = 10*time.Second, -1
		ls, err := server.NewLiveSettings(context.Background(), db, env, envModel, func(setup server.ProviderSetup) *agent.Agent {
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

	var test struct{ Providers []server.ProviderCheck }
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

func TestResolveProviders(t *testing.T) {
	env := provider.Config{OpenAIBaseURL: "http://env:1/v1", MaxNumCtx: 4096}
	saved := storage.ProviderSettings{OllamaHost: "http://saved:11434", OpenAIBaseURL: "http://saved:2/v1", DefaultModel: "openai/gpt-4o-mini"}
	ps := server.ResolveProviders(env, "", saved)
	if ps.Config.OllamaHost != "http://saved:11434" || ps.Config.OpenAIBaseURL != "http://env:1/v1" || ps.Config.OpenAIKey != "" ||
		ps.Config.MaxNumCtx != 4096 || ps.DefaultModel != "openai/gpt-4o-mini" {
		t.Errorf("setup %+v", ps)
	}
	want := map[string]string{"ollama_host": "settings", "openai_base_url": "env", "openai_api_key": "default", "default_model": "settings"}
	for k, v := range want {
		if ps.Sources[k] != v {
			t.Errorf("source of %s = %q, want %q", k, ps.Sources[k], v)
		}
	}
}

func TestSettingsRoutesWithoutSettings(t *testing.T) {
	f := newFixture(t)
	f.wantError("GET", "/api/settings", nil, http.StatusServiceUnavailable, "unavailable")
	f.wantError("PUT", "/api/settings", `{}`, http.StatusServiceUnavailable, "unavailable")
}

// keyCatcher is an OpenAI-compatible server that records the Authorization
// header of every request; with echo it refuses them, quoting the header
// back the way a careless or hostile server might.
type keyCatcher struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newKeyCatcher(t *testing.T, echo bool) *keyCatcher {
	c := &keyCatcher{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		c.mu.Lock()
		c.seen = append(c.seen, auth)
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if echo {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"message":"bad key in header Authorization: ` + auth + `","type":"invalid_request_error"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"caught","object":"model"}]}`))
	}))
	t.Cleanup(c.Close)
	return c
}

// headers returns what the server saw and forgets it.
func (c *keyCatcher) headers() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := c.seen
	c.seen = nil
	return seen
}

type testAnswer struct{ Providers []server.ProviderCheck }

// The saved key goes only to the saved server: testing another base URL
// sends the key given with it, or none — also when OPENAI_API_KEY is in
// the process environment, which the OpenAI client would otherwise pick.
func TestSavedKeyIsNotSentToAnotherServer(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-ambient-0123456789")
	f := newFixture(t, withSettings(t, provider.Config{}, ""))
	f.call("PUT", "/api/settings", map[string]string{"openai_base_url": f.model.OpenAIURL(), "openai_api_key": secretKey}, http.StatusOK, nil)
	catcher := newKeyCatcher(t, false)

	var got testAnswer
	f.call("POST", "/api/settings/test", map[string]string{"openai_base_url": catcher.URL + "/v1"}, http.StatusOK, &got)
	seen := catcher.headers()
	if len(seen) == 0 || !got.Providers[1].OK {
		t.Fatalf("the test did not reach the other server: %+v", got)
	}
	for _, h := range seen {
		if h != "" {
			t.Errorf("another server got Authorization %q; want none", h)
		}
	}

	f.call("POST", "/api/settings/test", map[string]string{"openai_base_url": catcher.URL + "/v1", "openai_api_key": "sk-its-own-key"}, http.StatusOK, &got)
	for _, h := range catcher.headers() {
		if h != "Bearer sk-its-own-key" {
			t.Errorf("with its own key, the other server got Authorization %q", h)
		}
	}

	// The saved server still gets the saved key (the settings are unchanged).
	var view settingsBody
	f.call("GET", "/api/settings", nil, http.StatusOK, &view)
	if !view.OpenAIKeySet || view.OpenAIBaseURL != f.model.OpenAIURL() {
		t.Errorf("a test changed the settings: %+v", view)
	}
}

// A server that quotes the key back in its error does not get it shown.
func TestProviderErrorsDoNotShowTheKey(t *testing.T) {
	f := newFixture(t, withSettings(t, provider.Config{}, ""))
	catcher := newKeyCatcher(t, true)
	f.call("PUT", "/api/settings", map[string]string{"openai_base_url": catcher.URL + "/v1", "openai_api_key": secretKey}, http.StatusOK, nil)
	var got testAnswer
	b := f.call("POST", "/api/settings/test", nil, http.StatusOK, &got)
	if seen := catcher.headers(); len(seen) == 0 || seen[0] != "Bearer "+secretKey {
		t.Fatalf("the key's own server got %q", seen)
	}
	if got.Providers[1].OK || got.Providers[1].Error == "" || strings.Contains(string(b), secretKey) {
		t.Errorf("the answer shows the key: %s", b)
	}
}

// Changing the base URL without a key removes the saved key rather than
// send it to the new server; the same server spelled differently keeps it.
func TestChangingTheBaseURLRemovesTheSavedKey(t *testing.T) {
	f := newFixture(t, withSettings(t, provider.Config{}, ""))
	var got settingsBody
	f.call("PUT", "/api/settings", map[string]string{"openai_base_url": "http://a.example/v1", "openai_api_key": secretKey}, http.StatusOK, &got)
	if !got.OpenAIKeySet {
		t.Fatalf("no key after saving one: %+v", got)
	}
	for _, put := range []map[string]string{
		{"default_model": "ollama/qwen3:8b"},
		{"openai_base_url": "HTTP://A.example/v1/"},
		{"ollama_host": "http://127.0.0.1:11434", "openai_base_url": "http://a.example/v1"},
	} {
		f.call("PUT", "/api/settings", put, http.StatusOK, &got)
		if !got.OpenAIKeySet {
			t.Fatalf("PUT %v removed the key", put)
		}
	}
	f.call("PUT", "/api/settings", map[string]string{"openai_base_url": "http://b.example/v1"}, http.StatusOK, &got)
	if got.OpenAIKeySet || got.OpenAIBaseURL != "http://b.example/v1" {
		t.Errorf("after moving the base URL without a key: %+v", got)
	}
	if saved, err := f.db.GetProviderSettings(context.Background()); err != nil || !saved.OpenAIKey.IsZero() {
		t.Errorf("the old key is still saved: %v", err)
	}
	// With the new server's key in the same request, the key is kept.
	f.call("PUT", "/api/settings", map[string]string{"openai_base_url": "http://c.example/v1", "openai_api_key": "sk-c-key"}, http.StatusOK, &got)
	if !got.OpenAIKeySet {
		t.Errorf("a key given with the new base URL was dropped: %+v", got)
	}
	// Back to the default server: the key saved for c.example goes too.
	f.call("PUT", "/api/settings", map[string]string{"openai_base_url": ""}, http.StatusOK, &got)
	if got.OpenAIKeySet || got.OpenAIBaseURL != provider.DefaultOpenAIBaseURL {
		t.Errorf("after going back to the default: %+v", got)
	}
}

// OPENAI_API_KEY from the environment cannot be removed by a PUT, so a
// PUT that would send it to another server is refused.
func TestEnvironmentKeyIsNotMovedToASavedServer(t *testing.T) {
	f := newFixture(t, withSettings(t, provider.Config{OpenAIKey: "env-key-0123456789"}, ""))
	msg := f.wantError("PUT", "/api/settings", map[string]string{"openai_base_url": "http://elsewhere.example/v1"}, http.StatusBadRequest, "invalid")
	if !strings.Contains(msg, "OPENAI_BASE_URL") {
		t.Errorf("the refusal does not say what to do: %q", msg)
	}
	var got settingsBody
	f.call("GET", "/api/settings", nil, http.StatusOK, &got)
	if got.OpenAIBaseURL != provider.DefaultOpenAIBaseURL {
		t.Errorf("a refused PUT changed the base URL: %+v", got)
	}
}
