package modeltest

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// TestRawReplyIsSentVerbatim: a Raw reply's status, headers and body reach
// the client exactly as written, on either wire, with the wire's content
// type when it names none.
func TestRawReplyIsSentVerbatim(t *testing.T) {
	s := New(t)
	const body = "data: {\"object\":\"error\",\"message\":\"boom\"}\n\ndata: [DONE]\n\n"
	s.Enqueue(
		Reply{Raw: &Raw{Status: 400, Header: http.Header{"X-Ratelimit-Reset": {"12"}}, Body: `{"object":"error","message":"bad"}`}},
		Reply{Raw: &Raw{Body: body}},
		Reply{Raw: &Raw{Body: "{\"error\":\"mid-stream\"}\n"}},
	)
	for _, tc := range []struct {
		path, status, ctype, body string
		header                    [2]string
	}{
		{"/v1/chat/completions", "400 Bad Request", "application/json", `{"object":"error","message":"bad"}`, [2]string{"X-Ratelimit-Reset", "12"}},
		{"/v1/chat/completions", "200 OK", "text/event-stream", body, [2]string{}},
		{"/api/chat", "200 OK", "application/x-ndjson", "{\"error\":\"mid-stream\"}\n", [2]string{}},
	} {
		resp, err := http.Post(s.URL+tc.path, "application/json", strings.NewReader(`{"model":"qwen3:8b","messages":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.Status != tc.status || resp.Header.Get("Content-Type") != tc.ctype || string(got) != tc.body {
			t.Errorf("%s: %s %q %q; want %s %q %q", tc.path, resp.Status, resp.Header.Get("Content-Type"), got, tc.status, tc.ctype, tc.body)
		}
		if tc.header[0] != "" && resp.Header.Get(tc.header[0]) != tc.header[1] {
			t.Errorf("%s: header %s = %q", tc.path, tc.header[0], resp.Header.Get(tc.header[0]))
		}
	}
}

func TestFaultHeaderAndDoneReason(t *testing.T) {
	s := New(t)
	s.Enqueue(
		Reply{Fault: Fault{Status: 429, Header: http.Header{"X-Ratelimit-Reset-Requests": {"20s"}}}},
		Reply{Text: `{"total": 4`, DoneReason: "length"},
		Reply{Text: `{"total": 4`, DoneReason: "length"},
	)
	resp, err := http.Post(s.OpenAIURL()+"/chat/completions", "application/json", strings.NewReader(`{"model":"qwen3:8b","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("X-Ratelimit-Reset-Requests") != "20s" {
		t.Errorf("fault: %s, header %q", resp.Status, resp.Header.Get("X-Ratelimit-Reset-Requests"))
	}

	res, err := ollamaChat(context.Background(), ollamaClient(t, s), &api.ChatRequest{Model: "qwen3:8b", Messages: userMessage("total")})
	if err != nil || res.final == nil || res.final.DoneReason != "length" {
		t.Errorf("ollama done_reason: %+v %v", res.final, err)
	}
	or, err := openaiStream(context.Background(), t, openaiClient(s), chatParams("total"))
	if err != nil || or.acc.Choices[0].FinishReason != "length" {
		t.Errorf("openai finish_reason: %+v %v", or.acc.Choices, err)
	}
}

func TestSetModelsCanOfferNone(t *testing.T) {
	s := New(t)
	s.SetModels()
	list, err := ollamaClient(t, s).List(context.Background())
	if err != nil || len(list.Models) != 0 {
		t.Errorf("ollama list: %+v %v", list, err)
	}
	page, err := openaiClient(s).Models.List(context.Background())
	if err != nil || len(page.Data) != 0 {
		t.Errorf("openai models: %+v %v", page, err)
	}
}

// TestInMemoryServerRunsOnTheBubblesClock: inside a synctest bubble, the
// in-memory server's delays pass on the fake clock, both clients reach it,
// and nothing is left running when the test ends.
func TestInMemoryServerRunsOnTheBubblesClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := NewInMemory(t)
		s.Enqueue(
			Reply{Text: "slow answer", ChunkRunes: 2, TokenDelay: time.Second, Fault: Fault{FirstTokenDelay: time.Minute}},
			Reply{Text: "second"},
		)
		u, _ := url.Parse(s.OllamaURL())
		start := time.Now()
		res, err := ollamaChat(context.Background(), api.NewClient(u, s.Client()), &api.ChatRequest{Model: "qwen3:8b", Messages: userMessage("hi")})
		if err != nil || res.content != "slow answer" {
			t.Fatalf("ollama: %q %v", res.content, err)
		}
		// A minute before the headers, then 6 text frames and the final
		// one a second apart.
		if d := time.Since(start); d != time.Minute+6*time.Second {
			t.Errorf("took %v on the bubble's clock, want 1m6s", d)
		}
		c := openai.NewClient(option.WithBaseURL(s.OpenAIURL()), option.WithAPIKey("k"), option.WithMaxRetries(0), option.WithHTTPClient(s.Client()))
		cc, err := c.Chat.Completions.New(context.Background(), chatParams("again"))
		if err != nil || cc.Choices[0].Message.Content != "second" {
			t.Fatalf("openai: %v", err)
		}
	})
}
