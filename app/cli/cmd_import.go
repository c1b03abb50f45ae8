package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/app/ingest"
	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// importReport is what `docent import --json` prints; the HTTP upload answers
// with the same documents/errors pair.
type importReport struct {
	Documents  []storage.Document `json:"documents"`
	Duplicates []importDuplicate  `json:"duplicates"`
	Errors     []importError      `json:"errors"`
	Skipped    map[string]int     `json:"skipped"`
}

// ImportReport is importReport by a name the generator of the web UI's
// types (app/internal/tsgen) can reach: the desktop window sends it with
// each desktop.ImportedEvent.
type ImportReport = importReport

type importDuplicate struct {
	File       string `json:"file"`
	DocumentID string `json:"document_id"`
}

type importError struct {
	File       string `json:"file"`
	Error      string `json:"error"`
	DocumentID string `json:"document_id,omitempty"`
}

func runImport(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	var tags stringList
	fs.Var(&tags, "tag", "")
	password := fs.String("password", "", "")
	asJSON := fs.Bool("json", false, "")
	autoCreate := fs.Bool("auto-create", false, "")
	noOCR := fs.Bool("no-ocr", false, "")
	noEmbed := fs.Bool("no-embed", false, "")
	langFlag := fs.String("lang", "", "")
	paths, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usagef("import needs at least one file or folder\n%s", usageLine("import"))
	}
	// --model with --auto-create is the model the queued runs use, kept
	// with each document until whoever runs the queue runs it.
	queueModel := ""
	if *autoCreate && env.ModelFlag != "" {
		if _, _, err := provider.ParseModelID(env.ModelFlag); err != nil {
			return usagef("--model: %s", fault.ErrorMessage(err))
		}
		queueModel = env.ModelFlag
	}
	lang, err := ocrLang(*langFlag)
	if err != nil {
		return usagef("--lang: %s", fault.ErrorMessage(err))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	imp, err := importPaths(ctx, env, db, paths, tags, *password)
	if err != nil {
		return err
	}
	if *langFlag == "" {
		lang = ocr.SettingLang(ctx, db) // the Settings page's languages, else the default
	}
	if !*noOCR && ctx.Err() == nil {
		imp.readScans(ctx, env, db, lang)
	}
	if !*noEmbed && ctx.Err() == nil && len(imp.documents) > 0 {
		// The text of every document, new or found already there, is
		// embedded before import exits, so that search by meaning finds
		// it at once; a model that is down leaves it waiting.
		live, err := env.Settings(ctx)
		if err != nil {
			return err
		}
		if emb := live.Agent().Embedder; emb.On() {
			if err := embedMissing(ctx, env, emb, ""); err != nil {
				return err
			}
		}
	}
	if *asJSON {
		if err := writeJSON(env.IO, imp.report); err != nil {
			return err
		}
	}
	imp.printSummary(env)
	if err := ctx.Err(); err != nil {
		return fault.Errorf(fault.Canceled, "import interrupted after %d of %d files; what finished is kept: %w", imp.finished, len(imp.plan.Files), err)
	}
	if *autoCreate {
		// Queue only: importing needs no model and stays quick; the queue
		// (with --model, the model of each run) is kept in the store, and
		// `docent auto-create --all` (or the server) runs what is pending.
		ids := make([]string, 0, len(imp.documents))
		for _, d := range imp.documents {
			ids = append(ids, d.ID)
		}
		queued, err := db.QueueAutoCreate(ctx, queueModel, ids...)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.IO.Err, "queued %s for auto-create; run them with: docent auto-create --all\n", textfmt.Count(len(queued), "document"))
	}
	if len(imp.report.Errors) > 0 {
		return errPartial
	}
	return nil
}

// imported is what importPaths did.
type imported struct {
	report importReport
	plan   ingest.Plan
	// documents are the documents the files are now, new or found already
	// there, in the order of the files.
	documents []storage.Document
	finished  int
}

// importPaths is the import use case of the command line, shared by
// `import` and `auto-create PATH...`: it plans the paths, ensures the tags,
// imports every file with a progress display on stderr, and reports what
// happened to each. An interrupted import keeps what finished (ctx.Err()
// tells the caller).
func importPaths(ctx context.Context, env *Env, db *storage.DB, paths, tags []string, password string) (imported, error) {
	plan, err := ingest.PlanPaths(paths)
	if err != nil {
		return imported{}, err
	}
	var opts ingest.Options
	opts.Password = password
	for _, name := range tags {
		tag, err := db.EnsureTag(ctx, name)
		if err != nil {
			return imported{}, fmt.Errorf("tag %q: %w", name, err)
		}
		opts.TagIDs = append(opts.TagIDs, tag.ID)
	}

	bar := newProgress(env.IO, len(plan.Files), "importing")
	im := &ingest.Importer{DB: db}
	outcomes := im.ImportFiles(ctx, plan.Files, opts, func(done int, o ingest.Outcome) {
		bar.step(done, outcomeLine(o))
	})
	bar.finish()

	imp := imported{plan: plan}
	imp.report = importReport{Documents: []storage.Document{}, Duplicates: []importDuplicate{}, Errors: []importError{}, Skipped: plan.Skipped}
	for _, o := range outcomes {
		switch {
		case errors.Is(o.Err, context.Canceled):
			continue // interrupted before it finished: the next import reads it
		case o.Err != nil:
			e := importError{File: o.File, Error: fault.ErrorMessage(o.Err)} // the importer logged an internal error
			if o.Document != nil {
				e.DocumentID = o.Document.ID
			}
			imp.report.Errors = append(imp.report.Errors, e)
		case o.Duplicate:
			imp.report.Duplicates = append(imp.report.Duplicates, importDuplicate{File: o.File, DocumentID: o.Document.ID})
			imp.documents = append(imp.documents, *o.Document)
		default:
			imp.report.Documents = append(imp.report.Documents, *o.Document)
			imp.documents = append(imp.documents, *o.Document)
		}
		imp.finished++
	}
	return imp, nil
}

// readScans runs OCR on the imported documents that wait for it, and
// puts what it gave in the report. Without an OCR engine they stay
// waiting, and their message says what to install.
func (imp *imported) readScans(ctx context.Context, env *Env, db *storage.DB, lang string) {
	var ids []string
	for _, d := range imp.documents {
		if d.Status == storage.StatusNeedsOCR || d.Status == storage.StatusOCR {
			ids = append(ids, d.ID)
		}
	}
	if len(ids) == 0 {
		return
	}
	if _, err := ocrEngine(ctx, lang); err != nil {
		msg := fault.ErrorMessage(err)
		if _, nerr := db.NoteOCRUnavailable(ctx, msg); nerr != nil {
			env.Logger.Warn("note that OCR is unavailable", "err", nerr)
		}
		fmt.Fprintf(env.IO.Err, "%s wait for OCR: %s\n", textfmt.Count(len(ids), "document"), msg)
		imp.refresh(ctx, db)
		return
	}
	for _, r := range ocrDocuments(ctx, env, db, ids, lang, false) {
		if r.err != nil && !errors.Is(r.err, context.Canceled) {
			imp.report.Errors = append(imp.report.Errors, importError{File: r.name, Error: "OCR: " + fault.ErrorMessage(r.err), DocumentID: r.doc.ID})
		}
	}
	imp.refresh(ctx, db)
}

// refresh reads the report's documents again (OCR changed them).
func (imp *imported) refresh(ctx context.Context, db *storage.DB) {
	for _, list := range [][]storage.Document{imp.report.Documents, imp.documents} {
		for i, d := range list {
			if fresh, err := db.GetDocument(ctx, d.ID); err == nil {
				list[i] = fresh
			}
		}
	}
}

// printSummary says on stderr what the import did.
func (imp imported) printSummary(env *Env) {
	r := imp.report
	summary := fmt.Sprintf("imported %d, already there %d, failed %d", len(r.Documents), len(r.Duplicates), len(r.Errors))
	if s := imp.plan.SkippedSummary(); s != "" {
		summary += "; " + s
	}
	fmt.Fprintln(env.IO.Err, summary)
	if len(r.Errors) > 0 {
		fmt.Fprintln(env.IO.Err, "failed:")
		for _, e := range r.Errors {
			fmt.Fprintf(env.IO.Err, "  %s: %s\n", textfmt.Visible(e.File), textfmt.Visible(e.Error))
		}
	}
}

// outcomeLine is the one-line account of one imported file.
func outcomeLine(o ingest.Outcome) string {
	switch {
	case errors.Is(o.Err, context.Canceled):
		return fmt.Sprintf("%s: interrupted", o.File)
	case o.Err != nil:
		return fmt.Sprintf("%s: failed: %s", o.File, fault.ErrorMessage(o.Err))
	case o.Duplicate:
		return fmt.Sprintf("%s: already imported as %s", o.File, o.Document.ID)
	case o.Document.Status == storage.StatusNeedsOCR:
		return fmt.Sprintf("%s: imported as %s, needs OCR", o.File, o.Document.ID)
	case o.Document.Error != "": // read, with something to say (blank pages)
		return fmt.Sprintf("%s: imported as %s (%s): %s", o.File, o.Document.ID, textfmt.Count(o.Document.Pages, "page"), o.Document.Error)
	default:
		return fmt.Sprintf("%s: imported as %s (%s)", o.File, o.Document.ID, textfmt.Count(o.Document.Pages, "page"))
	}
}

// progress reports long work on stderr: a bar redrawn in place on a
// terminal, one plain line per item otherwise.
type progress struct {
	ios   *IOStreams
	total int
	verb  string
}

func newProgress(ios *IOStreams, total int, verb string) *progress {
	return &progress{ios: ios, total: total, verb: verb}
}

func (p *progress) step(done int, line string) {
	if !p.ios.ErrTTY {
		fmt.Fprintf(p.ios.Err, "[%d/%d] %s\n", done, p.total, textfmt.Visible(line))
		return
	}
	const width = 30
	filled := width * done / max(p.total, 1)
	fmt.Fprintf(p.ios.Err, "\r\033[K%s [%s%s] %d/%d %s", p.verb,
		strings.Repeat("█", filled), strings.Repeat("·", width-filled), done, p.total, textfmt.Shorten(textfmt.Visible(line), 60))
}

func (p *progress) finish() {
	if p.ios.ErrTTY {
		fmt.Fprint(p.ios.Err, "\r\033[K")
	}
}
