package inbox

import (
	"context"
	"fmt"
	"os"

	"github.com/docent/docent/app/ingest"
	"github.com/docent/docent/app/pipeline"
	"github.com/docent/docent/storage"
)

// Into is the ImportFunc that hands each stable file to the pipeline:
// stored with its subfolders' names as tags, and queued for the last stage
// (its kind recognised and its row extracted, or a proposal for a new
// kind) with model, "" for the default in effect when it runs.
func Into(pipe *pipeline.Pipeline, db *storage.DB, model string) ImportFunc {
	return func(ctx context.Context, f File) Outcome {
		file, err := os.Open(f.Path)
		if err != nil {
			return Outcome{Err: fmt.Errorf("open %s: %w", f.Rel, err)}
		}
		defer file.Close()
		opts := pipeline.Options{AutoCreate: true, Model: model}
		for _, name := range f.Tags {
			tag, err := db.EnsureTag(ctx, name)
			if err != nil {
				return Outcome{Err: fmt.Errorf("tag %q: %w", name, err)}
			}
			opts.TagIDs = append(opts.TagIDs, tag.ID)
		}
		o := pipe.ImportReader(ctx, f.Path, file, f.Size, opts)
		return outcomeOf(o)
	}
}

// outcomeOf is what the inbox keeps of an import's outcome.
func outcomeOf(o ingest.Outcome) Outcome {
	out := Outcome{Err: o.Err, Duplicate: o.Duplicate}
	if o.Document != nil {
		out.DocumentID = o.Document.ID
		if o.Duplicate {
			out.DuplicateOf = o.Document.ID
		}
	}
	return out
}
