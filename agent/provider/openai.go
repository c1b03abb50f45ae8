package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/shared"
)

// OpenAI is the provider for OpenAI and any OpenAI-compatible server (vLLM,
// llama.cpp server, LM Studio, LiteLLM, hosted APIs).
//
// Request.Think is not sent: reasoning_effort is rejected by many
// compatible servers and by non-reasoning models; their reasoning_content
// is read when they send it.
type OpenAI struct {
	cfg    Config
	client openai.Client
	retry  retryPolicy
}

// NewOpenAI returns the provider for cfg.OpenAIBaseURL with cfg.OpenAIKey.
func NewOpenAI(cfg Config) *OpenAI {
	cfg = cfg.withDefaults()
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.OpenAIBaseURL),
		option.WithHTTPClient(cfg.HTTPClient),
		// One retry policy: ours, which knows whether anything was streamed.
		option.WithMaxRetries(0),
		// Always set, even empty: openai-go would otherwise send
		// OPENAI_API_KEY from the environment to whatever server this is.
		// Docent resolves that variable itself, for its own server only.
		option.WithAPIKey(cfg.OpenAIKey),
	}
	return &OpenAI{cfg: cfg, client: openai.NewClient(opts...), retry: defaultRetry(cfg.MaxRetries)}
}

// Name is "openai".
func (p *OpenAI) Name() string { return "openai" }

// Models lists GET /models.
func (p *OpenAI) Models(ctx context.Context) ([]ModelInfo, error) {
	page, err := p.client.Models.List(ctx)
	if err != nil {
		return nil, p.classify(err, "", 0, false)
	}
	out := make([]ModelInfo, 0, len(page.Data))
	for _, m := range page.Data {
		out = append(out, ModelInfo{ID: "openai/" + m.ID, Provider: "openai"})
	}
	return out, nil
}

// Show finds the model in the server's list; compatible servers do not say
// what a model can do, so only its presence is known.
func (p *OpenAI) Show(ctx context.Context, model string) (ModelInfo, error) {
	list, err := p.Models(ctx)
	if err != nil {
		return ModelInfo{}, err
	}
	for _, m := range list {
		if m.ID == "openai/"+model {
			return m, nil
		}
	}
	return ModelInfo{}, p.notFound(model, nil)
}

// Chat streams one call to /chat/completions.
func (p *OpenAI) Chat(ctx context.Context, req Request, onDelta func(Delta) error) (Response, error) {
	params, err := openaiParams(req)
	if err != nil {
		return Response{}, err
	}
	var res attemptResult
	err = p.retry.run(ctx, func() (bool, error) {
		var err error
		res, err = p.attempt(ctx, req.Model, params, onDelta)
		return res.streamed, err
	})
	return res.Response, err
}

func (p *OpenAI) attempt(ctx context.Context, model string, params openai.ChatCompletionNewParams, onDelta func(Delta) error) (attemptResult, error) {
	var (
		res    attemptResult
		acc    openai.ChatCompletionAccumulator
		finish string
		chunks int
	)
	d := deltas{onDelta: onDelta}
	actx, wd := newWatchdog(ctx, p.cfg.IdleTimeout)
	defer wd.stop()

	stream := p.client.Chat.Completions.NewStreaming(actx, params)
	defer stream.Close()
	for stream.Next() {
		wd.kick()
		chunks++
		chunk := stream.Current()
		acc.AddChunk(chunk)
		if chunk.Usage.PromptTokens > 0 || chunk.Usage.CompletionTokens > 0 {
			res.Usage = Usage{PromptTokens: int(chunk.Usage.PromptTokens), CompletionTokens: int(chunk.Usage.CompletionTokens)}
		}
		if len(chunk.Choices) == 0 {
			continue
		}
		c := chunk.Choices[0]
		if err := d.add(reasoningContent(c.Delta.JSON.ExtraFields), ""); err != nil {
			d.fill(&res)
			return res, callerError(err)
		}
		if err := d.content(c.Delta.Content); err != nil {
			d.fill(&res)
			return res, callerError(err)
		}
		if c.FinishReason != "" {
			finish = c.FinishReason
		}
	}
	err := stream.Err()
	if err == nil && finish != "" {
		if err := d.flush(); err != nil {
			d.fill(&res)
			return res, callerError(err)
		}
	}
	d.fill(&res)
	switch {
	case fired(actx):
		return res, timeoutError(p.cfg.IdleTimeout)
	case ctx.Err() != nil:
		return res, ctx.Err()
	case err != nil:
		return res, p.classify(err, model, d.chars, chunks > 0)
	case finish == "":
		return res, interrupted(d.chars, nil)
	}
	res.DoneReason = finish
	if len(acc.Choices) > 0 {
		for i, tc := range acc.Choices[0].Message.ToolCalls {
			id := tc.ID
			if id == "" {
				id = fmt.Sprintf("call_%d", i+1)
			}
			args := strings.TrimSpace(tc.Function.Arguments)
			if args == "" {
				args = "{}"
			}
			res.ToolCalls = append(res.ToolCalls, ToolCall{ID: id, Name: tc.Function.Name, Arguments: json.RawMessage(args)})
		}
	}
	return res, nil
}

// reasoningContent is the reasoning_content (or reasoning) field that
// OpenAI-compatible servers add to a delta.
func reasoningContent(extra map[string]respjson.Field) string {
	for _, name := range []string{"reasoning_content", "reasoning"} {
		f, ok := extra[name]
		if !ok {
			continue
		}
		raw := f.Raw()
		if raw == "" || raw == "null" {
			continue
		}
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

func (p *OpenAI) notFound(model string, err error) *Error {
	return newError(KindModelNotFound, err, "model %s was not found at %s (check the name in GET %s/models)", model, p.cfg.OpenAIBaseURL, p.cfg.OpenAIBaseURL)
}

// classify turns an error of the OpenAI client into an *Error.
func (p *OpenAI) classify(err error, model string, chars int, started bool) *Error {
	var ae *openai.Error
	if errors.As(err, &ae) {
		msg := ae.Message
		if msg == "" {
			msg = http.StatusText(ae.StatusCode)
		}
		switch {
		case ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusForbidden:
			return newError(KindAuth, err, "%s refused the API key (%d %s): check OPENAI_API_KEY", p.cfg.OpenAIBaseURL, ae.StatusCode, msg)
		case ae.StatusCode == http.StatusNotFound && model != "":
			return p.notFound(model, err)
		case strings.Contains(msg, "does not support tools") || strings.Contains(msg, "tool") && strings.Contains(msg, "not supported"):
			return noTools(model, err)
		case ae.Code == "context_length_exceeded" || strings.Contains(msg, "context length"):
			return newError(KindContextOverflow, err, "the prompt does not fit %s's context window: %s", model, msg)
		case ae.StatusCode == http.StatusTooManyRequests:
			e := newError(KindRateLimited, err, "%s is rate limiting requests (429 %s)", p.cfg.OpenAIBaseURL, msg)
			if ae.Response != nil {
				e.retryAfter = parseRetryAfter(ae.Response.Header.Get("Retry-After"), time.Now())
			}
			return e
		case ae.StatusCode >= 500:
			return newError(KindServerError, err, "the model server at %s failed (%d %s)", p.cfg.OpenAIBaseURL, ae.StatusCode, msg)
		default:
			return newError(KindRejected, err, "the model server at %s rejected the request (%d %s)", p.cfg.OpenAIBaseURL, ae.StatusCode, msg)
		}
	}
	switch {
	case isConnError(err):
		return newError(KindUnreachable, err, "cannot reach the OpenAI-compatible server at %s: is it running and is OPENAI_BASE_URL right?", p.cfg.OpenAIBaseURL)
	case isNetError(err):
		return interrupted(chars, err)
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) || strings.Contains(err.Error(), "JSON") || strings.Contains(err.Error(), "json") {
		return newError(KindBadResponse, err, "the model server at %s sent a malformed response after %d characters: %v", p.cfg.OpenAIBaseURL, chars, err)
	}
	if started {
		return interrupted(chars, err)
	}
	return newError(KindServerError, err, "the model server at %s failed: %v", p.cfg.OpenAIBaseURL, err)
}

// openaiParams converts a Request to the OpenAI wire form.
func openaiParams(req Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model:         req.Model,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case "user":
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		case "tool":
			p.Messages = append(p.Messages, openai.ToolMessage(m.Content, m.ToolCallID))
		case "assistant":
			am := &openai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				am.Content.OfString = openai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				am.ToolCalls = append(am.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: string(tc.Arguments)},
					},
				})
			}
			p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: am})
		default:
			return p, fmt.Errorf("message role %q: want system, user, assistant or tool", m.Role)
		}
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		params := shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
		if len(t.Parameters) > 0 {
			params = shared.FunctionParameters{}
			if err := json.Unmarshal(t.Parameters, &params); err != nil {
				return p, fmt.Errorf("tool %s: parameters are not a JSON Schema object: %w", t.Name, err)
			}
		}
		fn.Parameters = params
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fn))
	}
	if len(req.Format) > 0 {
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "response", Schema: req.Format, Strict: openai.Bool(true)},
		}}
	}
	return p, nil
}
