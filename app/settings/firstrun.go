package settings

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
	"github.com/docent/docent/storage/secret"
)

// This file is first-run setup: what a new user needs to know before the
// agent can run (GET /api/setup, `docent models`, the line --serve and the
// desktop print at start). Inspect finds Ollama, lists what it and the
// OpenAI-compatible server offer, recommends a model for the agent and one
// for extraction, and says what to do next when nothing usable is set.

// PullSuggestions are the Ollama models Docent suggests pulling when none
// pulled can call tools, in order of preference; the first is the one the
// commands name. This is the one list of them (the UI gets it from GET
// /api/setup). It is short on purpose: three sizes of machine, each with a
// small model that takes tools (the agent works through tool calls; a model
// without them falls back to a weaker text protocol) and follows a JSON
// schema for extraction, as Ollama's library publishes it:
//
//   - qwen3:8b (provider.SuggestedModel): tools and thinking, a 40k-token
//     context, about 5 GB to download; runs well with 16 GB of RAM.
//   - qwen3:4b: the same family at half the size (about 2.5 GB), for 8 GB
//     of RAM.
//   - llama3.2:3b: the smallest that still calls tools reliably (about
//     2 GB), for older or smaller machines.
//
// RAM is not measured: Ollama may run on another machine (OLLAMA_HOST), so
// the user picks by the memory named here.
var PullSuggestions = []PullSuggestion{
	{Model: provider.SuggestedModel, Memory: "16 GB of RAM"},
	{Model: "qwen3:4b", Memory: "8 GB of RAM"},
	{Model: "llama3.2:3b", Memory: "less than 8 GB of RAM (the smallest)"},
}

// PullSuggestion is one model Docent suggests pulling.
type PullSuggestion struct {
	Model string `json:"model"`
	// Command is `ollama pull <model>`.
	Command string `json:"command"`
	// Memory is the machine it suits, e.g. "16 GB of RAM".
	Memory string `json:"memory"`
}

// Where to get Ollama.
const (
	OllamaDownloadURL     = "https://ollama.com/download"
	OllamaLinuxInstallCmd = "curl -fsSL https://ollama.com/install.sh | sh"
)

// What a model is recommended for (SetupModel.RecommendedFor).
const (
	ForAgent      = "agent"
	ForExtraction = "extraction"
)

// The kinds of next steps (NextStep.Kind).
const (
	StepStartOllama   = "start_ollama"
	StepInstallOllama = "install_ollama"
	StepFixOllamaHost = "fix_ollama_host"
	StepPullModel     = "pull_model"
	StepChooseDefault = "choose_default"
	StepUseOpenAI     = "use_openai"
	StepFixOpenAI     = "fix_openai"
	StepNoTools       = "no_tools"
)

// Status answers GET /api/setup: whether a usable model is configured and,
// when not, why and what to do. `docent models --json` carries the same
// recommendations.
type Status struct {
	Ollama OllamaStatus `json:"ollama"`
	OpenAI OpenAIStatus `json:"openai"`
	// Models are every model the providers offer, Ollama's first.
	Models []SetupModel `json:"models"`
	// DefaultModel is the default model in effect ("" when none is set),
	// DefaultModelSource where it comes from ("env", "settings", "default").
	DefaultModel       string      `json:"default_model"`
	DefaultModelSource string      `json:"default_model_source"`
	Recommended        Recommended `json:"recommended"`
	// Usable is true when the default model is set, offered by its
	// provider, and can chat: a turn can start without choosing a model.
	Usable bool `json:"usable"`
	// Reason says in one line why it is not usable and what to do ("" when
	// usable); shown after "No model yet: ".
	Reason string `json:"reason"`
	// NextSteps are what to do, in order; empty when nothing is needed.
	NextSteps []NextStep `json:"next_steps"`
	// PullCommand is the `ollama pull` command to run for a model that can
	// call tools: the default model's when it is an Ollama one not pulled,
	// else the first of PullSuggestions.
	PullCommand     string           `json:"pull_command"`
	PullSuggestions []PullSuggestion `json:"pull_suggestions"`
	// EmbedModel is the embedding model in effect, "" when none: search is
	// then by words only.
	EmbedModel string `json:"embed_model"`
	// EmbedSuggestion, when no embedding model is set, says which to use
	// for search by meaning: one Ollama has pulled, else the one to pull.
	EmbedSuggestion *EmbedSuggestion `json:"embed_suggestion,omitempty"`
}

// EmbedSuggestion is the embedding model first-run setup suggests.
type EmbedSuggestion struct {
	// Model is the model id to choose, e.g. ollama/nomic-embed-text.
	Model string `json:"model"`
	// Command is the `ollama pull` to run first, "" when it is pulled.
	Command string `json:"command,omitempty"`
	// Text says it for a person.
	Text string `json:"text"`
}

// embedSuggestion is what Status suggests for search by meaning when no
// embedding model is set: a pulled Ollama model that embeds, else
// provider.SuggestedEmbedModel to pull.
func embedSuggestion(models []SetupModel) *EmbedSuggestion {
	for _, m := range models {
		if m.Provider == "ollama" && m.Has("embedding") {
			return &EmbedSuggestion{Model: m.ID, Text: fmt.Sprintf("search by meaning is off: choose %s, which Ollama has, as the embedding model in Settings (or --embed-model %s)", m.ID, m.ID)}
		}
	}
	id := "ollama/" + provider.SuggestedEmbedModel
	cmd := "ollama pull " + provider.SuggestedEmbedModel
	return &EmbedSuggestion{Model: id, Command: cmd, Text: fmt.Sprintf("search by meaning is off: run `%s`, then choose %s as the embedding model in Settings (or --embed-model %s)", cmd, id, id)}
}

// OllamaStatus is what was found at OLLAMA_HOST.
type OllamaStatus struct {
	// Host is the URL asked, e.g. http://127.0.0.1:11434.
	Host      string `json:"host"`
	Reachable bool   `json:"reachable"`
	// Error is why it could not be asked (with the cause, such as
	// "connection refused"), "" when it answered.
	Error string `json:"error"`
	// Version is what GET /api/version answered, "" when unknown.
	Version string `json:"version"`
}

// OpenAIStatus is what was found at the OpenAI-compatible server.
type OpenAIStatus struct {
	URL string `json:"url"`
	// Configured is false while it would be api.openai.com without a key:
	// it is then not asked.
	Configured bool   `json:"configured"`
	Reachable  bool   `json:"reachable"`
	Error      string `json:"error"`
}

// SetupModel is one offered model and what Docent recommends it for.
type SetupModel struct {
	ID       string `json:"id"`
	Provider string `json:"provider"`
	// Capabilities as Ollama's /api/show reports them ("completion",
	// "tools", "thinking", "vision", ...); empty when unknown (an
	// OpenAI-compatible server does not say).
	Capabilities  []string `json:"capabilities"`
	ContextLength int      `json:"context_length,omitempty"`
	// RecommendedFor is "agent" and/or "extraction", or empty.
	RecommendedFor []string `json:"recommended_for"`
}

// Has reports whether the model has capability c.
func (m SetupModel) Has(c string) bool { return slices.Contains(m.Capabilities, c) }

// canChat: it completes text, or its capabilities are not known (an
// OpenAI-compatible server's model, an old Ollama).
func (m SetupModel) canChat() bool { return len(m.Capabilities) == 0 || m.Has("completion") }

// forAgent: it completes and calls tools, as the server says.
func (m SetupModel) forAgent() bool { return m.Has("completion") && m.Has("tools") }

// Recommended names the model recommended for each use ("" for none).
type Recommended struct {
	Agent      string `json:"agent"`
	Extraction string `json:"extraction"`
}

// NextStep is one thing to do. Text says it for a person, commands in
// backticks; Command, when set, is the one command to copy, URL the page
// to open.
type NextStep struct {
	Kind    string `json:"kind"`
	Text    string `json:"text"`
	Command string `json:"command,omitempty"`
	URL     string `json:"url,omitempty"`
}

// Status is the first-run state of the configuration in effect.
func (ls *Live) Status(ctx context.Context) (Status, error) {
	saved, err := ls.db.GetProviderSettings(ctx)
	if err != nil {
		return Status{}, err
	}
	setup, err := ls.resolve(ctx, saved)
	if err != nil {
		return Status{}, err
	}
	st := Inspect(ctx, setup.Config, setup.DefaultModel, saved.OpenAIKey, secret.New(ls.env.OpenAIKey))
	st.DefaultModelSource = setup.Sources[storage.SettingDefaultModel]
	st.EmbedModel = setup.EmbedModel
	if st.EmbedModel == "" {
		st.EmbedSuggestion = embedSuggestion(st.Models)
	}
	return st, nil
}

// inspectTimeout bounds Inspect: a server that does not answer in time is
// reported as unreachable.
const inspectTimeout = 10 * time.Second

// Inspect asks the providers of cfg what they offer, at the same time and
// within inspectTimeout, and works out the recommendations and next steps
// for defaultModel. Errors shown are cleared of cfg's key and of redact.
func Inspect(ctx context.Context, cfg provider.Config, defaultModel string, redact ...secret.Value) Status {
	ctx, cancel := context.WithTimeout(ctx, inspectTimeout)
	defer cancel()
	redact = append(redact, secret.New(cfg.OpenAIKey))
	clean := func(op string, err error) string {
		return secret.Redact(fault.ErrorMessage(fault.Report(ctx, nil, op, err)), redact...)
	}
	reg := provider.NewRegistry(cfg)
	st := Status{
		Ollama:       OllamaStatus{Host: cmp.Or(cfg.OllamaHost, provider.DefaultOllamaHost)},
		OpenAI:       OpenAIStatus{URL: strings.TrimRight(cmp.Or(cfg.OpenAIBaseURL, provider.DefaultOpenAIBaseURL), "/")},
		DefaultModel: strings.TrimSpace(defaultModel),
	}
	st.OpenAI.Configured = cfg.OpenAIKey != "" || st.OpenAI.URL != provider.DefaultOpenAIBaseURL

	var ollamaModels, openaiModels []provider.ModelInfo
	var ollamaErr error
	var wg sync.WaitGroup
	p, err := reg.Provider("ollama")
	badHost := err != nil // OLLAMA_HOST is not a URL
	if badHost {
		ollamaErr = err
	} else {
		o := p.(*provider.Ollama)
		st.Ollama.Host = o.Host()
		wg.Go(func() { ollamaModels, ollamaErr = o.Models(ctx) })
		wg.Go(func() { st.Ollama.Version = ollamaVersion(ctx, cfg.HTTPClient, o.Host()) })
	}
	if st.OpenAI.Configured {
		if p, err := reg.Provider("openai"); err == nil {
			wg.Go(func() {
				var err error
				if openaiModels, err = p.Models(ctx); err != nil {
					st.OpenAI.Error = clean("ask the OpenAI-compatible server for its models", err)
				} else {
					st.OpenAI.Reachable = true
				}
			})
		}
	}
	wg.Wait()
	if ollamaErr != nil {
		st.Ollama.Error = clean("ask Ollama for its models", ollamaErr) + cause(ollamaErr)
	} else {
		st.Ollama.Reachable = true
	}

	st.Models = []SetupModel{}
	for _, m := range slices.Concat(ollamaModels, openaiModels) {
		caps := m.Capabilities
		if caps == nil {
			caps = []string{}
		}
		st.Models = append(st.Models, SetupModel{
			ID: m.ID, Provider: m.Provider, Capabilities: caps,
			ContextLength: m.ContextLength, RecommendedFor: []string{},
		})
	}
	st.recommend()
	st.PullSuggestions = make([]PullSuggestion, len(PullSuggestions))
	for i, s := range PullSuggestions {
		s.Command = "ollama pull " + s.Model
		st.PullSuggestions[i] = s
	}
	st.PullCommand = "ollama pull " + st.modelToPull()
	st.explain(ollamaErr, badHost)
	return st
}

// cause is the low-level reason behind a provider error, such as
// " (dial tcp 127.0.0.1:11434: connect: connection refused)", when the
// message does not already say it: "cannot reach Ollama" alone does not
// tell a stopped server from a wrong address or a firewall.
func cause(err error) string {
	var op *net.OpError
	var dns *net.DNSError
	var c string
	switch {
	case errors.As(err, &dns):
		c = dns.Error()
	case errors.As(err, &op):
		c = op.Error()
	case errors.Is(err, context.DeadlineExceeded):
		c = fmt.Sprintf("no answer within %s", inspectTimeout)
	default:
		return ""
	}
	if strings.Contains(err.Error(), c) {
		return ""
	}
	return " (" + c + ")"
}

// ollamaVersion asks GET /api/version; "" when it does not answer.
func ollamaVersion(ctx context.Context, hc *http.Client, host string) string {
	if hc == nil {
		hc = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, host+"/api/version", nil)
	if err != nil {
		return ""
	}
	resp, err := hc.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var v struct {
		Version string `json:"version"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&v) != nil {
		return ""
	}
	return v.Version
}

// model returns the offered model with id.
func (st *Status) model(id string) (*SetupModel, bool) {
	for i := range st.Models {
		if st.Models[i].ID == id {
			return &st.Models[i], true
		}
	}
	return nil, false
}

// recommend picks the agent's model and the extraction model, and marks
// them. For the agent: the default model when it calls tools, else the
// first pulled of PullSuggestions, else the first pulled that calls tools
// (Ollama lists the latest pulled first). For extraction, which needs no
// tools but a model that follows a JSON schema, as every completion model
// on Ollama does: the agent's model when there is one, so that a single
// model stays loaded, else the default model, else the first that
// completes. Models whose capabilities are unknown (an OpenAI-compatible
// server's) are never recommended: nothing says they can.
func (st *Status) recommend() {
	pick := func(ok func(SetupModel) bool) string {
		if m, found := st.model(st.DefaultModel); found && ok(*m) {
			return m.ID
		}
		for _, s := range PullSuggestions {
			if m, found := st.model("ollama/" + s.Model); found && ok(*m) {
				return m.ID
			}
		}
		for _, m := range st.Models {
			if ok(m) {
				return m.ID
			}
		}
		return ""
	}
	st.Recommended.Agent = pick(SetupModel.forAgent)
	st.Recommended.Extraction = cmp.Or(st.Recommended.Agent, pick(func(m SetupModel) bool { return m.Has("completion") }))
	if m, ok := st.model(st.Recommended.Agent); ok {
		m.RecommendedFor = append(m.RecommendedFor, ForAgent)
	}
	if m, ok := st.model(st.Recommended.Extraction); ok {
		m.RecommendedFor = append(m.RecommendedFor, ForExtraction)
	}
}

// modelToPull is the default model when it is an Ollama one not pulled,
// else the first suggestion.
func (st *Status) modelToPull() string {
	if name, model, err := provider.ParseModelID(st.DefaultModel); err == nil && name == "ollama" {
		if _, pulled := st.model(st.DefaultModel); !pulled {
			return model
		}
	}
	return PullSuggestions[0].Model
}

// explain sets Usable, Reason and NextSteps. badHost says OLLAMA_HOST
// (or the saved host) is not a URL at all.
func (st *Status) explain(ollamaErr error, badHost bool) {
	st.NextSteps = []NextStep{}
	step := func(kind, text, command, url string) {
		st.NextSteps = append(st.NextSteps, NextStep{Kind: kind, Text: text, Command: command, URL: url})
	}
	because := func(format string, args ...any) {
		if st.Reason == "" { // the first reason found is the one shown
			st.Reason = fmt.Sprintf(format, args...)
		}
	}
	suggested := PullSuggestions[0].Model
	pullStep := func(why string) {
		model := st.modelToPull()
		text := fmt.Sprintf("%s: `ollama pull %s`", why, model)
		if model == suggested {
			text += fmt.Sprintf(" (for %s; with %s, `ollama pull %s`; smallest, `ollama pull %s`)",
				PullSuggestions[0].Memory, PullSuggestions[1].Memory, PullSuggestions[1].Model, PullSuggestions[2].Model)
		}
		step(StepPullModel, text, "ollama pull "+model, "")
	}
	chooseStep := func(id string) {
		step(StepChooseDefault, fmt.Sprintf("Choose %s as the default model: in Settings, or with --model %s (or DOCENT_MODEL) on the command line", id, id), "", "")
	}
	openaiStep := func() {
		switch {
		case st.OpenAI.Configured && st.OpenAI.Error != "":
			step(StepFixOpenAI, fmt.Sprintf("The OpenAI-compatible server at %s did not answer: %s", st.OpenAI.URL, st.OpenAI.Error), "", "")
		case !st.OpenAI.Configured:
			step(StepUseOpenAI, "Or use an OpenAI-compatible server (vLLM, llama.cpp, LM Studio, a hosted API): enter its base URL and key in Settings, or set OPENAI_BASE_URL and OPENAI_API_KEY", "", "")
		}
	}

	// The default model, when one is set.
	def, offered := st.model(st.DefaultModel)
	defProvider, _, defErr := provider.ParseModelID(st.DefaultModel)
	switch {
	case st.DefaultModel == "":
	case defErr != nil:
		because("%s; choose another in Settings", fault.ErrorMessage(defErr))
		chooseStep(cmp.Or(st.Recommended.Agent, "ollama/"+suggested))
		return
	case offered && def.canChat():
		st.Usable = true
		if len(def.Capabilities) > 0 && !def.Has("tools") {
			text := def.ID + " cannot call tools, so the agent falls back to a text protocol, which small models follow less well"
			if st.Recommended.Agent != "" {
				step(StepNoTools, fmt.Sprintf("%s; %s can: choose it as the default model in Settings", text, st.Recommended.Agent), "", "")
			} else {
				step(StepNoTools, fmt.Sprintf("%s; for one that can, `ollama pull %s`", text, suggested), "ollama pull "+suggested, "")
			}
		}
		return
	case offered:
		because("the default model %s cannot chat (it offers %s); choose another in Settings", def.ID, strings.Join(def.Capabilities, ", "))
	case defProvider == "openai":
		switch {
		case !st.OpenAI.Configured:
			because("the default model %s needs an OpenAI-compatible server: enter its base URL and key in Settings", st.DefaultModel)
		case st.OpenAI.Reachable:
			because("the default model %s is not offered by the OpenAI-compatible server at %s; choose another in Settings", st.DefaultModel, st.OpenAI.URL)
		default:
			because("the OpenAI-compatible server at %s, of the default model %s, cannot be reached; check it in Settings", st.OpenAI.URL, st.DefaultModel)
		}
		openaiStep()
		if st.Recommended.Agent != "" {
			chooseStep(st.Recommended.Agent)
		}
		return
	case ollamaErr == nil:
		because("the default model %s is not pulled: run `%s`, or choose another in Settings", st.DefaultModel, st.PullCommand)
		pullStep("Pull it")
		if st.Recommended.Agent != "" {
			chooseStep(st.Recommended.Agent)
		}
		return
	}

	// No usable default: what to do depends on what is there.
	chatty := slices.ContainsFunc(st.Models, SetupModel.canChat)
	switch {
	case badHost:
		because("the Ollama host is not a URL: fix OLLAMA_HOST, or the Ollama host in Settings")
		step(StepFixOllamaHost, st.Ollama.Error, "", "")
		openaiStep()
	case ollamaErr != nil && (st.DefaultModel != "" || !chatty):
		then := ""
		if st.DefaultModel == "" {
			then = fmt.Sprintf(", then run `%s`", st.PullCommand)
		}
		because("Ollama is not running at %s: start it (`ollama serve`) or install it from %s%s; or set up an OpenAI-compatible server in Settings",
			st.Ollama.Host, OllamaDownloadURL, then)
		step(StepStartOllama, fmt.Sprintf("Start Ollama (`ollama serve`, or open the Ollama app); Docent looks for it at %s (OLLAMA_HOST, or the Ollama host in Settings)", st.Ollama.Host), "ollama serve", "")
		step(StepInstallOllama, fmt.Sprintf("Not installed? Download Ollama from %s; on Linux: `%s`", OllamaDownloadURL, OllamaLinuxInstallCmd), OllamaLinuxInstallCmd, OllamaDownloadURL)
		if st.DefaultModel == "" {
			pullStep("Then pull a small model that can call tools")
			chooseStep("ollama/" + st.modelToPull())
		}
		openaiStep()
	case st.Recommended.Agent != "":
		because("no default model is chosen: choose %s in Settings", st.Recommended.Agent)
		chooseStep(st.Recommended.Agent)
	case st.Recommended.Extraction != "":
		because("none of the pulled models can call tools: run `%s`, then choose it in Settings", st.PullCommand)
		pullStep("Pull a small model that can call tools")
		step(StepChooseDefault, fmt.Sprintf("Then choose ollama/%s as the default model in Settings (or with --model); %s works too, through a text protocol, as it cannot call tools", st.modelToPull(), st.Recommended.Extraction), "", "")
	case chatty:
		because("no default model is chosen: choose one of the models offered in Settings")
		step(StepChooseDefault, "Choose one of the models listed as the default model: in Settings, or with --model (or DOCENT_MODEL) on the command line", "", "")
	default:
		none := "no models pulled"
		if len(st.Models) > 0 {
			none = "no model pulled that can chat"
		}
		because("Ollama at %s has %s: run `%s`, then choose it in Settings", st.Ollama.Host, none, st.PullCommand)
		pullStep("Pull a small model that can call tools")
		chooseStep("ollama/" + st.modelToPull())
		openaiStep()
	}
}

// Hint is the one line `docent --serve` and the desktop print at start
// when no usable model is set; "" when one is.
func (st Status) Hint() string {
	if st.Usable {
		return ""
	}
	return "No model yet: " + st.Reason
}
