package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/docent/docent/app/inbox"
	"github.com/docent/docent/app/ingest"
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

func runInbox(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("inbox", flag.ContinueOnError)
	once := fs.Bool("once", false, "")
	asJSON := fs.Bool("json", false, "")
	dirs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) != 1 {
		return usagef("inbox needs one folder\n%s", usageLine("inbox"))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	set, err := inbox.LoadSettings(ctx, db) // after, ignore, stability… as saved
	if err != nil {
		return err
	}
	set.Folder = dirs[0]
	if set, err = set.Check(); err != nil {
		return usagef("%s", fault.ErrorMessage(err))
	}
	failed := 0
	lines := json.NewEncoder(env.IO.Out) // one compact object per line, terminal or not
	lines.SetEscapeHTML(false)
	w := &inbox.Watcher{DB: db, Import: inboxImport(db, env.ModelFlag, env.Logger), Config: set.Config(), Logger: env.Logger,
		OnChange: func(f storage.InboxFile) {
			if f.Status == storage.InboxFailed {
				failed++
			}
			if f.Status != storage.InboxWaiting || !*once {
				fmt.Fprintln(env.IO.Err, inboxLine(f))
			}
			if *asJSON && !*once {
				if err := lines.Encode(f); err != nil {
					env.Logger.Warn("write JSON", "err", err)
				}
			}
		}}
	if !*once {
		fmt.Fprintf(env.IO.Err, "watching %s; press Ctrl-C to stop\n", set.Folder)
		return w.Run(ctx)
	}
	if err := w.Once(ctx); err != nil {
		return err
	}
	if *asJSON {
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

// inboxImport stores one inbox file with the importer, tagged with its
// subfolders, and queues a new document for auto-create (with --model, on
// that model), as `docent import --auto-create` does: the server or
// `docent auto-create --all` runs the queue.
// app/pipeline replaces it, with the stages in their one order.
func inboxImport(db *storage.DB, model string, logger *slog.Logger) inbox.ImportFunc {
	im := &ingest.Importer{DB: db}
	return func(ctx context.Context, f inbox.File) inbox.Outcome {
		file, err := os.Open(f.Path)
		if err != nil {
			return inbox.Outcome{Err: fmt.Errorf("open %s: %w", f.Rel, err)}
		}
		defer file.Close()
		var opts ingest.Options
		for _, name := range f.Tags {
			tag, err := db.EnsureTag(ctx, name)
			if err != nil {
				return inbox.Outcome{Err: fmt.Errorf("tag %q: %w", name, err)}
			}
			opts.TagIDs = append(opts.TagIDs, tag.ID)
		}
		o := im.ImportReader(ctx, f.Path, file, f.Size, opts)
		out := inbox.Outcome{Err: o.Err, Duplicate: o.Duplicate}
		if o.Document == nil {
			return out
		}
		out.DocumentID = o.Document.ID
		if o.Duplicate {
			out.DuplicateOf = o.Document.ID
			return out
		}
		if o.Err == nil {
			if _, err := db.QueueAutoCreate(ctx, model, o.Document.ID); err != nil {
				// Stored all the same: auto-create can be started by hand.
				logger.Warn("inbox: queue for auto-create", "file", f.Rel, "document", o.Document.ID, "err", err)
			}
		}
		return out
	}
}
