// Package ocr reads the text of scans and photos: documents that are
// images (PNG, JPEG, TIFF, WebP, BMP) and PDF pages without a text layer.
// It makes an image of each page in a reader child (decoding or rendering
// hostile files is bounded there as reading PDFs is), reads it with
// PP-OCR when it is installed and spells the languages (ppocr.go), else
// with the system's Tesseract, and stores each page's text with its source, engine,
// language, confidence and word boxes (storage/ocr.go). A run holds a
// document's OCR lease; what it read is stored in one transaction at the
// end, so an interrupted or failed run leaves the document as it was.
//
// A vision model can read the pages Tesseract reads badly, and photos
// (Options.Vision, vision.go). Such a run also keeps each page as it
// finishes, apart from the document's text, so that an interrupted run
// resumes at the next page.
package ocr

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// Lease is how long a run holds a document without renewing it before
// another worker may take it over. A run renews it every third of it
// while it works (renewLease), whatever a page takes, so a short lease
// costs nothing while the run lives; a document whose run was killed
// (kill -9, a power cut) is taken up again by the next worker a minute
// later, not after five as when the lease was renewed only per page.
const Lease = time.Minute

// batchPages is how many page images one child makes at a time, so that a
// 500-page document never has more than a few on disk.
const batchPages = 8

// Options of an OCR run.
type Options struct {
	// Lang is the languages, "deu+eng"; "" means DefaultLang().
	Lang string
	// DPI renders PDF pages that are neither text nor one image; 0 means
	// RenderDPI.
	DPI int
	// PageTimeout bounds tesseract on one page; 0 means PageTimeout.
	PageTimeout time.Duration
	// Limits bound each child that makes page images (0: pdftext's defaults).
	Limits pdftext.Limits
	// Progress, if not nil, is called after each page with how many of the
	// document's pages are done.
	Progress func(doc storage.Document, done, total int)
	// Vision, if not nil, has a vision model read pages as well (vision.go):
	// photos, pages Tesseract reads with a low confidence, and every page
	// when Tesseract is not installed.
	Vision *Vision
	// Logger gets the details of a run that failed inside Docent (the
	// document says they are in the log); nil means slog.Default().
	Logger *slog.Logger
}

// Run reads the pages of a claimed job and stores the text. Whatever
// happens, the job is ended: the document is ready (with a message for
// blank pages), failed with the cause (an image that cannot be decoded, an
// engine that crashed or hung on a page), or back where it was when the
// engine is missing or ctx ends. The returned error says why a run did
// not store text.
func Run(ctx context.Context, db *storage.DB, job *storage.OCRJob, opts Options) (storage.Document, error) {
	doc, pages, err := read(ctx, db, job, opts)
	// The job must end even when ctx has: its store writes get a moment of
	// their own.
	endCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err == nil {
		status, message := storage.StatusReady, summary(pages)
		d, ferr := db.FinishOCR(endCtx, job, pages, status, message)
		return d, ferr
	}
	status := storage.StatusFailed
	var message string
	switch {
	case ctx.Err() != nil:
		status, message = back(job), job.Document.Error
		if job.Previous == storage.StatusNeedsOCR || job.Previous == storage.StatusOCR {
			message = "OCR was interrupted; it runs again with the next docent import, docent ocr or docent --serve"
		}
	case errors.Is(err, fault.Unavailable):
		status, message = back(job), fault.ErrorMessage(err)
	default:
		// The cause is named on the document; what has no name here is
		// logged, whole, for the message that says to look there.
		err = fault.Report(ctx, opts.Logger, "OCR of document "+job.Document.ID, namedCause(err))
		message = "OCR failed: " + fault.ErrorMessage(err)
	}
	if job.Previous == storage.StatusReady && status == storage.StatusReady {
		message = doc.Error // a re-run that could not start keeps the old text and message
	}
	if _, ferr := db.FailOCR(endCtx, job, status, message); ferr != nil {
		return doc, errors.Join(err, ferr)
	}
	d, _ := db.GetDocument(endCtx, job.Document.ID)
	return d, err
}

// namedCause gives the errors of the reader children and of the page
// images (a child out of memory, a crash, a time limit, an image too
// large or unreadable) the code they are shown with: their own messages
// say what happened, and shown as internal errors they said nothing.
func namedCause(err error) error {
	var c fault.Coder
	if errors.As(err, &c) {
		return err
	}
	switch {
	case errors.Is(err, pdftext.ErrTimeout):
		return fault.Errorf(fault.Timeout, "%w", err)
	case errors.Is(err, pdftext.ErrTooLarge), errors.Is(err, pdftext.ErrMalformed), errors.Is(err, pdftext.ErrNoPages),
		errors.Is(err, pdftext.ErrPasswordRequired):
		return fault.Errorf(fault.Invalid, "%w", err)
	}
	return err
}

// back is the status a job that could not run returns its document to.
func back(job *storage.OCRJob) string {
	if job.Previous == storage.StatusReady || job.Previous == storage.StatusFailed {
		return job.Previous
	}
	return storage.StatusNeedsOCR
}

func read(ctx context.Context, db *storage.DB, job *storage.OCRJob, opts Options) (storage.Document, []storage.OCRPage, error) {
	doc := job.Document
	vision := opts.Vision
	lang := opts.Lang
	if lang == "" {
		lang = DefaultLang()
	}
	lang, err := ParseLang(lang)
	if err != nil {
		return doc, nil, err
	}
	pdf := doc.MediaType == "application/pdf"
	if !pdf && !IsImage(doc.MediaType) {
		return doc, nil, fault.Errorf(fault.Invalid, "OCR reads images and PDFs, not %s", doc.MediaType)
	}
	// PP-OCR reads the pages when it is installed and spells the
	// languages (usePPOCR); else Tesseract. Without Tesseract, PP-OCR
	// or the vision model reads alone.
	engine, pp, err := findReaders(ctx, lang, vision != nil, opts.Logger)
	if err != nil {
		return doc, nil, err
	}
	data, err := db.DocumentFile(ctx, doc.ID)
	if err != nil {
		return doc, nil, err
	}
	dir, err := os.MkdirTemp("", "docent-ocr-")
	if err != nil {
		return doc, nil, err
	}
	defer os.RemoveAll(dir)
	dpi := opts.DPI
	if dpi <= 0 {
		dpi = RenderDPI
	}
	layer := map[int]string{}
	for i, p := range job.Pages {
		layer[p] = job.Texts[i]
	}

	// A vision run keeps each page as it finishes, and takes up what an
	// interrupted run of the same kind kept.
	total := len(job.Pages)
	todo := job.Pages
	kept := map[int]storage.OCRPage{}
	var key string
	visionPixels := 0
	if vision != nil {
		key, visionPixels = vision.runKey(engine, lang, dpi), vision.maxPixels()
		if kept, err = db.KeptOCRPages(ctx, job, key); err != nil {
			return doc, nil, err
		}
		todo = slices.DeleteFunc(slices.Clone(job.Pages), func(p int) bool { _, ok := kept[p]; return ok })
	}
	pages := make([]storage.OCRPage, 0, total)
	for _, p := range kept {
		pages = append(pages, p)
	}
	var mu sync.Mutex
	done := len(kept)
	if done > 0 {
		if err := db.OCRProgress(ctx, job, done, Lease); err != nil {
			return doc, nil, err
		}
		if opts.Progress != nil {
			doc.OCRPagesDone, doc.OCRPagesTotal = done, total
			opts.Progress(doc, done, total)
		}
	}
	// A page may take minutes (Tesseract's PageTimeout, a wait for a
	// reader slot or for a vision model's turn): the lease is renewed
	// meanwhile, not only when a page finishes.
	stop := renewLease(ctx, db, job, func() int { mu.Lock(); defer mu.Unlock(); return done })
	defer stop()

	pagesLim, scale, tesseractImage := pageImaging(ctx, data, pdf, pp, dir, opts.Limits)
	// What the pages read so far told of the document's language.
	var docLanguage docLang

	for start := 0; start < len(todo); start += batchPages {
		batch := todo[start:min(start+batchPages, len(todo))]
		images, err := runPages(ctx, data, pagesRequest{PDF: pdf, Pages: batch, Dir: dir, DPI: dpi, CacheDir: wasmCacheDir(),
			VisionPixels: visionPixels, Scale: scale}, pagesLim)
		if err != nil {
			return doc, nil, fmt.Errorf("making the image of pages %d-%d: %w", batch[0], batch[len(batch)-1], err)
		}
		results, err := readPages(ctx, engine, pp, lang, images, data, layer, tesseractImage, opts, &docLanguage, func(p storage.OCRPage) error {
			if vision != nil {
				if err := db.KeepOCRPage(ctx, job, key, p); err != nil {
					return err
				}
			}
			mu.Lock()
			defer mu.Unlock()
			done++
			if err := db.OCRProgress(ctx, job, done, Lease); err != nil {
				return err
			}
			if opts.Progress != nil {
				doc.OCRPagesDone, doc.OCRPagesTotal = done, total
				opts.Progress(doc, done, total)
			}
			return nil
		})
		for _, img := range images {
			os.Remove(img.File)
			if img.VisionFile != "" {
				os.Remove(img.VisionFile)
			}
		}
		if err != nil {
			return doc, nil, err
		}
		pages = append(pages, results...)
	}
	slices.SortFunc(pages, func(a, b storage.OCRPage) int { return a.Page - b.Page })
	return doc, pages, nil
}

// pageImaging is how the page images of a document (data, a PDF when
// pdf) are made, within what limits and at what scale, for the engines
// that read them (pp when PP-OCR is installed), and tesseractImage, the
// image Tesseract reads of a page when PP-OCR read it or failed on it;
// dir holds the images.
//
// The page images of a document PP-OCR reads are made in children of
// PP-OCR's kind (reader children are pooled by memory limit) that
// keep its models loaded. Made in the 1 GiB children, the two kinds
// took turns in the reader slots, and an idle PP-OCR child, stopped
// whenever the other kind needed its slot, loaded the models again
// for nearly every page: 43 loads for 40 receipts read two at a time.
// They are not enlarged for Tesseract (PP-OCR reads the file at its
// own size), which would leave the child holding hundreds of MB more;
// a page Tesseract reads after PP-OCR is made again, enlarged
// (tesseractImage). A memory limit the caller set is kept.
func pageImaging(ctx context.Context, data []byte, pdf bool, pp *ppocrEngine, dir string, lim pdftext.Limits) (
	pagesLim pdftext.Limits, scale *scaleRule, tesseractImage func(PageImage) (PageImage, error)) {
	pagesLim = lim
	tesseractImage = func(img PageImage) (PageImage, error) { return img, nil }
	if pp != nil && !pdf && pagesLim.MemoryBytes == 0 {
		pagesLim, scale = ppocrLimits(lim.Timeout), &scaleRule{}
		tesseractImage = func(img PageImage) (PageImage, error) {
			os.Remove(img.File) // the new one has its name
			imgs, err := runPages(ctx, data, pagesRequest{Pages: []int{img.Page}, Dir: dir}, lim)
			if err != nil {
				return img, err
			}
			return imgs[0], nil
		}
	}
	return pagesLim, scale, tesseractImage
}

// renewLease renews the job's lease every third of Lease until the
// returned stop is called, with the count of pages done.
func renewLease(ctx context.Context, db *storage.DB, job *storage.OCRJob, done func() int) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(Lease / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				// A lease lost shows at the next page's store.
				_ = db.OCRProgress(ctx, job, done(), Lease)
			}
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}

// readPage reads one page image, of a document of that page alone
// (readPages).
func readPage(ctx context.Context, engine *Engine, pp *ppocrEngine, lang string, img PageImage, data []byte, layerText string,
	tesseractImage func(PageImage) (PageImage, error), opts Options) (storage.OCRPage, error) {
	f, err := firstRead(ctx, engine, pp, lang, img, data, tesseractImage, opts)
	defer f.cleanup()
	if err != nil {
		return f.page, err
	}
	return finishPage(ctx, engine, lang, f, "", layerText, tesseractImage, opts)
}

// readPages reads a batch of a document's page images side by side:
// with PP-OCR (pp, when installed) if it reads such a page (usePPOCR),
// else or when it fails with Tesseract (engine, when installed; without
// it, a page PP-OCR fails on is the vision model's, or an error); again
// with Tesseract in the page's language when its text is in another
// installed language than lang, or, when the page is too short to tell
// its language, in its document's (readInPageLang); then with the vision
// model when opts.Vision wants the page. A blank page is read by none.
// A page that had a text layer (layer, by page) keeps it unless OCR
// reads more. data is the document's file, which PP-OCR decodes itself,
// in colour and at its own size; tesseractImage gives the image
// Tesseract reads of a page PP-OCR failed on.
//
// Every page of the batch is read first; then doc, what the document's
// pages read so far told of its language (this batch's and those
// before), gives the short pages theirs. finished, if not nil, is called
// with each page as it is done.
func readPages(ctx context.Context, engine *Engine, pp *ppocrEngine, lang string, imgs []PageImage, data []byte, layer map[int]string,
	tesseractImage func(PageImage) (PageImage, error), opts Options, doc *docLang, finished func(storage.OCRPage) error) ([]storage.OCRPage, error) {
	firsts := make([]firstReading, len(imgs))
	errs := make([]error, len(imgs))
	defer func() {
		for _, f := range firsts {
			f.cleanup()
		}
	}()
	var wg sync.WaitGroup
	for i, img := range imgs {
		// Recognize waits for a reader slot.
		wg.Go(func() { firsts[i], errs[i] = firstRead(ctx, engine, pp, lang, img, data, tesseractImage, opts) })
	}
	wg.Wait()
	if err := pagesErr(imgs, errs); err != nil {
		return nil, err
	}
	for _, f := range firsts {
		doc.add(f.told)
	}
	pages := make([]storage.OCRPage, len(imgs))
	for i := range imgs {
		wg.Go(func() {
			if pages[i], errs[i] = finishPage(ctx, engine, lang, firsts[i], doc.lang, layer[imgs[i].Page], tesseractImage, opts); errs[i] == nil && finished != nil {
				errs[i] = finished(pages[i])
			}
		})
	}
	wg.Wait()
	if err := pagesErr(imgs, errs); err != nil {
		return nil, err
	}
	return pages, nil
}

// pagesErr is the first error of a batch's pages, saying which page.
func pagesErr(imgs []PageImage, errs []error) error {
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("page %d: %w", imgs[i].Page, err)
		}
	}
	return nil
}

// firstReading is a page as its first reader read it.
type firstReading struct {
	page storage.OCRPage
	// img is the image the page was read from: a page PP-OCR missed text
	// of is read at full resolution (readMissed).
	img PageImage
	// read says a reader gave the page a text (a blank page has none);
	// byPPOCR that it was PP-OCR, from img as scaled for PP-OCR, so that
	// Tesseract needs an image of its own (tesseractImage) to read it
	// again.
	read, byPPOCR bool
	// told is what the text tells of the page's language.
	told pageTold
	// remove are the images made for the page's reading beside img's
	// file, which its caller made.
	remove []string
}

// cleanup removes the images made for the page's reading.
func (f firstReading) cleanup() {
	for _, file := range f.remove {
		os.Remove(file)
	}
}

// firstRead reads a page image with PP-OCR or Tesseract in lang, as
// readPages says, and what its text tells of the page's language.
func firstRead(ctx context.Context, engine *Engine, pp *ppocrEngine, lang string, img PageImage, data []byte,
	tesseractImage func(PageImage) (PageImage, error), opts Options) (firstReading, error) {
	p := storage.OCRPage{Page: img.Page, Source: storage.SourceOCR, Lang: lang,
		Words: &storage.PageWords{Width: img.Width, Height: img.Height, DPI: img.DPI}}
	f := firstReading{img: img}
	tesseractMade := false // img was made for Tesseract (readMissed)
	if engine != nil {
		p.Engine = engine.NameForPage(lang, img.Method)
	}
	if img.Blank {
		p.Note = "blank page"
		f.page = p
		return f, nil
	}
	if pp != nil {
		// An image file's page is read from the file, in colour and at
		// its own size; a PDF page from its rendered image.
		src, page, dpi := data, img.Page, img.Density
		if img.Method != "image" {
			var err error
			if src, err = os.ReadFile(img.File); err != nil {
				f.page = p
				return f, fmt.Errorf("reading the page's image: %w", err)
			}
			page, dpi = 1, img.DPI
		}
		rep, err := pp.Read(ctx, src, page, opts.PageTimeout)
		switch {
		case err == nil:
			words := rep.Words
			words.DPI = dpi // the pixels PP-OCR read
			p.Engine, p.Text, p.Words, p.Confidence = pp.Name(), rep.Text, &words, confidence(words.Words)
			f.read = true
			if engine == nil && !usePPOCR(lang) {
				addNote(&p, ppocrAlone(lang))
			}
			// A page of small print PP-OCR's detection could not see
			// is read by Tesseract too (dense.go).
			if why := missedLines(img, rep.Lines); why != "" {
				if p, img, err = readMissed(ctx, engine, lang, img, p, why, tesseractImage, opts); err != nil {
					f.page = p
					return f, err
				}
				// img is Tesseract's now, whichever reading was kept.
				f.img, tesseractMade = img, true
			}
		case ctx.Err() != nil:
			f.page = p
			return f, ctx.Err()
		case engine == nil && opts.Vision == nil:
			// Nothing else reads the page: the document fails with
			// what would.
			f.page = p
			return f, fault.Errorf(fault.Invalid, "%s on the page: %s; Tesseract, which would read it, is not installed: %s",
				NotePPOCRFailed, err.Error(), installHint(nil))
		case engine == nil:
			opts.logger().Warn("PP-OCR failed on a page; the vision model reads it", "page", img.Page, "err", err.Error())
			p.Note = NotePPOCRFailed + ": " + err.Error() + "; the vision model reads the page, Tesseract not being installed"
		default:
			// Tesseract reads the page; the note says why, in the
			// child's own words (PP-OCR's errors name their cause: a
			// detection of thousands of boxes, a child out of memory).
			msg := err.Error()
			opts.logger().Warn("PP-OCR failed on a page; Tesseract reads it", "page", img.Page, "err", msg)
			p.Note = NotePPOCRFailed + ": " + msg + "; Tesseract read the page"
			if img, err = tesseractImage(img); err != nil {
				f.page = p
				return f, fmt.Errorf("making the page's image for Tesseract: %w", err)
			}
			f.img, f.remove = img, append(f.remove, img.File)
			p.Words = &storage.PageWords{Width: img.Width, Height: img.Height, DPI: img.DPI}
		}
	}
	f.byPPOCR = f.read && pp != nil && p.Engine == pp.Name() && !tesseractMade
	if engine != nil && !f.read {
		text, words, err := engine.RecognizePage(ctx, img, lang, opts.tesseractLimits())
		if err != nil {
			f.page = p
			return f, err
		}
		p.Text, p.Words.Words, p.Confidence = text, words, confidence(words)
		f.read = true
	}
	if f.read {
		f.told = tellPageLang(p.Text, strings.Split(lang, "+"), engine.installedLangs())
	}
	f.page = p
	return f, nil
}

// finishPage reads a page after its first reading f: again in its
// language, or in its document's (docLang, "" when it has none) when it
// is too short to tell its own, and with the vision model, as readPages
// says; layerText is its text layer's text.
func finishPage(ctx context.Context, engine *Engine, lang string, f firstReading, docLang string, layerText string,
	tesseractImage func(PageImage) (PageImage, error), opts Options) (storage.OCRPage, error) {
	p, img := f.page, f.img
	if img.Blank {
		return p, nil
	}
	if f.read {
		var err error
		if p, err = readInPageLang(ctx, engine, lang, img, p, f.byPPOCR, f.told, docLang, tesseractImage, opts); err != nil {
			return p, err
		}
		// IBANs OCR misread are repaired where their own check digits
		// prove the repair (iban.go).
		repairIBANs(&p)
	}
	if v := opts.Vision; v != nil && v.wants(img, p, f.read) {
		var err error
		if p, err = v.read(ctx, img, p, f.read); err != nil {
			return p, err
		}
	}
	if strings.TrimSpace(layerText) != "" && alnum(p.Text) <= alnum(layerText) {
		p.Text, p.Source = layerText, storage.SourceTextLayer
		p.Note = "OCR read no more than the text layer, which is kept"
	}
	if p.Text == "" && p.Note == "" {
		p.Note = "OCR found no text"
	}
	return p, nil
}

// readInPageLang reads the page p again with Tesseract in its language
// and lang ("deu+eng") when the text of its first read (by PP-OCR when
// byPPOCR) is, or is partly, in a language that lang does not hold and
// whose data is installed (told, guessPageLang), or when the page is too
// short to tell its language and its document's is docLang; and returns
// the page as that read gives it, with the engine, languages and a note
// saying so; else p as it is, also when the read again fails (with a
// note saying why). A photo PP-OCR read is read from the image
// tesseractImage makes, as when PP-OCR fails.
func readInPageLang(ctx context.Context, engine *Engine, lang string, img PageImage, p storage.OCRPage, byPPOCR bool,
	told pageTold, docLang string, tesseractImage func(PageImage) (PageImage, error), opts Options) (storage.OCRPage, error) {
	g, partly, fromDoc := told.lang, told.partly, false
	if g == "" && !told.tells && docLang != "" {
		g, fromDoc = docLang, true
	}
	if g == "" {
		return p, nil
	}
	langs := g + "+" + lang
	if engine == nil {
		addNote(&p, pageLangUnread(g, partly, fromDoc, lang, langs))
		return p, nil
	}
	// A read again that fails keeps the first, which is a page's text all
	// the same: the note and the log say why.
	kept := func(err error) (storage.OCRPage, error) {
		if ctx.Err() != nil {
			return p, ctx.Err()
		}
		msg := err.Error()
		opts.logger().Warn("reading a page again in its language failed; the first read is kept", "page", img.Page, "langs", langs, "err", msg)
		addNote(&p, fmt.Sprintf("%s failed: reading the page again with %s: %s; the first read, in %s, is kept", NoteReadInLang, langs, msg, lang))
		return p, nil
	}
	if byPPOCR {
		t, err := tesseractImage(img)
		if err != nil {
			return kept(fmt.Errorf("making the page's image for Tesseract: %w", err))
		}
		if t.File != img.File {
			defer os.Remove(t.File)
		}
		img = t
	}
	text, words, err := engine.RecognizePage(ctx, img, langs, opts.tesseractLimits())
	if err != nil {
		return kept(err)
	}
	why := pageLangNote(g, partly, fromDoc, p.Engine, lang, langs)
	first := describeReading(p.Engine, p.Words.Words, p.Confidence) + spelt(p.Words.Words)
	again := describeReading("Tesseract", words, confidence(words)) + spelt(words)
	if !readsBetter(words, p.Words.Words) {
		addNote(&p, why+fmt.Sprintf("; %s, %s: the first reading is kept, the second being no better", first, again))
		return p, nil
	}
	note := why + fmt.Sprintf("; %s, %s: the second reading is kept", first, again)
	p.Engine, p.Lang = engine.NameForPage(langs, img.Method), langs
	p.Text, p.Confidence = text, confidence(words)
	p.Words = &storage.PageWords{Width: img.Width, Height: img.Height, DPI: img.DPI, Words: words}
	addNote(&p, note)
	return p, nil
}

// addNote adds note to the page's notes.
func addNote(p *storage.OCRPage, note string) {
	if p.Note != "" {
		note = p.Note + "; " + note
	}
	p.Note = note
}

// tesseractLimits bounds one Tesseract run on a page: the page's time
// and the reader's memory.
func (o Options) tesseractLimits() pdftext.Limits {
	return pdftext.Limits{Timeout: o.PageTimeout, MemoryBytes: o.Limits.MemoryBytes}
}

func alnum(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

// summary is the document's message after OCR: what a user should know
// about pages that gave no text.
func summary(pages []storage.OCRPage) string {
	var blank, empty []string
	for _, p := range pages {
		switch p.Note {
		case "blank page":
			blank = append(blank, fmt.Sprint(p.Page))
		case "OCR found no text":
			empty = append(empty, fmt.Sprint(p.Page))
		}
	}
	var parts []string
	switch {
	case len(blank) > 0 && len(blank) == len(pages) && len(pages) == 1:
		parts = append(parts, "the page is blank: OCR found nothing to read")
	case len(blank) > 0 && len(blank) == len(pages):
		parts = append(parts, "the pages are blank: OCR found nothing to read")
	case len(blank) == 1:
		parts = append(parts, "page "+blank[0]+" is blank")
	case len(blank) > 1:
		parts = append(parts, "pages "+strings.Join(blank, ", ")+" are blank")
	}
	switch {
	case len(empty) == 1:
		parts = append(parts, "OCR found no text on page "+empty[0])
	case len(empty) > 1:
		parts = append(parts, "OCR found no text on pages "+strings.Join(empty, ", "))
	}
	return strings.Join(append(parts, visionSummary(pages)...), "; ")
}

// visionSummary says on which pages the vision model's guards stopped it.
func visionSummary(pages []storage.OCRPage) []string {
	var parts []string
	for _, c := range []struct{ note, says string }{
		{NoteRepetitionCut, "the vision model repeated itself on %s: the text before the loop is kept"},
		{NoteOutputCap, "the vision model's answer reached its length limit on %s"},
		{NoteTimedOut, "the vision model timed out on %s"},
		{NoteVisionFailed, "the vision model failed on %s"},
		{NotePPOCRFailed, "PP-OCR could not read %s, which Tesseract read (the page's note says why)"},
	} {
		var on []string
		for _, p := range pages {
			if strings.HasPrefix(p.Note, c.note) {
				on = append(on, fmt.Sprint(p.Page))
			}
		}
		switch {
		case len(on) == 1:
			parts = append(parts, fmt.Sprintf(c.says, "page "+on[0]))
		case len(on) > 1:
			parts = append(parts, fmt.Sprintf(c.says, "pages "+strings.Join(on, ", ")))
		}
	}
	return parts
}
