package server

import (
	"net/http"
	"strings"

	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// The server runs auto-create in the background (app/pipeline, the last
// stage): uploads with auto_create and POST .../auto-create queue
// documents (status pending, with the model the POST chose stored beside
// them) and wake the queue that Start runs, which claims and runs each.

type autoCreateBody struct {
	Model string `json:"model"`
}

// startAutoCreate answers POST /api/documents/{id}/auto-create: it queues
// the document (a failed or rejected one again) with the body's model and
// answers with it, status pending; the queue (Start) then runs it. A
// proposed or accepted document must be rejected first; a running one is
// a conflict.
func (s *Server) startAutoCreate(w http.ResponseWriter, r *http.Request) {
	if !s.needAgent(w, r) {
		return
	}
	var body autoCreateBody
	if err := s.decodeJSON(w, r, &body, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	docID := r.PathValue("id")
	model := strings.TrimSpace(body.Model)
	if model != "" {
		if _, _, err := s.agent().Providers.For(model); err != nil {
			s.writeError(w, r, fault.Errorf(fault.Invalid, "%v", err))
			return
		}
	}
	docs, err := s.pipeline.QueueAutoCreate(r.Context(), model, docID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if len(docs) == 0 { // not queued: say why
		d, err := s.cfg.DB.GetDocument(r.Context(), docID)
		switch {
		case err != nil:
			s.writeError(w, r, err)
		case d.Status != storage.StatusReady:
			s.writeError(w, r, fault.Errorf(fault.Invalid, "document %s is %s, not ready: auto-create needs its text", d.Name, d.Status))
		case d.AutoCreateStatus == storage.AutoCreatePending:
			writeJSON(w, http.StatusAccepted, d) // queued already
		default:
			s.writeError(w, r, fault.Errorf(fault.Conflict, "auto-create of %s is %s already; reject the proposal first to run it again", d.Name, d.AutoCreateStatus))
		}
		return
	}
	writeJSON(w, http.StatusAccepted, docs[0])
}

// acceptAutoCreate answers POST .../auto-create/accept.
func (s *Server) acceptAutoCreate(w http.ResponseWriter, r *http.Request) {
	d, err := s.cfg.DB.AcceptAutoCreate(r.Context(), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// rejectAutoCreate answers POST .../auto-create/reject.
func (s *Server) rejectAutoCreate(w http.ResponseWriter, r *http.Request) {
	d, err := s.cfg.DB.RejectAutoCreate(r.Context(), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}
