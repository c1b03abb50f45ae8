package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"

	"github.com/docent/docent/app/ingest"
	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/app/internal/listarg"
	"github.com/docent/docent/app/pipeline"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// documentList answers GET /api/documents.
type documentList struct {
	Documents []storage.ListedDocument `json:"documents"`
	Total     int                      `json:"total"`
}

func (s *Server) listDocuments(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := storage.DocumentFilter{Search: q.Get("q"), TagIDs: listarg.Split(q["tag_id"]), Sort: storage.DocumentSort(q.Get("sort")), Order: q.Get("order")}
	var err error
	if f.Limit, err = queryInt(r, "limit"); err != nil {
		s.writeError(w, r, err)
		return
	}
	if f.Offset, err = queryInt(r, "offset"); err != nil {
		s.writeError(w, r, err)
		return
	}
	docs, total, err := s.cfg.DB.ListDocumentsWithKinds(r.Context(), f)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, documentList{Documents: docs, Total: total})
}

func (s *Server) getDocument(w http.ResponseWriter, r *http.Request) {
	doc, err := s.cfg.DB.GetDocument(r.Context(), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, doc)
}

// documentPatch is the body of PATCH /api/documents/{id}.
type documentPatch struct {
	Name   *string   `json:"name"`
	TagIDs *[]string `json:"tag_ids"`
	// Metadata replaces the metadata object; null clears it.
	Metadata json.RawMessage `json:"metadata"`
}

func (s *Server) patchDocument(w http.ResponseWriter, r *http.Request) {
	var body documentPatch
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	doc, err := s.cfg.DB.UpdateDocument(r.Context(), r.PathValue("id"), storage.DocumentPatch{
		Name: body.Name, TagIDs: body.TagIDs, Metadata: body.Metadata,
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, doc)
}

// deleteDocument answers with the document as it was, so a client can say
// what went (and offer to import the file again).
func (s *Server) deleteDocument(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	doc, err := s.cfg.DB.GetDocument(ctx, r.PathValue("id"))
	if err == nil {
		err = s.cfg.DB.DeleteDocument(ctx, doc.ID)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, doc)
}

// documentFile answers the original bytes with the stored media type, shown
// inline (the UI's PDF viewer) under the document's name. They are written
// as the store holds them, a megabyte part at a time, and a file of more
// than one part waits for a turn among the large answers
// (large_answers.go): a 256 MiB file was held whole, per request.
func (s *Server) documentFile(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	doc, err := s.cfg.DB.GetDocument(ctx, r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	part, err := s.cfg.DB.FilePart(ctx, doc.ID, 0)
	if err == nil && int64(len(part)) < doc.Size && r.Method != http.MethodHead {
		part = nil // wait holding nothing
		if !s.largeTurn(ctx) {
			return // the client left while waiting
		}
		defer s.endLargeTurn()
		part, err = s.cfg.DB.FilePart(ctx, doc.ID, 0)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", doc.MediaType)
	h.Set("Content-Length", strconv.FormatInt(doc.Size, 10))
	h.Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": doc.Name}))
	// The bytes are the user's file: never let a browser run them as a page
	// of this origin.
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	conn := newDeadlineWriter(w, s.cfg.WriteTimeout)
	defer conn.done()
	var sent int64
	for n := 1; ; n++ {
		if _, err := conn.Write(part); err != nil {
			s.cfg.Logger.Debug("document file: the client left", "document", doc.ID, "err", err)
			return
		}
		if sent += int64(len(part)); sent >= doc.Size {
			return
		}
		if part, err = s.cfg.DB.FilePart(ctx, doc.ID, n); err == nil && part == nil {
			err = fmt.Errorf("part %d is missing after %d of %d bytes", n, sent, doc.Size)
		}
		if err != nil {
			// Short of its Content-Length, the answer ends with the
			// connection closed: no client takes it for the file.
			if ctx.Err() == nil {
				s.cfg.Logger.Warn("document file cut short", "document", doc.ID, "err", err)
			}
			return
		}
	}
}

// documentText answers GET /api/documents/{id}/text.
type documentText struct {
	Text string `json:"text"`
	// Page is the 1-based page asked for; absent for the whole text.
	Page  int `json:"page,omitempty"`
	Pages int `json:"pages"`
}

// pageBreak separates pages in the whole text: a form feed is the page
// break plain text has, and the importer splits text files on it.
const pageBreak = "\n\f"

func (s *Server) documentText(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	doc, err := s.cfg.DB.GetDocument(ctx, r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if r.URL.Query().Has("page") {
		page, err := queryInt(r, "page")
		if err == nil && page < 1 {
			err = fault.Errorf(fault.Invalid, "page counts from 1")
		}
		var text string
		if err == nil {
			text, err = s.cfg.DB.PageText(ctx, doc.ID, page)
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, documentText{Text: text, Page: page, Pages: doc.Pages})
		return
	}
	s.writeWholeText(w, r, doc)
}

// uploadReport answers POST /api/documents, as `docent import --json`
// reports an import.
type uploadReport struct {
	// Documents are the stored documents: new ones, and for a duplicate the
	// one that already had the bytes.
	Documents  []storage.Document `json:"documents"`
	Duplicates []uploadDuplicate  `json:"duplicates"`
	Errors     []uploadError      `json:"errors"`
}

type uploadDuplicate struct {
	File       string `json:"file"`
	DocumentID string `json:"document_id"`
}

type uploadError struct {
	File  string `json:"file"`
	Error string `json:"error"`
	// DocumentID is set when the file was stored although it could not be
	// read (status failed), so its error stays visible in the list.
	DocumentID string `json:"document_id,omitempty"`
}

// uploadMemory is how much of an upload's files is held in memory; the
// rest wait in temporary files until they are imported one by one, streamed
// from there. It is small because mime/multipart buffers a file part up to
// this size before it spills to disk, in a buffer grown by doubling: at 32
// MiB one large upload took the server's heap to 190 MB.
const uploadMemory = 1 << 20

// uploadDocuments imports multipart `file` parts with the importer the CLI
// uses. A file that fails is reported in errors; the others are stored.
func (s *Server) uploadDocuments(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxUploadBytes)
	if err := r.ParseMultipartForm(uploadMemory); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			s.writeError(w, r, fault.Errorf(codeTooLarge, "the upload is over the limit of %s (docent --serve --max-upload MiB)", byteSize(mbe.Limit)))
			return
		}
		s.writeError(w, r, fault.Errorf(fault.Invalid, "the body must be multipart/form-data with file fields: %v", err))
		return
	}
	defer func() { _ = r.MultipartForm.RemoveAll() }()
	form := r.MultipartForm
	files := form.File["file"]
	if len(files) == 0 {
		s.writeError(w, r, fault.Errorf(fault.Invalid, "no file given: send one or more multipart fields named file"))
		return
	}
	// An image's pages are decoded by the OCR worker, in the background,
	// not while the client waits (four WebP bombs of 32 bytes each kept
	// their uploads open 50 s).
	opts := pipeline.Options{Options: ingest.Options{DecodeImagesLater: true}}
	opts.TagIDs = listarg.Split(form.Value["tag_ids"])
	for _, id := range opts.TagIDs {
		if _, err := s.cfg.DB.GetTag(ctx, id); err != nil {
			if errors.Is(err, storage.ErrNotFound) {
				err = fault.Errorf(fault.Invalid, "tag %s not found", id)
			}
			s.writeError(w, r, err)
			return
		}
	}
	if v := form.Value["auto_create"]; len(v) > 0 {
		var err error
		if opts.AutoCreate, err = strconv.ParseBool(v[0]); err != nil {
			s.writeError(w, r, fault.Errorf(fault.Invalid, "auto_create=%q is not true or false", v[0]))
			return
		}
	}
	report := uploadReport{Documents: []storage.Document{}, Duplicates: []uploadDuplicate{}, Errors: []uploadError{}}
	for _, fh := range files {
		o, err := s.importPart(r, fh, opts)
		if err != nil {
			s.writeError(w, r, err) // the client left or the store failed
			return
		}
		switch {
		case o.Err != nil:
			e := uploadError{File: o.File, Error: errorText(r.Context(), s.cfg.Logger, "upload "+o.File, o.Err)}
			if o.Document != nil {
				e.DocumentID = o.Document.ID
				report.Documents = append(report.Documents, *o.Document)
			}
			report.Errors = append(report.Errors, e)
		case o.Duplicate:
			report.Duplicates = append(report.Duplicates, uploadDuplicate{File: o.File, DocumentID: o.Document.ID})
			report.Documents = append(report.Documents, *o.Document)
		default:
			report.Documents = append(report.Documents, *o.Document)
		}
	}
	writeJSON(w, http.StatusOK, report)
}

// importPart imports one uploaded file. The error is for failures that end
// the whole request; a file that cannot be read is in the outcome.
func (s *Server) importPart(r *http.Request, fh *multipart.FileHeader, opts pipeline.Options) (ingest.Outcome, error) {
	ctx := r.Context()
	f, err := fh.Open()
	if err != nil {
		return ingest.Outcome{}, fmt.Errorf("open upload %s: %w", fh.Filename, err)
	}
	defer f.Close()
	// A large part waits in a temporary file: stream it from there rather
	// than reading it into memory (the importer reads it more than once).
	o := s.pipeline.ImportReader(ctx, fh.Filename, f, fh.Size, opts)
	if ctx.Err() != nil {
		return o, ctx.Err()
	}
	return o, nil
}

// documentPassword is the body of POST /api/documents/{id}/password.
type documentPassword struct {
	Password string `json:"password"`
}

// readWithPassword reads a document that failed for want of a password
// again, with the one given: the stored bytes through the importer, which
// keeps the one document (same bytes, same type) and replaces what reading
// it gave. It answers the document; a password that opens nothing is a
// 400 that says so, and the document stays as it was.
func (s *Server) readWithPassword(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var body documentPassword
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	doc, err := s.cfg.DB.GetDocument(ctx, r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if doc.Status != storage.StatusFailed {
		s.writeError(w, r, fault.Errorf(fault.Conflict, "%s is %s: only a document that failed to read is read again with a password", doc.Name, doc.Status))
		return
	}
	if body.Password == "" {
		s.writeError(w, r, fault.Errorf(fault.Invalid, "type the document's password"))
		return
	}
	data, err := s.cfg.DB.DocumentFile(ctx, doc.ID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	o := s.pipeline.ImportBytes(ctx, doc.Name, data, pipeline.Options{Options: ingest.Options{Password: body.Password}})
	if o.Err != nil {
		if errors.Is(o.Err, pdftext.ErrPasswordRequired) {
			s.writeError(w, r, fault.Errorf(fault.Invalid, "that password does not open %s", doc.Name))
			return
		}
		s.writeError(w, r, o.Err)
		return
	}
	if o.Document != nil {
		doc = *o.Document
	}
	writeJSON(w, http.StatusOK, doc)
}
