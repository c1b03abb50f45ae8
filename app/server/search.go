package server

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// searchResult answers GET /api/search: the hits of agent.Embedder.Search,
// as search_docs and `docent search --json` give them.
type searchResult struct {
	Hits []storage.SearchHit `json:"hits"`
	// By is how the search was made: "words", "meaning" or "both".
	By string `json:"by"`
	// Model is the embedding model that answered, when one did.
	Model string `json:"model,omitempty"`
	// Note says why the search was by words alone when more was asked
	// for (no embedding model, or it failed).
	Note string `json:"note,omitempty"`
}

// search answers GET /api/search?q=&limit=&tag=&kind=&by=: tag (an id or
// a name, repeatable) and kind (a schema id or name) keep the documents
// with all those tags and of that kind.
func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	limit, err := queryInt(r, "limit")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if limit > storage.MaxSearchLimit {
		s.writeError(w, r, fault.Errorf(fault.Invalid, "limit %d: at most %d", limit, storage.MaxSearchLimit))
		return
	}
	req := agent.SearchRequest{Query: q.Get("q"), Limit: limit, By: q.Get("by")}
	for _, name := range q["tag"] {
		tag, err := s.cfg.DB.FindTag(ctx, strings.TrimSpace(name))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		req.TagIDs = append(req.TagIDs, tag.ID)
	}
	if kind := strings.TrimSpace(q.Get("kind")); kind != "" {
		schema, err := s.cfg.DB.FindSchema(ctx, kind)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		req.KindID = schema.SchemaID
	}
	res, err := s.embedder().Search(ctx, s.cfg.DB, req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, searchResult(res))
}

// searchesByMeaning reports whether a search asks the embedding model: any
// but a search by words alone.
func searchesByMeaning(r *http.Request) bool { return r.URL.Query().Get("by") != "words" }

// embedder is the embedder of the agent in effect; nil without an agent
// (search is then by words).
func (s *Server) embedder() *agent.Embedder {
	if a := s.agent(); a != nil {
		return a.Embedder
	}
	return nil
}

// searchStatus answers GET /api/search/status: how far the chunks (of one
// document, with document_id) are embedded for search by meaning.
type searchStatus struct {
	// Model is the embedding model, "" when none is set (search by words
	// only).
	Model string `json:"model"`
	// Chunks is how many chunks there are, Embedded how many of them have
	// a vector by Model; the rest wait.
	Chunks   int `json:"chunks"`
	Embedded int `json:"embedded"`
	// Dimensions is the size of Model's vectors (0 before the first).
	Dimensions int `json:"dimensions"`
	// Running is true while the server embeds chunks.
	Running bool `json:"running"`
	// Error is why the last run stopped before the end (the model is not
	// reachable, not pulled...), "" when it finished; the chunks left are
	// tried again.
	Error string `json:"error,omitempty"`
}

func (s *Server) searchStatus(w http.ResponseWriter, r *http.Request) {
	emb := s.embedder()
	st := searchStatus{Model: ""}
	if emb.On() {
		p, err := emb.Progress(r.Context(), strings.TrimSpace(r.URL.Query().Get("document_id")))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		st = searchStatus{Model: p.Model, Chunks: p.Chunks, Embedded: p.Embedded, Dimensions: p.Dimensions}
		st.Running, st.Error = s.embedding.state(p.Model)
	}
	writeJSON(w, http.StatusOK, st)
}

// embedPoll is how often the server looks for chunks to embed without
// being woken: chunks another process (docent import) stored, and a model
// that was down.
const embedPoll = time.Minute

// embedding is the server's embedding of chunks in the background: woken
// by an upload, an OCR run that ends and a change of settings, and every
// embedPoll.
type embedding struct {
	wake    chan struct{}
	mu      sync.Mutex
	model   string // the model of running and err
	running bool
	err     string
}

func newEmbedding() embedding { return embedding{wake: make(chan struct{}, 1)} }

// wakeEmbedding has the background embedding look for chunks now.
func (s *Server) wakeEmbedding() {
	select {
	case s.embedding.wake <- struct{}{}:
	default:
	}
}

func (e *embedding) set(model string, running bool, err string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.model, e.running, e.err = model, running, err
}

// state is whether model's chunks are being embedded and why its last run
// stopped.
func (e *embedding) state(model string) (bool, string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.model != model {
		return false, ""
	}
	return e.running, e.err
}

// serveEmbedding embeds the chunks still missing with the embedding model
// in effect, then waits to be woken, until ctx ends. Nothing waits for it:
// import and chat go on while it runs; a model that is down leaves the
// chunks waiting for the next try.
func (s *Server) serveEmbedding(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.embedding.wake:
		case <-t.C:
		}
		if emb := s.embedder(); emb.On() {
			s.embedding.set(emb.Model, true, "")
			_, err := emb.EmbedMissing(ctx, nil)
			msg := ""
			if err != nil && ctx.Err() == nil {
				msg = fault.ErrorMessage(fault.Report(ctx, s.cfg.Logger, "embed chunks", err))
			}
			s.embedding.set(emb.Model, false, msg)
		}
		t.Reset(embedPoll)
	}
}
