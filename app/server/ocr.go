package server

import (
	"net/http"
	"strconv"

	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// OCR in the server: a background worker (started by Start, see
// background.go) reads the documents that wait for OCR, one after the
// other; uploads wake it. These routes show the result: each page's
// source, engine and confidence, its words with their boxes, and a page
// as an image for the viewer.

// pageList answers GET /api/documents/{id}/pages.
type pageList struct {
	Pages []storage.PageDetail `json:"pages"`
}

func (s *Server) documentPages(w http.ResponseWriter, r *http.Request) {
	details, err := s.cfg.DB.PageDetails(r.Context(), r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, pageList{Pages: details})
}

// pagePath reads {page} of a route.
func pagePath(r *http.Request) (int, error) {
	page, err := strconv.Atoi(r.PathValue("page"))
	if err != nil || page < 1 {
		return 0, fault.Errorf(fault.Invalid, "page %q: pages count from 1", r.PathValue("page"))
	}
	return page, nil
}

// pageWords answers GET /api/documents/{id}/pages/{page}/words: the words
// OCR found, each [x, y, w, h, confidence, text] in the pixels of a page
// image of width × height.
func (s *Server) pageWords(w http.ResponseWriter, r *http.Request) {
	page, err := pagePath(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	words, err := s.cfg.DB.PageWords(r.Context(), r.PathValue("id"), page)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, words)
}

// pageImage answers GET /api/documents/{id}/pages/{page}/image: the page
// as PNG (a TIFF's page, which browsers do not show, or a PDF page
// rendered at ?dpi=, default 100), made in a reader child.
func (s *Server) pageImage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	page, err := pagePath(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	dpi := 100
	if r.URL.Query().Has("dpi") {
		if dpi, err = queryInt(r, "dpi"); err == nil && (dpi < 18 || dpi > 600) {
			err = fault.Errorf(fault.Invalid, "dpi must be between 18 and 600")
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	doc, err := s.cfg.DB.GetDocument(ctx, r.PathValue("id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if page > doc.Pages {
		s.writeError(w, r, fault.Errorf(fault.NotFound, "page %d: %s has %d pages", page, doc.Name, doc.Pages))
		return
	}
	if doc.MediaType != "application/pdf" && !ocr.IsImage(doc.MediaType) {
		s.writeError(w, r, fault.Errorf(fault.Invalid, "%s is %s: it has no page images", doc.Name, doc.MediaType))
		return
	}
	data, err := s.cfg.DB.DocumentFile(ctx, doc.ID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	png, err := ocr.PagePNG(ctx, data, doc.MediaType, page, dpi)
	if err != nil {
		s.writeError(w, r, fault.Errorf(fault.Invalid, "page %d of %s: %v", page, doc.Name, err))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("Content-Length", strconv.Itoa(len(png)))
	h.Set("Cache-Control", "private, max-age=3600")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(png)
	}
}

// WakeOCR tells the background worker that documents may wait for OCR
// (files imported outside the upload route, such as the desktop window's
// drops); without it the worker finds them at its next poll.
func (s *Server) WakeOCR() { s.ocr.Wake() }

// afterOCR is told of each document the OCR worker changes: it goes to the
// document's event streams (its progress), and one that OCR made ready
// while it was queued for auto-create (an uploaded photo with auto_create)
// wakes the auto-create queue, which runs only ready ones.
func (s *Server) afterOCR(d storage.Document) {
	s.publishDocument(d)
	s.wakeEmbedding() // the new text waits for its vectors
	if d.Status == storage.StatusReady && d.AutoCreateStatus == storage.AutoCreatePending {
		s.autoCreate.Wake()
	}
}
