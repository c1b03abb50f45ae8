// Package settings is the model-provider configuration of a running
// Docent: where each setting comes from (the environment, what the
// Settings page saved, the defaults: Resolve), the changes the Settings
// page makes (Patch, with the rule that a saved API key goes only to its
// own server), the check of the providers a configuration names
// (CheckProviders), and the agent on the configuration in effect, swapped
// for a new one whenever the settings change (Live). The command line, the
// HTTP server and the desktop window all take their agent from here.
package settings

import (
	"cmp"
	"context"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
	"github.com/docent/docent/storage/secret"
)

// Where a setting's value comes from (View.Sources).
const (
	SourceEnv      = "env"
	SourceSettings = "settings"
	SourceDefault  = "default"
)

// checkTimeout bounds CheckProviders (POST /api/settings/test): a provider
// that does not answer in time is reported as failed.
const checkTimeout = 15 * time.Second

// View answers GET and PUT /api/settings. The API key itself is never
// sent back: only whether one is set.
type View struct {
	OllamaHost    string `json:"ollama_host"`
	OpenAIBaseURL string `json:"openai_base_url"`
	OpenAIKeySet  bool   `json:"openai_api_key_set"`
	DefaultModel  string `json:"default_model"`
	// EmbedModel is the embedding model for search by meaning, "" for
	// none (search by words only).
	EmbedModel string `json:"embed_model"`
	// Sources says, per field, where its value comes from: "env" (an
	// environment variable, which wins), "settings" (saved in the app) or
	// "default".
	Sources map[string]string `json:"sources"`
}

// Patch is the body of PUT /api/settings and POST /api/settings/test:
// absent fields stay as saved, "" removes the saved value (the environment
// or the default then applies).
//
// The key stays with its server: a PUT that changes the OpenAI-compatible
// base URL without openai_api_key removes the saved key (so the response
// says openai_api_key_set false) rather than send it to the new server,
// and a test of another base URL uses only the key given with it.
type Patch struct {
	OllamaHost    *string `json:"ollama_host,omitempty"`
	OpenAIBaseURL *string `json:"openai_base_url,omitempty"`
	// OpenAIKey is a secret.Value, so that a patch that is logged or
	// marshalled by mistake shows "[redacted]".
	OpenAIKey    *secret.Value `json:"openai_api_key,omitempty" ts:"string"`
	DefaultModel *string       `json:"default_model,omitempty"`
	EmbedModel   *string       `json:"embed_model,omitempty"`
}

// Check is what one provider answered to POST /api/settings/test.
type Check struct {
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
func (p Patch) Validate() error {
	for _, f := range []struct {
		name string
		v    *string
	}{{storage.SettingOllamaHost, p.OllamaHost}, {storage.SettingOpenAIBaseURL, p.OpenAIBaseURL}} {
		if f.v == nil || strings.TrimSpace(*f.v) == "" {
			continue
		}
		u, err := url.Parse(strings.TrimSpace(*f.v))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
			return fault.Errorf(fault.Invalid, "%s %q: want an http:// or https:// URL with a host, such as http://127.0.0.1:11434", f.name, *f.v)
		}
	}
	if p.OpenAIKey != nil {
		if strings.ContainsFunc(strings.TrimSpace(p.OpenAIKey.Reveal()), func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
			return fault.Errorf(fault.Invalid, "openai_api_key: a key has no spaces or control characters")
		}
	}
	if p.DefaultModel != nil && strings.TrimSpace(*p.DefaultModel) != "" {
		if _, _, err := provider.ParseModelID(*p.DefaultModel); err != nil {
			return fault.Errorf(fault.Invalid, "default_model: %v", err)
		}
	}
	if p.EmbedModel != nil && strings.TrimSpace(*p.EmbedModel) != "" {
		if _, _, err := provider.ParseModelID(*p.EmbedModel); err != nil {
			return fault.Errorf(fault.Invalid, "embed_model: %v", err)
		}
	}
	return nil
}

// apply returns saved with p's fields over it.
func (p Patch) apply(saved storage.ProviderSettings) storage.ProviderSettings {
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

// Setup is the provider configuration in effect.
type Setup struct {
	// Config is the environment's configuration with the effective
	// addresses and key.
	Config       provider.Config
	DefaultModel string
	// EmbedModel is the embedding model for search by meaning, "" for none.
	EmbedModel string
	Sources    map[string]string
}

// Resolve is the precedence of the provider settings, in one place for
// the server and the CLI: an environment variable that is set
// (OLLAMA_HOST, OPENAI_BASE_URL, OPENAI_API_KEY; --model or DOCENT_MODEL
// for the default model) wins, then the value saved in the app, then the
// built-in default. env is provider.ConfigFromEnv's configuration (its
// limits are kept as they are); envModel is --model or DOCENT_MODEL.
func Resolve(env provider.Config, envModel string, saved storage.ProviderSettings) Setup {
	ps := Setup{Config: env, Sources: map[string]string{}}
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
func (ps Setup) View() View {
	return View{
		OllamaHost:    cmp.Or(ps.Config.OllamaHost, provider.DefaultOllamaHost),
		OpenAIBaseURL: cmp.Or(ps.Config.OpenAIBaseURL, provider.DefaultOpenAIBaseURL),
		OpenAIKeySet:  ps.Config.OpenAIKey != "",
		DefaultModel:  ps.DefaultModel,
		EmbedModel:    ps.EmbedModel,
		Sources:       ps.Sources,
	}
}

// Live is the provider configuration of a running app, as the Settings
// page reads and changes it: the environment's configuration overridden by
// the settings saved in the store (see Resolve), and the agent built on
// it. Put applies a change at once: an agent on the new configuration
// replaces the old one, with no restart; a turn already running finishes
// on the agent it started with.
type Live struct {
	db       *storage.DB
	env      provider.Config
	envModel string
	envEmbed string // --embed-model or DOCENT_EMBED_MODEL
	newAgent func(Setup) *agent.Agent

	mu    sync.Mutex // serialises Put
	agent atomic.Pointer[agent.Agent]
}

// NewLive reads the saved settings and builds the first agent with
// newAgent, which every Put calls again with the new setup.
func NewLive(ctx context.Context, db *storage.DB, env provider.Config, envModel string, newAgent func(Setup) *agent.Agent) (*Live, error) {
	return NewLiveEmbed(ctx, db, env, envModel, "", newAgent)
}

// NewLiveEmbed is NewLive with the embedding model of the command line or
// the environment (--embed-model, DOCENT_EMBED_MODEL), which wins over
// the one the Settings page saved.
func NewLiveEmbed(ctx context.Context, db *storage.DB, env provider.Config, envModel, envEmbed string, newAgent func(Setup) *agent.Agent) (*Live, error) {
	ls := &Live{db: db, env: env, envModel: envModel, envEmbed: strings.TrimSpace(envEmbed), newAgent: newAgent}
	setup, err := ls.setup(ctx)
	if err != nil {
		return nil, err
	}
	ls.agent.Store(newAgent(setup))
	return ls, nil
}

// setup is the configuration in effect: the saved settings resolved.
func (ls *Live) setup(ctx context.Context) (Setup, error) {
	saved, err := ls.db.GetProviderSettings(ctx)
	if err != nil {
		return Setup{}, err
	}
	return ls.resolve(ctx, saved)
}

// resolve is the configuration in effect on the saved provider settings,
// with the embedding model (saved apart from them) added.
func (ls *Live) resolve(ctx context.Context, saved storage.ProviderSettings) (Setup, error) {
	setup := Resolve(ls.env, ls.envModel, saved)
	var embed string
	if _, err := ls.db.GetSetting(ctx, storage.SettingEmbedModel, &embed); err != nil {
		return Setup{}, err
	}
	switch {
	case ls.envEmbed != "":
		setup.EmbedModel, setup.Sources[storage.SettingEmbedModel] = ls.envEmbed, SourceEnv
	case embed != "":
		setup.EmbedModel, setup.Sources[storage.SettingEmbedModel] = embed, SourceSettings
	default:
		setup.Sources[storage.SettingEmbedModel] = SourceDefault
	}
	return setup, nil
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
func (ls *Live) keyStaysWithServer(saved storage.ProviderSettings, p Patch) (Patch, error) {
	if p.OpenAIBaseURL == nil {
		return p, nil
	}
	before := Resolve(ls.env, ls.envModel, saved)
	after := Resolve(ls.env, ls.envModel, p.apply(saved))
	moved := openAIServer(before.Config.OpenAIBaseURL) != openAIServer(after.Config.OpenAIBaseURL)
	if moved && after.Sources[storage.SettingOpenAIKey] == SourceEnv {
		return p, fault.Errorf(fault.Invalid,
			"openai_base_url: OPENAI_API_KEY in Docent's environment would be sent to the new server; set OPENAI_BASE_URL beside it instead")
	}
	moved = moved || openAIServer(saved.OpenAIBaseURL) != openAIServer(*p.OpenAIBaseURL)
	if moved && p.OpenAIKey == nil && !saved.OpenAIKey.IsZero() {
		p.OpenAIKey = new(secret.Value)
	}
	return p, nil
}

// Agent returns the agent of the configuration in effect.
func (ls *Live) Agent() *agent.Agent { return ls.agent.Load() }

// Get returns the configuration in effect.
func (ls *Live) Get(ctx context.Context) (View, error) {
	setup, err := ls.setup(ctx)
	if err != nil {
		return View{}, err
	}
	return setup.View(), nil
}

// Put validates and saves p, then swaps in an agent on the new setup.
func (ls *Live) Put(ctx context.Context, p Patch) (View, error) {
	if err := p.Validate(); err != nil {
		return View{}, err
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	saved, err := ls.db.GetProviderSettings(ctx)
	if err != nil {
		return View{}, err
	}
	if p, err = ls.keyStaysWithServer(saved, p); err != nil {
		return View{}, err
	}
	err = ls.db.SetProviderSettings(ctx, storage.ProviderSettingsPatch{
		OllamaHost: p.OllamaHost, OpenAIBaseURL: p.OpenAIBaseURL, OpenAIKey: p.OpenAIKey, DefaultModel: p.DefaultModel,
	})
	if err != nil {
		return View{}, err
	}
	if p.EmbedModel != nil {
		var v any // "" removes the saved model
		if m := strings.TrimSpace(*p.EmbedModel); m != "" {
			v = m
		}
		if err := ls.db.SetSetting(ctx, storage.SettingEmbedModel, v); err != nil {
			return View{}, err
		}
	}
	setup, err := ls.setup(ctx)
	if err != nil {
		return View{}, err
	}
	ls.agent.Store(ls.newAgent(setup))
	return setup.View(), nil
}

// Test asks the providers of the setup p would give for their models,
// without saving p. The key in effect (saved or from the environment) is
// used only when p leaves the OpenAI-compatible server as it is: for
// another base URL, the test sends the key p gives, or none, so that a
// caller cannot have the saved key sent to a server of its choice.
func (ls *Live) Test(ctx context.Context, p Patch) ([]Check, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	saved, err := ls.db.GetProviderSettings(ctx)
	if err != nil {
		return nil, err
	}
	before := Resolve(ls.env, ls.envModel, saved)
	cfg := Resolve(ls.env, ls.envModel, p.apply(saved)).Config
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
func CheckProviders(ctx context.Context, cfg provider.Config, redact ...secret.Value) []Check {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	redact = append(redact, secret.New(cfg.OpenAIKey))
	openaiURL := strings.TrimRight(cmp.Or(cfg.OpenAIBaseURL, provider.DefaultOpenAIBaseURL), "/")
	reg := provider.NewRegistry(cfg)
	checks := []Check{
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
				c.Error = secret.Redact(fault.ErrorMessage(fault.Report(ctx, nil, "test the "+c.Provider+" provider", err)), redact...)
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
