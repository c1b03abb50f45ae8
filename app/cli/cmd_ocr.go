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
	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/app/pipeline"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// ocrReport is what `docent ocr --json` prints.
type ocrReport struct {
	Documents []storage.Document `json:"documents"`
	Errors    []importError      `json:"errors"`
	// Engine and Lang are the OCR engine and the language data used;
	// Engine is empty when Tesseract is not installed and PP-OCR or the
	// vision model read the pages.
	Engine string `json:"engine"`
	Lang   string `json:"lang"`
	// PhotoEngine, if set, read the pages of image files in Engine's
	// place, and PDFEngine the PDF pages: PP-OCR, when it is installed
	// and the languages are English (with Tesseract or without).
	PhotoEngine string `json:"photo_engine,omitempty"`
	PDFEngine   string `json:"pdf_engine,omitempty"`
	// Vision is the vision model (--vision, else the one saved in
	// Settings), if one read pages.
	Vision string `json:"vision,omitempty"`
}

// ocrOptions are the flags of `docent ocr`.
type ocrOptions struct {
	// Refs are the documents to read; All reads every document with
	// scanned pages or images instead.
	Refs []string
	All  bool
	// Lang is the OCR languages: --lang, else DOCENT_OCR_LANG, else the
	// locale's language plus English.
	Lang string
	JSON bool
	// Vision is --vision, the vision model; without it the one saved in
	// Settings reads, with its "every page" choice.
	Vision        string
	VisionAll     bool
	VisionTimeout time.Duration // 0: not given, ocr.VisionPageTimeout
}

func parseOCR(args []string) (ocrOptions, error) {
	var o ocrOptions
	fs := flag.NewFlagSet("ocr", flag.ContinueOnError)
	fs.BoolVar(&o.All, "all", false, "")
	lang := fs.String("lang", "", "")
	fs.BoolVar(&o.JSON, "json", false, "")
	fs.StringVar(&o.Vision, "vision", "", "")
	fs.BoolVar(&o.VisionAll, "vision-all", false, "")
	fs.DurationVar(&o.VisionTimeout, "vision-timeout", 0, "")
	refs, err := parseFlags(fs, args)
	if err != nil {
		return o, err
	}
	o.Refs = refs
	if o.All == (len(refs) > 0) {
		return o, usagef("ocr needs documents or --all, not both\n%s", usageLine("ocr"))
	}
	o.Vision = strings.TrimSpace(o.Vision)
	if isFlagSet(fs, "vision-timeout") && o.VisionTimeout <= 0 {
		return o, usagef("--vision-timeout %s: want a positive duration such as 2m", o.VisionTimeout)
	}
	if o.Lang, err = ocrLang(*lang); err != nil {
		return o, usagef("--lang: %s", fault.ErrorMessage(err))
	}
	if o.Vision != "" {
		if _, _, err := provider.ParseModelID(o.Vision); err != nil {
			return o, usagef("--vision: %s", fault.ErrorMessage(err))
		}
	}
	return o, nil
}

// runOCR is `docent ocr (DOC... | --all) [--lang LANGS] [--vision MODEL
// [--vision-all] [--vision-timeout DURATION]]`: it reads the documents'
// image pages again (another language, say), or for the first time those
// waiting for OCR.
//
// --vision MODEL ("ollama/qwen2.5vl:7b", "openai/gpt-4o-mini") adds the
// vision tier (app/ingest/ocr/vision.go): Tesseract (or PP-OCR) reads each
// page, then the model reads photos (pages of image files), pages whose
// confidence is under 0.6 or that gave no words, and every page when
// neither Tesseract nor PP-OCR reads them; --vision-all sends it every page that is
// not blank. --vision-timeout bounds the model on one page (2m). A vision
// run that is stopped resumes at the next page when run again. Without
// --vision the model saved in Settings reads, with its "every page"
// choice (ocr.SettingVision).
func runOCR(ctx context.Context, env *Env, o ocrOptions) error {
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	vision, err := ocrVisionTier(ctx, env, db, o)
	if err != nil {
		return err
	}
	engine, err := ocr.Ready(ctx, o.Lang, vision != nil, env.Logger)
	if err != nil {
		return err
	}
	readers := ocr.EngineReaders(ctx, o.Lang, env.Logger)
	if engine == nil && readers.Photos == "" {
		// Neither Tesseract nor PP-OCR: the model reads every page.
		_, ferr := ocr.FindEngine(ctx)
		fmt.Fprintf(env.IO.Err, "%s; %s reads every page\n", fault.ErrorMessage(ferr), vision.Model)
	}
	ids, err := ocrDocumentIDs(ctx, db, o)
	if err != nil {
		return err
	}
	results := readDocuments(ctx, env, env.pipeline(ctx, db), ids, ocr.Options{Lang: o.Lang, Vision: vision, Logger: env.Logger, Progress: pagesRead(env)})
	report := ocrReport{Documents: []storage.Document{}, Errors: []importError{}, Lang: o.Lang}
	with := report.readers(engine, readers, vision)
	for _, r := range results {
		if r.Err != nil {
			report.Errors = append(report.Errors, importError{File: r.Name, Error: fault.ErrorMessage(r.Err), DocumentID: r.Document.ID})
			continue
		}
		report.Documents = append(report.Documents, r.Document)
	}
	if o.JSON {
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

// ocrVisionTier is the vision tier the run reads with, if any: --vision,
// else the vision model saved in Settings, checked.
func ocrVisionTier(ctx context.Context, env *Env, db *storage.DB, o ocrOptions) (*ocr.Vision, error) {
	model, everyPage := o.Vision, o.VisionAll
	if model == "" {
		// The vision model saved in Settings, as the background worker
		// reads with it; --vision wins.
		saved, err := ocr.SettingVision(ctx, db)
		if err != nil {
			return nil, err
		}
		model, everyPage = saved.Model, everyPage || saved.All
	}
	if model == "" {
		if o.VisionAll || o.VisionTimeout != 0 {
			return nil, usagef("--vision-all and --vision-timeout go with --vision MODEL (or a vision model saved in Settings)\n%s", usageLine("ocr"))
		}
		return nil, nil
	}
	vision, err := ocrVision(ctx, env, model)
	if err != nil {
		return nil, err
	}
	vision.All, vision.PageTimeout = everyPage, cmp.Or(o.VisionTimeout, ocr.VisionPageTimeout)
	return vision, nil
}

// ocrDocumentIDs are the documents the run reads: those named, or with
// --all every document with scanned pages or images.
func ocrDocumentIDs(ctx context.Context, db *storage.DB, o ocrOptions) ([]string, error) {
	if o.All {
		return db.OCRDocuments(ctx)
	}
	var ids []string
	for _, ref := range o.Refs {
		d, err := db.FindDocument(ctx, ref)
		if err != nil {
			return nil, err
		}
		ids = append(ids, d.ID)
	}
	return ids, nil
}

// readers records in the report what read the pages (engine, Tesseract,
// and vision may be nil; r says where PP-OCR reads) and says it for the
// summary line.
func (report *ocrReport) readers(engine *ocr.Engine, r ocr.Readers, vision *ocr.Vision) string {
	with := report.Lang
	switch {
	case engine != nil:
		report.Engine = engine.Name()
		with = fmt.Sprintf("%s (%s)", engine.Name(), report.Lang)
		if r.PPOCR != "" && r.Photos == r.PPOCR {
			report.PhotoEngine = r.PPOCR
			with += ", photos with " + r.PPOCR
		}
		if r.PPOCR != "" && r.PDFPages == r.PPOCR {
			report.PDFEngine = r.PPOCR
			with += ", PDF pages with " + r.PPOCR
		}
	case r.PPOCR != "" && r.Photos == r.PPOCR:
		// Without Tesseract PP-OCR reads every page.
		report.PhotoEngine, report.PDFEngine = r.PPOCR, r.PDFPages
		with = fmt.Sprintf("%s (%s)", r.PPOCR, report.Lang)
	}
	if vision != nil {
		report.Vision = vision.Model
		if engine != nil || report.PhotoEngine != "" {
			with += " and " + vision.Model
		} else {
			with = vision.Model
		}
	}
	return with
}

// ocrLang is the OCR languages: the flag, else DOCENT_OCR_LANG, else the
// locale's language plus English.
func ocrLang(flagValue string) (string, error) {
	if flagValue == "" {
		flagValue = ocr.DefaultLang()
	}
	return ocr.ParseLang(flagValue)
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

// readDocuments reads documents with OCR again (pipeline.Read), with a
// progress bar of documents on stderr.
func readDocuments(ctx context.Context, env *Env, pipe *pipeline.Pipeline, ids []string, opts ocr.Options) []pipeline.ReadResult {
	bar := newProgress(env.IO, len(ids), "OCR")
	defer bar.finish()
	return pipe.Read(ctx, ids, opts, true, func(done, _ int, r pipeline.ReadResult) { bar.step(done, readLine(r)) })
}

// pagesRead prints a line per page read of a document of several pages,
// when stderr is not a terminal (a terminal has the bar of documents).
func pagesRead(env *Env) func(d storage.Document, done, total int) {
	var mu sync.Mutex
	return func(d storage.Document, done, total int) {
		if total > 1 && !env.IO.ErrTTY {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(env.IO.Err, "  %s: page %d of %d read\n", textfmt.Visible(d.Name), done, total)
		}
	}
}

func readLine(r pipeline.ReadResult) string {
	switch {
	case errors.Is(r.Err, context.Canceled):
		return fmt.Sprintf("%s: interrupted", r.Name)
	case r.Err != nil:
		return fmt.Sprintf("%s: %s", r.Name, fault.ErrorMessage(r.Err))
	case r.Document.Error != "":
		return fmt.Sprintf("%s: %s (%s): %s", r.Name, r.Document.Status, textfmt.Count(r.Document.Pages, "page"), r.Document.Error)
	default:
		return fmt.Sprintf("%s: %s (%s)", r.Name, r.Document.Status, textfmt.Count(r.Document.Pages, "page"))
	}
}
