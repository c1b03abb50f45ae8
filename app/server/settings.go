package server

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/secret"
)

// Where a setting's value comes from (SettingsView.Sources).
const (
	SourceEnv      = "env"
	SourceSettings = "settings"
	SourceDefault  = "default"
)

// settingsTestTimeout bounds POST /api/settings/test: a provider that does
// not answer in time is reported as failed.
const settingsTestTimeout = 15 * time.Second

// Settings is the model-provider configuration the Settings page reads and
// changes. Put applies a change at once: the requests after it run on
// Agent(), rebuilt from the new configuration, with no restart. A turn
// already running finishes on the agent it started with.
type Settings interface {
	Get(ctx context.Context) (SettingsView, error)
	// Put validates, saves and applies p; it answers like Get.
	Put(ctx context.Context, p SettingsPatch) (SettingsView, error)
	// Test asks each provider of the configuration p would give (p is not
	// saved) for its models.
	Test(ctx context.Context, p SettingsPatch) ([]ProviderCheck, error)
	// Agent is the agent of the configuration in effect.
	Agent() *agent.Agent
}

// SettingsView answers GET and PUT /api/settings. The API key itself is
// never sent back: only whether one is set.
type SettingsView struct {
	OllamaHost    string `json:"ollama_host"`
	OpenAIBaseURL string `json:"openai_base_url"`
	OpenAIKeySet  bool   `json:"openai_api_key_set"`
	DefaultModel  string `json:"default_model"`
	// Sources says, per field, where its value comes from: "env" (an
	// environment variable, which wins), "settings" (saved in the app) or
	// "default".
	Sources map[string]string `json:"sources"`
}

// SettingsPatch is the body of PUT /api/settings and POST
// /api/settings/test: absent fields stay as saved, "" removes the saved
// value (the environment or the default then applies).
//
// The key stays with its server: a PUT that changes the OpenAI-compatible
// base URL without openai_api_key removes the saved key (so the response
// says openai_api_key_set false) rather than send it to the new server,
// and a test of another base URL uses only the key given with it.
type SettingsPatch struct {
	OllamaHost    *string `json:"ollama_host,omitempty"`
	OpenAIBaseURL *string `json:"openai_base_url,omitempty"`
	// OpenAIKey is a secret.Value, so that a patch that is logged or
	// marshalled by mistake shows "[redacted]".
	OpenAIKey    *secret.Value `json:"openai_api_key,omitempty"`
	DefaultModel *string       `json:"default_model,omitempty"`
}

// ProviderCheck is what one provider answered to POST /api/settings/test.
type ProviderCheck struct {
	Provider string `json:"provider"`
	URL      string `json:"url"`
	// Configured is false for OpenAI while it would be api.openai.com
	// without a key: it is then not asked.
	Configured bool     `json:"configured"`
	OK         bool     `json:"ok"`
	Models     []string `json:"models"`
	Error      string   `json:"error,omitempty"`
}

// Validate checks a patch: URLs are http(s) with a host, the default model
// is provider-prefixed, the key is one printable token.
func (p SettingsPatch) Validate() error {
	for _, f := range []struct {
		name string
		v    *string
	}{{storage.SettingOllamaHost, p.OllamaHost}, {storage.SettingOpenAIBaseURL, p.OpenAIBaseURL}} {
		if f.v == nil || strings.TrimSpace(*f.v) == "" {
			continue
		}
		u, err := url.Parse(strings.TrimSpace(*f.v))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
			return storage.Errorf(storage.ErrInvalid, "%s %q: want an http:// or https:// URL with a host, such as http://127.0.0.1:11434", f.name, *f.v)
		}
	}
	if p.OpenAIKey != nil {
		if strings.ContainsFunc(strings.TrimSpace(p.OpenAIKey.Reveal()), func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
			return storage.Errorf(storage.ErrInvalid, "openai_api_key: a key has no spaces or control characters")
		}
	}
	if p.DefaultModel != nil && strings.TrimSpace(*p.DefaultModel) != "" {
		if _, _, err := provider.ParseModelID(*p.DefaultModel); err != nil {
			return storage.Errorf(storage.ErrInvalid, "default_model: %v", err)
		}
	}
	return nil
}

// apply returns saved with p's fields over it.
func (p SettingsPatch) apply(saved storage.ProviderSettings) storage.ProviderSettings {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = strings.TrimSpace(*v)
		}
	}
	set(&saved.OllamaHost, p.OllamaHost)
	set(&saved.OpenAIBaseURL, p.OpenAIBaseURL)
	if p.OpenAIKey != nil {
		saved.OpenAIKey = secret.New(strings.TrimSpace(p.OpenAIKey.Reveal()))
	}
	set(&saved.DefaultModel, p.DefaultModel)
	return saved
}

// ProviderSetup is the provider configuration in effect.
type ProviderSetup struct {
	// Config is the environment's configuration with the effective
	// addresses and key.
	Config       provider.Config
	DefaultModel string
	Sources      map[string]string
}

// ResolveProviders is the precedence of the provider settings, in one
// place for the server and the CLI: an environment variable that is set
// (OLLAMA_HOST, OPENAI_BASE_URL, OPENAI_API_KEY; --model or DOCENT_MODEL
// for the default model) wins, then the value saved in the app, then the
// built-in default. env is provider.ConfigFromEnv's configuration (its
// limits are kept as they are); envModel is --model or DOCENT_MODEL.
func ResolveProviders(env provider.Config, envModel string, saved storage.ProviderSettings) ProviderSetup {
	ps := ProviderSetup{Config: env, Sources: map[string]string{}}
	pick := func(field string, dst *string, envValue, savedValue string) {
		switch {
		case envValue != "":
			*dst, ps.Sources[field] = envValue, SourceEnv
		case savedValue != "":
			*dst, ps.Sources[field] = savedValue, SourceSettings
		default:
			*dst, ps.Sources[field] = "", SourceDefault
		}
	}
	pick(storage.SettingOllamaHost, &ps.Config.OllamaHost, env.OllamaHost, saved.OllamaHost)
	pick(storage.SettingOpenAIBaseURL, &ps.Config.OpenAIBaseURL, env.OpenAIBaseURL, saved.OpenAIBaseURL)
	pick(storage.SettingOpenAIKey, &ps.Config.OpenAIKey, env.OpenAIKey, saved.OpenAIKey.Reveal())
	pick(storage.SettingDefaultModel, &ps.DefaultModel, strings.TrimSpace(envModel), saved.DefaultModel)
	return ps
}

// View is what GET /api/settings shows of the setup: defaults filled in,
// the key replaced by whether there is one.
func (ps ProviderSetup) View() SettingsView {
	return SettingsView{
		OllamaHost:    cmp.Or(ps.Config.OllamaHost, provider.DefaultOllamaHost),
		OpenAIBaseURL: cmp.Or(ps.Config.OpenAIBaseURL, provider.DefaultOpenAIBaseURL),
		OpenAIKeySet:  ps.Config.OpenAIKey != "",
		DefaultModel:  ps.DefaultModel,
		Sources:       ps.Sources,
	}
}

// LiveSettings is the Settings of a running app: the environment's
// configuration overridden by the settings saved in DB (see
// ResolveProviders), and the agent built on it, rebuilt on every Put.
type LiveSettings struct {
	db       *storage.DB
	env      provider.Config
	envModel string
	newAgent func(ProviderSetup) *agent.Agent

	mu    sync.Mutex // serialises Put
	agent atomic.Pointer[agent.Agent]
}

// NewLiveSettings reads the saved settings and builds the first agent with
// newAgent, which every Put calls again with the new setup.
func NewLiveSettings(ctx context.Context, db *storage.DB, env provider.Config, envModel string, newAgent func(ProviderSetup) *agent.Agent) (*LiveSettings, error) {
	ls := &LiveSettings{db: db, env: env, envModel: envModel, newAgent: newAgent}
	setup, err := ls.setup(ctx, SettingsPatch{})
	if err != nil {
		return nil, err
	}
	ls.agent.Store(newAgent(setup))
	return ls, nil
}

func (ls *LiveSettings) setup(ctx context.Context, p SettingsPatch) (ProviderSetup, error) {
	saved, err := ls.db.GetProviderSettings(ctx)
	if err != nil {
		return ProviderSetup{}, err
	}
	return ResolveProviders(ls.env, ls.envModel, p.apply(saved)), nil
}

// openAIServer is the server a base URL names, for telling whether two
// name the same one: the default for "", scheme and host in lower case,
// no trailing slash.
func openAIServer(baseURL string) string {
	s := strings.TrimRight(cmp.Or(strings.TrimSpace(baseURL), provider.DefaultOpenAIBaseURL), "/")
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	return u.String()
}

// keyStaysWithServer applies the rule that a key is sent only to its
// server to a PUT: when p moves the OpenAI-compatible base URL (the one in
// effect, or the saved one that a key saved with it belongs to) and names
// no key, the saved key is removed with it; the user types the new
// server's key, if it takes one. An OPENAI_API_KEY from the environment
// cannot be removed here, so a move that would send it elsewhere is
// refused.
func (ls *LiveSettings) keyStaysWithServer(saved storage.ProviderSettings, p SettingsPatch) (SettingsPatch, error) {
	if p.OpenAIBaseURL == nil {
		return p, nil
	}
	before := ResolveProviders(ls.env, ls.envModel, saved)
	after := ResolveProviders(ls.env, ls.envModel, p.apply(saved))
	moved := openAIServer(before.Config.OpenAIBaseURL) != openAIServer(after.Config.OpenAIBaseURL)
	if moved && after.Sources[storage.SettingOpenAIKey] == SourceEnv {
		return p, storage.Errorf(storage.ErrInvalid,
			"openai_base_url: OPENAI_API_KEY in Docent's environment would be sent to the new server; set OPENAI_BASE_URL beside it instead")
	}
	moved = moved || openAIServer(saved.OpenAIBaseURL) != openAIServer(*p.OpenAIBaseURL)
	if moved && p.OpenAIKey == nil && !saved.OpenAIKey.IsZero() {
		p.OpenAIKey = new(secret.Value)
	}
	return p, nil
}

// Agent returns the agent of the configuration in effect.
func (ls *LiveSettings) Agent() *agent.Agent { return ls.agent.Load() }

// Get returns the configuration in effect.
func (ls *LiveSettings) Get(ctx context.Context) (SettingsView, error) {
	setup, err := ls.setup(ctx, SettingsPatch{})
	if err != nil {
		return SettingsView{}, err
	}
	return setup.View(), nil
}

// Put validates and saves p, then swaps in an agent on the new setup.
func (ls *LiveSettings) Put(ctx context.Context, p SettingsPatch) (SettingsView, error) {
	if err := p.Validate(); err != nil {
		return SettingsView{}, err
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	saved, err := ls.db.GetProviderSettings(ctx)
	if err != nil {
		return SettingsView{}, err
	}
	if p, err = ls.keyStaysWithServer(saved, p); err != nil {
		return SettingsView{}, err
	}
	err = ls.db.SetProviderSettings(ctx, storage.ProviderSettingsPatch{
		OllamaHost: p.OllamaHost, OpenAIBaseURL: p.OpenAIBaseURL, OpenAIKey: p.OpenAIKey, DefaultModel: p.DefaultModel,
	})
	if err != nil {
		return SettingsView{}, err
	}
	setup, err := ls.setup(ctx, SettingsPatch{})
	if err != nil {
		return SettingsView{}, err
	}
	ls.agent.Store(ls.newAgent(setup))
	return setup.View(), nil
}

// Test asks the providers of the setup p would give for their models,
// without saving p. The key in effect (saved or from the environment) is
// used only when p leaves the OpenAI-compatible server as it is: for
// another base URL, the test sends the key p gives, or none, so that a
// caller cannot have the saved key sent to a server of its choice.
func (ls *LiveSettings) Test(ctx context.Context, p SettingsPatch) ([]ProviderCheck, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	saved, err := ls.db.GetProviderSettings(ctx)
	if err != nil {
		return nil, err
	}
	before := ResolveProviders(ls.env, ls.envModel, saved)
	cfg := ResolveProviders(ls.env, ls.envModel, p.apply(saved)).Config
	if openAIServer(before.Config.OpenAIBaseURL) != openAIServer(cfg.OpenAIBaseURL) {
		cfg.OpenAIKey = ""
		if p.OpenAIKey != nil {
			cfg.OpenAIKey = strings.TrimSpace(p.OpenAIKey.Reveal())
		}
	}
	return CheckProviders(ctx, cfg, saved.OpenAIKey, secret.New(ls.env.OpenAIKey)), nil
}

// CheckProviders asks Ollama and, when configured, the OpenAI-compatible
// server for their models, at the same time and within a time limit.
// Errors shown are cleared of cfg's key and of the other secrets given,
// in case a server quotes back what it was sent.
func CheckProviders(ctx context.Context, cfg provider.Config, redact ...secret.Value) []ProviderCheck {
	ctx, cancel := context.WithTimeout(ctx, settingsTestTimeout)
	defer cancel()
	redact = append(redact, secret.New(cfg.OpenAIKey))
	openaiURL := strings.TrimRight(cmp.Or(cfg.OpenAIBaseURL, provider.DefaultOpenAIBaseURL), "/")
	reg := provider.NewRegistry(cfg)
	checks := []ProviderCheck{
		{Provider: "ollama", URL: cmp.Or(cfg.OllamaHost, provider.DefaultOllamaHost), Configured: true},
		{Provider: "openai", URL: openaiURL, Configured: cfg.OpenAIKey != "" || openaiURL != provider.DefaultOpenAIBaseURL},
	}
	var wg sync.WaitGroup
	for i := range checks {
		c := &checks[i]
		c.Models = []string{}
		if !c.Configured {
			c.Error = "not configured: set a base URL or an API key"
			continue
		}
		wg.Go(func() {
			p, err := reg.Provider(c.Provider)
			var models []provider.ModelInfo
			if err == nil {
				models, err = p.Models(ctx)
			}
			if err != nil {
				c.Error = secret.Redact(errorText(err), redact...)
				return
			}
			c.OK = true
			for _, m := range models {
				c.Models = append(c.Models, m.ID)
			}
		})
	}
	wg.Wait()
	return checks
}

// agent is the agent requests run on: the settings' current one when the
// server has settings, else Config.Agent.
func (s *Server) agent() *agent.Agent {
	if s.cfg.Settings != nil {
		return s.cfg.Settings.Agent()
	}
	return s.cfg.Agent
}

func (s *Server) needSettings(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.Settings != nil {
		return true
	}
	s.writeError(w, r, errorf("unavailable", "this server runs without saved settings"))
	return false
}

func (s *Server) getSettings(w http.ResponseWriter, r *http.Request) {
	if !s.needSettings(w, r) {
		return
	}
	v, err := s.cfg.Settings.Get(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) putSettings(w http.ResponseWriter, r *http.Request) {
	if !s.needSettings(w, r) {
		return
	}
	var p SettingsPatch
	if err := s.decodeJSON(w, r, &p, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := p.Validate(); err != nil {
		s.writeError(w, r, err)
		return
	}
	v, err := s.cfg.Settings.Put(r.Context(), p)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// settingsTest answers POST /api/settings/test.
type settingsTest struct {
	Providers []ProviderCheck `json:"providers"`
}

func (s *Server) testSettings(w http.ResponseWriter, r *http.Request) {
	if !s.needSettings(w, r) {
		return
	}
	var p SettingsPatch
	if err := s.decodeJSON(w, r, &p, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := p.Validate(); err != nil {
		s.writeError(w, r, err)
		return
	}
	checks, err := s.cfg.Settings.Test(r.Context(), p)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, settingsTest{Providers: checks})
}
