package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
)

// Ollama is the provider for a local (or remote) Ollama server.
type Ollama struct {
	cfg    Config
	base   *url.URL
	client *api.Client
	retry  retryPolicy

	mu    sync.Mutex
	shows map[string]ModelInfo // /api/show answers, by model name
}

// NewOllama returns the Ollama provider for cfg.OllamaHost.
func NewOllama(cfg Config) (*Ollama, error) {
	cfg = cfg.withDefaults()
	base, err := ollamaURL(cfg.OllamaHost)
	if err != nil {
		return nil, newError(KindUnreachable, err, "OLLAMA_HOST %q is not a host or URL: %v", cfg.OllamaHost, err)
	}
	return &Ollama{
		cfg:    cfg,
		base:   base,
		client: api.NewClient(base, withNotes(cfg.HTTPClient)),
		retry:  defaultRetry(cfg.MaxRetries),
		shows:  map[string]ModelInfo{},
	}, nil
}

// Name is "ollama".
func (p *Ollama) Name() string { return "ollama" }

// Models lists the pulled models.
func (p *Ollama) Models(ctx context.Context) ([]ModelInfo, error) {
	list, err := p.client.List(ctx)
	if err != nil {
		return nil, p.classify(err, "", 0, 0)
	}
	out := make([]ModelInfo, 0, len(list.Models))
	for _, m := range list.Models {
		out = append(out, ModelInfo{ID: "ollama/" + m.Name, Provider: "ollama"})
	}
	return out, nil
}

// Show asks /api/show for the model's context length and capabilities.
// Answers are cached for the provider's lifetime.
func (p *Ollama) Show(ctx context.Context, model string) (ModelInfo, error) {
	p.mu.Lock()
	info, ok := p.shows[model]
	p.mu.Unlock()
	if ok {
		return info, nil
	}
	resp, err := p.client.Show(ctx, &api.ShowRequest{Model: model})
	if err != nil {
		return ModelInfo{}, p.classify(err, model, 0, 0)
	}
	info = ModelInfo{ID: "ollama/" + model, Provider: "ollama"}
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
	p.shows[model] = info
	p.mu.Unlock()
	return info, nil
}

// Chat streams one call to /api/chat.
func (p *Ollama) Chat(ctx context.Context, req Request, onDelta func(Delta) error) (Response, error) {
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
		return Response{}, noTools(req.Model, nil)
	}
	numCtx := req.NumCtx
	if numCtx == 0 {
		numCtx = p.cfg.MaxNumCtx
		if info.ContextLength > 0 {
			numCtx = min(info.ContextLength, p.cfg.MaxNumCtx)
		}
	}
	if est := EstimateTokens(req); est > numCtx {
		return Response{}, newError(KindContextOverflow, nil,
			"the prompt is about %s tokens but %s is run with a %s-token window (raise DOCENT_MAX_CONTEXT or pick a model with a larger context)",
			thousands(est), req.Model, thousands(numCtx))
	}
	areq.Options = map[string]any{"num_ctx": numCtx}

	var resp attemptResult
	err = p.retry.run(ctx, func() (bool, error) {
		var err error
		resp, err = p.attempt(ctx, req.Model, areq, onDelta)
		resp.NumCtx = numCtx
		return resp.streamed, err
	})
	return resp.Response, err
}

// attemptResult is a Response plus whether anything reached onDelta.
type attemptResult struct {
	Response
	streamed bool
}

func (p *Ollama) attempt(ctx context.Context, model string, areq *api.ChatRequest, onDelta func(Delta) error) (attemptResult, error) {
	var (
		res    attemptResult
		frames int
		done   bool
	)
	d := deltas{onDelta: onDelta}
	note := &headerNote{}
	lines := &streamLines{}
	actx := context.WithValue(context.WithValue(ctx, headerNoteKey{}, note), streamLinesKey{}, lines)
	actx, wd := newWatchdog(actx, p.cfg.IdleTimeout)
	defer wd.stop()

	err := p.client.Chat(actx, areq, func(r api.ChatResponse) error {
		wd.kick()
		frames++
		line := lines.next() // the line r was decoded from
		if err := d.add(r.Message.Thinking, ""); err != nil {
			return err
		}
		if err := d.content(r.Message.Content); err != nil {
			return err
		}
		var raw []json.RawMessage
		if len(r.Message.ToolCalls) > 0 {
			raw = rawToolArguments(line, r.Message.ToolCalls)
		}
		for i, tc := range r.Message.ToolCalls {
			var rawArgs json.RawMessage
			if raw != nil {
				rawArgs = raw[i]
			}
			args, err := toolArguments(tc, rawArgs)
			if err != nil {
				return newError(KindBadResponse, err, "Ollama sent tool call arguments that cannot be encoded: %v", err)
			}
			id := tc.ID
			if id == "" {
				id = "call_" + strconv.Itoa(len(res.ToolCalls)+1)
			}
			res.ToolCalls = append(res.ToolCalls, ToolCall{ID: id, Name: tc.Function.Name, Arguments: args})
		}
		if r.Done {
			done = true
			res.DoneReason = r.DoneReason
			res.Usage = Usage{PromptTokens: r.PromptEvalCount, CompletionTokens: r.EvalCount}
			return d.flush()
		}
		return nil
	})
	d.fill(&res)

	// The client returns nil for a stream cut or cancelled after the
	// headers (it ignores the scanner's error): the missing done frame and
	// the contexts tell what happened.
	var cb *callbackError
	var pe *Error
	switch {
	case errors.As(err, &cb):
		return res, cb.err
	case errors.As(err, &pe):
		return res, pe
	case fired(actx):
		return res, timeoutError(p.cfg.IdleTimeout)
	case ctx.Err() != nil:
		return res, ctx.Err()
	case err != nil:
		e := p.classify(err, model, d.chars, frames)
		note.mu.Lock()
		e.retryAfter = parseRetryAfter(note.retryAfter, time.Now())
		note.mu.Unlock()
		return res, e
	case !done:
		return res, interrupted(d.chars, nil)
	}
	return res, nil
}

// classify turns an error of the Ollama client into an *Error.
func (p *Ollama) classify(err error, model string, chars, frames int) *Error {
	var se api.StatusError
	var ae api.AuthorizationError
	switch {
	case errors.As(err, &ae):
		return newError(KindAuth, err, "Ollama at %s refused the request (%s)", p.base, ae.Status)
	case errors.As(err, &se):
		msg := se.ErrorMessage
		switch {
		case se.StatusCode == http.StatusNotFound && model != "":
			return newError(KindModelNotFound, err, "model %s is not pulled: run `ollama pull %s`", model, model)
		case strings.Contains(msg, "does not support tools"):
			return noTools(model, err)
		case se.StatusCode == http.StatusTooManyRequests:
			return newError(KindRateLimited, err, "Ollama is busy (429 %s)", msg)
		case se.StatusCode >= 500:
			return newError(KindServerError, err, "Ollama failed (%d %s)", se.StatusCode, msg)
		case se.StatusCode == http.StatusForbidden:
			return newError(KindAuth, err, "Ollama at %s refused the request (403 %s)", p.base, msg)
		default:
			return newError(KindRejected, err, "Ollama rejected the request (%d %s)", se.StatusCode, msg)
		}
	case isConnError(err):
		return newError(KindUnreachable, err, "cannot reach Ollama at %s: is it running? Start it with `ollama serve`", p.base)
	case isNetError(err):
		return interrupted(chars, err)
	}
	// The client returns a frame it cannot parse as errors.New(frame), and
	// an {"error": ...} frame mid-stream as errors.New(message).
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if msg := strings.TrimSpace(err.Error()); errors.As(err, &syn) || errors.As(err, &typ) || strings.HasPrefix(msg, "{") {
		return newError(KindBadResponse, err, "Ollama sent a malformed response after %d characters: %s", chars, clip(msg, 120))
	}
	if frames > 0 {
		return interrupted(chars, err)
	}
	return newError(KindServerError, err, "Ollama failed: %v", err)
}

func noTools(model string, err error) *Error {
	return newError(KindNoToolSupport, err, "%s does not support tool calling", model)
}

// ollamaRequest converts a Request to the Ollama wire form.
func ollamaRequest(req Request) (*api.ChatRequest, error) {
	areq := &api.ChatRequest{Model: req.Model, Format: req.Format}
	if req.Think != nil {
		areq.Think = &api.ThinkValue{Value: *req.Think}
	}
	for _, m := range req.Messages {
		am := api.Message{Role: m.Role, Content: m.Content, Thinking: m.Thinking, ToolName: m.ToolName, ToolCallID: m.ToolCallID}
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

// thousands formats n with commas: 52000 → "52,000".
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
