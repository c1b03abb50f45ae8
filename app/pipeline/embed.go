package pipeline

import (
	"cmp"
	"context"
	"sync"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/storage/fault"
)

// embedPoll is how often the background embedding looks for chunks
// without being woken: chunks another process (docent import) stored, and
// a model that was down.
const embedPoll = time.Minute

// embedding is the background embedding of chunks: woken by a stored or
// read document and a change of settings, and every embedPoll.
type embedding struct {
	wake    chan struct{}
	mu      sync.Mutex
	model   string // the model of running and err
	running bool
	err     string
}

// WakeEmbedding has the background embedding look for chunks now (a new
// text, another embedding model in the settings).
func (p *Pipeline) WakeEmbedding() {
	select {
	case p.embedding.wake <- struct{}{}:
	default:
	}
}

func (e *embedding) set(model string, running bool, err string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.model, e.running, e.err = model, running, err
}

// EmbeddingState says whether model's chunks are being embedded in the
// background, and why its last run stopped before the end ("" when it
// finished).
func (p *Pipeline) EmbeddingState(model string) (running bool, err string) {
	e := &p.embedding
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.model != model {
		return false, ""
	}
	return e.running, e.err
}

// embedder is the embedder of the agent in effect; nil without one.
func (p *Pipeline) embedder() *agent.Embedder {
	if a := p.agent(); a != nil {
		return a.Embedder
	}
	return nil
}

// serveEmbedding embeds the chunks still missing with the embedding model
// in effect, then waits to be woken, until ctx ends. Nothing waits for it:
// import and chat go on while it runs; a model that is down (or a spending
// limit reached) leaves the chunks waiting for the next try.
func (p *Pipeline) serveEmbedding(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.embedding.wake:
		case <-t.C:
		}
		// The pass about to start covers every wake sent before it: a
		// second wake waiting beside the timer (a change of settings as
		// the server starts) would only run it again at once, and over a
		// model that just failed it would put the failure out of sight.
		select {
		case <-p.embedding.wake:
		default:
		}
		if emb := p.embedder(); emb.On() {
			p.embedding.set(emb.Model, true, "")
			_, err := emb.EmbedMissing(ctx, nil)
			msg := ""
			if err != nil && ctx.Err() == nil {
				msg = fault.ErrorMessage(fault.Report(ctx, p.logger, "embed chunks", err))
			}
			p.embedding.set(emb.Model, false, msg)
		}
		t.Reset(cmp.Or(p.embedPoll, embedPoll))
	}
}
