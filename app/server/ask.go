package server

import (
	"context"
	"net/http"

	"github.com/docent/docent/agent"
)

// askBody is the body of POST /api/ask: a turn of Ask Docent, a
// conversation about the whole library in a thread of no document.
type askBody struct {
	Message string `json:"message"`
	// ThreadID continues a library thread; without it the turn starts one.
	ThreadID string `json:"thread_id"`
	// Model is a provider-prefixed model id; empty uses the thread's, then
	// the server's default.
	Model string `json:"model"`
	// Stream answers with Server-Sent Events instead of the result object.
	Stream bool `json:"stream"`
}

// ask runs a turn as chat does (the same events, the same errors, the
// same refusal before the first event); its tools only read, so it never
// pauses.
func (s *Server) ask(w http.ResponseWriter, r *http.Request) {
	if !s.needAgent(w, r) {
		return
	}
	var body askBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	req := agent.AskRequest{ThreadID: body.ThreadID, Message: body.Message, Model: body.Model}
	s.runTurn(w, r, body.Stream, func(ctx context.Context, sink agent.Sink) (agent.TurnResult, error) {
		return s.agent().Ask(ctx, req, sink)
	})
}

// threadDocument is the document whose threads a thread route reads: its
// {id}, or "" under /api/ask/threads, where the threads are the library's
// (they belong to no document, and the store finds no document's thread
// there).
func threadDocument(r *http.Request) string { return r.PathValue("id") }
