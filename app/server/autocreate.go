package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/app/export"
	"github.com/docent/docent/storage"
)

// The server runs auto-create one document at a time, in the background:
// uploads with auto_create and POST .../auto-create queue documents
// (status pending) and wake the worker, which claims and runs each. One at
// a time because a local model serves one request at a time anyway; the
// batch CLI is the tool for running many side by side against a hosted API.

// startAutoCreateWorker starts the worker; it runs until the server's
// context ends. Documents left pending by an earlier process are run too.
func (s *Server) startAutoCreateWorker() {
	s.autoWake = make(chan struct{}, 1)
	s.wakeAutoCreate()
	go s.autoCreateWorker(s.cfg.Context)
}

// wakeAutoCreate tells the worker there may be work, without blocking.
func (s *Server) wakeAutoCreate() {
	select {
	case s.autoWake <- struct{}{}:
	default:
	}
}

func (s *Server) autoCreateWorker(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.autoWake:
		}
		for ctx.Err() == nil {
			doc, ok := s.nextPending(ctx)
			if !ok {
				break
			}
			a := s.agent()
			if a == nil {
				break
			}
			c := &agent.AutoCreator{Agent: a}
			res, err := c.Run(ctx, doc.ID, agent.AutoCreateOptions{Model: s.autoCreateModel(doc.ID)})
			if err != nil && ctx.Err() == nil {
				s.cfg.Logger.Warn("auto-create ended without a proposal", "document", doc.ID, "status", res.Status, "err", err)
			}
		}
	}
}

// nextPending is the oldest pending document, if any.
func (s *Server) nextPending(ctx context.Context) (storage.Document, bool) {
	docs, err := s.cfg.DB.AutoCreateCandidates(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.cfg.Logger.Warn("list auto-create candidates", "err", err)
		}
		return storage.Document{}, false
	}
	for _, d := range docs {
		if d.AutoCreateStatus == storage.AutoCreatePending {
			return d, true
		}
	}
	return storage.Document{}, false
}

// autoCreateModel is the model a POST chose for a document, else the
// default ("").
func (s *Server) autoCreateModel(docID string) string {
	s.autoMu.Lock()
	defer s.autoMu.Unlock()
	m := s.autoModels[docID]
	delete(s.autoModels, docID)
	return m
}

type autoCreateBody struct {
	Model string `json:"model"`
}

// startAutoCreate answers POST /api/documents/{id}/auto-create: it queues
// the document (a failed or rejected one again) and answers with it,
// status pending; the worker then runs it. A proposed or accepted document
// must be rejected first; a running one is a conflict.
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
	if m := strings.TrimSpace(body.Model); m != "" {
		if _, _, err := s.agent().Providers.For(m); err != nil {
			s.writeError(w, r, storage.Errorf(storage.ErrInvalid, "%v", err))
			return
		}
		s.autoMu.Lock()
		s.autoModels[docID] = m
		s.autoMu.Unlock()
	}
	docs, err := s.cfg.DB.QueueAutoCreate(r.Context(), docID)
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
			s.writeError(w, r, storage.Errorf(storage.ErrInvalid, "document %s is %s, not ready: auto-create needs its text", d.Name, d.Status))
		case d.AutoCreateStatus == storage.AutoCreatePending:
			writeJSON(w, http.StatusAccepted, d) // queued already
		default:
			s.writeError(w, r, storage.Errorf(storage.ErrConflict, "auto-create of %s is %s already; reject the proposal first to run it again", d.Name, d.AutoCreateStatus))
		}
		return
	}
	s.wakeAutoCreate()
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

// exportContentTypes are the media types of the export formats.
var exportContentTypes = map[string]string{
	export.CSV:   "text/csv; charset=utf-8",
	export.JSON:  "application/json; charset=utf-8",
	export.JSONL: "application/x-ndjson; charset=utf-8",
}

// exportPrompt answers GET /api/prompts/{prompt_id}/export?format=&explode=&raw=:
// the prompt's latest extraction of each document, as `docent export`
// writes it, as a download. CSV cells that a spreadsheet would run as
// formulas are neutralised unless raw=1 (see package export).
func (s *Server) exportPrompt(w http.ResponseWriter, r *http.Request) {
	format := r.URL.Query().Get("format")
	if format == "" {
		format = export.CSV
	}
	ctype, ok := exportContentTypes[format]
	if !ok {
		s.writeError(w, r, storage.Errorf(storage.ErrInvalid, "format %q: want csv, json or jsonl", format))
		return
	}
	raw := false
	if v := r.URL.Query().Get("raw"); v != "" {
		var err error
		if raw, err = strconv.ParseBool(v); err != nil {
			s.writeError(w, r, storage.Errorf(storage.ErrInvalid, "raw %q: want 1 or 0", v))
			return
		}
	}
	data, err := export.Load(r.Context(), s.cfg.DB, r.PathValue("prompt_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// Built in memory first, so a bad explode path is a clean 400 rather
	// than a half-written download.
	var buf strings.Builder
	if err := export.Write(&buf, data, export.Options{Format: format, Explode: r.URL.Query().Get("explode"), Raw: raw}); err != nil {
		var se *storage.Error
		if !errors.As(err, &se) {
			err = storage.Errorf(storage.ErrInvalid, "%v", err)
		}
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", exportFileName(data.Prompt.Name, format)))
	_, _ = w.Write([]byte(buf.String()))
}

// exportFileName is a download name made of the prompt's name.
func exportFileName(name, format string) string {
	safe := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == '"' || r < ' ' {
			return '_'
		}
		return r
	}, strings.TrimSpace(name))
	if safe == "" {
		safe = "export"
	}
	return safe + "." + format
}
