package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/workpool"
	"github.com/docent/docent/app/export"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// The data of a schema (its documents as a table) and what is done to
// many documents at once: the data view's rows, the export by schema, the
// bulk re-run and accept, and moving a document to another kind.

// Paging of GET /api/schemas/{schema_id}/rows.
const (
	defaultRowsLimit = 100
	maxRowsLimit     = 1000
)

// maxBulkDocuments caps the document_ids of one bulk request.
const maxBulkDocuments = 1000

// rerunConcurrency is how many extractions a bulk re-run runs at once: a
// local model serves them one after another anyway, a hosted API side by
// side.
const rerunConcurrency = 4

// schemaRows answers GET /api/schemas/{schema_id}/rows.
type schemaRows struct {
	// Columns are the schema's fields, of all its versions.
	Columns []export.Column `json:"columns"`
	Rows    []schemaRow     `json:"rows"`
	// Total is how many rows match, over all pages.
	Total int `json:"total"`
}

// schemaRow is one document's latest extraction.
type schemaRow struct {
	DocumentID       string `json:"document_id"`
	DocumentName     string `json:"document_name"`
	ExtractionID     string `json:"extraction_id"`
	ValidationStatus string `json:"validation_status"`
	AutoCreateStatus string `json:"auto_create_status"`
	// Edited are the paths of the values edited by hand.
	Edited []string `json:"edited"`
	// Values are the value's leaves by dotted path: every column's (null
	// when missing), and any the schema does not have; arrays whole.
	Values map[string]any `json:"values"`
	// ValidationErrors are the extraction's problems, [{path, message}]
	// (paths as JSON pointers, "/total"), for marking cells.
	ValidationErrors json.RawMessage `json:"validation_errors" ts:"SchemaProblem[]"`
	// Evidence says where each value stands in the document, by path
	// ({status, page, quote, bbox}), for marking cells and linking them
	// to their page.
	Evidence json.RawMessage `json:"evidence" ts:"EvidenceMap"`
}

// schemaColumns finds a schema (id, revision id or name) and returns its
// latest revision and the columns of all its versions.
func (s *Server) schemaColumns(ctx context.Context, ref string) (storage.SchemaRevision, []export.Column, error) {
	found, err := s.cfg.DB.FindSchema(ctx, ref)
	if err != nil {
		return storage.SchemaRevision{}, nil, err
	}
	revs, err := s.cfg.DB.ListSchemaRevisions(ctx, found.SchemaID)
	if err != nil {
		return storage.SchemaRevision{}, nil, err
	}
	formats := make([]json.RawMessage, len(revs))
	for i, r := range revs {
		formats[i] = r.ResponseFormat
	}
	return revs[0], export.Columns(formats...), nil
}

// listSchemaRows answers GET /api/schemas/{schema_id}/rows?sort=PATH&
// order=asc|desc&filter=PATH:TEXT&status=valid|invalid|edited&offset=&limit=.
func (s *Server) listSchemaRows(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	rev, columns, err := s.schemaColumns(ctx, r.PathValue("schema_id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	paths := make([]string, len(columns)) // never nil: rowSelection checks against it
	for i, c := range columns {
		paths[i] = c.Path
	}
	query := storage.SchemaRowsQuery{SchemaID: rev.SchemaID}
	err = rowSelection(r, paths, &query)
	if err == nil {
		query.Offset, err = queryInt(r, "offset")
	}
	if err == nil {
		query.Limit, err = queryInt(r, "limit")
	}
	if err == nil && query.Limit > maxRowsLimit {
		err = fault.Errorf(fault.Invalid, "limit %d is over the maximum of %d", query.Limit, maxRowsLimit)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if query.Limit == 0 {
		query.Limit = defaultRowsLimit
	}
	rows, total, err := s.cfg.DB.SchemaRows(ctx, query)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := schemaRows{Columns: columns, Rows: make([]schemaRow, 0, len(rows)), Total: total}
	if out.Columns == nil {
		out.Columns = []export.Column{}
	}
	for _, row := range rows {
		x := row.Extraction
		values, err := export.Values(paths, x.Value)
		if err != nil {
			s.writeError(w, r, fmt.Errorf("extraction %s: %w", x.ID, err))
			return
		}
		edited := []string{}
		if x.Edited {
			if edited, err = export.EditedPaths(x.OriginalValue, x.Value); err != nil {
				s.writeError(w, r, fmt.Errorf("extraction %s: %w", x.ID, err))
				return
			}
		}
		out.Rows = append(out.Rows, schemaRow{
			DocumentID: x.DocumentID, DocumentName: row.DocumentName, ExtractionID: x.ID,
			ValidationStatus: x.ValidationStatus, AutoCreateStatus: row.AutoCreateStatus,
			Edited: edited, Values: values, ValidationErrors: x.ValidationErrors, Evidence: x.Evidence,
		})
	}
	writeJSON(w, http.StatusOK, out)
}

// rowSelection reads the data view's sort=PATH, order=asc|desc,
// filter=PATH:TEXT (repeated) and status of a request into q, checking
// the paths against the schema's fields unless fields is nil.
func rowSelection(r *http.Request, fields []string, q *storage.SchemaRowsQuery) error {
	v := r.URL.Query()
	q.Sort, q.Status = v.Get("sort"), storage.RowStatus(v.Get("status"))
	if q.Sort != "" && fields != nil {
		if err := export.CheckRowKey(q.Sort, fields, "sort"); err != nil {
			return err
		}
	}
	switch sortOrder(v.Get("order")) {
	case "", orderAsc:
	case orderDesc:
		q.Desc = true
	default:
		return fault.Errorf(fault.Invalid, "order %q: want asc or desc", v.Get("order"))
	}
	for _, f := range v["filter"] {
		path, text, ok := strings.Cut(f, ":")
		if !ok {
			return fault.Errorf(fault.Invalid, "filter %q: want PATH:TEXT", f)
		}
		if fields != nil {
			if err := export.CheckRowKey(path, fields, "filter"); err != nil {
				return err
			}
		}
		q.Filters = append(q.Filters, storage.RowFilter{Path: path, Text: text})
	}
	return nil
}

// rerunBody is the body of POST /api/schemas/{schema_id}/rerun.
type rerunBody struct {
	DocumentIDs []string `json:"document_ids"`
	// Model, optional, overrides the prompts' models.
	Model string `json:"model,omitempty"`
}

// acceptBody is the body of POST /api/auto-create/accept.
type acceptBody struct {
	DocumentIDs []string `json:"document_ids"`
}

// documentError is one document a bulk request could not do.
type documentError struct {
	DocumentID string `json:"document_id"`
	Error      string `json:"error"`
}

// bulkIDs returns a bulk request's ids without blanks and repeats; none,
// or too many, is a client error.
func bulkIDs(ids []string) ([]string, error) {
	var out []string
	for _, id := range ids {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	switch {
	case len(out) == 0:
		return nil, fault.Errorf(fault.Invalid, "document_ids is empty: name the documents")
	case len(out) > maxBulkDocuments:
		return nil, fault.Errorf(fault.Invalid, "%d documents in one request: at most %d", len(out), maxBulkDocuments)
	}
	return out, nil
}

// checkModel answers whether a requested model names a known provider.
func (s *Server) checkModel(model string) error {
	if model == "" {
		return nil
	}
	if _, _, err := s.agent().Providers.For(model); err != nil {
		return fault.Errorf(fault.Invalid, "%v", err)
	}
	return nil
}

// rerunReport answers POST /api/schemas/{schema_id}/rerun.
type rerunReport struct {
	// DocumentIDs are the documents that were re-run, in the order asked.
	DocumentIDs []string `json:"document_ids"`
	// Extractions are the new extractions, in the same order.
	Extractions []storage.Extraction `json:"extractions"`
	// Errors are the documents that could not be re-run, and why.
	Errors []documentError `json:"errors"`
}

// rerunSchema answers POST /api/schemas/{schema_id}/rerun {document_ids,
// model?}: each document is extracted again with the schema's prompt for
// it (the prompt of its latest extraction with the schema, else the kind's
// prompt; storage.RerunPrompt), with the model asked
// for over the prompt's. The runs are inline, rerunConcurrency at a time:
// the answer comes when all have ended, and a client that leaves cancels
// those not done.
func (s *Server) rerunSchema(w http.ResponseWriter, r *http.Request) {
	if !s.needAgent(w, r) {
		return
	}
	ctx := r.Context()
	var body rerunBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	ids, err := bulkIDs(body.DocumentIDs)
	if err == nil {
		err = s.checkModel(strings.TrimSpace(body.Model))
	}
	var schema storage.SchemaRevision
	if err == nil {
		schema, err = s.cfg.DB.FindSchema(ctx, r.PathValue("schema_id"))
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	x := s.agent().Extractor
	if x == nil {
		s.writeError(w, r, fault.Errorf(fault.Unavailable, "this server runs without an extractor"))
		return
	}
	type job struct {
		docID  string
		prompt storage.PromptRevision
		ext    storage.Extraction
		err    error
	}
	jobs := make([]job, len(ids))
	for i, id := range ids {
		jobs[i].docID = id
		jobs[i].prompt, jobs[i].err = s.cfg.DB.RerunPrompt(ctx, id, schema.SchemaID)
	}
	// Each run's error is its document's; only the client leaving stops
	// the rest.
	_ = workpool.ForEach(ctx, jobs, rerunConcurrency, func(ctx context.Context, i int, _ job) error {
		j := &jobs[i]
		if j.err == nil {
			j.ext, j.err = x.Run(ctx, agent.ExtractRequest{DocumentID: j.docID, PromptRevID: j.prompt.PromptRevID, Model: strings.TrimSpace(body.Model)})
		}
		return nil
	})
	if ctx.Err() != nil {
		return // the client left; nobody reads the answer
	}
	report := rerunReport{DocumentIDs: []string{}, Extractions: []storage.Extraction{}, Errors: []documentError{}}
	for _, j := range jobs {
		if j.err != nil {
			report.Errors = append(report.Errors, documentError{DocumentID: j.docID,
				Error: errorText(ctx, s.cfg.Logger, "re-run "+j.docID, j.err)})
			continue
		}
		report.DocumentIDs = append(report.DocumentIDs, j.docID)
		report.Extractions = append(report.Extractions, j.ext)
	}
	writeJSON(w, http.StatusOK, report)
}

// acceptReport answers POST /api/auto-create/accept.
type acceptReport struct {
	// Documents are the documents whose proposal was accepted, as they
	// are now.
	Documents []storage.Document `json:"documents"`
	Errors    []documentError    `json:"errors"`
}

// acceptAutoCreateMany answers POST /api/auto-create/accept {document_ids}:
// each proposal is accepted as POST .../auto-create/accept accepts one; a
// document that has none is listed in errors, the others are accepted.
func (s *Server) acceptAutoCreateMany(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body acceptBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	ids, err := bulkIDs(body.DocumentIDs)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	report := acceptReport{Documents: []storage.Document{}, Errors: []documentError{}}
	for _, id := range ids {
		d, err := s.cfg.DB.AcceptAutoCreate(ctx, id)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			report.Errors = append(report.Errors, documentError{DocumentID: id, Error: errorText(ctx, s.cfg.Logger, "accept "+id, err)})
			continue
		}
		report.Documents = append(report.Documents, d)
	}
	writeJSON(w, http.StatusOK, report)
}

// kindChange is the body of PUT /api/documents/{id}/kind.
type kindChange struct {
	// SchemaID is the new kind (a schema id, revision id or name); ""
	// clears it. Required.
	SchemaID *string `json:"schema_id"`
	// Model, optional, overrides the prompt's model for the re-extraction.
	Model string `json:"model,omitempty"`
}

// kindChanged answers PUT /api/documents/{id}/kind.
type kindChanged struct {
	Document storage.Document `json:"document"`
	// Extraction is the extraction made with the new kind's prompt; null
	// when the kind was cleared or none ran (ExtractionError says why).
	Extraction      *storage.Extraction `json:"extraction"`
	ExtractionError string              `json:"extraction_error,omitempty"`
}

// setDocumentKind answers PUT /api/documents/{id}/kind {schema_id}: the
// document becomes of that kind and is extracted again, inline, with the
// kind's prompt (storage.KindPrompt: the one a person chose) when there is
// one. The kind is changed
// even when the extraction then fails: extraction_error says why.
func (s *Server) setDocumentKind(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body kindChange
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if body.SchemaID == nil {
		s.writeError(w, r, fault.Errorf(fault.Invalid, `schema_id is required ("" clears the kind)`))
		return
	}
	model := strings.TrimSpace(body.Model)
	if model != "" {
		if !s.needAgent(w, r) {
			return
		}
		if err := s.checkModel(model); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	doc, err := s.cfg.DB.SetDocumentKind(ctx, r.PathValue("id"), *body.SchemaID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := kindChanged{Document: doc}
	if doc.SchemaID != "" {
		ext, err := s.extractKind(ctx, doc, model)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			out.ExtractionError = errorText(ctx, s.cfg.Logger, "extract "+doc.ID+" as its new kind", err)
		} else {
			out.Extraction = &ext
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// extractKind extracts a document with its kind's prompt.
func (s *Server) extractKind(ctx context.Context, doc storage.Document, model string) (storage.Extraction, error) {
	prompt, err := s.cfg.DB.KindPrompt(ctx, doc.SchemaID)
	if err != nil {
		return storage.Extraction{}, err
	}
	a := s.agent()
	if a == nil || a.Extractor == nil {
		return storage.Extraction{}, fault.Errorf(fault.Unavailable, "this server runs without an extractor")
	}
	return a.Extractor.Run(ctx, agent.ExtractRequest{DocumentID: doc.ID, PromptRevID: prompt.PromptRevID, Model: model})
}
