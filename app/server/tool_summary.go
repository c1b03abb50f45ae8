package server

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/storage/fault"
)

// summaryBody is the body of POST /api/tools/{name}/summary: a call's
// arguments (as edited), and the conversation it belongs to, whose
// document and working state name "this document" and "the conversation's
// prompt".
type summaryBody struct {
	Arguments  json.RawMessage `json:"arguments"`
	DocumentID string          `json:"document_id"`
	ThreadID   string          `json:"thread_id"`
}

// toolSummary answers POST /api/tools/{name}/summary with what a call of
// the tool with these arguments would do, as the store is now: the
// agent.Summary a tool_calls event carries. The Edit form of a proposal
// asks it about the edited arguments.
func (s *Server) toolSummary(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	name := r.PathValue("name")
	if _, ok := agent.ToolByName(name); !ok {
		s.writeError(w, r, fault.Errorf(fault.NotFound, "no tool named %q (GET /api/chat/tools lists them)", name))
		return
	}
	var body summaryBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	env := &agent.ToolEnv{DB: s.cfg.DB, DocumentID: body.DocumentID, State: &agent.WorkingState{}}
	if body.ThreadID != "" {
		th, err := s.cfg.DB.GetThread(ctx, body.DocumentID, body.ThreadID)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if len(th.WorkingState) > 0 {
			if err := json.Unmarshal(th.WorkingState, env.State); err != nil {
				s.writeError(w, r, fmt.Errorf("thread %s: read its working state: %w", th.ID, err))
				return
			}
		}
	}
	writeJSON(w, http.StatusOK, agent.Summarize(ctx, env, name, body.Arguments))
}
