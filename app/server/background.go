package server

import (
	"context"
	"sync"

	"github.com/docent/docent/agent"
)

// background is the server's work besides answering requests: the
// auto-create queue and the sweep of paused turns nobody approved. New
// starts none of it; Start does, and Close stops it and waits.
type background struct {
	mu      sync.Mutex
	started bool
	stop    context.CancelFunc // nil until Start, and after Close
	wg      sync.WaitGroup
}

// Start starts the server's background work, which runs until ctx ends or
// Close: the auto-create queue (documents left pending by an earlier
// process run too), the embedding of chunks for search by meaning and, every agent.DefaultSweepInterval, the sweep of
// paused turns nobody approved. A server that is not started answers every
// route; queued documents wait. Start after the first call, or after
// Close, does nothing.
func (s *Server) Start(ctx context.Context) {
	b := &s.background
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started {
		return
	}
	b.started = true
	ctx, b.stop = context.WithCancel(ctx)
	b.wg.Go(func() { s.autoCreate.Serve(ctx) })
	b.wg.Go(func() { s.ocr.Serve(ctx) })      // documents that wait for OCR (ocr.go)
	b.wg.Go(func() { s.serveEmbedding(ctx) }) // chunks that wait for a vector (search.go)
	b.wg.Go(func() {
		// The sweep is work on the store alone: it needs no provider.
		(&agent.Agent{DB: s.cfg.DB, Logger: s.cfg.Logger}).SweepTurns(ctx, agent.DefaultSweepInterval)
	})
	b.wg.Go(func() { s.pruneHistory(ctx) }) // history.go
	s.inbox.mu.Lock()
	s.inbox.base = ctx
	s.inbox.mu.Unlock()
	s.startInbox() // the inbox folder's watcher, if one is set (inbox.go)
}

// Close stops the background work and waits for it to end: an auto-create
// run under way is interrupted and goes back to the queue. Requests are
// not affected (the http.Server that serves them has its own Shutdown).
// Close it before the store is closed.
func (s *Server) Close() {
	b := &s.background
	b.mu.Lock()
	b.started = true // a later Start does nothing
	stop := b.stop
	b.stop = nil
	b.mu.Unlock()
	if stop != nil {
		stop()
	}
	s.stopInbox()
	b.wg.Wait()
}
