package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/eventcheck"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage"
)

func createSchemaReply() modeltest.Reply {
	return modeltest.Reply{Thinking: "A schema first.", Text: "I will make a schema.", ToolCalls: []modeltest.ToolCall{{
		ID: "c1", Name: "create_schema", Arguments: `{"name":"invoice","response_format":` + invoiceSchema + `}`,
	}}}
}

// TestStreamedChatPausesAndApproveContinues: the model proposes
// create_schema, the streamed turn pauses; a streamed approve runs it and
// the model answers; the thread then holds the whole conversation.
func TestStreamedChatPausesAndApproveContinues(t *testing.T) {
	f := newFixture(t)
	f.model.Enqueue(createSchemaReply())
	_, paused := f.stream("/api/documents/"+f.doc.ID+"/chat", map[string]any{"message": "Make an invoice schema", "stream": true})
	last := paused[len(paused)-1]
	done, _ := last.Payload.(agent.DonePayload)
	if last.Type != agent.EventDone || !done.Result.Paused() || done.Result.ToolCalls[0].Name != "create_schema" {
		t.Fatalf("chat ended with %+v", last)
	}
	threadID := paused[0].Payload.(agent.TurnStartedPayload).ThreadID
	if _, err := f.db.FindSchema(t.Context(), "invoice"); err == nil {
		t.Fatal("the schema exists before approval")
	}

	f.model.Enqueue(modeltest.Reply{Text: "Schema invoice is ready."})
	_, cont := f.stream("/api/documents/"+f.doc.ID+"/chat/approve", map[string]any{
		"turn_id": done.Result.TurnID, "stream": true,
		"approvals": []map[string]any{{"call_id": "c1", "approved": true}},
	}, eventcheck.ContinuationOf(paused))
	end := cont[len(cont)-1]
	endDone, _ := end.Payload.(agent.DonePayload)
	if end.Type != agent.EventDone || endDone.Result.Paused() || endDone.Result.Text != "Schema invoice is ready." {
		t.Fatalf("approve ended with %+v", end)
	}
	if _, err := f.db.FindSchema(t.Context(), "invoice"); err != nil {
		t.Errorf("schema after approval: %v", err)
	}
	// A turn is approved once.
	f.wantError("POST", "/api/documents/"+f.doc.ID+"/chat/approve", map[string]any{"turn_id": done.Result.TurnID, "stream": true}, http.StatusNotFound, "not_found")

	var th struct {
		storage.Thread
		Messages []storage.ThreadMessage `json:"messages"`
	}
	f.call("GET", "/api/documents/"+f.doc.ID+"/chat/threads/"+threadID, nil, http.StatusOK, &th)
	roles := []string{}
	for _, m := range th.Messages {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "user,assistant,tool,assistant" || th.Messages[0].Content != "Make an invoice schema" {
		t.Errorf("thread messages %s: %+v", got, th.Messages)
	}

	// The thread belongs to its document: through another one it is not found.
	other, err := f.db.CreateDocument(t.Context(), storage.NewDocument{Name: "other.txt", MediaType: "text/plain", Data: []byte("o"), Pages: []string{"o"}})
	if err != nil {
		t.Fatal(err)
	}
	f.wantError("GET", "/api/documents/"+other.ID+"/chat/threads/"+threadID, nil, http.StatusNotFound, "not_found")
	f.wantError("PATCH", "/api/documents/"+other.ID+"/chat/threads/"+threadID, map[string]any{"title": "x"}, http.StatusNotFound, "not_found")
	f.wantError("DELETE", "/api/documents/"+other.ID+"/chat/threads/"+threadID, nil, http.StatusNotFound, "not_found")
	f.wantError("POST", "/api/documents/"+other.ID+"/chat", map[string]any{"message": "hi", "thread_id": threadID, "stream": true}, http.StatusNotFound, "not_found")
}

func TestThreadRoutes(t *testing.T) {
	f := newFixture(t)
	var created struct {
		ThreadID string `json:"thread_id"`
	}
	f.call("POST", "/api/documents/"+f.doc.ID+"/chat/threads", nil, http.StatusCreated, &created)
	f.call("POST", "/api/documents/"+f.doc.ID+"/chat/threads", map[string]any{"title": "Totals"}, http.StatusCreated, &created)
	f.wantError("POST", "/api/documents/doc_missing/chat/threads", nil, http.StatusNotFound, "not_found")
	var list struct{ Threads []storage.Thread }
	f.call("GET", "/api/documents/"+f.doc.ID+"/chat/threads", nil, http.StatusOK, &list)
	if len(list.Threads) != 2 || list.Threads[0].ID != created.ThreadID || list.Threads[0].Title != "Totals" {
		t.Errorf("threads %+v", list)
	}
	var th storage.Thread
	f.call("PATCH", "/api/documents/"+f.doc.ID+"/chat/threads/"+created.ThreadID, map[string]any{"title": "Renamed"}, http.StatusOK, &th)
	if th.Title != "Renamed" {
		t.Errorf("renamed %+v", th)
	}
	f.wantError("PATCH", "/api/documents/"+f.doc.ID+"/chat/threads/"+created.ThreadID, map[string]any{"title": " "}, http.StatusBadRequest, "invalid")
	f.wantError("PATCH", "/api/documents/"+f.doc.ID+"/chat/threads/"+created.ThreadID, map[string]any{}, http.StatusBadRequest, "invalid")

	// A turn that continues the thread, answered as one result object.
	f.model.Enqueue(modeltest.Reply{Text: "Total due is 12.50 EUR."})
	var res agent.TurnResult
	f.call("POST", "/api/documents/"+f.doc.ID+"/chat", map[string]any{"message": "Total?", "thread_id": created.ThreadID}, http.StatusOK, &res)
	if res.Text != "Total due is 12.50 EUR." || res.ThreadID != created.ThreadID || res.Paused() {
		t.Errorf("result %+v", res)
	}
	f.call("DELETE", "/api/documents/"+f.doc.ID+"/chat/threads/"+created.ThreadID, nil, http.StatusOK, nil)
	f.wantError("GET", "/api/documents/"+f.doc.ID+"/chat/threads/"+created.ThreadID, nil, http.StatusNotFound, "not_found")
}

// Requests the agent would refuse are 400 before any model call, streamed
// or not.
func TestChatRequestErrors(t *testing.T) {
	f := newFixture(t)
	path := "/api/documents/" + f.doc.ID + "/chat"
	for name, body := range map[string]map[string]any{
		"empty message":           {"message": " ", "stream": true},
		"mention type":            {"message": "hi", "stream": true, "mentions": []map[string]string{{"type": "folder", "id": "doc_1"}}},
		"malformed mention id":    {"message": "hi", "stream": true, "mentions": []map[string]string{{"type": "schema", "id": "../etc/passwd"}}},
		"mention of another kind": {"message": "hi", "mentions": []map[string]string{{"type": "schema", "id": f.doc.ID}}},
		"unknown mention":         {"message": "hi", "stream": true, "mentions": []map[string]string{{"type": "document", "id": "doc_01ZZZZZZZZZZZZZZZZZZZZZZZZ"}}},
		"unknown tool":            {"message": "hi", "stream": true, "auto_approved_tools": []string{"rm_rf"}},
		"unknown model":           {"message": "hi", "stream": true, "model": "nowhere/x"},
		"truncate without thread": {"message": "hi", "truncate_thread_to_message_count": 1},
	} {
		t.Run(name, func(t *testing.T) {
			f.wantError("POST", path, body, http.StatusBadRequest, "invalid")
		})
	}
	f.wantError("POST", path, map[string]any{"message": "hi", "strem": true}, http.StatusBadRequest, "invalid")
	f.wantError("POST", "/api/documents/doc_missing/chat", map[string]any{"message": "hi", "stream": true}, http.StatusNotFound, "not_found")
	f.wantError("POST", path, map[string]any{"message": "hi", "thread_id": "thr_missing"}, http.StatusNotFound, "not_found")
	f.wantError("POST", path+"/approve", map[string]any{"turn_id": "turn_missing", "stream": true}, http.StatusNotFound, "not_found")
	f.wantError("POST", path+"/approve", map[string]any{"stream": true}, http.StatusBadRequest, "invalid")
	if n := len(f.model.Requests()); n != 0 {
		t.Errorf("%d model calls for requests that should fail first", n)
	}
	// A mention that resolves passes the check (the model is then called).
	f.model.Enqueue(modeltest.Reply{Text: "ok"})
	f.stream(path, map[string]any{"message": "hi", "stream": true, "mentions": []map[string]string{{"type": "document", "id": f.doc.ID}}})
}

// A model that fails after the turn started ends the stream with one
// error event; answered without streaming it is a 502 naming the kind.
func TestModelFailureIsAnErrorEvent(t *testing.T) {
	f := newFixture(t)
	f.model.Enqueue(modeltest.Reply{Fault: modeltest.Fault{Status: http.StatusInternalServerError, Message: "boom"}})
	_, evs := f.stream("/api/documents/"+f.doc.ID+"/chat", map[string]any{"message": "hi", "stream": true})
	if last := evs[len(evs)-1]; last.Type != agent.EventError || last.Payload.(agent.ErrorPayload).Code == "" {
		t.Errorf("last event %+v", last)
	}
	f.model.Enqueue(modeltest.Reply{Fault: modeltest.Fault{Status: http.StatusInternalServerError, Message: "boom"}})
	status, b := f.do("POST", "/api/documents/"+f.doc.ID+"/chat", map[string]any{"message": "hi"})
	if status != http.StatusBadGateway || !strings.Contains(string(b), `"code":"server_error"`) {
		t.Errorf("non-streamed model failure: %d %s", status, b)
	}
}

// An idle stream carries keepalive comments, which readers skip.
func TestIdleStreamKeepsAlive(t *testing.T) {
	f := newFixture(t) // keepalive every 50ms
	f.model.Enqueue(modeltest.Reply{Text: "slow answer", Fault: modeltest.Fault{FirstTokenDelay: 400 * time.Millisecond}})
	raw, _ := f.stream("/api/documents/"+f.doc.ID+"/chat", map[string]any{"message": "hi", "stream": true})
	if !strings.Contains(raw, ":keepalive\n\n") {
		t.Errorf("no keepalive in an idle stream:\n%s", raw)
	}
}

// TestDisconnectStopsTheTurn: a client that leaves after the first chunk
// cancels the turn; nothing is left running and the thread records no
// answer.
func TestDisconnectStopsTheTurn(t *testing.T) {
	f := newFixture(t)
	// Warm up once so pooled connections and lazily started goroutines are
	// in the baseline.
	f.model.Enqueue(modeltest.Reply{Text: "warm"})
	f.stream("/api/documents/"+f.doc.ID+"/chat", map[string]any{"message": "hi", "stream": true})
	baseline := f.goroutines()

	f.model.Enqueue(modeltest.Reply{Text: strings.Repeat("word ", 400), ChunkRunes: 5, TokenDelay: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := f.ts.Client().Do(f.request(ctx, "POST", "/api/documents/"+f.doc.ID+"/chat", map[string]any{"message": "a long answer", "stream": true}))
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(res.Body)
	var threadID string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before a chunk: %v", err)
		}
		if strings.Contains(line, `"turn_started"`) {
			var e agent.Event
			if err := json.Unmarshal([]byte(strings.TrimPrefix(strings.TrimSpace(line), "data: ")), &e); err != nil {
				t.Fatal(err)
			}
			threadID = e.Payload.(agent.TurnStartedPayload).ThreadID
		}
		if strings.Contains(line, `"assistant_text_chunk"`) {
			break
		}
	}
	cancel()
	res.Body.Close()

	f.settleGoroutines(baseline)
	msgs, err := f.db.ThreadMessages(t.Context(), threadID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].Role != storage.RoleUser {
		t.Errorf("thread after a disconnect: %+v", msgs)
	}
	// The server still answers.
	f.model.Enqueue(modeltest.Reply{Text: "still here"})
	f.stream("/api/documents/"+f.doc.ID+"/chat", map[string]any{"message": "hi", "stream": true})
}

// TestManyConcurrentStreams runs 50 streamed chats at once against a model
// that streams 50 chunks each, on each wire, and records the peaks. (The
// Ollama client library allocates an 8 MiB line buffer per streamed call,
// which dominates its peak heap.)
func TestManyConcurrentStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	for _, model := range []string{"ollama/qwen3:8b", "openai/qwen3:8b"} {
		t.Run(strings.Split(model, "/")[0], func(t *testing.T) { manyConcurrentStreams(t, model) })
	}
}

func manyConcurrentStreams(t *testing.T, model string) {
	const clients, tokens = 50, 50
	f := newFixture(t, func(c *server.Config) { c.Agent.DefaultModel = model })
	f.model.Handle(func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Text: strings.Repeat("tok ", tokens), ChunkRunes: 4, TokenDelay: 2 * time.Millisecond}
	})
	f.model.Enqueue(modeltest.Reply{Text: "warm"})
	f.stream("/api/documents/"+f.doc.ID+"/chat", map[string]any{"message": "warm up", "stream": true})
	baseline := f.goroutines()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	var peakG atomic.Int64
	var peakHeap atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if g := int64(runtime.NumGoroutine()); g > peakG.Load() {
				peakG.Store(g)
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peakHeap.Load() {
				peakHeap.Store(ms.HeapAlloc)
			}
		}
	}()

	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		wg.Go(func() {
			req := f.request(context.Background(), "POST", "/api/documents/"+f.doc.ID+"/chat",
				map[string]any{"message": fmt.Sprintf("question %d", i), "stream": true})
			res, err := f.ts.Client().Do(req)
			if err != nil {
				errs <- err
				return
			}
			defer res.Body.Close()
			raw, err := io.ReadAll(res.Body)
			if err != nil {
				errs <- err
				return
			}
			evs, err := eventcheck.ReadSSE(strings.NewReader(string(raw)))
			if err == nil {
				err = eventcheck.Check(evs)
			}
			if err == nil && (evs[len(evs)-1].Type != agent.EventDone || evs[len(evs)-1].Payload.(agent.DonePayload).Result.Text != strings.Repeat("tok ", tokens)) {
				err = fmt.Errorf("ended with %+v", evs[len(evs)-1])
			}
			if err != nil {
				errs <- fmt.Errorf("client %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stop)
	<-sampled
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%s: %d streamed chats of %d chunks: %v; goroutines baseline %d, peak %d; heap before %.1f MiB, peak %.1f MiB",
		model, clients, tokens, elapsed.Round(time.Millisecond), baseline, peakG.Load(),
		float64(before.HeapAlloc)/(1<<20), float64(peakHeap.Load())/(1<<20))
	f.settleGoroutines(baseline)
}
