package settings_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/app/settings"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
	"github.com/docent/docent/storage/secret"
)

// TestMain keeps the tests away from the user's keyring: saved keys go to
// the key file in each test's temporary folder.
func TestMain(m *testing.M) {
	os.Setenv(secret.KeyringEnv, "off")
	os.Exit(m.Run())
}

const secretKey = "sk-secret-0123456789"

// fixture is live settings over a real store, with env as the
// environment's configuration and envModel as --model or DOCENT_MODEL.
type fixture struct {
	t    *testing.T
	db   *storage.DB
	live *settings.Live
	// built are the setups the agents were built on, in order.
	built []settings.Setup
}

func newFixture(t *testing.T, env provider.Config, envModel string) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "docent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	env.IdleTimeout, env.MaxRetries = 10*time.Second, -1
	f := &fixture{t: t, db: db}
	f.live, err = settings.NewLive(ctx, db, env, envModel, func(setup settings.Setup) *agent.Agent {
		f.built = append(f.built, setup)
		return &agent.Agent{DB: db, Providers: provider.NewRegistry(setup.Config), DefaultModel: setup.DefaultModel}
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// put saves a patch of the fields given ("" removes a saved value) and
// wants it accepted.
func (f *fixture) put(fields map[string]string) settings.View {
	f.t.Helper()
	v, err := f.live.Put(context.Background(), patch(fields))
	if err != nil {
		f.t.Fatalf("Put %v: %v", fields, err)
	}
	return v
}

// patch makes a Patch of the fields given, by their JSON names.
func patch(fields map[string]string) settings.Patch {
	var p settings.Patch
	for k, v := range fields {
		switch k {
		case "ollama_host":
			p.OllamaHost = &v
		case "openai_base_url":
			p.OpenAIBaseURL = &v
		case "openai_api_key":
			key := secret.New(v)
			p.OpenAIKey = &key
		case "default_model":
			p.DefaultModel = &v
		default:
			panic("unknown field " + k)
		}
	}
	return p
}

func TestResolve(t *testing.T) {
	env := provider.Config{OpenAIBaseURL: "http://env:1/v1", MaxNumCtx: 4096}
	saved := storage.ProviderSettings{OllamaHost: "http://saved:11434", OpenAIBaseURL: "http://saved:2/v1", DefaultModel: "openai/gpt-4o-mini"}
	ps := settings.Resolve(env, "", saved)
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
	if ps := settings.Resolve(env, " ollama/qwen3:8b ", saved); ps.DefaultModel != "ollama/qwen3:8b" || ps.Sources["default_model"] != "env" {
		t.Errorf("--model does not win: %+v", ps)
	}
}

// Put swaps in an agent on the new setup; a refused Put keeps the agent
// and the saved settings as they were.
func TestPutSwapsTheAgent(t *testing.T) {
	f := newFixture(t, provider.Config{}, "")
	first := f.live.Agent()
	if first == nil || first.DefaultModel != "" || len(f.built) != 1 {
		t.Fatalf("first agent %+v, %d built", first, len(f.built))
	}
	v := f.put(map[string]string{"default_model": "ollama/llama3.2:1b", "ollama_host": "http://127.0.0.1:1"})
	a := f.live.Agent()
	if a == first || a.DefaultModel != "ollama/llama3.2:1b" || f.built[len(f.built)-1].Config.OllamaHost != "http://127.0.0.1:1" {
		t.Errorf("after Put the agent is %+v (built on %+v)", a, f.built[len(f.built)-1])
	}
	if v.DefaultModel != "ollama/llama3.2:1b" || v.Sources["default_model"] != settings.SourceSettings {
		t.Errorf("view %+v", v)
	}
	if _, err := f.live.Put(context.Background(), patch(map[string]string{"default_model": "qwen3:8b"})); fault.ErrorCode(err) != fault.Invalid {
		t.Errorf("a model without its provider: %v", err)
	}
	if f.live.Agent() != a {
		t.Errorf("a refused Put swapped the agent")
	}
	if got, err := f.live.Get(context.Background()); err != nil || got.DefaultModel != "ollama/llama3.2:1b" {
		t.Errorf("after a refused Put: %+v %v", got, err)
	}
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

// The saved key goes only to the saved server: testing another base URL
// sends the key given with it, or none — also when OPENAI_API_KEY is in
// the process environment, which the OpenAI client would otherwise pick.
func TestSavedKeyIsNotSentToAnotherServer(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-ambient-0123456789")
	f := newFixture(t, provider.Config{}, "")
	own := newKeyCatcher(t, false)
	f.put(map[string]string{"openai_base_url": own.URL + "/v1", "openai_api_key": secretKey})
	other := newKeyCatcher(t, false)
	ctx := context.Background()

	checks, err := f.live.Test(ctx, patch(map[string]string{"openai_base_url": other.URL + "/v1"}))
	if err != nil {
		t.Fatal(err)
	}
	seen := other.headers()
	if len(seen) == 0 || !checks[1].OK {
		t.Fatalf("the test did not reach the other server: %+v", checks)
	}
	for _, h := range seen {
		if h != "" {
			t.Errorf("another server got Authorization %q; want none", h)
		}
	}

	if _, err := f.live.Test(ctx, patch(map[string]string{"openai_base_url": other.URL + "/v1", "openai_api_key": "sk-its-own-key"})); err != nil {
		t.Fatal(err)
	}
	for _, h := range other.headers() {
		if h != "Bearer sk-its-own-key" {
			t.Errorf("with its own key, the other server got Authorization %q", h)
		}
	}

	// The saved server still gets the saved key (the settings are unchanged).
	if checks, err := f.live.Test(ctx, settings.Patch{}); err != nil || !checks[1].OK {
		t.Fatalf("test of the saved settings: %+v %v", checks, err)
	}
	if seen := own.headers(); len(seen) == 0 || seen[0] != "Bearer "+secretKey {
		t.Errorf("the key's own server got %q", seen)
	}
	if view, err := f.live.Get(ctx); err != nil || !view.OpenAIKeySet || view.OpenAIBaseURL != own.URL+"/v1" {
		t.Errorf("a test changed the settings: %+v %v", view, err)
	}
}

// A server that quotes the key back in its error does not get it shown.
func TestProviderErrorsDoNotShowTheKey(t *testing.T) {
	f := newFixture(t, provider.Config{}, "")
	catcher := newKeyCatcher(t, true)
	f.put(map[string]string{"openai_base_url": catcher.URL + "/v1", "openai_api_key": secretKey})
	checks, err := f.live.Test(context.Background(), settings.Patch{})
	if err != nil {
		t.Fatal(err)
	}
	if seen := catcher.headers(); len(seen) == 0 || seen[0] != "Bearer "+secretKey {
		t.Fatalf("the key's own server got %q", seen)
	}
	if checks[1].OK || checks[1].Error == "" || strings.Contains(checks[1].Error, secretKey) {
		t.Errorf("the answer shows the key: %+v", checks[1])
	}
}

// Changing the base URL without a key removes the saved key rather than
// send it to the new server; the same server spelled differently keeps it.
func TestChangingTheBaseURLRemovesTheSavedKey(t *testing.T) {
	f := newFixture(t, provider.Config{}, "")
	got := f.put(map[string]string{"openai_base_url": "http://a.example/v1", "openai_api_key": secretKey})
	if !got.OpenAIKeySet {
		t.Fatalf("no key after saving one: %+v", got)
	}
	for _, put := range []map[string]string{
		{"default_model": "ollama/qwen3:8b"},
		{"openai_base_url": "HTTP://A.example/v1/"},
		{"ollama_host": "http://127.0.0.1:11434", "openai_base_url": "http://a.example/v1"},
	} {
		if got = f.put(put); !got.OpenAIKeySet {
			t.Fatalf("PUT %v removed the key", put)
		}
	}
	got = f.put(map[string]string{"openai_base_url": "http://b.example/v1"})
	if got.OpenAIKeySet || got.OpenAIBaseURL != "http://b.example/v1" {
		t.Errorf("after moving the base URL without a key: %+v", got)
	}
	if saved, err := f.db.GetProviderSettings(context.Background()); err != nil || !saved.OpenAIKey.IsZero() {
		t.Errorf("the old key is still saved: %v", err)
	}
	// With the new server's key in the same request, the key is kept.
	if got = f.put(map[string]string{"openai_base_url": "http://c.example/v1", "openai_api_key": "sk-c-key"}); !got.OpenAIKeySet {
		t.Errorf("a key given with the new base URL was dropped: %+v", got)
	}
	// Back to the default server: the key saved for c.example goes too.
	if got = f.put(map[string]string{"openai_base_url": ""}); got.OpenAIKeySet || got.OpenAIBaseURL != provider.DefaultOpenAIBaseURL {
		t.Errorf("after going back to the default: %+v", got)
	}
}

// OPENAI_API_KEY from the environment cannot be removed by a PUT, so a
// PUT that would send it to another server is refused.
func TestEnvironmentKeyIsNotMovedToASavedServer(t *testing.T) {
	f := newFixture(t, provider.Config{OpenAIKey: "env-key-0123456789"}, "")
	_, err := f.live.Put(context.Background(), patch(map[string]string{"openai_base_url": "http://elsewhere.example/v1"}))
	if fault.ErrorCode(err) != fault.Invalid || !strings.Contains(fault.ErrorMessage(err), "OPENAI_BASE_URL") {
		t.Errorf("the refusal does not say what to do: %v", err)
	}
	got, err := f.live.Get(context.Background())
	if err != nil || got.OpenAIBaseURL != provider.DefaultOpenAIBaseURL || !got.OpenAIKeySet || got.Sources["openai_api_key"] != settings.SourceEnv {
		t.Errorf("a refused PUT changed the base URL: %+v %v", got, err)
	}
}
