package agent

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/docent/docent/agent/workpool"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// AutoCreateScheduler runs auto-create on many documents through an
// AutoCreator, a bounded number at a time: a given list (RunAll: the
// command line's batch) or the store's queue of pending documents (Serve:
// the server's, read again whenever Wake says something was queued). Each
// run's result goes to Done as it ends. When ctx ends, the runs under way
// are interrupted and go back to pending (AutoCreator.Run), and no other
// starts.
type AutoCreateScheduler struct {
	// Creator gives the creator of each run as it starts, so that the run
	// uses the agent in effect then (the server's changes with its
	// settings). A nil creator leaves the document as it is.
	Creator func() *AutoCreator
	// Concurrency is how many runs go on at once (at least 1; see
	// AutoCreateConcurrency).
	Concurrency int
	// Options, when set, gives a run's options as it starts, in the
	// goroutine that runs it. Without it a document runs with the model it
	// was queued with (storage.Document.AutoCreateModel), else the agent's
	// default.
	Options func(storage.Document) AutoCreateOptions
	// Done, when set, gets each run's result and error as it ends (see
	// AutoCreator.Run), in the goroutine that ran it; ctx is the one the
	// scheduler was given.
	Done func(ctx context.Context, d storage.Document, res AutoCreateResult, err error)
	// DB is the store whose queue Serve runs. With it, a run that reaches
	// a spending limit pauses: its document and those not yet started
	// wait until the limit allows again (raised, or its period over), and
	// then go on.
	DB *storage.DB
	// Paused, when set, hears of each run that stopped at a spending
	// limit, before it waits (err says which limit).
	Paused func(ctx context.Context, d storage.Document, err error)
	// LimitPoll is how often a paused run asks whether the limit allows
	// again; default DefaultLimitPoll.
	LimitPoll time.Duration
	// Logger gets what Serve cannot do (read the queue); nil is
	// slog.Default().
	Logger *slog.Logger

	wakeOnce sync.Once
	wake     chan struct{}
}

// AutoCreateConcurrency is how many documents run at once unless the user
// says: one for a local Ollama (which runs one request at a time anyway),
// four for hosted APIs.
func AutoCreateConcurrency(model string) int {
	if strings.HasPrefix(model, "ollama/") {
		return 1
	}
	return 4
}

// RunAll runs docs, in their order, at most Concurrency at a time, and
// returns when every run has ended. Once ctx ends no other run starts:
// the documents not started are left as they are, and Done does not hear
// of them.
func (s *AutoCreateScheduler) RunAll(ctx context.Context, docs []storage.Document) {
	// A run's failure goes to Done; only ctx stops the rest. Runs get the
	// scheduler's ctx, as Done says, not the pool's.
	_ = workpool.ForEach(ctx, docs, s.Concurrency, func(_ context.Context, _ int, d storage.Document) error {
		s.run(ctx, d)
		return nil
	})
}

// Serve runs the queue until ctx ends: every pending document (those left
// pending by an earlier process too), then, each time Wake is called,
// those pending since. It returns once the runs under way have ended.
func (s *AutoCreateScheduler) Serve(ctx context.Context) {
	wake := s.wakeChan()
	for {
		docs, err := s.DB.PendingAutoCreates(ctx)
		if err != nil && ctx.Err() == nil {
			s.logger().Warn("auto-create: read the queue", "err", err)
		}
		if len(docs) > 0 {
			s.RunAll(ctx, docs)
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		}
	}
}

// Wake tells Serve that documents were queued, without blocking: it reads
// the queue again once the runs it started have ended, at once if none
// has.
func (s *AutoCreateScheduler) Wake() {
	select {
	case s.wakeChan() <- struct{}{}:
	default: // a wake is due already
	}
}

func (s *AutoCreateScheduler) wakeChan() chan struct{} {
	s.wakeOnce.Do(func() { s.wake = make(chan struct{}, 1) })
	return s.wake
}

func (s *AutoCreateScheduler) logger() *slog.Logger { return loggerOr(s.Logger) }

// DefaultLimitPoll is how often a run paused at a spending limit asks
// whether it may go on: the limit may be raised by another process (the
// command line beside the server), which nothing here hears of.
const DefaultLimitPoll = 2 * time.Second

// waitForLimit returns once calls of provider are within the spending
// limits, or ctx's error when it ends first. After a run paused (paused is
// its error) it waits one poll at least, as a limit the store cannot
// judge without the call (a price unknown under a limit in USD) would
// otherwise let the run go again at once. Paused hears of the wait when
// there is one. A failure to read the limits lets the run go: its calls
// check them again.
func (s *AutoCreateScheduler) waitForLimit(ctx context.Context, d storage.Document, provider string, paused error) error {
	if s.DB == nil {
		return ctx.Err()
	}
	poll := cmp.Or(s.LimitPoll, DefaultLimitPoll)
	for told := false; ; {
		err := paused
		if err == nil {
			err = s.DB.UsageAllowed(ctx, provider)
		}
		paused = nil
		if err == nil || !errors.Is(err, fault.SpendingLimit) {
			return ctx.Err()
		}
		if !told && s.Paused != nil {
			s.Paused(ctx, d, err)
		}
		told = true
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// run runs one document, unless ctx has ended. A run that stops at a
// spending limit pauses (waitForLimit) and runs again once it allows.
func (s *AutoCreateScheduler) run(ctx context.Context, d storage.Document) {
	if ctx.Err() != nil {
		return
	}
	c := s.Creator()
	if c == nil {
		return
	}
	opts := AutoCreateOptions{Model: d.AutoCreateModel}
	if s.Options != nil {
		opts = s.Options(d)
	}
	provider, _, _ := strings.Cut(cmp.Or(opts.Model, c.Agent.DefaultModel), "/")
	var res AutoCreateResult
	var err error
	for paused := error(nil); ; {
		if s.waitForLimit(ctx, d, provider, paused) != nil {
			return // ctx ended: the document stays as it is
		}
		res, err = c.Run(ctx, d.ID, opts)
		if !res.Paused || s.DB == nil {
			break
		}
		paused = err
	}
	if s.Done != nil {
		s.Done(ctx, d, res, err)
	}
}
