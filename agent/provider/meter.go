package provider

import (
	"context"
	"time"
	"unicode/utf8"
)

// Meter is told of every model call made through a Registry's providers
// (Registry.For, Registry.Embed): the one place where calls are counted
// and held to spending limits, whoever makes them (a chat round, an
// extraction, auto-create, an embedding, vision OCR, eval, an MCP client).
type Meter interface {
	// Begin is called just before a call goes out. An error stops the call
	// and is what the caller gets (a spending limit reached). Otherwise
	// end is called exactly once, when the call has ended, however it
	// ended.
	Begin(ctx context.Context, c Call) (end func(CallEnd), err error)
}

// Call is a model call about to go out.
type Call struct {
	// Provider is "ollama" or "openai"; Model the model without prefix.
	Provider, Model string
	// Kind is "chat" or "embed".
	Kind string
	// PromptTokens is the prompt's estimate (EstimateTokens).
	PromptTokens int
	// MaxOutputTokens is the request's output limit; 0 when it sets none
	// (and for an embedding, which has no output).
	MaxOutputTokens int
}

// CallEnd is how a call ended.
type CallEnd struct {
	// Usage is the tokens the server reported, or Docent's estimate when
	// it reported none (Estimated).
	Usage     Usage
	Estimated bool
	// Window is the context window the call ran with, when known (Ollama's
	// num_ctx): no count can be above it.
	Window   int
	Duration time.Duration
	// Err is the call's error; nil when it succeeded.
	Err error
}

// Metered returns the registry's providers with m told of every call.
func (r *Registry) Metered(m Meter) *Registry {
	c := *r
	c.meter = m
	return &c
}

// metered is a provider whose calls go through a Meter.
type metered struct {
	Provider
	meter Meter
}

// Chat meters one call. When the server reports no usage, the usage is
// estimated from the prompt and from what came back, if anything did.
func (m metered) Chat(ctx context.Context, req Request, onDelta func(Delta) error) (Response, error) {
	prompt := EstimateTokens(req)
	end, err := m.meter.Begin(ctx, Call{Provider: m.Name(), Model: req.Model, Kind: "chat", PromptTokens: prompt, MaxOutputTokens: req.MaxTokens})
	if err != nil {
		return Response{}, err
	}
	start := time.Now()
	resp, err := m.Provider.Chat(ctx, req, onDelta)
	e := CallEnd{Usage: resp.Usage, Window: resp.NumCtx, Duration: time.Since(start), Err: err}
	if e.Usage.PromptTokens == 0 && e.Usage.CompletionTokens == 0 {
		out := utf8.RuneCountInString(resp.Text) + utf8.RuneCountInString(resp.Thinking)
		for _, tc := range resp.ToolCalls {
			out += len(tc.Name) + len(tc.Arguments)
		}
		if err == nil || out > 0 {
			e.Usage = Usage{PromptTokens: prompt, CompletionTokens: (out + 3) / 4}
			e.Estimated = true
		}
	}
	end(e)
	return resp, err
}

// embedMetered meters one embedding request: its tokens are those the
// server reported, estimated at four characters a token when it reported
// none.
func (r *Registry) embedMetered(ctx context.Context, p Provider, model string, texts []string, embed func() ([][]float32, int, error)) ([][]float32, error) {
	if r.meter == nil {
		vecs, _, err := embed()
		return vecs, err
	}
	chars := 0
	for _, t := range texts {
		chars += len(t)
	}
	end, err := r.meter.Begin(ctx, Call{Provider: p.Name(), Model: model, Kind: "embed", PromptTokens: chars / 4})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	vecs, tokens, err := embed()
	e := CallEnd{Duration: time.Since(start), Err: err}
	switch {
	case tokens > 0:
		e.Usage = Usage{PromptTokens: tokens}
	case err == nil:
		e.Usage, e.Estimated = Usage{PromptTokens: chars / 4}, true
	}
	end(e)
	return vecs, err
}
