package pipeline

import (
	"cmp"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/docent/docent/agent/workpool"
	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// The foreground: a command line runs the stages after storing itself,
// for the documents it stored, and reports on each, rather than leave them
// to a server that may not be running.

// FinishOptions say which stages Finish runs, and who hears of them.
type FinishOptions struct {
	// OCR reads the documents that wait for it, with these languages (and
	// vision tier); nil leaves them waiting.
	OCR *ocr.Options
	// Embed embeds the chunks still without a vector.
	Embed bool
	// AutoCreate runs the last stage for the documents queued for it
	// (Options.AutoCreate): their kind recognised and their row extracted,
	// or a proposal for a new kind, one after the other as a server's
	// queue runs them. Without it they stay queued, for a server or
	// `docent auto-create --all`.
	AutoCreate bool
	// Read hears of each document OCR finished (done of total); Embedded
	// of each batch of chunks embedded.
	Read     func(done, total int, r ReadResult)
	Embedded func(done, total int, model string)
}

// Finished is what Finish did.
type Finished struct {
	// Read is what OCR made of each document that waited for it.
	Read []ReadResult
	// OCRUnavailable says why the documents that wait for OCR still wait
	// (no engine, no language data), "" when OCR ran or had nothing to do.
	OCRUnavailable string
	// Waiting is how many of them still wait for OCR.
	Waiting int
	Embed   EmbedReport
	// AutoCreated is how many documents the last stage ran on;
	// AutoCreateWaits says why those queued for it still wait (no model
	// is set), "" when it ran.
	AutoCreated     int
	AutoCreateWaits string
}

// Finish runs, in this process and in their order, the stages after
// storing that docs still need: OCR (opts.OCR), then the embedding of the
// chunks (opts.Embed), then auto-create for those queued for it
// (opts.AutoCreate). When ctx ends it returns what finished; the rest
// waits for the next run.
func (p *Pipeline) Finish(ctx context.Context, docs []storage.Document, opts FinishOptions) (Finished, error) {
	var fin Finished
	if opts.OCR != nil && ctx.Err() == nil {
		var ids []string
		for _, d := range docs {
			if d.Status == storage.StatusNeedsOCR || d.Status == storage.StatusOCR {
				ids = append(ids, d.ID)
			}
		}
		if len(ids) > 0 {
			if err := ocrReady(ctx, opts.OCR); err != nil {
				fin.OCRUnavailable, fin.Waiting = fault.ErrorMessage(err), len(ids)
				if _, nerr := p.db.NoteOCRUnavailable(ctx, fin.OCRUnavailable); nerr != nil {
					p.logger.Warn("note that OCR is unavailable", "err", nerr)
				}
			} else {
				fin.Read = p.Read(ctx, ids, *opts.OCR, false, opts.Read)
			}
		}
	}
	if opts.Embed && ctx.Err() == nil {
		var err error
		if fin.Embed, err = p.Embed(ctx, opts.Embedded); err != nil {
			return fin, err
		}
	}
	if opts.AutoCreate && ctx.Err() == nil {
		var queued []storage.Document
		a := p.agent()
		for _, d := range docs {
			// Read again: OCR has made some ready since.
			now, err := p.db.GetDocument(ctx, d.ID)
			if err != nil || now.Status != storage.StatusReady || now.AutoCreateStatus != storage.AutoCreatePending {
				continue
			}
			if now.AutoCreateModel == "" && (a == nil || a.DefaultModel == "") {
				// Queued without a model, and none is set: it waits for
				// one rather than fail.
				fin.AutoCreateWaits = "no model is set (pass --model, set DOCENT_MODEL, or choose a default model in Settings)"
				continue
			}
			queued = append(queued, now)
		}
		p.autoCreate.RunAll(ctx, queued)
		fin.AutoCreated = len(queued)
	}
	return fin, ctx.Err()
}

// ocrReady checks that OCR can run with opts: Tesseract and the
// languages' data are there, or PP-OCR or a vision model reads in their
// place (ocr.Ready).
func ocrReady(ctx context.Context, opts *ocr.Options) error {
	_, err := ocr.Ready(ctx, cmp.Or(opts.Lang, ocr.DefaultLang()), opts.Vision != nil, opts.Logger)
	return err
}

// ReadResult is what OCR made of one document.
type ReadResult struct {
	Name     string
	Document storage.Document
	Err      error
}

// Read reads documents with OCR in this process, as many at once as there
// are reader slots; done, if not nil, hears of each as it ends, one at a
// time. again also takes documents that are ready or failed (a re-run);
// without it only those that wait for OCR. A document another process
// reads (a server's background OCR) is waited for, and its result
// reported. Results come in the order of ids; those ctx kept from
// starting are left out.
func (p *Pipeline) Read(ctx context.Context, ids []string, opts ocr.Options, again bool, done func(done, total int, r ReadResult)) []ReadResult {
	results := make([]ReadResult, len(ids))
	var mu sync.Mutex
	finished := 0
	// A document's failure is its result; only ctx stops the rest.
	_ = workpool.ForEach(ctx, ids, pdftext.MaxReaders(), func(ctx context.Context, i int, id string) error {
		results[i] = p.readOne(ctx, id, opts, again)
		mu.Lock()
		defer mu.Unlock()
		finished++
		if done != nil {
			done(finished, len(ids), results[i])
		}
		return nil
	})
	kept := results[:0]
	for _, r := range results {
		if r.Name != "" {
			kept = append(kept, r)
		}
	}
	return kept
}

// readWaitPoll is how often readOne looks again at a document that
// another process reads.
var readWaitPoll = time.Second

func (p *Pipeline) readOne(ctx context.Context, id string, opts ocr.Options, again bool) ReadResult {
	for {
		job, err := p.db.ClaimOCR(ctx, id, again, ocr.Lease)
		if err == nil {
			doc, err := ocr.Run(ctx, p.db, &job, opts)
			return ReadResult{Name: job.Document.Name, Document: doc, Err: err}
		}
		d, gerr := p.db.GetDocument(ctx, id)
		name := cmp.Or(d.Name, id)
		switch {
		case again || gerr != nil:
		case errors.Is(err, storage.ErrConflict) && d.Status == storage.StatusOCR:
			// Another process reads it (docent --serve's worker, beside
			// this import): wait for its end, or for its lease to lapse
			// and take it over.
			select {
			case <-ctx.Done():
				return ReadResult{Name: name, Document: d, Err: ctx.Err()}
			case <-time.After(readWaitPoll):
			}
			continue
		case d.Status == storage.StatusReady:
			return ReadResult{Name: name, Document: d} // another process read it
		case d.Status == storage.StatusFailed:
			// Another process tried and failed: its message is the cause.
			return ReadResult{Name: name, Document: d, Err: fault.Errorf(fault.Invalid, "%s", d.Error)}
		}
		return ReadResult{Name: name, Document: d, Err: err}
	}
}

// EmbedReport is what Embed did.
type EmbedReport struct {
	// Model is the embedding model, "" when none is set (nothing to do).
	Model string
	// Embedded chunks now have a vector; Waiting still wait, because of
	// Err (the model is down, a spending limit), for the next run.
	Embedded, Waiting int
	Err               error
}

// Embed embeds, in this process, the chunks still without a vector by the
// embedding model in effect; progress, if not nil, hears of each batch. A
// model that fails leaves the rest waiting (EmbedReport.Err), as the
// background embedding does: search by words works meanwhile. Only an
// interruption is returned as an error.
func (p *Pipeline) Embed(ctx context.Context, progress func(done, total int, model string)) (EmbedReport, error) {
	emb := p.embedder()
	if !emb.On() {
		return EmbedReport{}, nil
	}
	rep := EmbedReport{Model: emb.Model}
	st, err := emb.Progress(ctx, "")
	if err != nil {
		return rep, err
	}
	left := st.Chunks - st.Embedded
	if left <= 0 {
		return rep, nil
	}
	n, err := emb.EmbedMissing(ctx, func(done int) {
		if progress != nil {
			progress(min(done, left), left, emb.Model)
		}
	})
	rep.Embedded, rep.Waiting = n, max(left-n, 0)
	if ctx.Err() != nil {
		return rep, fault.Errorf(fault.Canceled, "embedding interrupted after %d chunks; what was embedded is kept: %w", n, ctx.Err())
	}
	rep.Err = err
	return rep, nil
}
