// Package ingest turns files on disk (or uploaded bytes) into documents in the
// store: it recognises the type, reads the text page by page, and records the
// document with its original bytes. The CLI's import and the HTTP upload both
// use it, so a file is treated the same way wherever it comes from.
package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// MaxFileSize bounds one imported file. A file is streamed, not held in
// memory (see text.go); the bound is on what the store keeps per document.
const MaxFileSize = 256 << 20

// Media types Docent imports.
const (
	MediaPDF      = "application/pdf"
	MediaText     = "text/plain"
	MediaMarkdown = "text/markdown"
)

// ErrUnsupported is returned for a file that is neither a PDF, an image
// nor text.
var ErrUnsupported = errors.New("unsupported type")

// ExtractFunc reads the pages of a PDF of size bytes streamed from r. The
// importer uses pdftext.ExtractIsolatedReader, which bounds time and memory
// in a child process.
type ExtractFunc func(ctx context.Context, r io.Reader, size int64, opts pdftext.Options) (pdftext.Result, error)

// Importer stores files as documents.
type Importer struct {
	DB *storage.DB
	// Extract reads PDFs; nil means pdftext.ExtractIsolatedReader with
	// default limits.
	Extract ExtractFunc
	// ProbeImage checks images; nil means ocr.ProbeImage, in a reader
	// child with default limits.
	ProbeImage func(ctx context.Context, r io.Reader, size int64) (ocr.ImageInfo, error)
}

// Options apply to every file of one import.
type Options struct {
	// TagIDs are attached to every new document.
	TagIDs []string
	// Password opens encrypted PDFs whose user password is not empty.
	Password string
	// DecodeImagesLater checks only an image's headers (its type, pages
	// and size; ocr.ProbeImageHeaders), not that every page decodes: the
	// OCR that follows decodes it and fails the document if it cannot.
	// The HTTP upload sets it, so that it answers at once.
	DecodeImagesLater bool
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

// ImportBytes stores one file's bytes under name; see ImportReader.
func (im *Importer) ImportBytes(ctx context.Context, name string, data []byte, opts Options) Outcome {
	return im.ImportReader(ctx, name, bytes.NewReader(data), int64(len(data)), opts)
}

// ImportReader stores the size bytes of src under name. The bytes are
// streamed, never held in memory whole: a first pass hashes them (and tells
// UTF-8 text from Latin-1), the next ones store them and read their text,
// and each of those checks that it read what the first did. It never panics
// and never leaves a half-written document: the store writes a document in
// one transaction.
func (im *Importer) ImportReader(ctx context.Context, name string, src io.ReaderAt, size int64, opts Options) (out Outcome) {
	out = Outcome{File: name}
	defer func() { out.Err = fault.Report(ctx, nil, "import "+name, out.Err) }()
	if size > MaxFileSize {
		out.Err = fault.Errorf(fault.Invalid, "file too large: %d MiB, the limit is %d MiB", size>>20, MaxFileSize>>20)
		return out
	}
	file := func() *io.SectionReader { return io.NewSectionReader(src, 0, size) }
	head := make([]byte, min(size, 1024))
	if _, err := io.ReadFull(file(), head); err != nil {
		out.Err = fault.Errorf(fault.Invalid, "read %s: %w", name, err)
		return out
	}
	media, err := DetectMediaType(name, head)
	if err != nil {
		out.Err = err
		return out
	}
	first, err := survey(file())
	if err != nil {
		out.Err = fault.Errorf(fault.Invalid, "read %s: %w", name, err)
		return out
	}
	existing, err := im.DB.DocumentBySHA256(ctx, first.sha256)
	switch {
	case err == nil && existing.Status != storage.StatusFailed:
		out.Document, out.Duplicate = &existing, true
		return out
	case err == nil && existing.MediaType != media:
		// Reading the failed document again as another type would turn,
		// say, a broken fake.pdf into a "ready" text document still named
		// fake.pdf: keep it as it is and say what to do.
		out.Document, out.Duplicate = &existing, true
		out.Err = fault.Errorf(fault.Conflict, "same bytes as %s (%s), which failed as %s: %s; delete that document to import them as %s",
			existing.Name, existing.ID, existing.MediaType, existing.Error, media)
		return out
	case err != nil && !errors.Is(err, storage.ErrNotFound):
		out.Err = err
		return out
	}
	if err == nil && (media == MediaPDF || ocr.IsImage(media)) {
		// The same bytes failed before as the same type: read them again
		// (perhaps now with the right password) and keep the one document.
		content, words, readErr := im.read(ctx, media, file(), first, opts)
		if stop := abandoned(ctx, readErr); stop != nil {
			out.Err = stop
			return out
		}
		doc, err := im.DB.ReplaceDocumentContent(ctx, existing.ID, content)
		if err != nil {
			out.Err = err
			return out
		}
		out.Document, out.Err = &doc, readErr
		// The words follow in transactions of their own; should one fail,
		// EnsureWords reads the missing ones again when they are needed.
		if err := words.store(ctx, im.DB, doc.ID); err != nil {
			out.Err = err
		}
		return out
	}
	if err == nil { // a text file is never stored as failed: nothing to read again
		out.Document, out.Duplicate = &existing, true
		return out
	}

	nd := storage.NewDocument{
		Name:      filepath.Base(name),
		MediaType: media,
		File:      &storage.FileSource{R: file(), Size: size, SHA256: first.sha256},
		Status:    storage.StatusReady,
		TagIDs:    opts.TagIDs,
	}
	var readErr error
	if media == MediaPDF || ocr.IsImage(media) {
		var content storage.DocumentContent
		var words *textLayer
		content, words, readErr = im.read(ctx, media, file(), first, opts)
		if stop := abandoned(ctx, readErr); stop != nil {
			out.Err = stop
			return out
		}
		nd.WordSource = words.source()
		nd.Status, nd.Error, nd.ErrorCode, nd.Pages, nd.OCRPages = content.Status, content.Error, content.ErrorCode, content.Pages, content.OCRPages
	} else {
		// Decoded while the store writes the document, a page at a time.
		nd.PageSource = textPages(newRecheck(file(), first.crc), !first.utf8, MaxPageChars)
	}
	doc, err := im.DB.CreateDocument(ctx, nd)
	var dup *storage.DuplicateError
	if errors.As(err, &dup) {
		// Another worker stored the same bytes a moment ago.
		out.Document, out.Duplicate = &dup.Existing, true
		return out
	}
	if errors.Is(err, storage.ErrFileChanged) {
		err = storage.ErrFileChanged // what differed is the store's detail, not a person's
	}
	if err != nil {
		out.Err = err
		return out
	}
	out.Document = &doc
	out.Err = readErr
	return out
}

// abandoned returns the error that stops an import before it stores
// anything, or nil: an interrupted import (the next run reads the file
// again) or a file that changed while it was read.
func abandoned(ctx context.Context, readErr error) error {
	switch {
	case readErr == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(readErr, storage.ErrFileChanged):
		return storage.ErrFileChanged
	}
	return nil
}

// read reads a PDF or an image, and the words of a PDF's text layer (nil
// for none).
func (im *Importer) read(ctx context.Context, media string, r *io.SectionReader, first firstPass, opts Options) (storage.DocumentContent, *textLayer, error) {
	if media == MediaPDF {
		return im.readPDF(ctx, r, first, opts)
	}
	content, err := im.readImage(ctx, r, first, opts.DecodeImagesLater)
	return content, nil, err
}

// readImage checks an image in a reader child (its pages, their size
// against the decompression-bomb limit, that each decodes) and gives one
// empty page per image page, all waiting for OCR.
func (im *Importer) readImage(ctx context.Context, r *io.SectionReader, first firstPass, headersOnly bool) (storage.DocumentContent, error) {
	probe := im.ProbeImage
	switch {
	case probe != nil:
	case headersOnly:
		probe = ocr.ProbeImageHeaders
	default:
		probe = ocr.ProbeImage
	}
	checked := newRecheck(r, first.crc)
	info, err := probe(ctx, checked, r.Size())
	if checked.err != nil {
		return storage.DocumentContent{}, checked.err
	}
	if err != nil {
		return storage.DocumentContent{Status: storage.StatusFailed, Error: err.Error()}, fault.Errorf(fault.Invalid, "%w", err)
	}
	content := storage.DocumentContent{Status: storage.StatusNeedsOCR, Pages: make([]string, len(info.Pages)),
		Error: "an image: text recognition (OCR) reads it"}
	for i := range info.Pages {
		content.OCRPages = append(content.OCRPages, i+1)
	}
	return content, nil
}

// readPDF extracts the text of a PDF and the words of its text layer. A
// file whose text cannot be read yields a failed status and the error.
func (im *Importer) readPDF(ctx context.Context, r *io.SectionReader, first firstPass, opts Options) (storage.DocumentContent, *textLayer, error) {
	checked := newRecheck(r, first.crc)
	res, err := orDefault(im.Extract)(ctx, checked, r.Size(), pdftext.Options{Password: opts.Password})
	if checked.err != nil {
		return storage.DocumentContent{}, nil, checked.err // the text is of other bytes
	}
	if err != nil {
		failed := storage.DocumentContent{Status: storage.StatusFailed}
		// A wrong password is ErrPasswordRequired too: the remedy is the
		// same, and the code lets a client offer it.
		if errors.Is(err, pdftext.ErrPasswordRequired) {
			failed.ErrorCode = storage.ErrorCodePasswordRequired
			if opts.Password == "" {
				err = fmt.Errorf("%w (import it again with --password)", err)
			}
		}
		failed.Error = err.Error()
		return failed, nil, fault.Errorf(fault.Invalid, "%w", err)
	}
	words := newTextLayer(res)
	content := storage.DocumentContent{Status: storage.StatusReady, Pages: res.Pages, OCRPages: ocrPages(res)}
	if len(content.OCRPages) > 0 && hasText(res.Pages) {
		content.Status = storage.StatusNeedsOCR
		content.Error = fmt.Sprintf("%s: text recognition (OCR) reads %s", scanPages(content.OCRPages, len(res.Pages)), them(len(content.OCRPages)))
	}
	if !hasText(res.Pages) {
		if drawsSomething(res.Info) {
			content.Status = storage.StatusNeedsOCR
			content.Error = "no text layer: the pages are images (a scan?); text recognition (OCR) is needed to read them"
			if len(content.OCRPages) == 0 { // an extractor without Info: every page
				for i := range res.Pages {
					content.OCRPages = append(content.OCRPages, i+1)
				}
			}
		} else {
			content.Error = "the pages are blank: they have neither text nor images"
			content.OCRPages = nil
		}
	}
	return content, words, nil
}

// Junk text layers: a page whose text layer is short while one image covers
// a large part of it (a fifth or more) is a scan or a picture whose text
// layer is not its text (a watermark, a "trial version" line, a failed
// OCR). OCR reads it, and its text replaces
// the layer's where it reads more (app/ingest/ocr).
const (
	junkLayerChars = 200
	scanCover      = 0.2
)

// ocrPages are the pages (1-based) that OCR should read: pages without
// text that draw something, and short text layers over a large image.
func ocrPages(res pdftext.Result) []int {
	var pages []int
	for i, text := range res.Pages {
		if i >= len(res.Info) {
			break
		}
		info := res.Info[i]
		chars := len(strings.Join(strings.Fields(text), ""))
		switch {
		case chars == 0 && (info.Images > 0 || info.PathSegments >= outlineSegments || info.Incomplete):
			pages = append(pages, i+1)
		case chars > 0 && chars < junkLayerChars && info.ImageCover >= scanCover:
			pages = append(pages, i+1)
		}
	}
	return pages
}

// scanPages names the pages OCR reads, for a message.
func scanPages(pages []int, total int) string {
	if len(pages) == total {
		if total == 1 {
			return "the page is an image with little or no text layer (a scan?)"
		}
		return "the pages are images with little or no text layer (scans?)"
	}
	names := make([]string, 0, min(len(pages), 10))
	for i, p := range pages {
		if i == 10 {
			names = append(names, "…")
			break
		}
		names = append(names, fmt.Sprint(p))
	}
	if len(pages) == 1 {
		return "page " + names[0] + " is an image with little or no text layer"
	}
	return "pages " + strings.Join(names, ", ") + " are images with little or no text layer"
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// outlineSegments is how many path segments make a page without text worth
// reading with OCR: text turned into outlines draws thousands, a rule, a
// frame or a white background a handful.
const outlineSegments = 500

// drawsSomething reports whether any page draws what OCR could read:
// images, or enough vector paths to be text turned into outlines. A page
// that could not be read to the end, and a result without Info (from an
// ExtractFunc that does not report it), count as drawing something, as
// every PDF without text did before.
func drawsSomething(info []pdftext.PageInfo) bool {
	if info == nil {
		return true
	}
	for _, p := range info {
		if p.Images > 0 || p.PathSegments >= outlineSegments || p.Incomplete {
			return true
		}
	}
	return false
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
	case ocr.ImageMediaType(head) != "":
		// An image is recognised by its content, whatever its name.
		return ocr.ImageMediaType(head), nil
	}
	if ext == "" {
		ext = "(no extension)"
	}
	return "", fault.Errorf(fault.Invalid, "%w %s: Docent imports PDF, images (PNG, JPEG, TIFF, WebP, BMP), .txt and .md files", ErrUnsupported, ext)
}

// Supported reports whether a file with this name is one Docent imports, for
// walking folders without reading every file.
func Supported(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".pdf", ".txt", ".text", ".md", ".markdown":
		return true
	}
	return imageExts[strings.ToLower(filepath.Ext(name))] != ""
}

// imageExts are the extensions of the images Docent imports.
var imageExts = map[string]string{
	".png": ocr.MediaPNG, ".jpg": ocr.MediaJPEG, ".jpeg": ocr.MediaJPEG, ".jpe": ocr.MediaJPEG,
	".tif": ocr.MediaTIFF, ".tiff": ocr.MediaTIFF, ".webp": ocr.MediaWebP, ".bmp": ocr.MediaBMP,
}

func hasText(pages []string) bool {
	for _, p := range pages {
		if strings.TrimSpace(p) != "" {
			return true
		}
	}
	return false
}
