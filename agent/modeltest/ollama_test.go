package modeltest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

func ollamaClient(t *testing.T, s *Server) *api.Client {
	t.Helper()
	u, err := url.Parse(s.OllamaURL())
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, http.DefaultClient)
}

func userMessage(text string) []api.Message {
	return []api.Message{{Role: "user", Content: text}}
}

// ollamaCollect runs one chat and gathers what the callback saw.
type ollamaResult struct {
	frames   []api.ChatResponse
	content  string
	thinking string
	calls    []api.ToolCall
	final    *api.ChatResponse
}

func ollamaChat(ctx context.Context, c *api.Client, req *api.ChatRequest) (ollamaResult, error) {
	var res ollamaResult
	err := c.Chat(ctx, req, func(r api.ChatResponse) error {
		res.frames = append(res.frames, r)
		res.content += r.Message.Content
		res.thinking += r.Message.Thinking
		res.calls = append(res.calls, r.Message.ToolCalls...)
		if r.Done {
			res.final = &r
		}
		return nil
	})
	return res, err
}

func TestOllamaStreamsTextInSeveralChunks(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Text: "The invoice total is 42 €.", ChunkRunes: 5, PromptTokens: 17, CompletionTokens: 9})
	res, err := ollamaChat(context.Background(), ollamaClient(t, s), &api.ChatRequest{Model: "qwen3:8b", Messages: userMessage("total?")})
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if res.content != "The invoice total is 42 €." {
		t.Errorf("content = %q", res.content)
	}
	if len(res.frames) < 5 {
		t.Errorf("got %d frames, want the text split over several", len(res.frames))
	}
	if res.final == nil || res.final.DoneReason != "stop" {
		t.Fatalf("final frame = %+v, want done with done_reason stop", res.final)
	}
	if res.final.PromptEvalCount != 17 || res.final.EvalCount != 9 {
		t.Errorf("usage = prompt %d eval %d, want 17 and 9", res.final.PromptEvalCount, res.final.EvalCount)
	}
	if res.final.TotalDuration <= 0 || res.final.EvalDuration <= 0 || res.final.CreatedAt.IsZero() {
		t.Errorf("final metrics missing: %+v", res.final.Metrics)
	}
	if n := len(s.Requests()); n != 1 || !s.Requests()[0].Stream || s.Requests()[0].Wire != "ollama" {
		t.Errorf("recorded %+v", s.Requests())
	}
}

func TestOllamaThinkingComesBeforeContent(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Thinking: "The user wants a sum.", Text: "4"}, Reply{Thinking: "hidden", Text: "5"})
	c := ollamaClient(t, s)
	res, err := ollamaChat(context.Background(), c, &api.ChatRequest{
		Model: "qwen3:8b", Messages: userMessage("2+2"), Think: &api.ThinkValue{Value: true},
	})
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if res.thinking != "The user wants a sum." || res.content != "4" {
		t.Errorf("thinking %q content %q", res.thinking, res.content)
	}
	sawContent := false
	for _, f := range res.frames {
		if f.Message.Content != "" {
			sawContent = true
		}
		if f.Message.Thinking != "" && sawContent {
			t.Errorf("thinking frame %q after content", f.Message.Thinking)
		}
	}
	if got := string(s.Requests()[0].Think); got != "true" {
		t.Errorf("recorded think = %s", got)
	}

	// "think": false hides the thinking, as Ollama does.
	res, err = ollamaChat(context.Background(), c, &api.ChatRequest{
		Model: "qwen3:8b", Messages: userMessage("2+3"), Think: &api.ThinkValue{Value: false},
	})
	if err != nil || res.thinking != "" || res.content != "5" {
		t.Errorf("think false: err %v thinking %q content %q", err, res.thinking, res.content)
	}
}

func TestOllamaToolCallsArriveAsOrderedArguments(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{ToolCalls: []ToolCall{
		{ID: "call_a", Name: "search_documents", Arguments: `{"query":"invoice 2024","limit":5}`},
		{Name: "read_page", Arguments: `{"document_id":"d1","page":3}`},
	}})
	props := api.NewToolPropertiesMap()
	props.Set("query", api.ToolProperty{Type: api.PropertyType{"string"}, Description: "what to find"})
	tools := api.Tools{{Type: "function", Function: api.ToolFunction{
		Name: "search_documents", Description: "Full-text search",
		Parameters: api.ToolFunctionParameters{Type: "object", Required: []string{"query"}, Properties: props},
	}}}
	res, err := ollamaChat(context.Background(), ollamaClient(t, s), &api.ChatRequest{
		Model: "qwen3:8b", Messages: userMessage("find invoices"), Tools: tools,
	})
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if len(res.calls) != 2 {
		t.Fatalf("got %d tool calls: %+v", len(res.calls), res.calls)
	}
	first := res.calls[0]
	if first.ID != "call_a" || first.Function.Name != "search_documents" || first.Function.Index != 0 {
		t.Errorf("first call = %+v", first)
	}
	if q, ok := first.Function.Arguments.Get("query"); !ok || q != "invoice 2024" {
		t.Errorf("query = %v, %v", q, ok)
	}
	if got := first.Function.Arguments.ToMap()["limit"]; got != float64(5) {
		t.Errorf("limit = %v (%T)", got, got)
	}
	var keys []string
	for k := range first.Function.Arguments.All() {
		keys = append(keys, k)
	}
	if strings.Join(keys, ",") != "query,limit" {
		t.Errorf("argument order = %v, want query,limit", keys)
	}
	if second := res.calls[1]; second.ID != "" || second.Function.Index != 1 || second.Function.Name != "read_page" {
		t.Errorf("second call = %+v", second)
	}

	req := s.Requests()[0]
	if len(req.Tools) != 1 || !strings.Contains(string(req.Tools[0]), `"search_documents"`) {
		t.Errorf("recorded tools = %s", req.Tools)
	}
}

func TestOllamaNonStreaming(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Thinking: "short", Text: "whole answer", ToolCalls: []ToolCall{{Name: "x", Arguments: `{"a":[1,2]}`}}, PromptTokens: 3, CompletionTokens: 4})
	stream := false
	res, err := ollamaChat(context.Background(), ollamaClient(t, s), &api.ChatRequest{
		Model: "qwen3:8b", Messages: userMessage("hi"), Stream: &stream,
	})
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if len(res.frames) != 1 || res.final == nil {
		t.Fatalf("got %d frames, final %v; want one done frame", len(res.frames), res.final)
	}
	if res.content != "whole answer" || res.thinking != "short" || len(res.calls) != 1 {
		t.Errorf("message = %+v", res.final.Message)
	}
	if res.final.PromptEvalCount != 3 || res.final.EvalCount != 4 {
		t.Errorf("usage = %d/%d", res.final.PromptEvalCount, res.final.EvalCount)
	}
	if s.Requests()[0].Stream {
		t.Error("recorded Stream = true for stream:false")
	}
}

func TestOllamaListAndShow(t *testing.T) {
	s := New(t, DefaultModel, Model{Name: "llama3.2:3b", ContextLength: 131072, Capabilities: []string{"completion"}, Family: "llama"})
	c := ollamaClient(t, s)
	list, err := c.List(context.Background())
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(list.Models) != 2 || list.Models[0].Name != "qwen3:8b" || list.Models[1].Model != "llama3.2:3b" {
		t.Fatalf("models = %+v", list.Models)
	}
	if list.Models[1].Details.Family != "llama" || list.Models[1].Details.ParameterSize != "3B" {
		t.Errorf("details = %+v", list.Models[1].Details)
	}

	show, err := c.Show(context.Background(), &api.ShowRequest{Model: "qwen3:8b"})
	if err != nil {
		t.Fatalf("Show: %v", err)
	}
	caps := make([]string, len(show.Capabilities))
	for i, c := range show.Capabilities {
		caps[i] = string(c)
	}
	if strings.Join(caps, ",") != "completion,tools,thinking" {
		t.Errorf("capabilities = %v", caps)
	}
	if show.ModelInfo["general.architecture"] != "qwen3" || show.ModelInfo["qwen3.context_length"] != float64(40960) {
		t.Errorf("model_info = %v", show.ModelInfo)
	}

	_, err = c.Show(context.Background(), &api.ShowRequest{Model: "nope"})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound {
		t.Errorf("Show unknown model: %v, want a 404 StatusError", err)
	}
}

func TestOllamaRejectsUnknownModelAndMissingTools(t *testing.T) {
	s := New(t, DefaultModel, Model{Name: "gemma3:4b", ContextLength: 8192, Capabilities: []string{"completion"}})
	s.Enqueue(Reply{Text: "unused"})
	c := ollamaClient(t, s)

	_, err := ollamaChat(context.Background(), c, &api.ChatRequest{Model: "missing:1b", Messages: userMessage("hi")})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 404 || se.ErrorMessage != `model "missing:1b" not found, try pulling it first` {
		t.Errorf("unknown model: %#v", err)
	}

	tools := api.Tools{{Type: "function", Function: api.ToolFunction{Name: "t", Parameters: api.ToolFunctionParameters{Type: "object", Properties: api.NewToolPropertiesMap()}}}}
	_, err = ollamaChat(context.Background(), c, &api.ChatRequest{Model: "gemma3:4b", Messages: userMessage("hi"), Tools: tools})
	if !errors.As(err, &se) || se.StatusCode != 400 || se.ErrorMessage != "registry.ollama.ai/library/gemma3:4b does not support tools" {
		t.Errorf("tools on a model without tools: %#v", err)
	}
	if s.Pending() != 1 {
		t.Errorf("rejected requests took scripted replies: %d left", s.Pending())
	}
}

func TestOllamaServerErrorsCarryStatus(t *testing.T) {
	s := New(t)
	s.Enqueue(
		Reply{Fault: Fault{Status: 500, Message: "llama runner process has terminated"}},
		Reply{Fault: Fault{Status: 429, Message: "too many requests", RetryAfter: "7"}},
	)
	c := ollamaClient(t, s)
	for _, want := range []struct {
		status int
		msg    string
	}{{500, "llama runner process has terminated"}, {429, "too many requests"}} {
		_, err := ollamaChat(context.Background(), c, &api.ChatRequest{Model: "qwen3:8b", Messages: userMessage("hi")})
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != want.status || se.ErrorMessage != want.msg {
			t.Errorf("got %#v, want StatusError %d %q", err, want.status, want.msg)
		}
	}
}

// The Ollama client (v0.17.4) ignores read errors after the headers: a stream
// cut mid-way returns nil. What gives the cut away is the missing done frame,
// so callers must treat "no done:true" as an error.
func TestOllamaCutStreamHasNoDoneFrame(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Text: "this answer will be cut short", ChunkRunes: 3, Fault: Fault{CutAfterChunks: 2}})
	res, err := ollamaChat(context.Background(), ollamaClient(t, s), &api.ChatRequest{Model: "qwen3:8b", Messages: userMessage("hi")})
	if err != nil {
		t.Logf("client reported the cut: %v", err)
	}
	if res.final != nil {
		t.Fatalf("a cut stream delivered a done frame: %+v", res.final)
	}
	if res.content != "this a" {
		t.Errorf("content before the cut = %q, want the first two chunks", res.content)
	}
}

func TestOllamaMalformedFrameIsAnError(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Text: "abcdefgh", Fault: Fault{MalformedJSON: true}})
	res, err := ollamaChat(context.Background(), ollamaClient(t, s), &api.ChatRequest{Model: "qwen3:8b", Messages: userMessage("hi")})
	if err == nil {
		t.Fatalf("malformed frame: no error, content %q", res.content)
	}
	if res.final != nil {
		t.Errorf("done frame after a malformed one")
	}
}

func TestOllamaSlowFirstTokenHonoursDeadline(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Text: "late", Fault: Fault{FirstTokenDelay: 10 * time.Second}})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := ollamaChat(ctx, ollamaClient(t, s), &api.ChatRequest{Model: "qwen3:8b", Messages: userMessage("hi")})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want deadline exceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	waitIdle(t, s)
}

func TestOllamaRecordsFormatAndOptions(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Text: `{"total":42}`})
	schema := json.RawMessage(`{"type":"object","properties":{"total":{"type":"number"}}}`)
	_, err := ollamaChat(context.Background(), ollamaClient(t, s), &api.ChatRequest{
		Model: "qwen3:8b", Format: schema, Options: map[string]any{"temperature": 0, "num_ctx": 8192},
		Messages: []api.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "total?"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	req := s.Requests()[0]
	if string(req.Format) != string(schema) {
		t.Errorf("format = %s", req.Format)
	}
	var opts map[string]any
	if err := json.Unmarshal(req.Options, &opts); err != nil || opts["num_ctx"] != float64(8192) {
		t.Errorf("options = %s", req.Options)
	}
	if len(req.Messages) != 2 || !strings.Contains(string(req.Messages[1]), `"total?"`) {
		t.Errorf("messages = %s", req.Messages)
	}
	if req.Header.Get("Accept") != "application/x-ndjson" {
		t.Errorf("Accept = %q", req.Header.Get("Accept"))
	}
}

func TestOllamaCountsAndCutsThePromptToTheWindow(t *testing.T) {
	s := New(t, Model{Name: "tiny:1b", ContextLength: 4096, Capabilities: []string{"completion"}, Family: "llama"})
	c := ollamaClient(t, s)
	system := api.Message{Role: "system", Content: strings.Repeat("s", 300)} // 4 + 100 tokens
	chat := func(num int, msgs ...api.Message) (int, Request) {
		t.Helper()
		s.Enqueue(Reply{Text: "ok"})
		req := &api.ChatRequest{Model: "tiny:1b", Messages: msgs}
		if num > 0 {
			req.Options = map[string]any{"num_ctx": num}
		}
		res, err := ollamaChat(context.Background(), c, req)
		if err != nil || res.final == nil {
			t.Fatalf("Chat: %v", err)
		}
		reqs := s.Requests()
		return res.final.PromptEvalCount, reqs[len(reqs)-1]
	}

	// It fits: every token is evaluated; three bytes a token, four a
	// message for its role markers.
	n, r := chat(2048, system, api.Message{Role: "user", Content: strings.Repeat("u", 600)})
	if n != 104+204 || r.PromptTokens != n || r.Window != 2048 || r.Truncated != "" {
		t.Errorf("a prompt that fits: prompt_eval_count %d, recorded %+v; want 308 of 308 in 2048", n, r)
	}

	// One message over the window: the runner keeps exactly the window.
	doc := api.Message{Role: "user", Content: strings.Repeat("d", 3*5000)}
	n, r = chat(0, system, doc)
	if n != 4096 || r.Window != 4096 || r.PromptTokens != 104+5004 || r.Truncated != TruncatedStart {
		t.Errorf("a document over the default window: prompt_eval_count %d, recorded window %d tokens %d cut %q; want 4096, 4096, 5108, start",
			n, r.Window, r.PromptTokens, r.Truncated)
	}
	// num_ctx above the model's context length runs with the model's.
	if n, r = chat(32768, system, doc); n != 4096 || r.Window != 4096 {
		t.Errorf("num_ctx over the model's context: prompt_eval_count %d in a %d window, want 4096", n, r.Window)
	}

	// Earlier messages over the window are left out, the system message
	// and the last one kept.
	old := api.Message{Role: "user", Content: strings.Repeat("o", 3*4500)}
	n, r = chat(4096, system, old, api.Message{Role: "assistant", Content: "fine"}, api.Message{Role: "user", Content: "and now?"})
	if want := 104 + 6 + 7; n != want || r.Truncated != TruncatedMessages {
		t.Errorf("history over the window: prompt_eval_count %d cut %q, want %d and messages", n, r.Truncated, want)
	}
}
