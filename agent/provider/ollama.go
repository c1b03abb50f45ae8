package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"

	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/agent/workpool"
)

// Ollama is the provider for a local (or remote) Ollama server.
//
// Chat streams /api/chat itself (ollama_stream.go), decoding each line into
// the api package's types; the api client, which allocates an 8 MiB line
// buffer for every streamed call, serves only /api/tags and /api/show.
type Ollama struct {
	cfg    Config
	base   *url.URL
	hc     *http.Client // records exchanges (withNotes)
	client *api.Client
	retry  retryPolicy
	red    redactor // takes the secrets out of every error returned

	mu    sync.Mutex
	shows map[string]ModelInfo // /api/show answers, by model name
	// ctxs is the num_ctx each model is run with, chosen once (window).
	ctxs map[string]int
}

// NewOllama returns the Ollama provider for cfg.OllamaHost.
func NewOllama(cfg Config) (*Ollama, error) {
	cfg = cfg.withDefaults()
	red := newRedactor(cfg)
	base, err := ollamaURL(cfg.OllamaHost)
	if err != nil {
		return nil, red.error(newError(KindUnreachable, err, "OLLAMA_HOST %q is not a host or URL: %v", cfg.OllamaHost, err))
	}
	hc := withNotes(cfg.HTTPClient)
	return &Ollama{
		cfg:    cfg,
		base:   base,
		hc:     hc,
		client: api.NewClient(base, hc),
		retry:  defaultRetry(cfg.MaxRetries),
		red:    red,
		shows:  map[string]ModelInfo{},
		ctxs:   map[string]int{},
	}, nil
}

// Name is "ollama".
func (p *Ollama) Name() string { return "ollama" }

// Host is the server's base URL, e.g. http://127.0.0.1:11434.
func (p *Ollama) Host() string { return p.base.String() }

// showConcurrency is how many /api/show requests Models makes at once.
const showConcurrency = 4

// Models lists the pulled models, each with the context length and
// capabilities /api/show reports (left out for a model it cannot show).
func (p *Ollama) Models(ctx context.Context) ([]ModelInfo, error) {
	list, err := p.models(ctx)
	return list, p.red.error(err)
}

func (p *Ollama) models(ctx context.Context) ([]ModelInfo, error) {
	xctx, x := withExchange(ctx)
	list, err := p.client.List(xctx)
	if err != nil {
		return nil, p.classify(err, x, "")
	}
	out := make([]ModelInfo, len(list.Models))
	for i, m := range list.Models {
		out[i] = ModelInfo{ID: "ollama/" + m.Name, Provider: "ollama"}
	}
	// A model that cannot be shown is listed without its details; only
	// ctx stops the rest.
	_ = workpool.ForEach(ctx, list.Models, showConcurrency, func(ctx context.Context, i int, m api.ListModelResponse) error {
		if info, err := p.Show(ctx, m.Name); err == nil {
			out[i].ContextLength, out[i].Capabilities = info.ContextLength, info.Capabilities
		}
		return nil
	})
	return out, nil
}

// Show asks /api/show for the model's context length and capabilities.
// Answers are cached for the provider's lifetime.
func (p *Ollama) Show(ctx context.Context, name string) (ModelInfo, error) {
	info, err := p.show(ctx, name)
	return info, p.red.error(err)
}

func (p *Ollama) show(ctx context.Context, name string) (ModelInfo, error) {
	if err := checkModelName(name); err != nil {
		return ModelInfo{}, err
	}
	p.mu.Lock()
	info, ok := p.shows[name]
	p.mu.Unlock()
	if ok {
		return info, nil
	}
	xctx, x := withExchange(ctx)
	resp, err := p.client.Show(xctx, &api.ShowRequest{Model: name})
	if err != nil {
		return ModelInfo{}, p.classify(err, x, name)
	}
	info = ModelInfo{ID: "ollama/" + name, Provider: "ollama"}
	for _, c := range resp.Capabilities {
		info.Capabilities = append(info.Capabilities, string(c))
	}
	arch, _ := resp.ModelInfo["general.architecture"].(string)
	if n, ok := resp.ModelInfo[arch+".context_length"].(float64); ok {
		info.ContextLength = int(n)
	} else {
		for k, v := range resp.ModelInfo {
			if n, ok := v.(float64); ok && strings.HasSuffix(k, ".context_length") {
				info.ContextLength = int(n)
			}
		}
	}
	p.mu.Lock()
	p.shows[name] = info
	p.mu.Unlock()
	return info, nil
}

// checkModelName refuses a name Ollama cannot parse, with Ollama's own
// parser, before anything is sent: Ollama answers such a chat with "model
// is required" and such a show with "unqualified name", neither of which
// tells a person what is wrong.
func checkModelName(name string) error {
	if model.ParseName(name).IsValid() {
		return nil
	}
	return newError(KindModelNotFound, nil,
		"%q is not an Ollama model name: names look like qwen3:8b or hf.co/org/repo:tag (`ollama list` shows the pulled ones)", name)
}

// Chat streams one call to /api/chat.
func (p *Ollama) Chat(ctx context.Context, req Request, onDelta func(Delta) error) (Response, error) {
	resp, err := p.chat(ctx, req, onDelta)
	return resp, p.red.error(err)
}

func (p *Ollama) chat(ctx context.Context, req Request, onDelta func(Delta) error) (Response, error) {
	if err := checkModelName(req.Model); err != nil {
		return Response{}, err
	}
	areq, err := ollamaRequest(req)
	if err != nil {
		return Response{}, err
	}

	// What the model can do decides num_ctx and catches a missing model or
	// tool support before the prompt is sent. A server too old to answer
	// /api/show fully is not an error: the chat request will tell.
	info, err := p.Show(ctx, req.Model)
	if k := ErrorKind(err); k == KindModelNotFound || k == KindUnreachable || k == KindAuth {
		return Response{}, err
	} else if err != nil && ctx.Err() != nil {
		return Response{}, ctx.Err()
	}
	if len(req.Tools) > 0 && len(info.Capabilities) > 0 && !info.Has("tools") {
		return Response{}, noTools(req.Model, "")
	}
	numCtx := req.NumCtx
	if numCtx == 0 {
		numCtx = p.window(req.Model, info, err == nil)
	}
	if est := EstimateTokens(req); est > numCtx {
		return Response{}, newError(KindContextOverflow, nil,
			"the prompt is about %s tokens but %s is run with a %s-token window (raise DOCENT_MAX_CONTEXT or pick a model with a larger context)",
			textfmt.Thousands(est), req.Model, textfmt.Thousands(numCtx))
	}
	areq.Options = map[string]any{"num_ctx": numCtx}
	if req.MaxTokens > 0 {
		areq.Options["num_predict"] = req.MaxTokens
	}
	areq.KeepAlive = &api.Duration{Duration: p.cfg.KeepAlive}
	body, err := json.Marshal(areq)
	if err != nil {
		return Response{}, fmt.Errorf("encoding the request to Ollama: %w", err)
	}

	var resp attemptResult
	err = p.retry.run(ctx, func() (bool, error) {
		var err error
		resp, err = p.attempt(ctx, req.Model, len(req.Tools) > 0, body, onDelta)
		resp.NumCtx = numCtx
		return resp.streamed, err
	})
	if err == nil {
		if t := detectTruncation(req, resp.Usage.PromptTokens, numCtx); t != nil {
			t.MaxContext, t.ModelContext = p.cfg.MaxNumCtx, info.ContextLength
			t.Warning = t.warning()
			resp.PromptTruncated = t
		}
	}
	return resp.Response, err
}

// window is the num_ctx model is run with: its context length from
// /api/show capped by Config.MaxNumCtx (MaxNumCtx alone when the length is
// unknown). Ollama loads a model again, which takes seconds to minutes,
// whenever a request asks for another num_ctx than it was loaded with, so
// the window is chosen once per model, from the first answer of /api/show
// (shown), and every later request sends the same; Registry.Limits reads
// it from here too.
func (p *Ollama) window(model string, info ModelInfo, shown bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n, ok := p.ctxs[model]; ok {
		return n
	}
	n := p.cfg.MaxNumCtx
	if info.ContextLength > 0 {
		n = min(info.ContextLength, n)
	}
	if shown {
		p.ctxs[model] = n
	}
	return n
}

// Window is the context window, in tokens, Chat runs model with (the
// num_ctx it sends), asking /api/show if it was not asked yet. A failure to
// ask gives Config.MaxNumCtx and the error.
func (p *Ollama) Window(ctx context.Context, model string) (int, ModelInfo, error) {
	info, err := p.Show(ctx, model)
	return p.window(model, info, err == nil), info, err
}

// attemptResult is a Response plus whether anything reached onDelta.
type attemptResult struct {
	Response
	streamed bool
}

// classify turns an error of the api client (/api/tags, /api/show) into an
// *Error, explained from the exchange the request recorded.
func (p *Ollama) classify(err error, x *exchange, name string) *Error {
	if status, header, body, ok := x.failed(); ok {
		return p.statusError(name, false, status, header, body)
	}
	var se api.StatusError
	var ae api.AuthorizationError
	switch {
	case errors.As(err, &ae):
		return p.statusError(name, false, ae.StatusCode, nil, nil)
	case errors.As(err, &se):
		body, _ := json.Marshal(map[string]string{"error": se.ErrorMessage})
		return p.statusError(name, false, se.StatusCode, nil, body)
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return newError(KindBadResponse, err, "Ollama at %s sent a malformed response: %v", p.base, err)
	}
	return p.transportError(err, 0, 0)
}

// transportError is a failure below HTTP: no connection, or one lost.
func (p *Ollama) transportError(err error, chars, frames int) *Error {
	switch {
	case isConnError(err):
		return newError(KindUnreachable, err, "cannot reach Ollama at %s: is it running? Start it with `ollama serve`", p.base)
	case isNetError(err):
		return interrupted(chars, err)
	case frames > 0:
		return interrupted(chars, err)
	}
	return newError(KindServerError, err, "Ollama failed: %v", err)
}

// statusError explains an error status from Ollama with its own message.
func (p *Ollama) statusError(name string, tools bool, status int, header http.Header, body []byte) *Error {
	se := parseServerError(p.red.bytes(body))
	err := &api.StatusError{StatusCode: status, Status: http.StatusText(status), ErrorMessage: se.Message}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return newError(KindAuth, err, "Ollama at %s refused the request (%s)", p.base, said(status, se.Message))
	case status == http.StatusNotFound && name != "":
		return newError(KindModelNotFound, err, "model %s is not pulled: run `ollama pull %s`", name, name)
	case strings.Contains(se.Message, "does not support tools") || tools && refusesTools(se.Message):
		return noTools(name, "")
	case status == http.StatusTooManyRequests:
		e := newError(KindRateLimited, err, "Ollama is busy (%s)", said(status, se.Message))
		e.wait = rateLimitWait(header, time.Now())
		return e
	case status >= 500:
		e := newError(KindServerError, err, "Ollama failed (%s)", said(status, se.Message))
		e.wait = rateLimitWait(header, time.Now())
		return e
	case name != "":
		return newError(KindRejected, err, "Ollama rejected the request for %s (%s)", name, said(status, se.Message))
	}
	return newError(KindRejected, err, "Ollama rejected the request (%s)", said(status, se.Message))
}

// noTools is the error for a model or server that takes no tools; why is
// the server's own explanation when it adds one (a flag to set).
func noTools(model, why string) *Error {
	if why == "" {
		return newError(KindNoToolSupport, nil, "%s does not support tool calling", model)
	}
	return newError(KindNoToolSupport, nil, "%s does not support tool calling here: the server says %s", model, why)
}

// ollamaRequest converts a Request to the Ollama wire form.
func ollamaRequest(req Request) (*api.ChatRequest, error) {
	areq := &api.ChatRequest{Model: req.Model, Format: req.Format}
	if req.Think != nil {
		areq.Think = &api.ThinkValue{Value: *req.Think}
	}
	for _, m := range req.Messages {
		am := api.Message{Role: m.Role, Content: m.Content, Thinking: m.Thinking, ToolName: m.ToolName, ToolCallID: m.ToolCallID}
		for _, img := range m.Images {
			am.Images = append(am.Images, api.ImageData(img)) // base64 on the wire
		}
		for i, tc := range m.ToolCalls {
			args := api.NewToolCallFunctionArguments()
			if len(tc.Arguments) > 0 {
				var err error
				if args, err = orderedArguments(tc.Arguments); err != nil {
					// A model's invalid arguments go back as an empty object;
					// the tool result already told it what was wrong.
					args = api.NewToolCallFunctionArguments()
				}
			}
			am.ToolCalls = append(am.ToolCalls, api.ToolCall{ID: tc.ID, Function: api.ToolCallFunction{Index: i, Name: tc.Name, Arguments: args}})
		}
		areq.Messages = append(areq.Messages, am)
	}
	for _, t := range req.Tools {
		fn := api.ToolFunction{Name: t.Name, Description: t.Description}
		fn.Parameters.Type = "object"
		fn.Parameters.Properties = api.NewToolPropertiesMap()
		if len(t.Parameters) > 0 {
			if err := json.Unmarshal(t.Parameters, &fn.Parameters); err != nil {
				return nil, fmt.Errorf("tool %s: parameters are not a JSON Schema object: %w", t.Name, err)
			}
		}
		areq.Tools = append(areq.Tools, api.Tool{Type: "function", Function: fn})
	}
	return areq, nil
}
