package modeltest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// visionModel is a model that takes images.
var visionModel = Model{Name: "qwen2.5vl:7b", ContextLength: 128000, Capabilities: []string{"completion", "vision"}, Family: "qwen25vl"}

// pngHeader stands for an image: the server does not decode images.
var pngHeader = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR-modeltest")

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestImagesAreRecordedOnBothWires: an image sent as Ollama's base64
// "images" and as an OpenAI image_url data: URL part is recorded decoded,
// in Request.Images and in ChatMessages, with the text parts as the
// content, and counted ImageTokens in the prompt.
func TestImagesAreRecordedOnBothWires(t *testing.T) {
	s := New(t, visionModel)
	s.Handle(func(Request) Reply { return Reply{Text: "TOTAL 4.50"} })
	b64 := base64.StdEncoding.EncodeToString(pngHeader)
	ollama := `{"model":"qwen2.5vl:7b","stream":false,"messages":[{"role":"user","content":"Read it","images":["` + b64 + `"]}]}`
	openai := `{"model":"qwen2.5vl:7b","messages":[{"role":"user","content":[{"type":"text","text":"Read it"},` +
		`{"type":"image_url","image_url":{"url":"data:image/png;base64,` + b64 + `"}}]}]}`
	for _, tc := range []struct{ url, body string }{{s.URL + "/api/chat", ollama}, {s.OpenAIURL() + "/chat/completions", openai}} {
		if code, body := post(t, tc.url, tc.body); code != http.StatusOK || !strings.Contains(body, "TOTAL 4.50") {
			t.Fatalf("%s: %d %s", tc.url, code, body)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, r := range reqs {
		if len(r.Images) != 1 || !bytes.Equal(r.Images[0], pngHeader) {
			t.Errorf("%s: images %q", r.Wire, r.Images)
		}
		msgs, err := r.ChatMessages()
		if err != nil || len(msgs) != 1 || msgs[0].Content != "Read it" || len(msgs[0].Images) != 1 || !bytes.Equal(msgs[0].Images[0], pngHeader) {
			t.Errorf("%s: messages %+v, %v", r.Wire, msgs, err)
		}
		if want := messageOverhead + Tokens("Read it") + ImageTokens; r.PromptTokens != want {
			t.Errorf("%s: prompt tokens %d, want %d", r.Wire, r.PromptTokens, want)
		}
	}
}

// TestBadImagesAreRefused: what the real servers refuse is refused, and
// takes no scripted reply: an image that is not base64, a content part of
// an unknown shape, an http URL, and images for a model without vision.
func TestBadImagesAreRefused(t *testing.T) {
	s := New(t, visionModel, DefaultModel)
	s.Enqueue(Reply{Text: "kept for later"})
	b64 := base64.StdEncoding.EncodeToString(pngHeader)
	for _, tc := range []struct {
		name, path, body string
		status           int
		says             string
	}{
		{"ollama not base64", "/api/chat", `{"model":"qwen2.5vl:7b","messages":[{"role":"user","content":"x","images":["%%%"]}]}`, 400, "base64"},
		{"ollama no vision", "/api/chat", `{"model":"qwen3:8b","messages":[{"role":"user","content":"x","images":["` + b64 + `"]}]}`, 500, errNoVision},
		{"openai not base64", "/v1/chat/completions", `{"model":"qwen2.5vl:7b","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,%%%"}}]}]}`, 400, "invalid image input"},
		{"openai http url", "/v1/chat/completions", `{"model":"qwen2.5vl:7b","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}]}`, 400, "not supported"},
		{"openai bad part", "/v1/chat/completions", `{"model":"qwen2.5vl:7b","messages":[{"role":"user","content":[{"type":"image","data":"x"}]}]}`, 400, "invalid content part"},
		{"openai no vision", "/v1/chat/completions", `{"model":"qwen3:8b","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + b64 + `"}}]}]}`, 400, "multimodal"},
	} {
		code, body := post(t, s.URL+tc.path, tc.body)
		if code != tc.status || !strings.Contains(body, tc.says) {
			t.Errorf("%s: %d %s; want %d saying %q", tc.name, code, body, tc.status, tc.says)
		}
	}
	if s.Pending() != 1 {
		t.Errorf("refused requests took a reply: %d pending", s.Pending())
	}
}

// TestOutputCapCutsTheAnswer: num_predict (Ollama) and max_tokens
// (OpenAI) cut an answer at that many deltas, with done_reason "length",
// and are recorded.
func TestOutputCapCutsTheAnswer(t *testing.T) {
	s := New(t)
	s.Handle(func(Request) Reply { return Reply{Text: "one two three four five six", ChunkRunes: 4} })
	code, body := post(t, s.URL+"/api/chat", `{"model":"qwen3:8b","stream":false,"think":false,"options":{"num_predict":2},"messages":[{"role":"user","content":"x"}]}`)
	var o struct {
		Message    struct{ Content string }
		DoneReason string `json:"done_reason"`
	}
	if err := json.Unmarshal([]byte(body), &o); code != 200 || err != nil || o.Message.Content != "one two " || o.DoneReason != "length" {
		t.Errorf("ollama: %d %s", code, body)
	}
	code, body = post(t, s.OpenAIURL()+"/chat/completions", `{"model":"qwen3:8b","max_tokens":3,"messages":[{"role":"user","content":"x"}]}`)
	if code != 200 || !strings.Contains(body, `"content":"one two thre"`) || !strings.Contains(body, `"finish_reason":"length"`) {
		t.Errorf("openai: %d %s", code, body)
	}
	reqs := s.Requests()
	if reqs[0].MaxTokens != 2 || reqs[1].MaxTokens != 3 {
		t.Errorf("recorded caps %d, %d", reqs[0].MaxTokens, reqs[1].MaxTokens)
	}
}

// TestRefuseMaxTokens: a model with RefuseMaxTokens answers max_tokens on
// the OpenAI wire with OpenAI's 400 naming the parameter, taking no reply,
// and takes max_completion_tokens as the cap.
func TestRefuseMaxTokens(t *testing.T) {
	m := DefaultModel
	m.Name, m.RefuseMaxTokens = "o4-mini", true
	s := New(t, m)
	s.Enqueue(Reply{Text: "one two three four", ChunkRunes: 4})
	code, body := post(t, s.OpenAIURL()+"/chat/completions", `{"model":"o4-mini","max_tokens":2,"messages":[{"role":"user","content":"x"}]}`)
	var e struct {
		Error struct{ Message, Type, Param, Code string }
	}
	if err := json.Unmarshal([]byte(body), &e); code != 400 || err != nil || e.Error.Param != "max_tokens" ||
		e.Error.Code != "unsupported_parameter" || e.Error.Type != "invalid_request_error" ||
		!strings.Contains(e.Error.Message, "Use 'max_completion_tokens' instead") {
		t.Fatalf("max_tokens: %d %s", code, body)
	}
	code, body = post(t, s.OpenAIURL()+"/chat/completions", `{"model":"o4-mini","max_completion_tokens":2,"messages":[{"role":"user","content":"x"}]}`)
	if code != 200 || !strings.Contains(body, `"content":"one two "`) || !strings.Contains(body, `"finish_reason":"length"`) {
		t.Errorf("max_completion_tokens: %d %s", code, body)
	}
}
