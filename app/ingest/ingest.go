// Package ingest turns files on disk (or uploaded bytes) into documents in the
// store: it recognises the type, reads the text page by page, and records the
// document with its original bytes. The CLI's import and the HTTP upload both
// use it, so a file is treated the same way wherever it comes from.
package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/docent/docent/app/pdftext"
	"github.com/docent/docent/storage"
)

// MaxFileSize bounds one imported file: its bytes are held in memory while it
// is read and are stored in the database beside its text.
const MaxFileSize = 256 << 20

// Media types Docent imports.
const (
	MediaPDF      = "application/pdf"
	MediaText     = "text/plain"
	MediaMarkdown = "text/markdown"
)

// ErrUnsupported is returned for a file that is neither a PDF nor text.
var ErrUnsupported = errors.New("unsupported type")

// ExtractFunc reads the pages of a PDF. The importer uses
// pdftext.ExtractIsolated, which bounds time and memory in a child process.
type ExtractFunc func(ctx context.Context, data []byte, opts pdftext.Options) (pdftext.Result, error)

// Importer stores files as documents.
type Importer struct {
	DB *storage.DB
	// Extract reads PDFs; nil means pdftext.ExtractIsolated with default limits.
	Extract ExtractFunc
}

// Options apply to every file of one import.
type Options struct {
	// TagIDs are attached to every new document.
	TagIDs []string
	// Password opens encrypted PDFs whose user password is not empty.
	Password string
}

// Outcome is what happened to one file.
type Outcome struct {
	// File is the path or upload name the file came from.
	File string `json:"file"`
	// Document is the stored document: new, re-read, or the one that already
	// had these bytes.
	Document *storage.Document `json:"document,omitempty"`
	// Duplicate is true when the same bytes had been imported before and
	// nothing was stored.
	Duplicate bool `json:"duplicate,omitempty"`
	// Err says why the file could not be read. A PDF that could not be read is
	// still stored (status failed) so that its error stays visible beside the
	// other documents; Document is set then too.
	Err error `json:"-"`
}

// ImportBytes stores one file's bytes under name. It never panics and never
// leaves a half-written document: the store writes a document in one
// transaction.
func (im *Importer) ImportBytes(ctx context.Context, name string, data []byte, opts Options) Outcome {
	out := Outcome{File: name}
	if len(data) > MaxFileSize {
		out.Err = fmt.Errorf("file too large: %d MiB, the limit is %d MiB", len(data)>>20, MaxFileSize>>20)
		return out
	}
	media, err := DetectMediaType(name, data)
	if err != nil {
		out.Err = err
		return out
	}
	sum := sha256.Sum256(data)
	existing, err := im.DB.DocumentBySHA256(ctx, hex.EncodeToString(sum[:]))
	switch {
	case err == nil && existing.Status != storage.StatusFailed:
		out.Document, out.Duplicate = &existing, true
		return out
	case err != nil && !errors.Is(err, storage.ErrNotFound):
		out.Err = err
		return out
	}

	content, readErr := im.read(ctx, media, data, opts)
	if readErr != nil && ctx.Err() != nil {
		out.Err = ctx.Err() // interrupted: store nothing, the next run reads it again
		return out
	}
	var doc storage.Document
	if err == nil {
		// The same bytes failed before: read them again (perhaps now with the
		// right password) and keep the one document.
		doc, err = im.DB.ReplaceDocumentContent(ctx, existing.ID, content)
	} else {
		doc, err = im.DB.CreateDocument(ctx, storage.NewDocument{
			Name:      filepath.Base(name),
			MediaType: media,
			Data:      data,
			Status:    content.Status,
			Error:     content.Error,
			Pages:     content.Pages,
			TagIDs:    opts.TagIDs,
		})
		var dup *storage.DuplicateError
		if errors.As(err, &dup) {
			// Another worker stored the same bytes a moment ago.
			out.Document, out.Duplicate = &dup.Existing, true
			return out
		}
	}
	if err != nil {
		out.Err = err
		return out
	}
	out.Document = &doc
	out.Err = readErr
	return out
}

// read extracts the text of a file of the given media type. A file whose text
// cannot be read yields a failed status and the error.
func (im *Importer) read(ctx context.Context, media string, data []byte, opts Options) (storage.DocumentContent, error) {
	if media != MediaPDF {
		return storage.DocumentContent{Status: storage.StatusReady, Pages: textPages(data)}, nil
	}
	extract := im.Extract
	if extract == nil {
		extract = func(ctx context.Context, data []byte, opts pdftext.Options) (pdftext.Result, error) {
			return pdftext.ExtractIsolated(ctx, data, opts, pdftext.Limits{})
		}
	}
	res, err := extract(ctx, data, pdftext.Options{Password: opts.Password})
	if err != nil {
		if errors.Is(err, pdftext.ErrPasswordRequired) && opts.Password == "" {
			err = fmt.Errorf("%w (import it again with --password)", err)
		}
		return storage.DocumentContent{Status: storage.StatusFailed, Error: err.Error()}, err
	}
	content := storage.DocumentContent{Status: storage.StatusReady, Pages: res.Pages}
	if !hasText(res.Pages) {
		content.Status = storage.StatusNeedsOCR
		content.Error = "no text layer: the pages are images (a scan?); text recognition (OCR) is needed to read them"
	}
	return content, nil
}

// DetectMediaType tells what kind of document the file is, from its content
// first (a PDF is a PDF whatever its name) and then from its extension.
func DetectMediaType(name string, data []byte) (string, error) {
	ext := strings.ToLower(filepath.Ext(name))
	head := data[:min(len(data), 1024)]
	switch {
	case ext == ".txt" || ext == ".text":
		return MediaText, nil
	case ext == ".md" || ext == ".markdown":
		return MediaMarkdown, nil
	case ext == ".pdf" || bytes.Contains(head, []byte("%PDF-")):
		// Readers accept junk before the header, so look a little way in.
		return MediaPDF, nil
	}
	if ext == "" {
		ext = "(no extension)"
	}
	return "", fmt.Errorf("%w %s: Docent imports PDF, .txt and .md files", ErrUnsupported, ext)
}

// Supported reports whether a file with this name is one Docent imports, for
// walking folders without reading every file.
func Supported(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".pdf", ".txt", ".text", ".md", ".markdown":
		return true
	}
	return false
}

// textPages splits a text file into pages at form feeds, the one page break
// plain text has. Bytes that are not UTF-8 are read as Latin-1, which is what
// older text files usually are, instead of being dropped.
func textPages(data []byte) []string {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	text := string(data)
	if !utf8.Valid(data) {
		runes := make([]rune, len(data))
		for i, b := range data {
			runes[i] = rune(b)
		}
		text = string(runes)
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	pages := strings.Split(text, "\f")
	if len(pages) > 1 && strings.TrimSpace(pages[len(pages)-1]) == "" {
		pages = pages[:len(pages)-1] // a trailing form feed ends the last page
	}
	return pages
}

func hasText(pages []string) bool {
	for _, p := range pages {
		if strings.TrimSpace(p) != "" {
			return true
		}
	}
	return false
}
