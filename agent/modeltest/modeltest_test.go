package modeltest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/openai/openai-go/v3"
)

// waitIdle waits until no handler is running, failing after two seconds.
func waitIdle(t *testing.T, s *Server) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for s.inflight.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d handlers still running after the client left", s.inflight.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestEmptyScriptFailsClearly(t *testing.T) {
	s := New(t)
	_, err := ollamaChat(context.Background(), ollamaClient(t, s), &api.ChatRequest{Model: "qwen3:8b", Messages: userMessage("hi")})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 500 || !strings.Contains(se.ErrorMessage, "modeltest: no scripted reply left") {
		t.Errorf("ollama: %v", err)
	}
	_, err = openaiClient(s).Chat.Completions.New(context.Background(), chatParams("hi"))
	var ae *openai.Error
	if !errors.As(err, &ae) || ae.StatusCode != 500 || !strings.Contains(ae.Message, "modeltest: no scripted reply left") {
		t.Errorf("openai: %v", err)
	}
}

func TestQueueIsSharedAcrossWiresThenHandleAnswers(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Text: "first"}, Reply{Text: "second"})
	s.Handle(func(r Request) Reply { return Reply{Text: "computed for " + r.Wire} })

	res, err := ollamaChat(context.Background(), ollamaClient(t, s), &api.ChatRequest{Model: "qwen3:8b", Messages: userMessage("1")})
	if err != nil || res.content != "first" {
		t.Fatalf("ollama: %q %v", res.content, err)
	}
	cc, err := openaiClient(s).Chat.Completions.New(context.Background(), chatParams("2"))
	if err != nil || cc.Choices[0].Message.Content != "second" {
		t.Fatalf("openai: %v", err)
	}
	cc, err = openaiClient(s).Chat.Completions.New(context.Background(), chatParams("3"))
	if err != nil || cc.Choices[0].Message.Content != "computed for openai" {
		t.Fatalf("handle: %+v %v", cc, err)
	}
	var wires []string
	for _, r := range s.Requests() {
		wires = append(wires, r.Wire)
	}
	if strings.Join(wires, ",") != "ollama,openai,openai" {
		t.Errorf("wires = %v", wires)
	}
}

func TestInvalidJSONBodyIs400InWireFormat(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Text: "unused"})
	for _, tc := range []struct{ path, errPath string }{{"/api/chat", "error"}, {"/v1/chat/completions", "error.message"}} {
		resp, err := http.Post(s.URL+tc.path, "application/json", strings.NewReader(`{"model": "qwen3:8b",`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var v map[string]any
		if resp.StatusCode != 400 || json.Unmarshal(body, &v) != nil {
			t.Errorf("%s: %d %s", tc.path, resp.StatusCode, body)
			continue
		}
		msg, _ := v["error"].(string)
		if e, ok := v["error"].(map[string]any); ok {
			msg, _ = e["message"].(string)
		}
		if msg == "" {
			t.Errorf("%s: no error message in %s", tc.path, body)
		}
	}
	if s.Pending() != 1 {
		t.Error("an invalid request took a scripted reply")
	}
	if n := len(s.Requests()); n != 2 || string(s.Requests()[0].Body) != `{"model": "qwen3:8b",` {
		t.Errorf("invalid requests not recorded as sent: %+v", s.Requests())
	}
}

func TestRequestsIsSafeForConcurrentUse(t *testing.T) {
	s := New(t)
	s.Handle(func(Request) Reply { return Reply{Text: "ok"} })
	c := openaiClient(s)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Chat.Completions.New(context.Background(), chatParams("hi")); err != nil {
				t.Error(err)
			}
			_ = s.Requests()
		}()
	}
	wg.Wait()
	if n := len(s.Requests()); n != 8 {
		t.Errorf("recorded %d requests, want 8", n)
	}
}

// A client that goes away mid-stream ends the handler: nothing is left
// running and the goroutine count returns to its baseline.
func TestDisconnectLeavesNoGoroutines(t *testing.T) {
	s := New(t)
	http.DefaultClient.CloseIdleConnections()
	base := runtime.NumGoroutine()
	for range 5 {
		s.Enqueue(Reply{Text: strings.Repeat("slow tokens ", 50), TokenDelay: 50 * time.Millisecond})
	}
	for i := range 5 {
		ctx, cancel := context.WithCancel(context.Background())
		frames := 0
		err := ollamaClient(t, s).Chat(ctx, &api.ChatRequest{Model: "qwen3:8b", Messages: userMessage("hi")}, func(api.ChatResponse) error {
			frames++
			if frames == 2 {
				cancel()
			}
			return nil
		})
		cancel()
		t.Logf("round %d: %d frames, err %v", i, frames, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	s.Enqueue(Reply{Text: strings.Repeat("slow ", 100), TokenDelay: 50 * time.Millisecond})
	stream := openaiClient(s).Chat.Completions.NewStreaming(ctx, chatParams("hi"))
	for stream.Next() {
	}
	if err := stream.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Logf("openai stream err: %v", err)
	}
	stream.Close()

	waitIdle(t, s)
	http.DefaultClient.CloseIdleConnections()
	deadline := time.Now().Add(3 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= base+2 {
			break
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("goroutines: %d, baseline %d\n%s", n, base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCloseEndsWaitingHandlers(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Text: "never", Fault: Fault{FirstTokenDelay: time.Minute}})
	errc := make(chan error, 1)
	go func() {
		_, err := openaiClient(s).Chat.Completions.New(context.Background(), chatParams("hi"))
		errc <- err
	}()
	deadline := time.Now().Add(2 * time.Second)
	for s.inflight.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	s.Close()
	if d := time.Since(start); d > time.Second {
		t.Errorf("Close took %v with a handler waiting", d)
	}
	if err := <-errc; err == nil {
		t.Error("request on a closed server succeeded")
	}
}

// A held reply sends its first frames, then nothing until released: what
// a client shows mid-stream can be checked without timing.
func TestHeldReplyWaitsMidStreamUntilReleased(t *testing.T) {
	s := New(t)
	release := make(chan struct{})
	s.Enqueue(Reply{Text: "abcdefgh", ChunkRunes: 2, HoldAfterChunks: 2, Hold: release})
	frames := make(chan string, 16)
	go func() {
		defer close(frames)
		_ = ollamaClient(t, s).Chat(context.Background(), &api.ChatRequest{Model: "qwen3:8b", Messages: userMessage("hi")},
			func(r api.ChatResponse) error {
				frames <- r.Message.Content
				return nil
			})
	}()
	if got := <-frames + <-frames; got != "abcd" {
		t.Fatalf("first two frames %q, want abcd", got)
	}
	select {
	case f := <-frames:
		t.Fatalf("a frame %q arrived while the reply was held", f)
	default:
	}
	close(release)
	var rest strings.Builder
	for f := range frames {
		rest.WriteString(f)
	}
	if rest.String() != "efgh" {
		t.Errorf("after the release: %q, want efgh", rest.String())
	}
}
