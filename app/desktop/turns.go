package desktop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage/fault"
)

// TurnRunner runs the agent's chat, approve and ask use cases, as the HTTP
// API's routes do (server.Server is one). body is the JSON object the route
// takes; each event goes to sink. An error before the first event is a
// *server.RefusedError and nothing was emitted.
type TurnRunner interface {
	RunChat(ctx context.Context, documentID string, body []byte, sink agent.Sink) error
	RunApprove(ctx context.Context, documentID string, body []byte, sink agent.Sink) error
	RunAsk(ctx context.Context, body []byte, sink agent.Sink) error
}

// errStopped is why a turn's context ends when the UI stops it.
var errStopped = errors.New("the turn was stopped")

// maxStopsAhead bounds the stops remembered for channels that carry no turn
// (yet): a stop can overtake its own chat call, as Wails runs every call on
// a goroutine of its own.
const maxStopsAhead = 64

// Turns is bound into the window: the web UI runs agent turns through it
// (window.go.desktop.Turns.Chat and .Approve) and gets each event as a
// Wails runtime event on the channel it named for the turn, as
// docs/protocol.md says. Each event's data is the JSON object that the SSE
// stream sends in one data frame.
type Turns struct {
	runner TurnRunner
	log    *slog.Logger

	// ready is closed by start: the UI may call before Wails has run the
	// window's OnStartup, and its turns wait for it.
	ready chan struct{}

	mu sync.Mutex
	// ctx bounds every turn: it ends when the window closes.
	ctx context.Context
	// emit sends one event's JSON on a channel (runtime.EventsEmit).
	emit    func(channel string, event json.RawMessage)
	running map[string]context.CancelCauseFunc
	stopped map[string]bool // stops that came before their turn
	turns   sync.WaitGroup
}

func newTurns(runner TurnRunner, log *slog.Logger) *Turns {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Turns{
		runner: runner, log: log, ready: make(chan struct{}),
		running: map[string]context.CancelCauseFunc{}, stopped: map[string]bool{},
	}
}

// start makes the turns runnable: ctx bounds them, emit sends their events.
// It is called once.
func (t *Turns) start(ctx context.Context, emit func(channel string, event json.RawMessage)) {
	t.mu.Lock()
	t.ctx, t.emit = ctx, emit
	t.mu.Unlock()
	close(t.ready)
}

// wait waits until no turn runs, at most timeout; false when one still does.
func (t *Turns) wait(timeout time.Duration) bool {
	done := make(chan struct{})
	go func() { t.turns.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// Chat runs a chat turn about documentID: body is the JSON object of POST
// /api/documents/{id}/chat, and the turn's events are emitted on channel,
// which must not carry another turn. It returns when the turn has ended,
// with the number of events emitted (the UI may receive the answer before
// the last of them). A request refused before the turn starts fails with
// the status and JSON error body that HTTP would answer.
func (t *Turns) Chat(documentID, channel string, body json.RawMessage) (int, error) {
	return t.run("chat", documentID, channel, body, t.runnerOrNil().RunChat)
}

// Approve continues a paused turn of documentID: body is the JSON object of
// POST /api/documents/{id}/chat/approve. Otherwise as Chat.
func (t *Turns) Approve(documentID, channel string, body json.RawMessage) (int, error) {
	return t.run("approve", documentID, channel, body, t.runnerOrNil().RunApprove)
}

// Ask runs a turn of Ask Docent, about the whole library: body is the
// JSON object of POST /api/ask. Otherwise as Chat.
func (t *Turns) Ask(channel string, body json.RawMessage) (int, error) {
	return t.run("ask", "", channel, body, func(ctx context.Context, _ string, body []byte, sink agent.Sink) error {
		return t.runnerOrNil().RunAsk(ctx, body, sink)
	})
}

// Stop stops the turn on channel (Esc in the UI) after its current model
// call or tool, as a browser that closes its event stream does; it owes no
// done. A stop that comes before its turn's call stops that turn at once.
func (t *Turns) Stop(channel string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cancel, ok := t.running[channel]; ok {
		cancel(errStopped)
		return
	}
	if len(t.stopped) >= maxStopsAhead {
		clear(t.stopped)
	}
	t.stopped[channel] = true
}

// runnerOrNil is the runner, or one that refuses every turn.
func (t *Turns) runnerOrNil() TurnRunner {
	if t.runner == nil {
		return noRunner{}
	}
	return t.runner
}

type turnFunc func(ctx context.Context, documentID string, body []byte, sink agent.Sink) error

func (t *Turns) run(kind, documentID, channel string, body json.RawMessage, fn turnFunc) (int, error) {
	start := time.Now()
	ctx, emit, err := t.begin(channel)
	if err != nil {
		t.log.Debug("turn refused", "kind", kind, "document", documentID, "channel", channel, "err", err)
		return 0, err
	}
	defer t.end(channel)
	n := 0
	sink := agent.SinkFunc(func(e agent.Event) error {
		if ctx.Err() != nil {
			return context.Cause(ctx) // stopped: the UI no longer listens
		}
		b, err := json.Marshal(e)
		if err != nil {
			// As over SSE: unreachable for the agent's events, and an
			// event the UI cannot decode is worse than a missing one.
			b, _ = json.Marshal(agent.ErrorEvent(fault.ErrorMessage(fault.Report(context.Background(), t.log, "encode an event", err)), string(fault.Internal)))
		}
		emit(channel, b)
		n++
		return nil
	})
	err = fn(ctx, documentID, body, sink)
	t.log.Debug("turn", "kind", kind, "document", documentID, "channel", channel, "events", n,
		"err", err, "duration", time.Since(start).Round(time.Millisecond))
	return n, err
}

// begin claims channel for a turn and returns its context.
func (t *Turns) begin(channel string) (context.Context, func(string, json.RawMessage), error) {
	<-t.ready
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.ctx.Err() != nil:
		return nil, nil, refused(http.StatusServiceUnavailable, "unavailable", "the window is closing")
	case channel == "":
		return nil, nil, refused(http.StatusBadRequest, "invalid", "a turn needs a channel to send its events on")
	case t.running[channel] != nil:
		return nil, nil, refused(http.StatusConflict, "conflict", fmt.Sprintf("channel %q already carries a turn", channel))
	case t.stopped[channel]:
		delete(t.stopped, channel)
		return nil, nil, errStopped
	}
	ctx, cancel := context.WithCancelCause(t.ctx)
	t.running[channel] = cancel
	t.turns.Add(1)
	return ctx, t.emit, nil
}

func (t *Turns) end(channel string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cancel := t.running[channel]; cancel != nil {
		cancel(nil)
	}
	delete(t.running, channel)
	t.turns.Done()
}

func refused(status int, code, message string) *server.RefusedError {
	return &server.RefusedError{Status: status, Code: code, Message: message}
}

// errorJSON is what a bound method's promise rejects with in the UI: the
// HTTP API's error body, {"error", "code"}, with the status HTTP would
// answer. A turn stopped (or cut short by the window closing) is
// "canceled".
func errorJSON(err error) any {
	var re *server.RefusedError
	if errors.As(err, &re) {
		return re
	}
	return refused(http.StatusServiceUnavailable, "canceled", err.Error())
}

// noRunner refuses every turn: the window runs without the agent.
type noRunner struct{}

func (noRunner) RunChat(context.Context, string, []byte, agent.Sink) error    { return errNoAgent }
func (noRunner) RunApprove(context.Context, string, []byte, agent.Sink) error { return errNoAgent }
func (noRunner) RunAsk(context.Context, []byte, agent.Sink) error             { return errNoAgent }

var errNoAgent = refused(http.StatusServiceUnavailable, "unavailable", "this window runs without the agent")
