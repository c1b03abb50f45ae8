package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sync"

	"github.com/docent/docent/app/ocr"
	"github.com/docent/docent/app/pdftext"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// ocrReport is what `docent ocr --json` prints.
type ocrReport struct {
	Documents []storage.Document `json:"documents"`
	Errors    []importError      `json:"errors"`
	// Engine and Lang are the OCR engine and the language data used.
	Engine string `json:"engine"`
	Lang   string `json:"lang"`
}

// runOCR is `docent ocr (DOC... | --all) [--lang LANGS]`: it reads the
// documents' image pages again (another language, say), or for the first
// time those waiting for OCR.
func runOCR(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("ocr", flag.ContinueOnError)
	all := fs.Bool("all", false, "")
	langFlag := fs.String("lang", "", "")
	asJSON := fs.Bool("json", false, "")
	refs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *all == (len(refs) > 0) {
		return usagef("ocr needs documents or --all, not both\n%s", usageLine("ocr"))
	}
	lang, err := ocrLang(*langFlag)
	if err != nil {
		return usagef("--lang: %s", fault.ErrorMessage(err))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	engine, err := ocrEngine(ctx, lang)
	if err != nil {
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
	results := ocrDocuments(ctx, env, db, ids, lang, true)
	report := ocrReport{Documents: []storage.Document{}, Errors: []importError{}, Engine: engine.Name(), Lang: lang}
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
	fmt.Fprintf(env.IO.Err, "read %s with %s (%s), failed %d\n", plural(len(report.Documents), "document"), engine.Name(), lang, len(report.Errors))
	for _, e := range report.Errors {
		fmt.Fprintf(env.IO.Err, "  %s: %s\n", e.File, e.Error)
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
	results := make([]ocrResult, len(ids))
	jobs := make(chan int)
	var mu sync.Mutex
	docsDone := 0
	bar := newProgress(env.IO, len(ids), "OCR")
	var wg sync.WaitGroup
	for range min(pdftext.MaxReaders(), max(len(ids), 1)) {
		wg.Go(func() {
			for i := range jobs {
				results[i] = ocrOne(ctx, db, ids[i], lang, again, func(d storage.Document, done, total int) {
					if total > 1 && !env.IO.ErrTTY {
						mu.Lock()
						fmt.Fprintf(env.IO.Err, "  %s: page %d of %d read\n", d.Name, done, total)
						mu.Unlock()
					}
				})
				mu.Lock()
				docsDone++
				bar.step(docsDone, ocrLine(results[i]))
				mu.Unlock()
			}
		})
	}
feed:
	for i := range ids {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	bar.finish()
	kept := results[:0]
	for _, r := range results {
		if r.name != "" {
			kept = append(kept, r)
		}
	}
	return kept
}

func ocrOne(ctx context.Context, db *storage.DB, id, lang string, again bool, progress func(storage.Document, int, int)) ocrResult {
	job, err := db.ClaimOCR(ctx, id, again, ocr.Lease)
	if err != nil {
		d, _ := db.GetDocument(ctx, id)
		name := d.Name
		if name == "" {
			name = id
		}
		return ocrResult{name: name, doc: d, err: err}
	}
	doc, err := ocr.Run(ctx, db, &job, ocr.Options{Lang: lang, Progress: progress})
	return ocrResult{name: job.Document.Name, doc: doc, err: err}
}

func ocrLine(r ocrResult) string {
	switch {
	case errors.Is(r.err, context.Canceled):
		return fmt.Sprintf("%s: interrupted", r.name)
	case r.err != nil:
		return fmt.Sprintf("%s: %s", r.name, fault.ErrorMessage(r.err))
	case r.doc.Error != "":
		return fmt.Sprintf("%s: %s (%s): %s", r.name, r.doc.Status, plural(r.doc.Pages, "page"), r.doc.Error)
	default:
		return fmt.Sprintf("%s: %s (%s)", r.name, r.doc.Status, plural(r.doc.Pages, "page"))
	}
}
