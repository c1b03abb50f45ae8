package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/agent/workpool"
	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// ocrReport is what `docent ocr --json` prints.
type ocrReport struct {
	Documents []storage.Document `json:"documents"`
	Errors    []importError      `json:"errors"`
	// Engine and Lang are the OCR engine and the language data used;
	// Engine is empty when Tesseract is not installed and the vision model
	// read every page.
	Engine string `json:"engine"`
	Lang   string `json:"lang"`
	// PhotoEngine, if set, read the pages of image files in Engine's
	// place, and PDFEngine the PDF pages: PP-OCR, when it is installed
	// and the languages are English.
	PhotoEngine string `json:"photo_engine,omitempty"`
	PDFEngine   string `json:"pdf_engine,omitempty"`
	// Vision is the vision model (--vision, else the one saved in
	// Settings), if one read pages.
	Vision string `json:"vision,omitempty"`
}

// runOCR is `docent ocr (DOC... | --all) [--lang LANGS] [--vision MODEL
// [--vision-all] [--vision-timeout DURATION]]`: it reads the documents'
// image pages again (another language, say), or for the first time those
// waiting for OCR.
//
// --vision MODEL ("ollama/qwen2.5vl:7b", "openai/gpt-4o-mini") adds the
// vision tier (app/ingest/ocr/vision.go): Tesseract reads each page, then the
// model reads photos (pages of image files), pages whose Tesseract
// confidence is under 0.6 or that gave no words, and every page when
// Tesseract is not installed; --vision-all sends it every page that is
// not blank. --vision-timeout bounds the model on one page (2m). A vision
// run that is stopped resumes at the next page when run again. Without
// --vision the model saved in Settings reads, with its "every page"
// choice (ocr.SettingVision).
func runOCR(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("ocr", flag.ContinueOnError)
	all := fs.Bool("all", false, "")
	langFlag := fs.String("lang", "", "")
	asJSON := fs.Bool("json", false, "")
	visionFlag := fs.String("vision", "", "")
	visionAll := fs.Bool("vision-all", false, "")
	visionTimeout := fs.Duration("vision-timeout", ocr.VisionPageTimeout, "")
	refs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *all == (len(refs) > 0) {
		return usagef("ocr needs documents or --all, not both\n%s", usageLine("ocr"))
	}
	model := strings.TrimSpace(*visionFlag)
	if *visionTimeout <= 0 {
		return usagef("--vision-timeout %s: want a positive duration such as 2m", *visionTimeout)
	}
	lang, err := ocrLang(*langFlag)
	if err != nil {
		return usagef("--lang: %s", fault.ErrorMessage(err))
	}
	if model != "" {
		if _, _, err := provider.ParseModelID(model); err != nil {
			return usagef("--vision: %s", fault.ErrorMessage(err))
		}
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	everyPage := *visionAll
	if model == "" {
		// The vision model saved in Settings, as the background worker
		// reads with it; --vision wins.
		saved, err := ocr.SettingVision(ctx, db)
		if err != nil {
			return err
		}
		model, everyPage = saved.Model, everyPage || saved.All
	}
	if model == "" && (*visionAll || isFlagSet(fs, "vision-timeout")) {
		return usagef("--vision-all and --vision-timeout go with --vision MODEL (or a vision model saved in Settings)\n%s", usageLine("ocr"))
	}
	var vision *ocr.Vision
	if model != "" {
		if vision, err = ocrVision(ctx, env, model); err != nil {
			return err
		}
		vision.All, vision.PageTimeout = everyPage, *visionTimeout
	}
	engine, err := ocrEngine(ctx, lang)
	switch {
	case err != nil && vision != nil && errors.Is(err, fault.Unavailable):
		if _, ferr := ocr.FindEngine(ctx); ferr != nil {
			// No Tesseract: the model reads every page.
			fmt.Fprintf(env.IO.Err, "%s; %s reads every page\n", fault.ErrorMessage(ferr), vision.Model)
			engine = nil
			break
		}
		return err // Tesseract is there, the language data is not
	case err != nil:
		return err
	}
	var ids []string
	if *all {
		if ids, err = db.OCRDocuments(ctx); err != nil {
			return err
		}
	} else {
		for _, ref := range refs {
			d, err := db.FindDocument(ctx, ref)
			if err != nil {
				return err
			}
			ids = append(ids, d.ID)
		}
	}
	results := ocrDocumentsWith(ctx, env, db, ids, ocr.Options{Lang: lang, Vision: vision, Logger: env.Logger}, true)
	report := ocrReport{Documents: []storage.Document{}, Errors: []importError{}, Lang: lang}
	with := lang
	if engine != nil {
		report.Engine = engine.Name()
		with = fmt.Sprintf("%s (%s)", engine.Name(), lang)
		if r := ocr.EngineReaders(ctx, lang, env.Logger); r.PPOCR != "" {
			if r.Photos == r.PPOCR {
				report.PhotoEngine = r.PPOCR
				with += ", photos with " + r.PPOCR
			}
			if r.PDFPages == r.PPOCR {
				report.PDFEngine = r.PPOCR
				with += ", PDF pages with " + r.PPOCR
			}
		}
	}
	if vision != nil {
		report.Vision = vision.Model
		if engine != nil {
			with += " and " + vision.Model
		} else {
			with = vision.Model
		}
	}
	for _, r := range results {
		if r.err != nil {
			report.Errors = append(report.Errors, importError{File: r.name, Error: fault.ErrorMessage(r.err), DocumentID: r.doc.ID})
			continue
		}
		report.Documents = append(report.Documents, r.doc)
	}
	if *asJSON {
		if err := writeJSON(env.IO, report); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.IO.Err, "read %s with %s, failed %d\n", textfmt.Count(len(report.Documents), "document"), with, len(report.Errors))
	for _, e := range report.Errors {
		fmt.Fprintf(env.IO.Err, "  %s: %s\n", textfmt.Visible(e.File), textfmt.Visible(e.Error))
	}
	if err := ctx.Err(); err != nil {
		return fault.Errorf(fault.Canceled, "OCR interrupted; what finished is kept: %w", err)
	}
	if len(report.Errors) > 0 {
		return errPartial
	}
	return nil
}

// ocrLang is the OCR languages: the flag, else DOCENT_OCR_LANG, else the
// locale's language plus English.
func ocrLang(flagValue string) (string, error) {
	if flagValue == "" {
		flagValue = ocr.DefaultLang()
	}
	return ocr.ParseLang(flagValue)
}

// ocrEngine finds the engine and checks the languages' data.
func ocrEngine(ctx context.Context, lang string) (*ocr.Engine, error) {
	engine, err := ocr.FindEngine(ctx)
	if err != nil {
		return nil, err
	}
	if err := engine.CheckLangs(lang); err != nil {
		return nil, err
	}
	return engine, nil
}

// ocrVision is the vision tier on model (--vision), on the provider
// settings in effect, checked: the model is there and can see.
func ocrVision(ctx context.Context, env *Env, model string) (*ocr.Vision, error) {
	live, err := env.Settings(ctx)
	if err != nil {
		return nil, err
	}
	v, err := ocr.NewVision(live.Agent().Providers, model)
	if err != nil {
		return nil, err
	}
	if err := v.Check(ctx); err != nil {
		return nil, err
	}
	return v, nil
}

// ocrResult is what OCR did to one document.
type ocrResult struct {
	name string
	doc  storage.Document
	err  error
}

// ocrDocuments reads documents with OCR, as many at once as there are
// reader slots, with progress on stderr (a bar of pages on a terminal, a
// line per page otherwise). again also takes documents that are ready or
// failed (a re-run); without it only those waiting for OCR.
func ocrDocuments(ctx context.Context, env *Env, db *storage.DB, ids []string, lang string, again bool) []ocrResult {
	return ocrDocumentsWith(ctx, env, db, ids, ocr.Options{Lang: lang, Logger: env.Logger}, again)
}

// ocrDocumentsWith is ocrDocuments with the options of each run (the
// languages, the vision tier).
func ocrDocumentsWith(ctx context.Context, env *Env, db *storage.DB, ids []string, opts ocr.Options, again bool) []ocrResult {
	results := make([]ocrResult, len(ids))
	var mu sync.Mutex
	docsDone := 0
	bar := newProgress(env.IO, len(ids), "OCR")
	// A document's failure is its result; only ctx stops the rest.
	_ = workpool.ForEach(ctx, ids, pdftext.MaxReaders(), func(ctx context.Context, i int, id string) error {
		results[i] = ocrOne(ctx, db, id, opts, again, func(d storage.Document, done, total int) {
			if total > 1 && !env.IO.ErrTTY {
				mu.Lock()
				fmt.Fprintf(env.IO.Err, "  %s: page %d of %d read\n", textfmt.Visible(d.Name), done, total)
				mu.Unlock()
			}
		})
		mu.Lock()
		defer mu.Unlock()
		docsDone++
		bar.step(docsDone, ocrLine(results[i]))
		return nil
	})
	bar.finish()
	kept := results[:0]
	for _, r := range results {
		if r.name != "" {
			kept = append(kept, r)
		}
	}
	return kept
}

func ocrOne(ctx context.Context, db *storage.DB, id string, opts ocr.Options, again bool, progress func(storage.Document, int, int)) ocrResult {
	for {
		job, err := db.ClaimOCR(ctx, id, again, ocr.Lease)
		if err == nil {
			opts.Progress = progress
			doc, err := ocr.Run(ctx, db, &job, opts)
			return ocrResult{name: job.Document.Name, doc: doc, err: err}
		}
		d, gerr := db.GetDocument(ctx, id)
		name := cmp.Or(d.Name, id)
		switch {
		case again || gerr != nil:
		case errors.Is(err, storage.ErrConflict) && d.Status == storage.StatusOCR:
			// Another process reads it (docent --serve's worker, beside
			// this import): wait for its end, or for its lease to lapse
			// and take it over.
			select {
			case <-ctx.Done():
				return ocrResult{name: name, doc: d, err: ctx.Err()}
			case <-time.After(ocrWaitPoll):
			}
			continue
		case d.Status == storage.StatusReady:
			return ocrResult{name: name, doc: d} // another process read it
		case d.Status == storage.StatusFailed:
			// Another process tried and failed: its message is the cause.
			return ocrResult{name: name, doc: d, err: fault.Errorf(fault.Invalid, "%s", d.Error)}
		}
		return ocrResult{name: name, doc: d, err: err}
	}
}

// ocrWaitPoll is how often ocrOne looks again at a document that another
// process reads.
var ocrWaitPoll = time.Second

func ocrLine(r ocrResult) string {
	switch {
	case errors.Is(r.err, context.Canceled):
		return fmt.Sprintf("%s: interrupted", r.name)
	case r.err != nil:
		return fmt.Sprintf("%s: %s", r.name, fault.ErrorMessage(r.err))
	case r.doc.Error != "":
		return fmt.Sprintf("%s: %s (%s): %s", r.name, r.doc.Status, textfmt.Count(r.doc.Pages, "page"), r.doc.Error)
	default:
		return fmt.Sprintf("%s: %s (%s)", r.name, r.doc.Status, textfmt.Count(r.doc.Pages, "page"))
	}
}
