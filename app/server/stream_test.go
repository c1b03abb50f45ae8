package server

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docent/docent/agent"
)

// TestQueueCoalescesChunksForASlowClient: with room for 4 events and a
// writer that takes nothing, hundreds of chunks still fit (merged into the
// last queued chunk of their type and round); every *_done and done arrives
// in order, and the text is whole.
func TestQueueCoalescesChunksForASlowClient(t *testing.T) {
	q := newEventQueue(context.Background(), 4)
	var want []agent.Event
	var text, thinking strings.Builder
	emitted := make(chan error, 1)
	go func() {
		emit := func(e agent.Event) error {
			want = append(want, e)
			return q.Emit(e)
		}
		err := emit(agent.TurnStarted("thr_1", "ollama/x"))
		for i := 0; err == nil && i < 300; i++ {
			c := strings.Repeat("t", i%7+1)
			thinking.WriteString(c)
			err = emit(agent.ThinkingChunk(0, c))
		}
		if err == nil {
			err = emit(agent.ThinkingDone(0, thinking.String()))
		}
		for i := 0; err == nil && i < 500; i++ {
			c := string(rune('a' + i%26))
			text.WriteString(c)
			err = emit(agent.TextChunk(0, c))
		}
		if err == nil {
			err = emit(agent.TextDone(0, text.String()))
		}
		if err == nil {
			err = emit(agent.UsageEvent(0, agent.Usage{PromptTokens: 1, CompletionTokens: 2}))
		}
		if err == nil {
			err = emit(agent.Done(agent.TurnResult{Text: text.String()}))
		}
		q.close()
		emitted <- err
	}()

	// The writer is blocked: Emit must not wait on it for chunks, only
	// for the non-chunk events that find the queue full.
	var got []agent.Event
	var buf []queuedEvent
	for done := false; !done; {
		select {
		case err := <-emitted:
			if err != nil {
				t.Fatalf("Emit: %v", err)
			}
			emitted = nil
		case <-time.After(10 * time.Millisecond):
			// Unblock the writer for one batch, as a slow client would.
		}
		var items []queuedEvent
		items, done = q.take(buf)
		if len(items) > 4 {
			t.Fatalf("the queue held %d events, capacity 4", len(items))
		}
		for i := range items {
			got = append(got, items[i].event())
		}
		buf = items
	}
	if emitted != nil {
		if err := <-emitted; err != nil {
			t.Fatalf("Emit: %v", err)
		}
	}
	if q.coalesced == 0 {
		t.Error("nothing was coalesced")
	}

	var gotText, gotThinking strings.Builder
	var order []agent.EventType
	for _, e := range got {
		switch p := e.Payload.(type) {
		case agent.TextChunkPayload:
			gotText.WriteString(p.Chunk)
		case agent.ThinkingChunkPayload:
			gotThinking.WriteString(p.Chunk)
		default:
			order = append(order, e.Type)
		}
	}
	if gotText.String() != text.String() || gotThinking.String() != thinking.String() {
		t.Errorf("text %q / thinking %q after coalescing, want %q / %q", gotText.String(), gotThinking.String(), text.String(), thinking.String())
	}
	wantOrder := []agent.EventType{agent.EventTurnStarted, agent.EventThinkingDone, agent.EventTextDone, agent.EventUsage, agent.EventDone}
	if !slices.Equal(order, wantOrder) {
		t.Errorf("events %v, want %v", order, wantOrder)
	}
	if len(got) >= len(want) {
		t.Errorf("%d events written for %d emitted: nothing was merged", len(got), len(want))
	}
	// No chunk crossed a *_done: all thinking chunks come before
	// thinking_done, all text chunks before assistant_text_done.
	last := map[agent.EventType]int{}
	for i, e := range got {
		last[e.Type] = i
	}
	if last[agent.EventThinkingChunk] > last[agent.EventThinkingDone] || last[agent.EventTextChunk] > last[agent.EventTextDone] {
		t.Errorf("a chunk came after its done: %v", got)
	}
}

// A producer waiting for room gives up when the request ends, and when the
// writer fails.
func TestEmitWaitingForRoomEndsWithTheRequest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	q := newEventQueue(ctx, 1)
	if err := q.Emit(agent.TurnStarted("thr", "m")); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- q.Emit(agent.TextDone(0, "x")) }()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Emit after the request ended: %v", err)
	}

	q = newEventQueue(context.Background(), 1)
	_ = q.Emit(agent.TurnStarted("thr", "m"))
	go func() { errc <- q.Emit(agent.TextDone(0, "x")) }()
	gone := errors.New("client gone")
	q.fail(gone)
	if err := <-errc; !errors.Is(err, gone) {
		t.Errorf("Emit after the writer failed: %v", err)
	}
}

// flushRecorder is a ResponseWriter that discards frames and can flush.
type flushRecorder struct{ h http.Header }

func (f *flushRecorder) Header() http.Header         { return f.h }
func (f *flushRecorder) Write(b []byte) (int, error) { return len(b), nil }
func (f *flushRecorder) WriteHeader(int)             {}
func (f *flushRecorder) Flush()                      {}

// BenchmarkChunkToFrame measures the time from a chunk arriving at the
// sink (Emit) to its SSE frame being written and flushed, one chunk at a
// time as a model streams them.
func BenchmarkChunkToFrame(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := newEventQueue(ctx, DefaultStreamBuffer)
	w := &flushRecorder{h: http.Header{}}
	sw := &streamWriter{w: w, rc: http.NewResponseController(w), keepalive: time.Hour, writeTimeout: time.Minute}
	var mu sync.Mutex
	var lat []time.Duration
	flushed := make(chan struct{}, 1)
	sw.flushed = func(emitted []time.Time) {
		now := time.Now()
		mu.Lock()
		for _, at := range emitted {
			lat = append(lat, now.Sub(at))
		}
		mu.Unlock()
		signal(flushed)
	}
	done := make(chan error, 1)
	go func() { done <- sw.run(ctx, q) }()
	_ = q.Emit(agent.TurnStarted("thr", "m"))
	<-flushed
	mu.Lock()
	lat = lat[:0]
	mu.Unlock()
	b.ResetTimer()
	for b.Loop() {
		if err := q.Emit(agent.TextChunk(0, "word ")); err != nil {
			b.Fatal(err)
		}
		<-flushed
	}
	b.StopTimer()
	q.close()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
		b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
	}
}
