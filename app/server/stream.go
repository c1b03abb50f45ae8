package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/storage/fault"
)

// This file streams a turn's events as Server-Sent Events. The agent emits
// into an eventQueue; the request's goroutine drains it into the response.
// The queue is bounded: when a slow client lets it fill, text and thinking
// chunks are merged into the chunk before them, and any other event waits
// for room (or for the client to leave). So memory stays bounded, the agent
// never blocks on a client that is gone, and no *_done, tool or done event
// is ever dropped.

// errStreamClosed is what Emit returns once the stream writer has stopped.
var errStreamClosed = errors.New("event stream closed")

// queuedEvent is an event waiting to be written, with the time it was
// emitted (for the latency benchmark) and, once chunks have been merged
// into it, the merged text.
type queuedEvent struct {
	ev     agent.Event
	at     time.Time
	merged *strings.Builder
}

// event returns the event as it goes on the wire.
func (q *queuedEvent) event() agent.Event {
	if q.merged != nil {
		switch p := q.ev.Payload.(type) {
		case agent.TextChunkPayload:
			p.Chunk = q.merged.String()
			q.ev.Payload = p
		case agent.ThinkingChunkPayload:
			p.Chunk = q.merged.String()
			q.ev.Payload = p
		}
		q.merged = nil
	}
	return q.ev
}

// chunkOf returns the text and round of a text or thinking chunk, the
// events that may be merged when a client is slow.
func chunkOf(e agent.Event) (text string, round int, ok bool) {
	switch p := e.Payload.(type) {
	case agent.TextChunkPayload:
		return p.Chunk, p.RoundIndex, true
	case agent.ThinkingChunkPayload:
		return p.Chunk, p.RoundIndex, true
	}
	return "", 0, false
}

// eventQueue is a bounded, coalescing queue between one producer (the
// agent, through Emit) and one consumer (the stream writer, through take).
type eventQueue struct {
	ctx      context.Context
	capacity int

	mu     sync.Mutex
	items  []queuedEvent
	closed bool  // the producer is done
	failed error // the consumer stopped; Emit returns it

	ready chan struct{} // items arrived, or closed
	space chan struct{} // the consumer took items, or failed

	coalesced int // chunks merged into an earlier one
}

func newEventQueue(ctx context.Context, capacity int) *eventQueue {
	return &eventQueue{
		ctx: ctx, capacity: max(capacity, 1),
		ready: make(chan struct{}, 1), space: make(chan struct{}, 1),
	}
}

// signal wakes the other side without ever blocking: the channel holds
// one pending wake-up, which is all a waiter needs to look again.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Emit queues e. When the queue is full, a chunk of the same type and round
// as the last queued event is merged into it; any other event waits for
// room. Emit fails when the request's context ends or the writer stopped:
// the agent then stops the turn.
func (q *eventQueue) Emit(e agent.Event) error {
	now := time.Now()
	for {
		q.mu.Lock()
		if q.failed != nil {
			err := q.failed
			q.mu.Unlock()
			return err
		}
		if q.closed {
			q.mu.Unlock()
			return errStreamClosed
		}
		if len(q.items) < q.capacity {
			q.items = append(q.items, queuedEvent{ev: e, at: now})
			q.mu.Unlock()
			signal(q.ready)
			return nil
		}
		if text, round, ok := chunkOf(e); ok {
			last := &q.items[len(q.items)-1]
			if lastText, lastRound, _ := chunkOf(last.ev); last.ev.Type == e.Type && lastRound == round {
				if last.merged == nil {
					last.merged = &strings.Builder{}
					last.merged.WriteString(lastText)
				}
				last.merged.WriteString(text)
				q.coalesced++
				q.mu.Unlock()
				return nil
			}
		}
		q.mu.Unlock()
		select {
		case <-q.space:
		case <-q.ctx.Done():
			return fmt.Errorf("event stream: %w", context.Cause(q.ctx))
		}
	}
}

// take moves the queued events into buf and reports whether the producer
// is done and nothing is left after them.
func (q *eventQueue) take(buf []queuedEvent) ([]queuedEvent, bool) {
	q.mu.Lock()
	buf = append(buf[:0], q.items...)
	clear(q.items)
	q.items = q.items[:0]
	done := q.closed && len(buf) == 0
	q.mu.Unlock()
	if len(buf) > 0 {
		signal(q.space)
	}
	return buf, done
}

// close marks the end of the producer's events.
func (q *eventQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	signal(q.ready)
}

// fail stops the queue from the consumer's side: Emit returns err from now
// on, including an Emit waiting for room.
func (q *eventQueue) fail(err error) {
	q.mu.Lock()
	if q.failed == nil {
		q.failed = err
	}
	q.mu.Unlock()
	signal(q.space)
}

// turnFunc runs one turn with the given sink: Agent.Chat or Agent.Approve.
type turnFunc func(ctx context.Context, sink agent.Sink) (agent.TurnResult, error)

// streamTurn runs a turn and streams its events. Until the first event the
// answer is open, so an error before the turn starts (unknown thread, no
// model, a bad mention) is a real status with a JSON body; after it,
// failures are error events. The handler returns only after the turn has,
// so no goroutine outlives the request.
func (s *Server) streamTurn(w http.ResponseWriter, r *http.Request, run turnFunc) {
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	q := newEventQueue(ctx, s.cfg.StreamBuffer)
	result := make(chan error, 1)
	go func() {
		_, err := run(ctx, q)
		q.close()
		result <- err
	}()
	sw := &streamWriter{w: w, rc: http.NewResponseController(w), keepalive: s.cfg.KeepaliveInterval, writeTimeout: s.cfg.WriteTimeout}
	werr := sw.run(ctx, q)
	if werr != nil {
		// The client is gone or stopped reading: stop the turn at its
		// next event or model call, and wait for it.
		q.fail(werr)
		cancel(werr)
	}
	err := <-result
	switch {
	case werr != nil:
		s.cfg.Logger.Debug("event stream ended early", "path", r.URL.Path, "err", werr)
	case !sw.started && err != nil:
		s.writeError(w, r, err)
	case !sw.started:
		s.writeError(w, r, fmt.Errorf("turn ended without events"))
	case !sw.terminal && err != nil && ctx.Err() == nil:
		// A failure the agent did not report as an event still ends the
		// stream with exactly one error event.
		_, body := errorAnswer(r.Context(), s.cfg.Logger, r.Method+" "+r.URL.Path, err)
		_ = sw.write([]queuedEvent{{ev: agent.ErrorEvent(body.Error, body.Code)}})
	}
	_ = sw.rc.SetWriteDeadline(time.Time{}) // the connection may serve another request
}

// streamWriter writes SSE frames.
type streamWriter struct {
	w            http.ResponseWriter
	rc           *http.ResponseController
	keepalive    time.Duration
	writeTimeout time.Duration

	started  bool // headers sent
	terminal bool // done or error written
	buf      []byte
	// flushed, when set (benchmarks), is told the emit time of every
	// event in a batch once the batch is flushed.
	flushed func(emitted []time.Time)
	times   []time.Time
}

// run drains q until the producer is done (nil) or the client is gone or
// a write fails (the error).
func (sw *streamWriter) run(ctx context.Context, q *eventQueue) error {
	var items []queuedEvent
	var tick *time.Ticker
	var tickC <-chan time.Time
	defer func() {
		if tick != nil {
			tick.Stop()
		}
	}()
	for {
		var done bool
		items, done = q.take(items)
		if len(items) > 0 {
			if err := sw.write(items); err != nil {
				return err
			}
			if tick == nil {
				tick = time.NewTicker(sw.keepalive)
				tickC = tick.C
			} else {
				tick.Reset(sw.keepalive)
			}
			continue
		}
		if done {
			return nil
		}
		select {
		case <-q.ready:
		case <-tickC:
			if err := sw.comment("keepalive"); err != nil {
				return err
			}
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

func (sw *streamWriter) start() {
	startEventStream(sw.w)
	sw.started = true
}

// startEventStream answers 200 with the headers of an event stream.
func startEventStream(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx and others: do not buffer
	w.WriteHeader(http.StatusOK)
}

// eventSender starts an event stream on w and returns what sends one
// frame of it: written under the write deadline and flushed at once;
// false when the client is gone. The document and library streams use it.
func (s *Server) eventSender(w http.ResponseWriter) func([]byte) bool {
	startEventStream(w)
	flusher, _ := w.(http.Flusher)
	rc := http.NewResponseController(w)
	return func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		if _, err := w.Write(b); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
}

// write sends a batch of events as `data:` frames in one write and flush.
func (sw *streamWriter) write(items []queuedEvent) error {
	if !sw.started {
		sw.start()
	}
	sw.buf = sw.buf[:0]
	sw.times = sw.times[:0]
	for i := range items {
		ev := items[i].event()
		b, err := json.Marshal(ev)
		if err != nil {
			// Unreachable for the agent's events; an event the client
			// cannot decode is worse than a missing one.
			b, _ = json.Marshal(agent.ErrorEvent(fault.ErrorMessage(fault.Report(context.Background(), nil, "encode an event", err)), string(fault.Internal)))
			ev.Type = agent.EventError
		}
		sw.buf = append(sw.buf, "data: "...)
		sw.buf = append(sw.buf, b...)
		sw.buf = append(sw.buf, "\n\n"...)
		sw.terminal = sw.terminal || ev.Type.Terminal()
		sw.times = append(sw.times, items[i].at)
	}
	if err := sw.send(sw.buf); err != nil {
		return err
	}
	if sw.flushed != nil {
		sw.flushed(sw.times)
	}
	return nil
}

func (sw *streamWriter) comment(text string) error {
	return sw.send([]byte(":" + text + "\n\n"))
}

// send writes and flushes under a deadline; Flush is optional (a
// ResponseWriter that cannot flush still gets every frame, later).
func (sw *streamWriter) send(b []byte) error {
	if err := sw.rc.SetWriteDeadline(time.Now().Add(sw.writeTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return fmt.Errorf("event stream: set write deadline: %w", err)
	}
	if _, err := sw.w.Write(b); err != nil {
		return fmt.Errorf("event stream: write: %w", err)
	}
	if err := sw.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return fmt.Errorf("event stream: flush: %w", err)
	}
	return nil
}
