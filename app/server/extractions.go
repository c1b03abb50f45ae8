package server

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// extractionList answers GET /api/documents/{id}/extractions.
type extractionList struct {
	Extractions []storage.Extraction `json:"extractions"`
}

func (s *Server) listExtractions(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	doc, err := s.cfg.DB.GetDocument(ctx, r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	exts, err := s.cfg.DB.ListExtractions(ctx, doc.ID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if exts == nil {
		exts = []storage.Extraction{}
	}
	writeJSON(w, http.StatusOK, extractionList{Extractions: exts})
}

// extractionRun is the body of POST /api/documents/{id}/extractions.
type extractionRun struct {
	PromptRevID string `json:"prompt_revid"`
	// Model overrides the prompt's model.
	Model string `json:"model"`
}

// runExtraction runs a prompt revision on the document with the agent's
// extractor (the run_extraction tool's use case) and answers the stored
// extraction. It waits for the model; a client that leaves cancels it.
func (s *Server) runExtraction(w http.ResponseWriter, r *http.Request) {
	if !s.needAgent(w, r) {
		return
	}
	var body extractionRun
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if strings.TrimSpace(body.PromptRevID) == "" {
		s.writeError(w, r, fault.Errorf(fault.Invalid, "an extraction needs prompt_revid"))
		return
	}
	x := s.agent().Extractor
	if x == nil {
		s.writeError(w, r, fault.Errorf(fault.Unavailable, "this server runs without an extractor"))
		return
	}
	ext, err := x.Run(r.Context(), agent.ExtractRequest{DocumentID: r.PathValue("id"), PromptRevID: body.PromptRevID, Model: body.Model})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if d, err := s.cfg.DB.GetDocument(r.Context(), ext.DocumentID); err == nil {
		s.publishRow(d.ID, d.SchemaID, ext.ID) // a row in its kind's table
	}
	writeJSON(w, http.StatusCreated, ext)
}

// fieldPatch is the body of PATCH .../extractions/{extraction_id}.
type fieldPatch struct {
	// Path names the field, as update_extraction_field takes it.
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

// patchExtraction edits one field of an extraction of this document: an
// extraction of another document is not found here.
func (s *Server) patchExtraction(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body fieldPatch
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if len(body.Value) == 0 {
		s.writeError(w, r, fault.Errorf(fault.Invalid, "a field edit needs path and value"))
		return
	}
	docID, extID := r.PathValue("id"), r.PathValue("extraction_id")
	ext, err := s.cfg.DB.GetExtraction(ctx, extID)
	if err == nil && ext.DocumentID != docID {
		err = fault.Errorf(fault.NotFound, "document %s has no extraction %s", docID, extID)
	}
	if err == nil {
		// A person's edit that breaks the schema is refused, not stored.
		err = agent.CheckExtractionField(ctx, s.cfg.DB, ext, strings.TrimSpace(body.Path), body.Value)
	}
	if err == nil {
		ext, _, err = agent.PatchExtractionField(ctx, s.cfg.DB, extID, strings.TrimSpace(body.Path), body.Value)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, ext)
}
