package provider

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
)

var visionModel = modeltest.Model{Name: "qwen2.5vl:7b", ContextLength: 128000, Capabilities: []string{"completion", "vision"}, Family: "qwen25vl"}

func testPNG(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestImagesReachTheServerOnBothWires: Message.Images go as Ollama's
// base64 "images" on the message and as OpenAI content parts, the text
// first and then an image_url with a data:image/png URL; the bytes decode
// to the PNG sent, and MaxTokens goes as num_predict and max_tokens.
func TestImagesReachTheServerOnBothWires(t *testing.T) {
	img := testPNG(t)
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Enqueue(modeltest.Reply{Text: "TOTAL 4.50"})
		req := Request{Model: "qwen2.5vl:7b", MaxTokens: 4096,
			Messages: []Message{{Role: "user", Content: "Transcribe this page", Images: [][]byte{img}}}}
		_, resp, err := collect(context.Background(), p, req)
		if err != nil || resp.Text != "TOTAL 4.50" {
			t.Fatalf("chat: %q, %v", resp.Text, err)
		}
		reqs := s.Requests()
		r := reqs[len(reqs)-1]
		if len(r.Images) != 1 || !bytes.Equal(r.Images[0], img) {
			t.Fatalf("recorded images %d, want the PNG sent", len(r.Images))
		}
		if r.MaxTokens != 4096 {
			t.Errorf("output cap %d on the wire, want 4096", r.MaxTokens)
		}
		switch p.Name() {
		case "ollama":
			var m struct {
				Content string   `json:"content"`
				Images  []string `json:"images"`
			}
			if err := json.Unmarshal(r.Messages[0], &m); err != nil {
				t.Fatal(err)
			}
			got, err := base64.StdEncoding.DecodeString(m.Images[0])
			if m.Content != "Transcribe this page" || err != nil || !bytes.Equal(got, img) {
				t.Errorf("ollama message %s", r.Messages[0])
			}
			if !strings.Contains(string(r.Options), `"num_predict":4096`) {
				t.Errorf("ollama options %s", r.Options)
			}
		case "openai":
			var m struct {
				Content []struct {
					Type     string `json:"type"`
					Text     string `json:"text"`
					ImageURL struct {
						URL string `json:"url"`
					} `json:"image_url"`
				} `json:"content"`
			}
			if err := json.Unmarshal(r.Messages[0], &m); err != nil || len(m.Content) != 2 {
				t.Fatalf("openai message %s: %v", r.Messages[0], err)
			}
			text, part := m.Content[0], m.Content[1]
			b64, ok := strings.CutPrefix(part.ImageURL.URL, "data:image/png;base64,")
			got, err := base64.StdEncoding.DecodeString(b64)
			if text.Type != "text" || text.Text != "Transcribe this page" || part.Type != "image_url" || !ok || err != nil || !bytes.Equal(got, img) {
				t.Errorf("openai content parts %s", r.Messages[0])
			}
			if !strings.Contains(string(r.Body), `"max_tokens":4096`) {
				t.Errorf("openai body has no max_tokens: %.300s", r.Body)
			}
		}
	}, visionModel)
}

// TestOutputCapTruncates: an answer cut at MaxTokens is Truncated.
func TestOutputCapTruncates(t *testing.T) {
	eachProvider(t, func(t *testing.T, s *modeltest.Server, p Provider) {
		s.Enqueue(modeltest.Reply{Text: "a long answer that goes on", ChunkRunes: 4})
		req := userReq("go on")
		req.MaxTokens = 2
		_, resp, err := collect(context.Background(), p, req)
		if err != nil || !resp.Truncated || resp.Text != "a long a" {
			t.Errorf("capped answer %q truncated=%v: %v", resp.Text, resp.Truncated, err)
		}
	})
}

// TestImagesCountInTheEstimate: an image is ImageTokens of the estimate,
// not the length of its bytes.
func TestImagesCountInTheEstimate(t *testing.T) {
	big := bytes.Repeat([]byte{0}, 1<<20)
	without := EstimateTokens(Request{Messages: []Message{{Role: "user", Content: "read"}}})
	with := EstimateTokens(Request{Messages: []Message{{Role: "user", Content: "read", Images: [][]byte{big, big}}}})
	if with-without != 2*ImageTokens {
		t.Errorf("two images add %d tokens, want %d", with-without, 2*ImageTokens)
	}
}

// TestMaxCompletionTokensForServersThatRefuseMaxTokens: a model that
// refuses max_tokens as OpenAI's reasoning models do (400, param
// max_tokens, "Use 'max_completion_tokens' instead") still reads an image
// within the cap: the request goes again with max_completion_tokens, and
// the next one for that model goes with it at once. A server that takes
// max_tokens keeps getting max_tokens.
func TestMaxCompletionTokensForServersThatRefuseMaxTokens(t *testing.T) {
	strict := visionModel
	strict.Name, strict.RefuseMaxTokens = "o4-mini", true
	s := modeltest.New(t, strict, visionModel)
	p := NewOpenAI(testConfig(s))
	img := testPNG(t)
	read := func(model string) Response {
		t.Helper()
		s.Enqueue(modeltest.Reply{Text: "TOTAL 4.50 THANK YOU", ChunkRunes: 6})
		req := Request{Model: model, MaxTokens: 2, Messages: []Message{{Role: "user", Content: "Transcribe this page", Images: [][]byte{img}}}}
		_, resp, err := collect(context.Background(), p, req)
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		return resp
	}
	capField := func(r modeltest.Request) string {
		var b map[string]json.RawMessage
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		_, mt := b["max_tokens"]
		_, mct := b["max_completion_tokens"]
		switch {
		case mt && !mct:
			return "max_tokens"
		case mct && !mt:
			return "max_completion_tokens"
		}
		return "both or neither"
	}

	if resp := read("o4-mini"); resp.Text != "TOTAL 4.50 T" || !resp.Truncated {
		t.Errorf("the strict model's answer %q truncated=%v, want it cut at 2", resp.Text, resp.Truncated)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || capField(reqs[0]) != "max_tokens" || capField(reqs[1]) != "max_completion_tokens" || reqs[1].MaxTokens != 2 {
		t.Fatalf("%d requests; want max_tokens refused, then max_completion_tokens 2", len(reqs))
	}
	read("o4-mini")
	if reqs = s.Requests(); len(reqs) != 3 || capField(reqs[2]) != "max_completion_tokens" {
		t.Errorf("the second read: %d requests in all, want 3 (straight with max_completion_tokens)", len(reqs))
	}

	if resp := read("qwen2.5vl:7b"); resp.Text != "TOTAL 4.50 T" {
		t.Errorf("the lenient model's answer %q", resp.Text)
	}
	if reqs = s.Requests(); len(reqs) != 4 || capField(reqs[3]) != "max_tokens" {
		t.Errorf("a server that takes max_tokens: %d requests, the last with %s", len(reqs), capField(reqs[len(reqs)-1]))
	}
}
