package server

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/app/export"
	"github.com/docent/docent/app/internal/listarg"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// The server runs auto-create in the background, one document at a time:
// uploads with auto_create and POST .../auto-create queue documents
// (status pending, with the model the POST chose stored beside them) and
// wake the scheduler that Start runs, which claims and runs each. One at a
// time because a local model serves one request at a time anyway; the
// batch CLI is the tool for running many side by side against a hosted
// API.

// autoCreateConcurrency is how many queued documents run at once.
const autoCreateConcurrency = 1

// newAutoCreateScheduler is the scheduler of the server's queue: each run
// is on the agent in effect as it starts, with the model the document was
// queued with (else the agent's default).
func (s *Server) newAutoCreateScheduler() *agent.AutoCreateScheduler {
	return &agent.AutoCreateScheduler{
		DB:          s.cfg.DB,
		Logger:      s.cfg.Logger,
		Concurrency: autoCreateConcurrency,
		Creator: func() *agent.AutoCreator {
			a := s.agent()
			if a == nil {
				return nil
			}
			return &agent.AutoCreator{Agent: a}
		},
		Done: func(ctx context.Context, d storage.Document, res agent.AutoCreateResult, err error) {
			if now, gerr := s.cfg.DB.GetDocument(context.WithoutCancel(ctx), d.ID); gerr == nil {
				s.publishDocument(now)
				if res.ExtractionID != "" {
					s.publishRow(now.ID, now.SchemaID, res.ExtractionID)
				}
			}
			if err != nil && ctx.Err() == nil {
				s.cfg.Logger.Warn("auto-create ended without a proposal", "document", d.ID, "status", res.Status, "err", err,
					"refused", len(res.Refused)) // kept with the document: GET /api/documents/{id}, auto_create_refused
			}
		},
	}
}

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
	docs, err := s.cfg.DB.QueueAutoCreate(r.Context(), model, docID)
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
	s.autoCreate.Wake()
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
	export.XLSX:  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}

// exportOptions reads an export's format (default CSV) and its content
// type, explode, raw (whether CSV cells are written as extracted) and
// evidence (page columns), as both export routes take them.
func exportOptions(r *http.Request) (opts export.Options, ctype string, err error) {
	q := r.URL.Query()
	opts.Format, opts.Explode = cmp.Or(q.Get("format"), export.CSV), q.Get("explode")
	ctype, ok := exportContentTypes[opts.Format]
	if !ok {
		return opts, "", fault.Errorf(fault.Invalid, "format %q: want csv, json, jsonl or xlsx", opts.Format)
	}
	for name, flag := range map[string]*bool{"raw": &opts.Raw, "evidence": &opts.Evidence} {
		if v := q.Get(name); v != "" {
			if *flag, err = strconv.ParseBool(v); err != nil {
				return opts, "", fault.Errorf(fault.Invalid, "%s %q: want 1 or 0", name, v)
			}
		}
	}
	return opts, ctype, nil
}

// promptExportParams are the query parameters the prompt's export takes;
// it refuses others rather than ignore them and export every row.
var promptExportParams = []string{"format", "explode", "raw", "evidence", "tag"}

// checkPromptExportParams refuses a query parameter the prompt's export
// does not take. The data view's row selection is the schema export's: a
// prompt's rows are its latest extraction of each document, whatever
// schema that used, so the view's columns do not apply to them.
func checkPromptExportParams(r *http.Request) error {
	takes := strings.Join(promptExportParams, ", ")
	for _, name := range slices.Sorted(maps.Keys(r.URL.Query())) {
		switch {
		case slices.Contains(promptExportParams, name):
		case slices.Contains([]string{"sort", "order", "filter", "status", "prompt"}, name):
			return fault.Errorf(fault.Invalid, "the prompt's export takes %s, not %s: sort, order, filter and status select rows of a schema's export (GET /api/schemas/{schema_id}/export)", takes, name)
		default:
			return fault.Errorf(fault.Invalid, "unknown query parameter %q: the prompt's export takes %s", name, takes)
		}
	}
	return nil
}

// exportPrompt answers GET /api/prompts/{prompt_id}/export?format=&explode=&raw=&evidence=&tag=:
// the prompt's latest extraction of each document (of the documents that
// have every tag, ids or names, comma-separated or repeated), as `docent
// export` writes it, as a download. CSV cells that a spreadsheet would
// run as formulas are neutralised unless raw=1 (see package export).
func (s *Server) exportPrompt(w http.ResponseWriter, r *http.Request) {
	opts, ctype, err := exportOptions(r)
	if err == nil {
		err = checkPromptExportParams(r)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	data, err := export.LoadPrompt(r.Context(), s.cfg.DB, r.PathValue("prompt_id"), listarg.Split(r.URL.Query()["tag"]))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeExport(w, r, data, opts, ctype)
}

// writeExport answers an export as a download named after data.Name. It
// is built in memory first, so that a bad explode path is a clean 400
// rather than a half-written download.
func (s *Server) writeExport(w http.ResponseWriter, r *http.Request, data export.Data, opts export.Options, ctype string) {
	var buf bytes.Buffer
	if err := export.Write(&buf, data, opts); err != nil {
		var fe *fault.Error
		if !errors.As(err, &fe) {
			err = fault.Errorf(fault.Invalid, "%v", err)
		}
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", exportFileName(data.Name, opts.Format)))
	_, _ = w.Write(buf.Bytes())
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
