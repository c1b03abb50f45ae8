package provider

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent/modeltest"
)

// testConfig points both providers at s, with a short idle timeout.
func testConfig(s *modeltest.Server) Config {
	return Config{
		OllamaHost:    s.OllamaURL(),
		OpenAIBaseURL: s.OpenAIURL(),
		OpenAIKey:     "test",
		IdleTimeout:   5 * time.Second,
		MaxRetries:    2,
		HTTPClient:    s.Client(),
	}
}

// providers builds both providers from cfg with a 1ms backoff base.
func providers(t testing.TB, cfg Config) []Provider {
	t.Helper()
	o, err := NewOllama(cfg)
	if err != nil {
		t.Fatal(err)
	}
	o.retry.base = time.Millisecond
	a := NewOpenAI(cfg)
	a.retry.base = time.Millisecond
	return []Provider{o, a}
}

// eachProvider runs fn once per wire format against a fresh server.
func eachProvider(t *testing.T, fn func(t *testing.T, s *modeltest.Server, p Provider), models ...modeltest.Model) {
	for _, name := range []string{"ollama", "openai"} {
		t.Run(name, func(t *testing.T) {
			s := modeltest.New(t, models...)
			for _, p := range providers(t, testConfig(s)) {
				if p.Name() == name {
					fn(t, s, p)
				}
			}
		})
	}
}

func userReq(text string) Request {
	return Request{Model: "qwen3:8b", Messages: []Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: text}}}
}

// collect runs a chat and keeps every delta.
func collect(ctx context.Context, p Provider, req Request) ([]Delta, Response, error) {
	var ds []Delta
	resp, err := p.Chat(ctx, req, func(d Delta) error {
		ds = append(ds, d)
		return nil
	})
	return ds, resp, err
}

func joined(ds []Delta) (thinking, text string) {
	for _, d := range ds {
		thinking += d.Thinking
		text += d.Text
	}
	return thinking, text
}

func wantKind(t *testing.T, err error, sentinel *Error, contains ...string) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Fatalf("err = %v (kind %q), want kind %q", err, ErrorKind(err), sentinel.Kind)
	}
	for _, c := range contains {
		if !strings.Contains(err.Error(), c) {
			t.Errorf("message %q does not contain %q", err.Error(), c)
		}
	}
}

func TestChatStreamsTextInSeveralDeltas(t *testing.T) {
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Enqueue(modeltest.Reply{Text: "The invoice total is 42 €.", ChunkRunes: 5, PromptTokens: 17, CompletionTokens: 9})
		ds, resp, err := collect(context.Background(), p, userReq("total?"))
		if err != nil {
			t.Fatal(err)
		}
		if _, text := joined(ds); text != "The invoice total is 42 €." || len(ds) < 4 {
			t.Errorf("deltas %q", ds)
		}
		if resp.Text != "The invoice total is 42 €." || resp.DoneReason != "stop" {
			t.Errorf("response text %q done %q", resp.Text, resp.DoneReason)
		}
		if resp.Usage != (Usage{PromptTokens: 17, CompletionTokens: 9}) {
			t.Errorf("usage = %+v", resp.Usage)
		}
		if p.Name() == "openai" && !strings.Contains(string(s.Requests()[0].Options), `"include_usage":true`) {
			t.Errorf("stream_options = %s", s.Requests()[0].Options)
		}
	})
}

func TestChatNativeThinkingComesFirst(t *testing.T) {
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Enqueue(modeltest.Reply{Thinking: "The user wants a sum.", Text: "4"})
		ds, resp, err := collect(context.Background(), p, userReq("2+2"))
		if err != nil {
			t.Fatal(err)
		}
		th, tx := joined(ds)
		if th != "The user wants a sum." || tx != "4" || resp.Thinking != th || resp.Text != "4" {
			t.Errorf("thinking %q text %q, response %+v", th, tx, resp)
		}
		if ds[0].Thinking == "" {
			t.Errorf("first delta %+v is not thinking", ds[0])
		}
	})
}

func TestChatThinkTagsInTextBecomeThinking(t *testing.T) {
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Enqueue(modeltest.Reply{Text: "<think>\nplan it\n</think>\n\nThe answer.", ChunkRunes: 3})
		ds, resp, err := collect(context.Background(), p, userReq("q"))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if strings.ContainsAny(d.Text, "<>") {
				t.Errorf("tag leaked into a text delta: %q", d.Text)
			}
		}
		th, tx := joined(ds)
		if th != "\nplan it\n" || tx != "The answer." || resp.Text != tx || resp.Thinking != th {
			t.Errorf("thinking %q text %q response %+v", th, tx, resp)
		}
	})
}

func TestChatAssemblesToolCalls(t *testing.T) {
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{
			{ID: "call_a", Name: "search_documents", Arguments: `{"query":"invoice 2024 – überfällig","limit":5}`},
			{Name: "read_page", Arguments: `{"document_id":"d1","page":3}`},
		}})
		req := userReq("find invoices")
		req.Tools = []Tool{{Name: "search_documents", Description: "Full-text search",
			Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)}}
		req.Messages = append(req.Messages,
			Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "call_0", Name: "search_documents", Arguments: json.RawMessage(`{"query":"x"}`)}}},
			Message{Role: "tool", ToolCallID: "call_0", ToolName: "search_documents", Content: `{"hits":[]}`})
		_, resp, err := collect(context.Background(), p, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.ToolCalls) != 2 {
			t.Fatalf("tool calls = %+v", resp.ToolCalls)
		}
		secondID := map[string]string{"ollama": "call_2", "openai": "call_1"}[p.Name()]
		want := []ToolCall{
			{ID: "call_a", Name: "search_documents", Arguments: json.RawMessage(`{"query":"invoice 2024 – überfällig","limit":5}`)},
			{ID: secondID, Name: "read_page", Arguments: json.RawMessage(`{"document_id":"d1","page":3}`)},
		}
		for i, tc := range resp.ToolCalls {
			if !json.Valid(tc.Arguments) {
				t.Errorf("call %d arguments not JSON: %s", i, tc.Arguments)
			}
			if tc.ID != want[i].ID || tc.Name != want[i].Name || string(tc.Arguments) != string(want[i].Arguments) {
				t.Errorf("call %d = %s %s %s, want %s %s %s", i, tc.ID, tc.Name, tc.Arguments, want[i].ID, want[i].Name, want[i].Arguments)
			}
		}
		rec := s.Requests()[0]
		if len(rec.Tools) != 1 || !strings.Contains(string(rec.Tools[0]), `"search_documents"`) || len(rec.Messages) != 4 {
			t.Errorf("recorded tools %s messages %s", rec.Tools, rec.Messages)
		}
		if !strings.Contains(string(rec.Messages[3]), `"call_0"`) {
			t.Errorf("tool message lost its call id: %s", rec.Messages[3])
		}
	})
}

func TestChatSendsStructuredOutputSchema(t *testing.T) {
	schema := `{"type":"object","properties":{"total":{"type":"number"}},"required":["total"]}`
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Enqueue(modeltest.Reply{Text: `{"total":42}`})
		req := userReq("total?")
		req.Format = json.RawMessage(schema)
		if _, resp, err := collect(context.Background(), p, req); err != nil || resp.Text != `{"total":42}` {
			t.Fatalf("resp %+v err %v", resp, err)
		}
		got := s.Requests()[0].Format
		if p.Name() == "ollama" {
			if string(got) != schema {
				t.Errorf("format = %s", got)
			}
			return
		}
		var rf struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name   string          `json:"name"`
				Strict bool            `json:"strict"`
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		}
		if err := json.Unmarshal(got, &rf); err != nil || rf.Type != "json_schema" || !rf.JSONSchema.Strict || rf.JSONSchema.Name == "" || string(rf.JSONSchema.Schema) != schema {
			t.Errorf("response_format = %s (%v)", got, err)
		}
	})
}

func TestChatRetriesServerErrorThenSucceeds(t *testing.T) {
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Enqueue(modeltest.Reply{Fault: modeltest.Fault{Status: 500, Message: "llama runner process has terminated"}}, modeltest.Reply{Text: "ok"})
		_, resp, err := collect(context.Background(), p, userReq("hi"))
		if err != nil || resp.Text != "ok" {
			t.Fatalf("resp %+v err %v", resp, err)
		}
		if n := len(s.Requests()); n != 2 {
			t.Errorf("%d requests, want 2", n)
		}
	})
}

func TestChatGivesUpAfterMaxRetries(t *testing.T) {
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Handle(func(modeltest.Request) modeltest.Reply {
			return modeltest.Reply{Fault: modeltest.Fault{Status: 503, Message: "overloaded"}}
		})
		_, _, err := collect(context.Background(), p, userReq("hi"))
		wantKind(t, err, ErrServerError, "503", "overloaded", "after 3 attempts")
		if n := len(s.Requests()); n != 3 {
			t.Errorf("%d requests, want 1 + MaxRetries (2)", n)
		}
	})
}

func TestChatCutMidStreamIsInterrupted(t *testing.T) {
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Enqueue(modeltest.Reply{Text: "this answer will be cut short", ChunkRunes: 3, Fault: modeltest.Fault{CutAfterChunks: 3}})
		ds, _, err := collect(context.Background(), p, userReq("hi"))
		wantKind(t, err, ErrStreamInterrupted, "stopped mid-way after")
		if len(ds) == 0 {
			t.Error("no deltas before the cut")
		}
		if n := len(s.Requests()); n != 1 {
			t.Errorf("%d requests: a stream that already streamed must not be retried", n)
		}
	})
}

func TestChatMalformedFrameIsBadResponse(t *testing.T) {
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Enqueue(modeltest.Reply{Text: "abcdefgh", Fault: modeltest.Fault{MalformedJSON: true}})
		_, _, err := collect(context.Background(), p, userReq("hi"))
		wantKind(t, err, ErrBadResponse, "malformed")
	})
}

func TestChatCancelledMidStreamReturnsContextError(t *testing.T) {
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Enqueue(modeltest.Reply{Text: "a long answer that takes a while", ChunkRunes: 2, TokenDelay: 50 * time.Millisecond})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		n := 0
		_, err := p.Chat(ctx, userReq("hi"), func(Delta) error {
			if n++; n == 2 {
				cancel()
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func TestChatCallbackErrorStopsTheStream(t *testing.T) {
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Enqueue(modeltest.Reply{Text: "abcdefghijklmnop", ChunkRunes: 2})
		stop := errors.New("client went away")
		n := 0
		_, err := p.Chat(context.Background(), userReq("hi"), func(Delta) error {
			n++
			return stop
		})
		if !errors.Is(err, stop) || n != 1 {
			t.Errorf("err %v after %d deltas, want the callback's error after 1", err, n)
		}
	})
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestChatUnreachableServerNamesTheHost(t *testing.T) {
	addr := closedAddr(t)
	ps := providers(t, Config{OllamaHost: addr, OpenAIBaseURL: "http://" + addr + "/v1", OpenAIKey: "k"})
	for _, p := range ps {
		_, _, err := collect(context.Background(), p, userReq("hi"))
		wantKind(t, err, ErrUnreachable, addr)
		if p.Name() == "ollama" {
			wantKind(t, err, ErrUnreachable, "cannot reach Ollama at http://"+addr, "ollama serve")
		}
	}
}

func TestChatUnknownModel(t *testing.T) {
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		req := userReq("hi")
		req.Model = "missing:1b"
		_, _, err := collect(context.Background(), p, req)
		if p.Name() == "ollama" {
			wantKind(t, err, ErrModelNotFound, "model missing:1b is not pulled: run `ollama pull missing:1b`")
		} else {
			wantKind(t, err, ErrModelNotFound, "missing:1b", s.OpenAIURL())
		}
	})
}

func TestChatToolsOnModelWithoutToolSupport(t *testing.T) {
	small := modeltest.Model{Name: "qwen2:0.5b", ContextLength: 32768, Capabilities: []string{"completion"}}
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		req := userReq("hi")
		req.Model = "qwen2:0.5b"
		req.Tools = []Tool{{Name: "t"}}
		_, _, err := collect(context.Background(), p, req)
		wantKind(t, err, ErrNoToolSupport, "qwen2:0.5b does not support tool calling")
	}, small)
}

func TestOllamaPromptTooLongFailsBeforeSending(t *testing.T) {
	s := modeltest.New(t, modeltest.Model{Name: "qwen3:8b", ContextLength: 40960, Capabilities: []string{"completion"}})
	p := providers(t, testConfig(s))[0]
	req := userReq(strings.Repeat("word ", 52000*4/5))
	_, _, err := collect(context.Background(), p, req)
	wantKind(t, err, ErrContextOverflow, "the prompt is about 52,0", "qwen3:8b is run with a 32,768-token window", "DOCENT_MAX_CONTEXT")
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d chat requests sent, want none", n)
	}
}

func TestOllamaNumCtxFromShowCappedByMax(t *testing.T) {
	s := modeltest.New(t, modeltest.DefaultModel, modeltest.Model{Name: "gemma3:4b", ContextLength: 8192, Capabilities: []string{"completion"}})
	p := providers(t, testConfig(s))[0]
	for _, tc := range []struct {
		model string
		num   int
	}{{"qwen3:8b", 32768}, {"gemma3:4b", 8192}, {"qwen3:8b", 32768}} {
		s.Enqueue(modeltest.Reply{Text: "ok"})
		req := userReq("hi")
		req.Model = tc.model
		_, resp, err := collect(context.Background(), p, req)
		if err != nil {
			t.Fatal(err)
		}
		rec := s.Requests()[len(s.Requests())-1]
		var opts struct {
			NumCtx int `json:"num_ctx"`
		}
		if err := json.Unmarshal(rec.Options, &opts); err != nil || opts.NumCtx != tc.num || resp.NumCtx != tc.num {
			t.Errorf("%s: options %s, response NumCtx %d, want num_ctx %d", tc.model, rec.Options, resp.NumCtx, tc.num)
		}
	}
	// An explicit NumCtx wins.
	s.Enqueue(modeltest.Reply{Text: "ok"})
	req := userReq("hi")
	req.NumCtx = 4096
	if _, resp, err := collect(context.Background(), p, req); err != nil || resp.NumCtx != 4096 {
		t.Errorf("explicit NumCtx: %d, %v", resp.NumCtx, err)
	}
}

func TestOllamaShowAndModels(t *testing.T) {
	s := modeltest.New(t)
	p := providers(t, testConfig(s))[0]
	info, err := p.Show(context.Background(), "qwen3:8b")
	if err != nil || info.ContextLength != 40960 || !info.Has("tools") || info.ID != "ollama/qwen3:8b" {
		t.Errorf("Show = %+v, %v", info, err)
	}
	list, err := p.Models(context.Background())
	if err != nil || len(list) != 1 || list[0].ID != "ollama/qwen3:8b" {
		t.Errorf("Models = %+v, %v", list, err)
	}
	_, err = p.Show(context.Background(), "nope")
	wantKind(t, err, ErrModelNotFound, "ollama pull nope")
}

func TestRegistryModelsWithOllamaDown(t *testing.T) {
	s := modeltest.New(t)
	cfg := testConfig(s)
	cfg.OllamaHost = closedAddr(t)
	models, errs := NewRegistry(cfg).Models(context.Background())
	if len(models) != 1 || models[0].ID != "openai/qwen3:8b" || models[0].Provider != "openai" {
		t.Errorf("models = %+v", models)
	}
	if len(errs) != 1 || !errors.Is(errs[0], ErrUnreachable) {
		t.Errorf("errors = %v, want one Unreachable", errs)
	}
}

func TestRegistryForRoutesByPrefix(t *testing.T) {
	r := NewRegistry(Config{})
	for id, want := range map[string][2]string{
		"ollama/qwen3:8b":           {"ollama", "qwen3:8b"},
		"openai/gpt-4o-mini":        {"openai", "gpt-4o-mini"},
		"ollama/hf.co/org/model:q4": {"ollama", "hf.co/org/model:q4"},
	} {
		p, model, err := r.For(id)
		if err != nil || p.Name() != want[0] || model != want[1] {
			t.Errorf("For(%q) = %v %q %v", id, p, model, err)
		}
	}
	for _, id := range []string{"qwen3:8b", "anthropic/claude", "ollama/", ""} {
		if _, _, err := r.For(id); err == nil || !strings.Contains(err.Error(), "ollama/<model>") || !strings.Contains(err.Error(), "openai/<model>") {
			t.Errorf("For(%q) err = %v, want the accepted forms", id, err)
		}
	}
}

func TestOllamaHostForms(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "http://127.0.0.1:11434",
		"127.0.0.1:11434":        "http://127.0.0.1:11434",
		"localhost":              "http://localhost:11434",
		"0.0.0.0:9999":           "http://127.0.0.1:9999",
		"http://gpu-box:11434/":  "http://gpu-box:11434",
		"https://ollama.example": "https://ollama.example:443",
	} {
		u, err := ollamaURL(Config{OllamaHost: in}.withDefaults().OllamaHost)
		if err != nil || u.String() != want {
			t.Errorf("ollamaURL(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"7":                             7 * time.Second,
		"":                              0,
		"soon":                          0,
		"Sun, 01 Jun 2025 12:00:30 GMT": 30 * time.Second,
		"Sun, 01 Jun 2025 11:00:00 GMT": 0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestConfigFromEnvReadsDocentLimits(t *testing.T) {
	t.Setenv("DOCENT_IDLE_TIMEOUT", "12m")
	t.Setenv("DOCENT_MAX_CONTEXT", "65536")
	cfg, err := ConfigFromEnv()
	if err != nil || cfg.IdleTimeout != 12*time.Minute || cfg.MaxNumCtx != 65536 {
		t.Fatalf("cfg = %+v, %v; want a 12m idle timeout and a 65536-token cap", cfg, err)
	}
	t.Setenv("DOCENT_IDLE_TIMEOUT", "soon")
	if _, err := ConfigFromEnv(); err == nil || !strings.Contains(err.Error(), "DOCENT_IDLE_TIMEOUT") {
		t.Errorf("a bad DOCENT_IDLE_TIMEOUT gave %v, want an error naming it", err)
	}
}

func TestNegativeMaxRetriesMeansNoneThroughTheRegistry(t *testing.T) {
	srv := modeltest.New(t)
	srv.Enqueue(modeltest.Reply{Fault: modeltest.Fault{Status: 503, Message: "busy"}}, modeltest.Reply{Text: "late"})
	reg := NewRegistry(Config{OllamaHost: srv.OllamaURL(), MaxRetries: -1})
	p, model, err := reg.For("ollama/qwen3:8b")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Chat(context.Background(), Request{Model: model, Messages: []Message{{Role: "user", Content: "hi"}}}, nil)
	if !errors.Is(err, ErrServerError) || srv.Pending() != 1 {
		t.Errorf("err = %v, %d replies left; want one attempt and a server error", err, srv.Pending())
	}
}

func TestParseModelIDNamesTheModelOnceAndTheProviders(t *testing.T) {
	_, _, err := ParseModelID("anthropic/claude")
	if err == nil || strings.Count(err.Error(), `"anthropic/claude"`) != 1 ||
		!strings.Contains(err.Error(), `unknown provider "anthropic", want ollama or openai`) {
		t.Errorf("ParseModelID(anthropic/claude) err = %v, want the model quoted once and the providers named", err)
	}
}
