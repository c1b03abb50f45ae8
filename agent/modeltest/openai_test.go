package modeltest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/shared"
)

func openaiClient(s *Server) *openai.Client {
	c := openai.NewClient(option.WithBaseURL(s.OpenAIURL()), option.WithAPIKey("test"), option.WithMaxRetries(0))
	return &c
}

func chatParams(text string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    "qwen3:8b",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(text)},
	}
}

// extraString decodes a string field the SDK does not know, such as the
// reasoning_content of OpenAI-compatible servers.
func extraString(t *testing.T, fields map[string]respjson.Field, name string) string {
	t.Helper()
	f, ok := fields[name]
	if !ok || f.Raw() == "" || f.Raw() == "null" {
		return ""
	}
	var s string
	if err := json.Unmarshal([]byte(f.Raw()), &s); err != nil {
		t.Fatalf("%s = %s: %v", name, f.Raw(), err)
	}
	return s
}

type openaiResult struct {
	acc       openai.ChatCompletionAccumulator
	chunks    int
	content   []string
	reasoning string
	rejected  int
}

func openaiStream(ctx context.Context, t *testing.T, c *openai.Client, p openai.ChatCompletionNewParams) (openaiResult, error) {
	t.Helper()
	var res openaiResult
	stream := c.Chat.Completions.NewStreaming(ctx, p)
	defer stream.Close()
	for stream.Next() {
		chunk := stream.Current()
		res.chunks++
		if !res.acc.AddChunk(chunk) {
			res.rejected++
		}
		if len(chunk.Choices) > 0 {
			d := chunk.Choices[0].Delta
			if d.Content != "" {
				res.content = append(res.content, d.Content)
			}
			res.reasoning += extraString(t, d.JSON.ExtraFields, "reasoning_content")
		}
	}
	return res, stream.Err()
}

func TestOpenAIStreamsTextThinkingAndUsage(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Thinking: "Sum two numbers.", Text: "Two plus two is four.", ChunkRunes: 6, PromptTokens: 11, CompletionTokens: 7})
	p := chatParams("2+2?")
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	res, err := openaiStream(context.Background(), t, openaiClient(s), p)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	if res.rejected > 0 {
		t.Errorf("accumulator rejected %d chunks", res.rejected)
	}
	if got := strings.Join(res.content, ""); got != "Two plus two is four." || len(res.content) < 3 {
		t.Errorf("content deltas = %q", res.content)
	}
	if res.reasoning != "Sum two numbers." {
		t.Errorf("reasoning_content = %q", res.reasoning)
	}
	cc := res.acc.ChatCompletion
	if cc.Choices[0].Message.Content != "Two plus two is four." || cc.Choices[0].FinishReason != "stop" {
		t.Errorf("accumulated = %q finish %q", cc.Choices[0].Message.Content, cc.Choices[0].FinishReason)
	}
	if cc.Usage.PromptTokens != 11 || cc.Usage.CompletionTokens != 7 || cc.Usage.TotalTokens != 18 {
		t.Errorf("usage = %+v", cc.Usage)
	}
	req := s.Requests()[0]
	if req.Wire != "openai" || !req.Stream || req.Path != "/v1/chat/completions" || !strings.Contains(string(req.Options), `"include_usage":true`) {
		t.Errorf("recorded %+v", req)
	}
	if req.Header.Get("Authorization") != "Bearer test" {
		t.Errorf("Authorization = %q", req.Header.Get("Authorization"))
	}
}

func TestOpenAIStreamWithoutUsageOptionHasNoUsageChunk(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Text: "hi", PromptTokens: 5, CompletionTokens: 1})
	res, err := openaiStream(context.Background(), t, openaiClient(s), chatParams("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if u := res.acc.Usage; u.TotalTokens != 0 {
		t.Errorf("usage without include_usage = %+v", u)
	}
}

func TestOpenAIToolCallFragmentsAccumulate(t *testing.T) {
	s := New(t)
	args0 := `{"query":"Rechnung über 1.200 €","filters":{"year":2024,"tags":["tax","ü"]}}`
	args1 := `{"document_id":"doc_7","page":12}`
	s.Enqueue(Reply{Text: "Let me look.", ToolCalls: []ToolCall{
		{ID: "call_search", Name: "search_documents", Arguments: args0},
		{Name: "read_page", Arguments: args1},
	}})
	p := chatParams("find the invoice")
	p.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:        "search_documents",
		Description: openai.String("Full-text search"),
		Parameters:  shared.FunctionParameters{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}},
	})}
	c := openaiClient(s)
	var finished []openai.FinishedChatCompletionToolCall
	stream := c.Chat.Completions.NewStreaming(context.Background(), p)
	var acc openai.ChatCompletionAccumulator
	argChunks := 0
	for stream.Next() {
		chunk := stream.Current()
		if !acc.AddChunk(chunk) {
			t.Errorf("accumulator rejected chunk %s", chunk.RawJSON())
		}
		if tc, ok := acc.JustFinishedToolCall(); ok {
			finished = append(finished, tc)
		}
		if len(chunk.Choices) > 0 && len(chunk.Choices[0].Delta.ToolCalls) > 0 && chunk.Choices[0].Delta.ToolCalls[0].ID == "" {
			argChunks++
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if argChunks < 6 {
		t.Errorf("arguments came in %d fragments, want many", argChunks)
	}
	msg := acc.Choices[0].Message
	if acc.Choices[0].FinishReason != "tool_calls" || msg.Content != "Let me look." {
		t.Errorf("finish %q content %q", acc.Choices[0].FinishReason, msg.Content)
	}
	if len(msg.ToolCalls) != 2 {
		t.Fatalf("tool calls = %+v", msg.ToolCalls)
	}
	for i, want := range []struct{ id, name, args string }{{"call_search", "search_documents", args0}, {"call_1", "read_page", args1}} {
		got := msg.ToolCalls[i]
		if got.ID != want.id || got.Function.Name != want.name || got.Function.Arguments != want.args {
			t.Errorf("tool call %d = %s %s %s", i, got.ID, got.Function.Name, got.Function.Arguments)
		}
		if !json.Valid([]byte(got.Function.Arguments)) {
			t.Errorf("tool call %d arguments are not valid JSON: %s", i, got.Function.Arguments)
		}
	}
	if len(finished) != 2 || finished[0].ID != "call_search" || finished[1].Arguments != args1 {
		t.Errorf("JustFinishedToolCall = %+v", finished)
	}
	if tools := s.Requests()[0].Tools; len(tools) != 1 || !strings.Contains(string(tools[0]), `"search_documents"`) {
		t.Errorf("recorded tools = %s", tools)
	}
}

func TestOpenAIInvalidArgumentsPassThrough(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{ToolCalls: []ToolCall{{ID: "c1", Name: "x", Arguments: `{"query": "unterminated`}}})
	res, err := openaiStream(context.Background(), t, openaiClient(s), chatParams("go"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.acc.Choices[0].Message.ToolCalls[0].Function.Arguments; got != `{"query": "unterminated` {
		t.Errorf("arguments = %q", got)
	}
}

func TestOpenAINonStreaming(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Thinking: "hmm", Text: `{"total":42}`, PromptTokens: 20, CompletionTokens: 6})
	p := chatParams("total as json")
	p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
		JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "invoice", Schema: map[string]any{"type": "object"}},
	}}
	cc, err := openaiClient(s).Chat.Completions.New(context.Background(), p)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if cc.Choices[0].Message.Content != `{"total":42}` || cc.Choices[0].FinishReason != "stop" {
		t.Errorf("choice = %+v", cc.Choices[0])
	}
	if got := extraString(t, cc.Choices[0].Message.JSON.ExtraFields, "reasoning_content"); got != "hmm" {
		t.Errorf("reasoning_content = %q", got)
	}
	if cc.Usage.PromptTokens != 20 || cc.Usage.CompletionTokens != 6 || cc.Usage.TotalTokens != 26 {
		t.Errorf("usage = %+v", cc.Usage)
	}
	req := s.Requests()[0]
	if req.Stream || !strings.Contains(string(req.Format), `"json_schema"`) || !strings.Contains(string(req.Format), `"invoice"`) {
		t.Errorf("recorded stream %v response_format %s", req.Stream, req.Format)
	}
}

func TestOpenAINonStreamingToolCalls(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{ToolCalls: []ToolCall{{ID: "call_x", Name: "list_documents", Arguments: `{}`}}})
	cc, err := openaiClient(s).Chat.Completions.New(context.Background(), chatParams("list"))
	if err != nil {
		t.Fatal(err)
	}
	tc := cc.Choices[0].Message.ToolCalls
	if cc.Choices[0].FinishReason != "tool_calls" || len(tc) != 1 || tc[0].ID != "call_x" || tc[0].Function.Name != "list_documents" || tc[0].Function.Arguments != "{}" {
		t.Errorf("choice = %+v", cc.Choices[0])
	}
}

func TestOpenAIListModels(t *testing.T) {
	s := New(t, DefaultModel, Model{Name: "llama3.2:3b", Capabilities: []string{"completion"}})
	page, err := openaiClient(s).Models.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 2 || page.Data[0].ID != "qwen3:8b" || page.Data[1].ID != "llama3.2:3b" || page.Data[0].OwnedBy != "library" || page.Data[0].Created == 0 {
		t.Errorf("models = %+v", page.Data)
	}
}

func TestOpenAIErrorsCarryStatus(t *testing.T) {
	s := New(t)
	s.Enqueue(
		Reply{Fault: Fault{Status: 500, Message: "model crashed"}},
		Reply{Fault: Fault{Status: 429, Message: "slow down", RetryAfter: "3"}},
		Reply{Fault: Fault{Status: 500}},
	)
	c := openaiClient(s)

	_, err := c.Chat.Completions.New(context.Background(), chatParams("a"))
	var ae *openai.Error
	if !errors.As(err, &ae) || ae.StatusCode != 500 || ae.Message != "model crashed" || ae.Type != "server_error" {
		t.Errorf("500: %v %+v", err, ae)
	}

	// Streaming requests fail the same way, before any chunk.
	res, err := openaiStream(context.Background(), t, c, chatParams("b"))
	if !errors.As(err, &ae) || ae.StatusCode != 429 || ae.Message != "slow down" || ae.Code != "rate_limit_exceeded" {
		t.Errorf("429: %v %+v", err, ae)
	} else if ae.Response.Header.Get("Retry-After") != "3" {
		t.Errorf("Retry-After = %q", ae.Response.Header.Get("Retry-After"))
	}
	if res.chunks != 0 {
		t.Errorf("got %d chunks with a 429", res.chunks)
	}

	_, err = c.Chat.Completions.New(context.Background(), chatParams("c"))
	if !errors.As(err, &ae) || ae.Message != "Internal Server Error" {
		t.Errorf("default message: %v %+v", err, ae)
	}

	p := chatParams("d")
	p.Model = "gpt-none"
	_, err = c.Chat.Completions.New(context.Background(), p)
	if !errors.As(err, &ae) || ae.StatusCode != 404 || ae.Code != "model_not_found" {
		t.Errorf("unknown model: %v %+v", err, ae)
	}
}

// A fault with QuoteAuthorization echoes the request's Authorization
// header in its error message, as some gateways do.
func TestErrorCanQuoteTheAuthorizationHeader(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Fault: Fault{Status: 401, Message: "invalid key", QuoteAuthorization: true}})
	_, err := openaiClient(s).Chat.Completions.New(context.Background(), chatParams("a"))
	var ae *openai.Error
	if !errors.As(err, &ae) || ae.StatusCode != 401 || ae.Message != "invalid key (request headers: Authorization: Bearer test)" {
		t.Errorf("401 quoting the header: %v %+v", err, ae)
	}
}

func TestOpenAICutStreamIsAnError(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Text: "this answer will be cut short", ChunkRunes: 3, Fault: Fault{CutAfterChunks: 3}})
	res, err := openaiStream(context.Background(), t, openaiClient(s), chatParams("hi"))
	if err == nil {
		t.Fatalf("cut stream ended without error; content %q", res.content)
	}
	if strings.Join(res.content, "") != "this a" {
		t.Errorf("content before the cut = %q (err %v)", res.content, err)
	}
	if res.acc.Choices[0].FinishReason != "" {
		t.Errorf("finish_reason %q on a cut stream", res.acc.Choices[0].FinishReason)
	}
}

func TestOpenAICutNonStreamingIsAnError(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Text: "whole", Fault: Fault{CutAfterChunks: 1}})
	if _, err := openaiClient(s).Chat.Completions.New(context.Background(), chatParams("hi")); err == nil {
		t.Fatal("cut body: no error")
	}
}

func TestOpenAIMalformedChunkIsAnError(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Text: "abcdefgh", Fault: Fault{MalformedJSON: true}}, Reply{Text: "x", Fault: Fault{MalformedJSON: true}})
	c := openaiClient(s)
	res, err := openaiStream(context.Background(), t, c, chatParams("hi"))
	if err == nil {
		t.Fatalf("malformed chunk: no error, content %q", res.content)
	}
	if _, err := c.Chat.Completions.New(context.Background(), chatParams("hi")); err == nil {
		t.Fatal("malformed body: no error")
	}
}

func TestOpenAISlowFirstTokenHonoursDeadline(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Text: "late", Fault: Fault{FirstTokenDelay: 10 * time.Second}})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := openaiStream(ctx, t, openaiClient(s), chatParams("hi"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want deadline exceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	waitIdle(t, s)
}
