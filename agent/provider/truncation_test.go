package provider

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent/modeltest"
)

// tiny is a model whose window is 4,096 tokens, as Ollama reports it.
var tiny = modeltest.Model{Name: "tiny:1b", ContextLength: 4096, Capabilities: []string{"completion"}, Family: "llama"}

// document is a user message of 15,000 bytes: about 3,750 tokens by
// Docent's estimate, which fits 4,096, and 5,000 as the server counts.
func document() Request {
	return Request{Model: "tiny:1b", Messages: []Message{
		{Role: "system", Content: "Extract the invoice."},
		{Role: "user", Content: strings.Repeat("Total 42 ", 15000/9)},
	}}
}

func TestOllamaPromptThatFitsIsNotTruncated(t *testing.T) {
	s := modeltest.New(t, tiny)
	p := providers(t, testConfig(s))[0]
	s.Enqueue(modeltest.Reply{Text: "ok"})
	req := userReq("what is the total?")
	req.Model = "tiny:1b"
	_, resp, err := collect(context.Background(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.PromptTruncated != nil {
		t.Errorf("a short prompt is marked truncated: %+v", *resp.PromptTruncated)
	}
	if want := s.Requests()[len(s.Requests())-1].PromptTokens; resp.Usage.PromptTokens != want || want == 0 {
		t.Errorf("prompt tokens %d, want the server's count %d", resp.Usage.PromptTokens, want)
	}
}

func TestOllamaDocumentOverTheWindowIsMarkedTruncated(t *testing.T) {
	for _, tc := range []struct {
		name   string
		model  modeltest.Model
		max    int
		advice string
	}{
		// The window is the model's own: only another model helps.
		{"model's window", tiny, 0, "use a model with a larger context (this one's is 4,096 tokens)"},
		// The window is DOCENT_MAX_CONTEXT's: raising it helps.
		{"DOCENT_MAX_CONTEXT", modeltest.Model{Name: "tiny:1b", ContextLength: 40960, Capabilities: []string{"completion"}}, 4096,
			"raise DOCENT_MAX_CONTEXT (now 4,096, the model takes up to 40,960) or use a model with a larger context"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := modeltest.New(t, tc.model)
			cfg := testConfig(s)
			cfg.MaxNumCtx = tc.max
			p := providers(t, cfg)[0]
			s.Enqueue(modeltest.Reply{Text: `{"total": 42}`})
			req := document()
			if est := EstimateTokens(req); est >= 4096 {
				t.Fatalf("the estimate %d does not fit the window: the request would not be sent", est)
			}
			_, resp, err := collect(context.Background(), p, req)
			if err != nil {
				t.Fatal(err)
			}
			rec := s.Requests()[0]
			if rec.Truncated != modeltest.TruncatedStart || rec.PromptTokens <= 4096 {
				t.Fatalf("the server did not cut the prompt: %d tokens, cut %q", rec.PromptTokens, rec.Truncated)
			}
			tr := resp.PromptTruncated
			if tr == nil {
				t.Fatalf("a prompt cut to the window is not marked (usage %+v, num_ctx %d)", resp.Usage, resp.NumCtx)
			}
			if tr.Kept != 4096 || tr.Window != 4096 || tr.Dropped != DroppedStart || tr.Estimated != EstimateTokens(req) {
				t.Errorf("truncation = %+v", *tr)
			}
			w := tr.Warning
			for _, want := range []string{"the model saw only the last 4,096 tokens of a longer prompt", "4,096-token context window", tc.advice} {
				if !strings.Contains(w, want) {
					t.Errorf("warning %q does not say %q", w, want)
				}
			}
			if resp.Text != `{"total": 42}` || resp.Usage.PromptTokens != 4096 {
				t.Errorf("the answer or usage changed: %q %+v", resp.Text, resp.Usage)
			}
		})
	}
}

func TestOllamaEarlierMessagesLeftOutAreMarked(t *testing.T) {
	s := modeltest.New(t, tiny)
	p := providers(t, testConfig(s))[0]
	s.Enqueue(modeltest.Reply{Text: "4.11"})
	req := Request{Model: "tiny:1b", Messages: []Message{
		{Role: "system", Content: "You answer questions about a document."},
		{Role: "user", Content: "read it"},
		{Role: "tool", Content: strings.Repeat("Total 42 ", 15000/9)},
		{Role: "user", Content: "and the total?"},
	}}
	_, resp, err := collect(context.Background(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	if rec := s.Requests()[0]; rec.Truncated != modeltest.TruncatedMessages {
		t.Fatalf("the server cut %q, want messages", rec.Truncated)
	}
	tr := resp.PromptTruncated
	if tr == nil || tr.Dropped != DroppedMessages || tr.Kept != resp.Usage.PromptTokens || tr.Kept*2 >= tr.Estimated {
		t.Fatalf("truncation = %+v, want earlier messages left out", tr)
	}
	if w := tr.Warning; !strings.Contains(w, "Ollama left out earlier messages to fit its 4,096-token context window") {
		t.Errorf("warning %q", w)
	}
}

func TestOpenAIResponsesAreNeverMarkedTruncated(t *testing.T) {
	s := modeltest.New(t, tiny)
	p := providers(t, testConfig(s))[1]
	s.Enqueue(modeltest.Reply{Text: "ok"})
	_, resp, err := collect(context.Background(), p, document())
	if err != nil {
		t.Fatal(err)
	}
	if resp.PromptTruncated != nil || resp.Usage.PromptTokens != s.Requests()[0].PromptTokens {
		t.Errorf("truncation %+v, usage %+v", resp.PromptTruncated, resp.Usage)
	}
}

func TestDetectTruncationRule(t *testing.T) {
	one := document()
	history := Request{Messages: []Message{{Role: "system", Content: "s"}, {Role: "user", Content: strings.Repeat("x", 8000)}, {Role: "user", Content: "q"}}}
	est := EstimateTokens(history)
	for _, tc := range []struct {
		name        string
		req         Request
		eval, num   int
		wantDropped string
	}{
		{"the window exactly", one, 4096, 4096, DroppedStart},
		{"within the margin", one, 4096 - 16, 4096, DroppedStart},
		{"below the margin", one, 4096 - 17, 4096, ""},
		{"a small window's margin is an eighth", one, 60, 64, DroppedStart},
		{"no count", one, 0, 4096, ""},
		{"no window", one, 4096, 0, ""},
		{"one message far below the estimate cannot have lost one", one, 10, 4096, ""},
		{"history far below the estimate", history, est/2 - 1, 4096, DroppedMessages},
		{"history at half the estimate", history, est / 2, 4096, ""},
	} {
		got := detectTruncation(tc.req, tc.eval, tc.num)
		switch {
		case tc.wantDropped == "" && got != nil:
			t.Errorf("%s: %+v, want none", tc.name, *got)
		case tc.wantDropped != "" && (got == nil || got.Dropped != tc.wantDropped || got.Kept != tc.eval || got.Window != tc.num):
			t.Errorf("%s: %+v, want dropped %s", tc.name, got, tc.wantDropped)
		}
	}
}

func TestOllamaSendsOneNumCtxPerModelAndAKeepAlive(t *testing.T) {
	s := modeltest.New(t, modeltest.DefaultModel, tiny)
	cfg := testConfig(s)
	reg := NewRegistry(cfg)
	p, _, err := reg.For("ollama/qwen3:8b")
	if err != nil {
		t.Fatal(err)
	}
	type sent struct {
		Options struct {
			NumCtx int `json:"num_ctx"`
		} `json:"options"`
		KeepAlive json.RawMessage `json:"keep_alive"`
	}
	want := map[string]int{"qwen3:8b": 32768, "tiny:1b": 4096}
	for _, model := range []string{"qwen3:8b", "tiny:1b", "qwen3:8b", "tiny:1b", "qwen3:8b"} {
		s.Enqueue(modeltest.Reply{Text: "ok"})
		req := userReq("hi")
		req.Model = model
		if _, err := p.Chat(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		var b sent
		rec := s.Requests()[len(s.Requests())-1]
		if err := json.Unmarshal(rec.Body, &b); err != nil {
			t.Fatal(err)
		}
		if b.Options.NumCtx != want[model] || string(b.KeepAlive) != `"10m0s"` {
			t.Errorf("%s: num_ctx %d keep_alive %s, want %d and 10m", model, b.Options.NumCtx, b.KeepAlive, want[model])
		}
		if l := reg.Limits(context.Background(), "ollama/"+model); l.ContextWindow != want[model] {
			t.Errorf("%s: Limits says a %d-token window, requests %d", model, l.ContextWindow, want[model])
		}
	}

	// A keep_alive of its own, and -1 to keep the model loaded.
	for ka, body := range map[time.Duration]string{30 * time.Minute: `"30m0s"`, -1: `-1`} {
		cfg.KeepAlive = ka
		o, err := NewOllama(cfg)
		if err != nil {
			t.Fatal(err)
		}
		s.Enqueue(modeltest.Reply{Text: "ok"})
		if _, err := o.Chat(context.Background(), userReq("hi"), nil); err != nil {
			t.Fatal(err)
		}
		var b sent
		if err := json.Unmarshal(s.Requests()[len(s.Requests())-1].Body, &b); err != nil || string(b.KeepAlive) != body {
			t.Errorf("KeepAlive %v sent keep_alive %s, want %s", ka, b.KeepAlive, body)
		}
	}
}

func TestConfigFromEnvReadsKeepAlive(t *testing.T) {
	for v, want := range map[string]time.Duration{"30m": 30 * time.Minute, "1h": time.Hour, "-1": -1, "-5m": -1} {
		t.Setenv("DOCENT_KEEP_ALIVE", v)
		cfg, err := ConfigFromEnv()
		if err != nil || cfg.KeepAlive != want {
			t.Errorf("DOCENT_KEEP_ALIVE=%s: %v, %v; want %v", v, cfg.KeepAlive, err, want)
		}
	}
	for _, v := range []string{"0", "soon", "10"} {
		t.Setenv("DOCENT_KEEP_ALIVE", v)
		if _, err := ConfigFromEnv(); err == nil || !strings.Contains(err.Error(), "DOCENT_KEEP_ALIVE") {
			t.Errorf("DOCENT_KEEP_ALIVE=%s: %v, want an error naming it", v, err)
		}
	}
	t.Setenv("DOCENT_KEEP_ALIVE", "")
	if cfg, err := ConfigFromEnv(); err != nil || cfg.withDefaults().KeepAlive != DefaultKeepAlive {
		t.Errorf("unset: %v, %v; want the default %v", cfg.KeepAlive, err, DefaultKeepAlive)
	}
}

func TestOllamaWindowIsChosenOncePerModel(t *testing.T) {
	p, err := NewOllama(Config{MaxNumCtx: 16384})
	if err != nil {
		t.Fatal(err)
	}
	// /api/show failed: the cap, not remembered.
	if n := p.window("m", ModelInfo{}, false); n != 16384 {
		t.Errorf("unknown length: %d, want the cap 16384", n)
	}
	if n := p.window("m", ModelInfo{ContextLength: 8192}, true); n != 8192 {
		t.Errorf("first answer of /api/show: %d, want 8192", n)
	}
	// Whatever comes later, the model keeps the window it was first run with.
	for _, info := range []ModelInfo{{ContextLength: 131072}, {}} {
		if n := p.window("m", info, true); n != 8192 {
			t.Errorf("later %+v: %d, want 8192 again", info, n)
		}
	}
}
