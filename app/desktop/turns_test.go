package desktop

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/eventcheck"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage"
)

// These tests run the bound Turns against the real server's use cases, a
// real store and the scripted model server, with a recorder in place of
// runtime.EventsEmit; the window itself is tested in app/desktoptest.

type fixture struct {
	t     *testing.T
	model *modeltest.Server
	srv   *server.Server
	http  *httptest.Server
	doc   storage.Document
	turns *Turns
	rec   *recorder
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "docent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	doc, err := db.CreateDocument(ctx, storage.NewDocument{
		Name: "note.txt", MediaType: "text/plain", Data: []byte("Invoice 42"), Pages: []string{"Invoice 42, total 17.50 EUR"},
	})
	if err != nil {
		t.Fatal(err)
	}
	model := modeltest.New(t)
	reg := provider.NewRegistry(provider.Config{OllamaHost: model.OllamaURL(), IdleTimeout: 10 * time.Second, MaxRetries: -1})
	bg, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	srv := server.New(server.Config{
		DB: db, Version: "test",
		Assets: fstest.MapFS{"index.html": {Data: []byte("<title>Docent</title>")}},
		Agent:  &agent.Agent{DB: db, Providers: reg, DefaultModel: "ollama/qwen3:8b"},
	})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	f := &fixture{t: t, model: model, srv: srv, http: ts, doc: doc, turns: newTurns(srv, nil), rec: newRecorder()}
	f.turns.start(bg, f.rec.emit)
	return f
}

// recorder stands in for runtime.EventsEmit: it keeps each channel's
// events as the JSON the window would get.
type recorder struct {
	mu     sync.Mutex
	events map[string][]json.RawMessage
	added  chan struct{}
}

func newRecorder() *recorder {
	return &recorder{events: map[string][]json.RawMessage{}, added: make(chan struct{}, 1)}
}

func (r *recorder) emit(channel string, event json.RawMessage) {
	r.mu.Lock()
	r.events[channel] = append(r.events[channel], event)
	r.mu.Unlock()
	select {
	case r.added <- struct{}{}:
	default:
	}
}

func (r *recorder) on(channel string) []json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]json.RawMessage(nil), r.events[channel]...)
}

// waitFor waits until an event of type typ was emitted on channel (the
// test's own deadline guards against a hang).
func (r *recorder) waitFor(t *testing.T, channel string, typ agent.EventType) {
	t.Helper()
	for {
		for _, e := range decode(t, r.on(channel)) {
			if e.Type == typ {
				return
			}
		}
		<-r.added
	}
}

func decode(t *testing.T, raw []json.RawMessage) []agent.Event {
	t.Helper()
	out := make([]agent.Event, len(raw))
	for i, b := range raw {
		if err := json.Unmarshal(b, &out[i]); err != nil {
			t.Fatalf("event %d %s: %v", i, b, err)
		}
	}
	return out
}

// post sends a JSON body to the HTTP API; it returns the status and body.
func (f *fixture) post(path, body string) (int, []byte) {
	f.t.Helper()
	res, err := http.Post(f.http.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return res.StatusCode, b
}

// sseFrames returns the JSON of each data frame of an SSE body.
func sseFrames(body []byte) []string {
	var out []string
	for _, line := range strings.Split(string(body), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, data)
		}
	}
	return out
}

// TestTurnEventsAreTheSSEFrames: the same scripted turn, run through the
// bound Chat and through POST .../chat with stream, gives the same events
// as the same JSON, ids of the new thread aside.
func TestTurnEventsAreTheSSEFrames(t *testing.T) {
	f := newFixture(t)
	reply := modeltest.Reply{Thinking: "Short.", Text: "Invoice 42 totals 17.50 EUR.", ChunkRunes: 5}
	f.model.Enqueue(reply, reply)

	n, err := f.turns.Chat(f.doc.ID, "ch1", json.RawMessage(`{"message":"What is this?"}`))
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	raw := f.rec.on("ch1")
	if n != len(raw) {
		t.Errorf("Chat counted %d events, emitted %d", n, len(raw))
	}
	events := decode(t, raw)
	if err := eventcheck.Check(events); err != nil {
		t.Fatalf("events: %v\n%s", err, raw)
	}

	status, body := f.post("/api/documents/"+f.doc.ID+"/chat", `{"message":"What is this?","stream":true}`)
	if status != http.StatusOK {
		t.Fatalf("SSE chat: %d %s", status, body)
	}
	frames := sseFrames(body)
	sseThread := decode(t, []json.RawMessage{json.RawMessage(frames[0])})[0]
	wailsThread := events[0]
	if len(frames) != len(raw) {
		t.Fatalf("%d SSE frames, %d Wails events\nSSE:\n%s\nWails:\n%s", len(frames), len(raw), strings.Join(frames, "\n"), joinRaw(raw))
	}
	// The thread ids differ, and so does each call's speed.
	speed := regexp.MustCompile(`,"first_token_ms":\d+|,"tokens_per_second":[0-9.]+`)
	for i := range frames {
		want := speed.ReplaceAllString(strings.ReplaceAll(frames[i], threadID(t, sseThread), "THREAD"), "")
		got := speed.ReplaceAllString(strings.ReplaceAll(string(raw[i]), threadID(t, wailsThread), "THREAD"), "")
		if got != want {
			t.Errorf("event %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

func joinRaw(raw []json.RawMessage) string {
	var b strings.Builder
	for _, r := range raw {
		b.Write(r)
		b.WriteByte('\n')
	}
	return b.String()
}

// threadID reads turn_started's thread_id from its JSON.
func threadID(t *testing.T, e agent.Event) string {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Type     string `json:"type"`
		ThreadID string `json:"thread_id"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.Type != "turn_started" || v.ThreadID == "" {
		t.Fatalf("first event %s, want turn_started with a thread_id", b)
	}
	return v.ThreadID
}

// TestRefusedTurnsAnswerAsHTTP: a turn refused before it starts emits
// nothing and fails with the status and error body HTTP answers.
func TestRefusedTurnsAnswerAsHTTP(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name, route, doc, body string
		status                 int
	}{
		{"unknown document", "chat", "doc_missing", `{"message":"hi","thread_id":"th_missing"}`, http.StatusNotFound},
		{"unknown field", "chat", f.doc.ID, `{"message":"hi","bogus":1}`, http.StatusBadRequest},
		{"empty body", "chat", f.doc.ID, ``, http.StatusBadRequest},
		{"unknown tool", "chat", f.doc.ID, `{"message":"hi","auto_approved_tools":["nope"]}`, http.StatusBadRequest},
		{"unknown turn", "approve", f.doc.ID, `{"turn_id":"tu_missing","approvals":[]}`, http.StatusNotFound},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			channel := "refused-" + string(rune('a'+i))
			call := f.turns.Chat
			path := "/api/documents/" + c.doc + "/chat"
			if c.route == "approve" {
				call, path = f.turns.Approve, path+"/approve"
			}
			n, err := call(c.doc, channel, json.RawMessage(c.body))
			var re *server.RefusedError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want a RefusedError", err)
			}
			if n != 0 || len(f.rec.on(channel)) != 0 {
				t.Errorf("%d events emitted before the refusal", len(f.rec.on(channel)))
			}
			status, body := f.post(path, c.body)
			// The promise rejects with the HTTP body plus its status.
			got, _ := json.Marshal(errorJSON(err))
			var rejected, answered map[string]any
			if err := json.Unmarshal(got, &rejected); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(body, &answered); err != nil {
				t.Fatalf("HTTP answer %d %s: %v", status, body, err)
			}
			answered["status"] = float64(status)
			if status != c.status || !reflect.DeepEqual(rejected, answered) {
				t.Errorf("rejected with %s; HTTP answers %d %s (want status %d)", got, status, body, c.status)
			}
		})
	}
}

// TestStopEndsTheTurn: Stop cancels the turn on its channel while the
// model is mid-answer; the turn owes no done and Chat reports the stop.
func TestStopEndsTheTurn(t *testing.T) {
	f := newFixture(t)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	f.model.Enqueue(modeltest.Reply{Text: "First part. Second part.", ChunkRunes: 12, HoldAfterChunks: 1, Hold: hold})

	type result struct {
		n   int
		err error
	}
	res := make(chan result, 1)
	go func() {
		n, err := f.turns.Chat(f.doc.ID, "ch-stop", json.RawMessage(`{"message":"What is this?"}`))
		res <- result{n, err}
	}()
	f.rec.waitFor(t, "ch-stop", agent.EventTextChunk)
	f.turns.Stop("ch-stop")
	r := <-res
	if !errors.Is(r.err, errStopped) {
		t.Errorf("Chat after Stop: %v, want %v", r.err, errStopped)
	}
	for _, e := range decode(t, f.rec.on("ch-stop")) {
		if e.Type.Terminal() {
			t.Errorf("a stopped turn emitted %s", e.Type)
		}
	}
	if b, _ := json.Marshal(errorJSON(r.err)); !strings.Contains(string(b), `"code":"canceled"`) {
		t.Errorf("a stopped turn rejects with %s", b)
	}
	// The channel is free again, and the next turn runs.
	f.model.Enqueue(modeltest.Reply{Text: "Again."})
	if _, err := f.turns.Chat(f.doc.ID, "ch-stop", json.RawMessage(`{"message":"And now?"}`)); err != nil {
		t.Errorf("a turn on the channel after the stop: %v", err)
	}
}

// TestStopBeforeChat: a stop that overtakes its chat call (Wails runs each
// call on a goroutine of its own) stops that turn before it asks the model.
func TestStopBeforeChat(t *testing.T) {
	f := newFixture(t)
	f.turns.Stop("ch-early")
	n, err := f.turns.Chat(f.doc.ID, "ch-early", json.RawMessage(`{"message":"What is this?"}`))
	if !errors.Is(err, errStopped) || n != 0 {
		t.Errorf("Chat after an early Stop: %d events, %v", n, err)
	}
	if reqs := f.model.Requests(); len(reqs) != 0 {
		t.Errorf("the model was asked %d times", len(reqs))
	}
}

// TestOneTurnPerChannel: a channel carries one turn at a time.
func TestOneTurnPerChannel(t *testing.T) {
	f := newFixture(t)
	hold := make(chan struct{})
	f.model.Enqueue(modeltest.Reply{Text: "Held answer.", ChunkRunes: 4, HoldAfterChunks: 1, Hold: hold})
	done := make(chan error, 1)
	go func() {
		_, err := f.turns.Chat(f.doc.ID, "busy", json.RawMessage(`{"message":"What is this?"}`))
		done <- err
	}()
	f.rec.waitFor(t, "busy", agent.EventTextChunk)
	_, err := f.turns.Chat(f.doc.ID, "busy", json.RawMessage(`{"message":"Again?"}`))
	var re *server.RefusedError
	if !errors.As(err, &re) || re.Status != http.StatusConflict || re.Code != "conflict" {
		t.Errorf("a second turn on a busy channel: %v", err)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Errorf("the first turn: %v", err)
	}
}

// TestTurnsWaitForStart: a call that comes before the window has started
// runs once it has; without an agent it is refused as unavailable.
func TestTurnsWaitForStart(t *testing.T) {
	turns := newTurns(nil, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := turns.Chat("doc", "ch", json.RawMessage(`{"message":"hi"}`))
		errc <- err
	}()
	turns.start(context.Background(), func(string, json.RawMessage) {})
	err := <-errc
	var re *server.RefusedError
	if !errors.As(err, &re) || re.Status != http.StatusServiceUnavailable || re.Code != "unavailable" {
		t.Errorf("Chat without an agent: %v", err)
	}
}

// TestAskEventsAreTheSSEFrames: a turn of Ask Docent through the bound Ask
// gives the events POST /api/ask streams, the citation of the passage its
// answer cites included; one refused before it starts rejects with the
// status and error HTTP answers, and emits nothing.
func TestAskEventsAreTheSSEFrames(t *testing.T) {
	f := newFixture(t)
	search := modeltest.ToolCall{ID: "s1", Name: "search_docs", Arguments: `{"query":"invoice","by":"words"}`}
	for range 2 {
		f.model.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{search}}, modeltest.Reply{Text: "Invoice 42 totals 17.50 EUR [1]."})
	}

	n, err := f.turns.Ask("ask1", json.RawMessage(`{"message":"What does invoice 42 total?"}`))
	if err != nil {
		t.Fatalf("Ask: %v", err)
	}
	raw := f.rec.on("ask1")
	if n != len(raw) {
		t.Errorf("Ask counted %d events, emitted %d", n, len(raw))
	}
	events := decode(t, raw)
	if err := eventcheck.Check(events); err != nil {
		t.Fatalf("events: %v\n%s", err, joinRaw(raw))
	}
	last := string(raw[len(raw)-1])
	if !strings.Contains(last, `"citations":[{"n":1,"kind":"passage","document_id":"`+f.doc.ID+`"`) {
		t.Errorf("the done event does not cite the invoice as [1]: %s", last)
	}

	status, body := f.post("/api/ask", `{"message":"What does invoice 42 total?","stream":true}`)
	if status != http.StatusOK {
		t.Fatalf("SSE ask: %d %s", status, body)
	}
	frames := sseFrames(body)
	if len(frames) != len(raw) {
		t.Fatalf("%d SSE frames, %d Wails events\nSSE:\n%s\nWails:\n%s", len(frames), len(raw), strings.Join(frames, "\n"), joinRaw(raw))
	}
	sseThread, wailsThread := threadID(t, decode(t, []json.RawMessage{json.RawMessage(frames[0])})[0]), threadID(t, events[0])
	speed := regexp.MustCompile(`,"first_token_ms":\d+|,"tokens_per_second":[0-9.]+`)
	for i := range frames {
		want := speed.ReplaceAllString(strings.ReplaceAll(frames[i], sseThread, "THREAD"), "")
		got := speed.ReplaceAllString(strings.ReplaceAll(string(raw[i]), wailsThread, "THREAD"), "")
		if got != want {
			t.Errorf("event %d:\n got %s\nwant %s", i, got, want)
		}
	}

	_, err = f.turns.Ask("ask2", json.RawMessage(`{"message":"   "}`))
	var re *server.RefusedError
	if !errors.As(err, &re) || re.Status != http.StatusBadRequest || re.Code != "invalid" || !strings.Contains(re.Message, "empty") {
		t.Errorf("an empty question: %v (%+v), want 400 invalid saying it is empty", err, re)
	}
	if got := f.rec.on("ask2"); len(got) != 0 {
		t.Errorf("a refused question emitted %d events", len(got))
	}
}
