package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/docent/docent/app/inbox"
	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/app/pipeline"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// inboxReport is what `docent inbox --once --json` prints: the folder and
// its files as GET /api/inbox lists them.
type inboxReport struct {
	Folder string              `json:"folder"`
	Files  []storage.InboxFile `json:"files"`
}

// inboxListLimit bounds the files --once --json lists.
const inboxListLimit = 100_000

// inboxOptions are the flags of `docent inbox`.
type inboxOptions struct {
	// Folder is the folder to watch, checked by the run against the saved
	// inbox settings.
	Folder string
	// Once imports what is there and exits; JSON prints a line per change,
	// or with Once the folder's files at the end.
	Once, JSON bool
}

func parseInbox(args []string) (inboxOptions, error) {
	var o inboxOptions
	fs := flag.NewFlagSet("inbox", flag.ContinueOnError)
	fs.BoolVar(&o.Once, "once", false, "")
	fs.BoolVar(&o.JSON, "json", false, "")
	dirs, err := parseFlags(fs, args)
	if err != nil {
		return o, err
	}
	if len(dirs) != 1 {
		return o, usagef("inbox needs one folder\n%s", usageLine("inbox"))
	}
	o.Folder = dirs[0]
	return o, nil
}

func runInbox(ctx context.Context, env *Env, o inboxOptions) error {
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	set, err := inbox.LoadSettings(ctx, db) // after, ignore, stability… as saved
	if err != nil {
		return err
	}
	set.Folder = o.Folder
	if set, err = set.Check(); err != nil {
		return usagef("%s", fault.ErrorMessage(err))
	}
	// The inbox hands each stable file to the pipeline; this process then
	// runs the stages after storing: in the background while it watches,
	// as a server does, and with --once for the documents it stored,
	// before it exits, so that their rows are there.
	pipe := env.pipeline(ctx, db)
	var stored []storage.Document
	failed := 0
	lines := json.NewEncoder(env.IO.Out) // one compact object per line, terminal or not
	lines.SetEscapeHTML(false)
	w := &inbox.Watcher{DB: db, Import: inbox.Into(pipe, db, env.ModelFlag), Config: set.Config(), Logger: env.Logger,
		OnChange: func(f storage.InboxFile) {
			if f.Status == storage.InboxFailed {
				failed++
			}
			if f.Status == storage.InboxStored && f.DocumentID != "" {
				stored = append(stored, storage.Document{ID: f.DocumentID})
			}
			if f.Status != storage.InboxWaiting || !o.Once {
				fmt.Fprintln(env.IO.Err, inboxLine(f))
			}
			if o.JSON && !o.Once {
				if err := lines.Encode(f); err != nil {
					env.Logger.Warn("write JSON", "err", err)
				}
			}
		}}
	if !o.Once {
		fmt.Fprintf(env.IO.Err, "watching %s; press Ctrl-C to stop\n", set.Folder)
		served := make(chan struct{})
		go func() { defer close(served); pipe.Serve(ctx) }()
		defer func() { <-served }()
		return w.Run(ctx)
	}
	if err := w.Once(ctx); err != nil {
		return err
	}
	if err := finishStored(ctx, env, db, pipe, stored); err != nil {
		return err
	}
	if o.JSON {
		files, err := db.ListInboxFiles(ctx, set.Folder, inboxListLimit)
		if err != nil {
			return err
		}
		if err := writeJSON(env.IO, inboxReport{Folder: set.Folder, Files: files}); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return fault.Errorf(fault.Canceled, "inbox interrupted; what finished is kept, the rest is taken at the next run: %w", err)
	}
	if failed > 0 {
		return errPartial
	}
	return nil
}

// inboxLine is the one-line account of a file's change, on stderr.
func inboxLine(f storage.InboxFile) string {
	switch f.Status {
	case storage.InboxWaiting:
		return fmt.Sprintf("%s: waiting until it stops changing", f.Rel)
	case storage.InboxStored:
		return fmt.Sprintf("%s: stored as %s", f.Rel, f.DocumentID)
	case storage.InboxDuplicate:
		return fmt.Sprintf("%s: already imported as %s", f.Rel, f.DuplicateOf)
	}
	return fmt.Sprintf("%s: failed: %s", f.Rel, f.Error)
}

// finishStored runs the stages after storing on the documents an inbox
// run stored (OCR, embedding, their kind and row), in this process, with
// their progress on stderr, as `docent auto-create PATH...` does.
func finishStored(ctx context.Context, env *Env, db *storage.DB, pipe *pipeline.Pipeline, stored []storage.Document) error {
	docs := make([]storage.Document, 0, len(stored))
	for _, d := range stored {
		if now, err := db.GetDocument(ctx, d.ID); err == nil {
			docs = append(docs, now)
		}
	}
	imp := imported{documents: docs}
	return imp.finish(ctx, env, db, pipe, pipeline.FinishOptions{
		OCR:   &ocr.Options{Lang: ocr.SettingLang(ctx, db), Logger: env.Logger},
		Embed: true, AutoCreate: true,
	})
}
