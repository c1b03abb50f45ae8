// Package pdftext reads the text of PDF files, page by page, for Docent's
// importer: text good enough for full-text search and for a language model,
// with words separated, lines in reading order and table rows kept on one
// line.
//
// The reader is github.com/ledongthuc/pdf. Files it cannot open (damaged
// cross-reference data, AES-256 or RC4 crypt-filter encryption, filters it
// lacks) are rewritten in pure Go by pdfcpu, or their cross-reference data is
// rebuilt, and read again. Because a parser can loop or allocate without
// bound on hostile input and a goroutine cannot be killed, the importer uses
// ExtractIsolated, which runs Extract in a child process with a time and
// memory limit.
package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ledongthuc/pdf"
)

// Options for one extraction.
type Options struct {
	// Password opens a file encrypted with a user password; the owner
	// password works too. Files whose user password is empty open without.
	Password string `json:"password,omitempty"`
}

// Result of reading one PDF.
type Result struct {
	// Pages holds the text of each page, page 1 first; len(Pages) is the
	// page count. A page without a text layer (a scan) is "".
	Pages []string `json:"pages"`
	// Repaired: the file had to be rewritten (by pdfcpu, or with rebuilt
	// cross-reference data) before it could be read.
	Repaired bool `json:"repaired,omitempty"`
	// Decrypted: the file was encrypted and was decrypted, with the empty
	// user password or the one given.
	Decrypted bool `json:"decrypted,omitempty"`
	// Info says what each page draws besides text, page 1 first (the
	// importer tells a scan from a blank page by it).
	Info []PageInfo `json:"info,omitempty"`
	// Words holds the words of each page with their boxes, page 1 first,
	// parallel to Pages: joined by single spaces, a page's words are its
	// text with the whitespace collapsed (see PageWords).
	Words []PageWords `json:"words,omitempty"`
	// Warnings say what was odd about the file and what was done about it.
	Warnings []string `json:"warnings,omitempty"`
}

// PageInfo is what one page draws besides text, counted over its content
// stream, the forms it draws and its annotations' appearances (a form drawn
// twice counts twice).
type PageInfo struct {
	// Images is how many images the page draws: image XObjects and inline
	// images. A page with images and no text is most likely a scan.
	Images int `json:"images,omitempty"`
	// PathSegments is how many path segments (m, l, c, v, y, re) the page
	// draws: a rule or a background is a few, text turned into outlines is
	// thousands.
	PathSegments int `json:"path_segments,omitempty"`
	// ImageCover is the largest share of the page's area that one image
	// covers, 0 to 1: near 1 for a scan.
	ImageCover float64 `json:"image_cover,omitempty"`
	// Incomplete: the page's content could not be read to the end (a
	// warning says why), so it may draw more than these counts say.
	Incomplete bool `json:"incomplete,omitempty"`
}

// Extract reads the PDF in this process. It may loop or allocate without
// bound on hostile input, so the importer never calls it directly: it exists
// for the child process of ExtractIsolated and for tests and fuzzing. It
// checks ctx between pages and every few thousand content operators, and it
// never panics: a panic becomes ErrMalformed with the panic's text.
func Extract(ctx context.Context, data []byte, opts Options) (res Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = Result{}, malformed("reader failed: %v", r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if len(data) == 0 {
		return Result{}, malformed("empty file")
	}
	if !bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")) {
		return Result{}, malformed("no %%PDF- header: not a PDF file")
	}

	var tries []attempt
	best := func() (Result, error) {
		return chooseAttempt(tries)
	}

	// 1. The file as it is, with ledongthuc alone.
	direct, patched := normaliseHeader(data)
	var directErr error
	if xrefChainLoops(direct) {
		directErr = errors.New("cross-reference chain loops back on itself")
	} else {
		a := readWith(ctx, direct, opts.Password)
		if patched && a.err == nil {
			a.res.Warnings = append(a.res.Warnings, "header is not PDF 1.0-1.7 (PDF 2.0 or damaged): read as PDF 1.7")
		}
		if a.good() || isPasswordError(a.err) && opts.Password == "" {
			return a.result()
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Result{}, ctxErr
		}
		directErr = a.err
		tries = append(tries, a)
	}

	// 2. Rewritten by pdfcpu: repairs, decrypts, decodes.
	rewritten, encrypted, perr := rewriteWithPdfcpu(ctx, data, opts.Password)
	switch {
	case errors.Is(perr, errPdfcpuPassword):
		if opts.Password == "" {
			return Result{}, ErrPasswordRequired
		}
		return Result{}, ErrWrongPassword
	case perr == nil:
		fixed, _ := normaliseHeader(rewritten)
		a := readWith(ctx, fixed, "")
		a.res.Repaired = true
		a.res.Decrypted = a.res.Decrypted || encrypted
		a.res.Warnings = append(a.res.Warnings, rewriteReason(directErr, encrypted))
		if a.good() {
			return a.result()
		}
		tries = append(tries, a)
	default:
		tries = append(tries, attempt{err: perr})
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}

	// 3. Cross-reference data rebuilt from the objects in the file.
	rebuilt, rerr := reconstructXref(direct)
	if rerr == nil {
		a := readWith(ctx, rebuilt, opts.Password)
		if a.err != nil && !isPasswordError(a.err) {
			// ledongthuc still cannot read it (encryption, filters): let
			// pdfcpu read the rebuilt file.
			if again, enc, err := rewriteWithPdfcpu(ctx, rebuilt, opts.Password); err == nil {
				fixed, _ := normaliseHeader(again)
				a = readWith(ctx, fixed, "")
				a.res.Decrypted = a.res.Decrypted || enc
			}
		}
		a.res.Repaired = true
		a.res.Warnings = append(a.res.Warnings, "cross-reference data rebuilt from the objects in the file")
		tries = append(tries, a)
	} else {
		tries = append(tries, attempt{err: fmt.Errorf("rebuilding cross-reference data: %w", rerr)})
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	return best()
}

func rewriteReason(directErr error, encrypted bool) string {
	switch {
	case directErr != nil && encrypted:
		return fmt.Sprintf("decrypted and rewritten by pdfcpu (%v)", directErr)
	case directErr != nil:
		return fmt.Sprintf("repaired by pdfcpu (%v)", directErr)
	default:
		return "rewritten by pdfcpu: some pages could not be read as they were"
	}
}

// attempt is one way of reading the file and how it went.
type attempt struct {
	res     Result
	err     error
	badPage int // pages whose content could not be read to the end
}

// good means the attempt read every page to the end: no need to try more.
func (a attempt) good() bool { return a.err == nil && a.badPage == 0 }

func (a attempt) result() (Result, error) {
	if a.err != nil {
		return Result{}, a.err
	}
	return a.res, nil
}

func (a attempt) chars() int {
	n := 0
	for _, p := range a.res.Pages {
		n += len(p)
	}
	return n
}

// chooseAttempt returns the best of several partial reads: fewest broken
// pages, then most text. Without any read it returns the most telling error.
func chooseAttempt(tries []attempt) (Result, error) {
	best := -1
	for i, a := range tries {
		if a.err != nil {
			continue
		}
		if best < 0 || a.badPage < tries[best].badPage ||
			a.badPage == tries[best].badPage && a.chars() > tries[best].chars() {
			best = i
		}
	}
	if best >= 0 {
		return tries[best].result()
	}
	for _, a := range tries {
		if errors.Is(a.err, ErrNoPages) || isPasswordError(a.err) {
			return Result{}, a.err
		}
	}
	for _, a := range tries {
		if a.err != nil {
			if errors.Is(a.err, ErrMalformed) {
				return Result{}, a.err
			}
			return Result{}, malformed("%v", a.err)
		}
	}
	return Result{}, malformed("unreadable")
}

func isPasswordError(err error) bool {
	return errors.Is(err, ErrPasswordRequired)
}

// readWith opens data with ledongthuc and reads every page.
func readWith(ctx context.Context, data []byte, password string) (a attempt) {
	defer func() {
		if r := recover(); r != nil {
			a = attempt{err: malformed("reader failed: %v", r)}
		}
	}()
	var pw func() string
	if password != "" {
		tried := false
		pw = func() string {
			if tried {
				return ""
			}
			tried = true
			return password
		}
	}
	r, err := pdf.NewReaderEncrypted(bytes.NewReader(data), int64(len(data)), pw)
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) {
			if password == "" {
				return attempt{err: ErrPasswordRequired}
			}
			return attempt{err: ErrWrongPassword}
		}
		return attempt{err: malformed("%s", readerMessage(err))}
	}
	a.res.Decrypted = r.Trailer().Key("Encrypt").Kind() != pdf.Null
	root := r.Trailer().Key("Root").Key("Pages")
	if root.Kind() != pdf.Dict {
		return attempt{err: malformed("no page tree (catalog /Pages missing)")}
	}
	pages, warnings, err := pageList(ctx, root)
	if err != nil {
		return attempt{err: err}
	}
	a.res.Warnings = append(a.res.Warnings, warnings...)
	if len(pages) == 0 {
		return attempt{err: ErrNoPages}
	}
	fonts := map[string]*font{}
	a.res.Pages = make([]string, len(pages))
	a.res.Info = make([]PageInfo, len(pages))
	a.res.Words = make([]PageWords, len(pages))
	for i, p := range pages {
		if err := ctx.Err(); err != nil {
			return attempt{err: err}
		}
		text, words, info, err := readPageText(ctx, p, fonts)
		a.res.Pages[i], a.res.Words[i], a.res.Info[i] = text, words, info
		if words.Omitted {
			a.res.Warnings = append(a.res.Warnings, fmt.Sprintf("page %d: more than %d words: their positions are not kept (the text is)", i+1, MaxPageWords))
		}
		if err != nil {
			if ctx.Err() != nil {
				return attempt{err: ctx.Err()}
			}
			a.res.Info[i].Incomplete = true
			a.badPage++
			a.res.Warnings = append(a.res.Warnings, fmt.Sprintf("page %d: %v", i+1, err))
		}
	}
	return a
}

// readerMessage is the cause of one of ledongthuc's errors at opening a
// file, without its own "malformed PDF" prefix (malformed adds ours). Its
// "not a PDF file: missing %%EOF" names the marker right (a PDF's last line
// is "%%EOF", PDF 32000-1, 7.5.5) but reads like a format string that kept
// its escapes, and calls a truncated PDF not a PDF: it is reworded.
func readerMessage(err error) string {
	msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "malformed PDF: "), "malformed PDF file: ")
	if msg == "not a PDF file: missing %%EOF" {
		return `no end-of-file marker ("%%EOF" on the last line): the file is truncated or is not a PDF`
	}
	return msg
}

// readPageText returns the text of one page, its words, what else it
// draws, and why it stopped early, if it did.
func readPageText(ctx context.Context, page pdf.Value, fonts map[string]*font) (text string, words PageWords, info PageInfo, err error) {
	pr := &pageReader{ctx: ctx, fonts: fonts}
	f := defaultFrame
	defer func() {
		if r := recover(); r != nil {
			var spans []span
			text, spans = layoutText(pr.glyphs)
			words, info, err = pageWords(f, spans), pr.info, fmt.Errorf("%v", r)
		}
	}()
	f = pageFrame(page)
	glyphs, perr := pr.readPage(page, f)
	text, spans := layoutText(glyphs)
	return text, pageWords(f, spans), pr.info, perr
}
