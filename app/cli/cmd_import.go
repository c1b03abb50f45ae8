package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/app/ingest"
	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/app/pipeline"
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

// importOptions are the flags of `docent import`.
type importOptions struct {
	Paths    []string
	Tags     []string
	Password string
	JSON     bool
	// AutoCreate queues the documents for auto-create, with the global
	// --model, if given, as the model of their runs.
	AutoCreate bool
	// NoOCR leaves scans waiting for OCR; NoEmbed leaves the text for the
	// embedding to come.
	NoOCR, NoEmbed bool
	// Lang is --lang's OCR languages; "" is the Settings page's, else the
	// default.
	Lang string
}

func parseImport(args []string) (importOptions, error) {
	var o importOptions
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.Var((*stringList)(&o.Tags), "tag", "")
	fs.StringVar(&o.Password, "password", "", "")
	fs.BoolVar(&o.JSON, "json", false, "")
	fs.BoolVar(&o.AutoCreate, "auto-create", false, "")
	fs.BoolVar(&o.NoOCR, "no-ocr", false, "")
	fs.BoolVar(&o.NoEmbed, "no-embed", false, "")
	langFlag := fs.String("lang", "", "")
	paths, err := parseFlags(fs, args)
	if err != nil {
		return o, err
	}
	o.Paths = paths
	if len(paths) == 0 {
		return o, usagef("import needs at least one file or folder\n%s", usageLine("import"))
	}
	// The default languages are checked too, though the Settings page's
	// win over them: a DOCENT_OCR_LANG that is no language list is a
	// mistake to say.
	lang, err := ocrLang(*langFlag)
	if err != nil {
		return o, usagef("--lang: %s", fault.ErrorMessage(err))
	}
	if *langFlag != "" {
		o.Lang = lang
	}
	return o, nil
}

func runImport(ctx context.Context, env *Env, o importOptions) error {
	// --model with --auto-create is the model the queued runs use, kept
	// with each document until whoever runs the queue runs it.
	queueModel := ""
	if o.AutoCreate && env.ModelFlag != "" {
		if _, _, err := provider.ParseModelID(env.ModelFlag); err != nil {
			return usagef("--model: %s", fault.ErrorMessage(err))
		}
		queueModel = env.ModelFlag
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	lang := o.Lang
	if lang == "" {
		lang = ocr.SettingLang(ctx, db) // the Settings page's languages, else the default
	}
	// The pipeline stores the files and queues them for auto-create; this
	// process then reads the scans and embeds the text (a model that is
	// down leaves the chunks waiting), so that search finds them at once.
	pipe := env.pipeline(ctx, db)
	imp, err := importPaths(ctx, env, db, pipe, o.Paths, o.Tags, pipeline.Options{
		Options: ingest.Options{Password: o.Password}, AutoCreate: o.AutoCreate, Model: queueModel,
	})
	if err != nil {
		return err
	}
	var finish pipeline.FinishOptions
	if !o.NoOCR {
		finish.OCR = &ocr.Options{Lang: lang, Logger: env.Logger}
	}
	finish.Embed = !o.NoEmbed
	if err := imp.finish(ctx, env, db, pipe, finish); err != nil {
		return err
	}
	if o.JSON {
		if err := writeJSON(env.IO, imp.report); err != nil {
			return err
		}
	}
	imp.printSummary(env)
	if err := ctx.Err(); err != nil {
		return fault.Errorf(fault.Canceled, "import interrupted after %d of %d files; what finished is kept: %w", imp.finished, len(imp.plan.Files), err)
	}
	if o.AutoCreate {
		// Queued only: importing needs no model and stays quick; the queue
		// (with --model, the model of each run) is kept in the store, and
		// `docent auto-create --all` (or the server) runs what is pending.
		queued := 0
		for _, d := range imp.documents {
			if d.AutoCreateStatus == storage.AutoCreatePending {
				queued++
			}
		}
		fmt.Fprintf(env.IO.Err, "queued %s for auto-create; run them with: docent auto-create --all\n", textfmt.Count(queued, "document"))
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
// `import`, `auto-create PATH...` and the desktop window's drop: it plans
// the paths, ensures the tags, and hands every file to the pipeline with a
// progress display on stderr, and reports what happened to each. An
// interrupted import keeps what finished (ctx.Err() tells the caller).
func importPaths(ctx context.Context, env *Env, db *storage.DB, pipe *pipeline.Pipeline, paths, tags []string, opts pipeline.Options) (imported, error) {
	plan, err := ingest.PlanPaths(paths)
	if err != nil {
		return imported{}, err
	}
	for _, name := range tags {
		tag, err := db.EnsureTag(ctx, name)
		if err != nil {
			return imported{}, fmt.Errorf("tag %q: %w", name, err)
		}
		opts.TagIDs = append(opts.TagIDs, tag.ID)
	}

	bar := newProgress(env.IO, len(plan.Files), "importing")
	outcomes := pipe.ImportFiles(ctx, plan.Files, opts, func(done int, o ingest.Outcome) {
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

// finish runs the pipeline's next stages on the imported documents in this
// process (OCR, embedding; see pipeline.Finish), with their progress on
// stderr, and puts what they gave in the report. Without an OCR engine the
// scans stay waiting, and the message says what to install; a model that
// is down leaves the chunks waiting, and says so.
func (imp *imported) finish(ctx context.Context, env *Env, db *storage.DB, pipe *pipeline.Pipeline, opts pipeline.FinishOptions) error {
	if len(imp.documents) == 0 {
		return nil
	}
	var ocrBar, embedBar *progress
	opts.Read = func(done, total int, r pipeline.ReadResult) {
		if ocrBar == nil {
			ocrBar = newProgress(env.IO, total, "OCR")
		}
		ocrBar.step(done, readLine(r))
	}
	if opts.OCR != nil {
		opts.OCR.Progress = pagesRead(env)
	}
	opts.Embedded = func(done, total int, model string) {
		if embedBar == nil {
			embedBar = newProgress(env.IO, total, "embedding")
		}
		embedBar.step(done, fmt.Sprintf("%s embedded with %s", textfmt.Count(done, "chunk"), model))
	}
	if !opts.Embed {
		opts.Embedded = nil
	}
	fin, err := pipe.Finish(ctx, imp.documents, opts)
	for _, bar := range []*progress{ocrBar, embedBar} {
		if bar != nil {
			bar.finish()
		}
	}
	if fin.OCRUnavailable != "" {
		fmt.Fprintf(env.IO.Err, "%s wait for OCR: %s\n", textfmt.Count(fin.Waiting, "document"), fin.OCRUnavailable)
	}
	for _, r := range fin.Read {
		if r.Err != nil && !errors.Is(r.Err, context.Canceled) {
			imp.report.Errors = append(imp.report.Errors, importError{File: r.Name, Error: "OCR: " + fault.ErrorMessage(r.Err), DocumentID: r.Document.ID})
		}
	}
	printEmbedded(ctx, env, fin.Embed)
	if fin.AutoCreateWaits != "" {
		fmt.Fprintf(env.IO.Err, "note: documents wait for auto-create: %s\n", fin.AutoCreateWaits)
	}
	imp.refresh(ctx, db)
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// pipeline is the document pipeline of a command: over the store, with the
// agent in effect (asked when a stage needs it: an import with --no-embed
// reads no provider settings), and run in the foreground (Finish).
func (e *Env) pipeline(ctx context.Context, db *storage.DB) *pipeline.Pipeline {
	return pipeline.New(pipeline.Config{
		DB: db, Logger: e.Logger,
		Agent: func() *agent.Agent {
			live, err := e.Settings(ctx)
			if err != nil {
				e.Logger.Warn("provider settings", "err", err)
				return nil
			}
			return live.Agent()
		},
	})
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
