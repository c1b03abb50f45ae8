package server

import (
	"net/http"
	"strings"

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
		st.Running, st.Error = s.pipeline.EmbeddingState(p.Model)
	}
	writeJSON(w, http.StatusOK, st)
}
