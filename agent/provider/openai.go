package provider

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/packages/ssestream"
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
	red    redactor // takes the key out of every error returned
	// capField holds the models (by name) for which the server refused
	// max_tokens and took max_completion_tokens: later requests for them
	// send that at once.
	capField sync.Map
}

// NewOpenAI returns the provider for cfg.OpenAIBaseURL with cfg.OpenAIKey.
func NewOpenAI(cfg Config) *OpenAI {
	cfg = cfg.withDefaults()
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.OpenAIBaseURL),
		option.WithHTTPClient(withNotes(cfg.HTTPClient)),
		// One retry policy: ours, which knows whether anything was streamed.
		option.WithMaxRetries(0),
		// Always set, even empty: openai-go would otherwise send
		// OPENAI_API_KEY from the environment to whatever server this is.
		// Docent resolves that variable itself, for its own server only.
		option.WithAPIKey(cfg.OpenAIKey),
	}
	return &OpenAI{cfg: cfg, client: openai.NewClient(opts...), retry: defaultRetry(cfg.MaxRetries), red: newRedactor(cfg)}
}

// Name is "openai".
func (p *OpenAI) Name() string { return "openai" }

// Models lists GET /models.
func (p *OpenAI) Models(ctx context.Context) ([]ModelInfo, error) {
	list, err := p.models(ctx)
	return list, p.red.error(err)
}

func (p *OpenAI) models(ctx context.Context) ([]ModelInfo, error) {
	xctx, x := withExchange(ctx)
	page, err := p.client.Models.List(xctx)
	if err != nil {
		return nil, p.classify(err, x, "", false, 0, false)
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
	return ModelInfo{}, p.red.error(p.notFound(model, "", nil))
}

// Chat streams one call to /chat/completions.
func (p *OpenAI) Chat(ctx context.Context, req Request, onDelta func(Delta) error) (Response, error) {
	params, err := openaiParams(req)
	if err != nil {
		return Response{}, err
	}
	if _, ok := p.capField.Load(req.Model); ok && req.MaxTokens > 0 {
		completionTokens(&params)
	}
	var res attemptResult
	run := func() error {
		return p.retry.run(ctx, func() (bool, error) {
			var err error
			res, err = p.attempt(ctx, req.Model, len(req.Tools) > 0, params, onDelta)
			return res.streamed, err
		})
	}
	err = run()
	if err != nil && params.MaxTokens.Valid() && refusesMaxTokens(err) {
		// OpenAI's reasoning models (and Azure's) refuse max_tokens and
		// name max_completion_tokens; a 400 streams nothing, so the same
		// request goes once more with the cap under that name.
		completionTokens(&params)
		p.capField.Store(req.Model, struct{}{})
		err = run()
	}
	return res.Response, p.red.error(err)
}

// completionTokens moves the output cap from max_tokens to
// max_completion_tokens.
func completionTokens(params *openai.ChatCompletionNewParams) {
	if params.MaxTokens.Valid() {
		params.MaxCompletionTokens = params.MaxTokens
		params.MaxTokens = param.Opt[int64]{}
	}
}

// refusesMaxTokens reports whether err is a server's refusal of max_tokens
// that asks for max_completion_tokens instead: OpenAI's code
// unsupported_parameter, or a message naming both.
func refusesMaxTokens(err error) bool {
	var pe *Error
	var oe *openai.Error
	if !errors.As(err, &pe) || pe.Kind != KindRejected || !errors.As(err, &oe) {
		return false
	}
	return strings.Contains(oe.Message, "max_tokens") && strings.Contains(oe.Message, "max_completion_tokens")
}

func (p *OpenAI) attempt(ctx context.Context, model string, tools bool, params openai.ChatCompletionNewParams, onDelta func(Delta) error) (attemptResult, error) {
	var (
		res    attemptResult
		calls  callAssembler
		finish string
		chunks int
	)
	d := deltas{onDelta: onDelta}
	actx, wd := newWatchdog(ctx, p.cfg.IdleTimeout)
	defer wd.stop()
	actx, x := withExchange(actx)

	stream := p.client.Chat.Completions.NewStreaming(actx, params)
	defer stream.Close()
	err := func() error {
		for stream.Next() {
			wd.kick()
			chunks++
			chunk := stream.Current()
			if chunk.Object == "error" {
				// vLLM before 0.10 sends its flat error object as a chunk.
				return p.streamError(model, tools, []byte(chunk.RawJSON()), d.chars)
			}
			if chunk.Usage.PromptTokens > 0 || chunk.Usage.CompletionTokens > 0 {
				res.Usage = Usage{PromptTokens: int(chunk.Usage.PromptTokens), CompletionTokens: int(chunk.Usage.CompletionTokens),
					CachedTokens: int(chunk.Usage.PromptTokensDetails.CachedTokens)}
			}
			if len(chunk.Choices) == 0 {
				continue
			}
			c := chunk.Choices[0]
			if err := d.add(reasoningContent(c.Delta.JSON.ExtraFields), ""); err != nil {
				return err
			}
			parts, err := forEachPart(c.Delta.JSON.Content.Raw(), func(th, tx string) error {
				if err := d.add(th, ""); err != nil {
					return err
				}
				return d.content(tx)
			})
			if err != nil {
				return err
			}
			if !parts {
				if err := d.content(c.Delta.Content); err != nil {
					return err
				}
			}
			for _, tc := range c.Delta.ToolCalls {
				calls.add(tc.Index, tc.JSON.Index.Valid(), tc.ID, tc.Function.Name, tc.Function.Arguments)
			}
			if c.FinishReason != "" {
				finish = c.FinishReason
			}
		}
		if err := stream.Err(); err != nil {
			return err
		}
		if finish != "" {
			return d.flush()
		}
		return nil
	}()
	d.fill(&res)

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
		return res, p.classify(err, x, model, tools, d.chars, chunks > 0)
	case finish == "":
		return res, interrupted(d.chars, nil)
	}
	res.DoneReason, res.Truncated = finish, cutAtLimit(finish)
	res.ToolCalls = calls.toolCalls()
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

func (p *OpenAI) notFound(model, msg string, err error) *Error {
	if msg != "" {
		return newError(KindModelNotFound, err, "model %s was not found at %s: %s (check the name in GET %s/models)", model, p.cfg.OpenAIBaseURL, msg, p.cfg.OpenAIBaseURL)
	}
	return newError(KindModelNotFound, err, "model %s was not found at %s (check the name in GET %s/models)", model, p.cfg.OpenAIBaseURL, p.cfg.OpenAIBaseURL)
}

// classify turns an error of the OpenAI client into an *Error. A response
// with an error status is explained from the exchange the request
// recorded, in the server's own words, whatever the client made of its
// body; an error inside the stream from the event that carried it.
func (p *OpenAI) classify(err error, x *exchange, model string, tools bool, chars int, started bool) *Error {
	if status, header, body, ok := x.failed(); ok {
		return p.statusError(model, tools, status, header, body)
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		return p.streamError(model, tools, se.Event.Data, chars)
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

// statusError explains an error status with the server's own message.
func (p *OpenAI) statusError(model string, tools bool, status int, header http.Header, body []byte) *Error {
	se := parseServerError(p.red.bytes(body))
	err := &openai.Error{StatusCode: status, Message: se.Message, Code: se.Code, Type: se.Type}
	url := p.cfg.OpenAIBaseURL
	switch {
	case tools && refusesTools(se.Message):
		return noTools(model, se.Message)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return newError(KindAuth, err, "%s refused the API key (%s): check OPENAI_API_KEY", url, said(status, se.Message))
	case overflows(se):
		return newError(KindContextOverflow, err, "the prompt does not fit %s's context window: %s", model, cmp.Or(se.Message, said(status, "")))
	case status == http.StatusNotFound && model != "":
		return p.notFound(model, se.Message, err)
	case status == http.StatusTooManyRequests && se.Code == "insufficient_quota":
		return newError(KindRejected, err, "%s refused the request (%s)", url, said(status, se.Message))
	case status == http.StatusTooManyRequests:
		e := newError(KindRateLimited, err, "%s is rate limiting requests (%s)", url, said(status, se.Message))
		e.wait = rateLimitWait(mergeHeaders(header, se.Header), time.Now())
		return e
	case status >= 500:
		e := newError(KindServerError, err, "the model server at %s failed (%s)", url, said(status, se.Message))
		e.wait = rateLimitWait(header, time.Now())
		return e
	}
	return newError(KindRejected, err, "the model server at %s rejected the request (%s)", url, said(status, se.Message))
}

// streamError is an error event inside the stream (data: {"error": {...}},
// or vLLM's flat error chunk): the server's message, once, as a failure of
// the kind its code says.
func (p *OpenAI) streamError(model string, tools bool, data []byte, chars int) *Error {
	se := parseServerError(p.red.bytes(data))
	if se.Message == "" {
		se.Message = "an error event without a message"
	}
	switch {
	case tools && refusesTools(se.Message):
		return noTools(model, se.Message)
	case overflows(se):
		return newError(KindContextOverflow, nil, "the prompt does not fit %s's context window: %s", model, se.Message)
	case se.Status == http.StatusTooManyRequests:
		return newError(KindRateLimited, nil, "%s is rate limiting requests: %s", p.cfg.OpenAIBaseURL, se.Message)
	case se.Status >= 400 && se.Status < 500:
		return newError(KindRejected, nil, "the model server at %s rejected the request: %s", p.cfg.OpenAIBaseURL, se.Message)
	case chars > 0:
		return newError(KindServerError, nil, "the model server at %s failed after %d characters of the answer: %s", p.cfg.OpenAIBaseURL, chars, se.Message)
	}
	return newError(KindServerError, nil, "the model server at %s failed: %s", p.cfg.OpenAIBaseURL, se.Message)
}

// mergeHeaders is h with the headers of extra it does not have.
func mergeHeaders(h, extra http.Header) http.Header {
	if len(extra) == 0 {
		return h
	}
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	for k, v := range extra {
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	return out
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
			if len(m.Images) == 0 {
				p.Messages = append(p.Messages, openai.UserMessage(m.Content))
				break
			}
			p.Messages = append(p.Messages, openai.UserMessage(imageParts(m.Content, m.Images)))
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
	if req.MaxTokens > 0 {
		// max_tokens, not max_completion_tokens: the field every
		// OpenAI-compatible server reads (vLLM, llama.cpp, LM Studio,
		// Ollama's /v1), where an unknown max_completion_tokens could be
		// ignored and the cap lost; OpenAI takes it too, except for its
		// reasoning models, which refuse it by name: Chat then sends
		// max_completion_tokens (refusesMaxTokens).
		p.MaxTokens = openai.Int(int64(req.MaxTokens))
	}
	if len(req.Format) > 0 {
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "response", Schema: req.Format, Strict: openai.Bool(true)},
		}}
	}
	return p, nil
}

// imageParts is a user message's content with images: the text part, then
// an image_url part per image with the image as a data: URL (every
// OpenAI-compatible server that reads images takes those; few fetch URLs).
func imageParts(text string, images [][]byte) []openai.ChatCompletionContentPartUnionParam {
	parts := make([]openai.ChatCompletionContentPartUnionParam, 0, len(images)+1)
	if text != "" {
		parts = append(parts, openai.TextContentPart(text))
	}
	for _, img := range images {
		parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: ImageDataURL(img)}))
	}
	return parts
}

// ImageDataURL is an image as a data: URL, its media type read from its
// bytes ("data:image/png;base64,..."); bytes of no known image type are
// sent as PNG, for the server to refuse or read.
func ImageDataURL(img []byte) string {
	media := http.DetectContentType(img)
	switch media {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
	default:
		media = "image/png"
	}
	return "data:" + media + ";base64," + base64.StdEncoding.EncodeToString(img)
}
