package provider

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/docent/docent/storage/fault"
)

// SuggestedModel is the Ollama model Docent suggests pulling when none is:
// it takes tools, thinks, and has a 40k-token context in about 5 GB.
const SuggestedModel = "qwen3:8b"

// providerNames are the accepted prefixes of a model id.
var providerNames = []string{"ollama", "openai"}

// ParseModelID splits "ollama/qwen3:8b" into ("ollama", "qwen3:8b"). Its
// error quotes id, so callers add only where the id came from.
func ParseModelID(id string) (provider, model string, err error) {
	provider, model, ok := strings.Cut(strings.TrimSpace(id), "/")
	if ok && model != "" && slices.Contains(providerNames, provider) {
		return provider, model, nil
	}
	const forms = "ollama/<model> (e.g. ollama/qwen3:8b) or openai/<model> (e.g. openai/gpt-4o-mini)"
	if ok && provider != "" && model != "" {
		return "", "", fault.Errorf(fault.Invalid, "model %q: unknown provider %q, want %s: name it as %s", id, provider, strings.Join(providerNames, " or "), forms)
	}
	return "", "", fault.Errorf(fault.Invalid, "model %q: name it with its provider, as %s", id, forms)
}

// Registry holds one provider of each kind, built from one Config.
type Registry struct {
	cfg       Config
	ollama    *Ollama
	ollamaErr error
	openai    *OpenAI
	// meter, when set, is told of every call of the providers For gives
	// (Metered).
	meter Meter
}

// NewRegistry builds the providers. A bad OLLAMA_HOST is reported when an
// Ollama model is used.
func NewRegistry(cfg Config) *Registry {
	r := &Registry{cfg: cfg.withDefaults()}
	r.ollama, r.ollamaErr = NewOllama(r.cfg)
	r.openai = NewOpenAI(r.cfg)
	return r
}

// Provider returns the provider named name.
func (r *Registry) Provider(name string) (Provider, error) {
	switch name {
	case "ollama":
		if r.ollamaErr != nil {
			return nil, r.ollamaErr
		}
		return r.ollama, nil
	case "openai":
		return r.openai, nil
	}
	return nil, fault.Errorf(fault.Invalid, "unknown provider %q: want one of %s", name, strings.Join(providerNames, ", "))
}

// For returns the provider of a model id and the model name without its
// prefix.
func (r *Registry) For(modelID string) (Provider, string, error) {
	name, model, err := ParseModelID(modelID)
	if err != nil {
		return nil, "", err
	}
	p, err := r.Provider(name)
	if err != nil {
		return nil, "", err
	}
	if r.meter != nil {
		p = metered{Provider: p, meter: r.meter}
	}
	return p, model, nil
}

// Models lists every provider's models, asking them at the same time. A
// provider that fails (Ollama not running, a wrong key) adds an error and
// the others' models are still returned. OpenAI is skipped while it would
// be api.openai.com without a key: nothing is configured there.
func (r *Registry) Models(ctx context.Context) ([]ModelInfo, []error) {
	var ps []Provider
	if r.ollamaErr != nil {
		return r.openaiOnly(ctx, r.ollamaErr)
	}
	ps = append(ps, r.ollama)
	if r.openaiConfigured() {
		ps = append(ps, r.openai)
	}
	lists := make([][]ModelInfo, len(ps))
	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Go(func() { lists[i], errs[i] = p.Models(ctx) })
	}
	wg.Wait()
	var out []ModelInfo
	var failed []error
	for i := range ps {
		out = append(out, lists[i]...)
		if errs[i] != nil {
			failed = append(failed, errs[i])
		}
	}
	return out, failed
}

func (r *Registry) openaiOnly(ctx context.Context, ollamaErr error) ([]ModelInfo, []error) {
	failed := []error{ollamaErr}
	if !r.openaiConfigured() {
		return nil, failed
	}
	list, err := r.openai.Models(ctx)
	if err != nil {
		failed = append(failed, err)
	}
	return list, failed
}

func (r *Registry) openaiConfigured() bool {
	return r.cfg.OpenAIKey != "" || r.cfg.OpenAIBaseURL != DefaultOpenAIBaseURL
}

// Limits is what the agent needs to know of a model before a turn.
type Limits struct {
	// ContextWindow is the window calls run with, in tokens: Ollama's
	// num_ctx as Chat chooses it (Ollama.Window), else Config.MaxNumCtx.
	ContextWindow int
	// Tools is false when the server says in advance that the model cannot
	// take tools (Ollama's capabilities); the agent then falls back to its
	// text protocol.
	Tools bool
}

// Limits asks the model's provider what it can tell in advance. A failure
// gives the defaults: the model call itself reports what went wrong.
func (r *Registry) Limits(ctx context.Context, modelID string) Limits {
	l := Limits{ContextWindow: r.cfg.MaxNumCtx, Tools: true}
	name, model, err := ParseModelID(modelID)
	if err != nil || name != "ollama" || r.ollamaErr != nil {
		return l
	}
	window, info, err := r.ollama.Window(ctx, model)
	if err != nil {
		return l
	}
	l.ContextWindow = window
	l.Tools = len(info.Capabilities) == 0 || info.Has("tools")
	return l
}
