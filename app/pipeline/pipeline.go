// Package pipeline is the one place that orders what happens to a document
// once it arrives, whichever door it came through (`docent import`, the
// HTTP upload, the desktop window's drop, the inbox folder):
//
//  1. stored: its bytes and the text of its pages (app/ingest);
//  2. read: the pages that are images read by OCR (app/ingest/ocr);
//  3. embedded: its chunks' vectors, for search by meaning;
//  4. extracted: its kind recognised and its row extracted with the kind's
//     chosen prompt, or, for a new kind, a proposal made (auto-create);
//     the evidence of each value is found with the extraction.
//
// A running server drives the stages after the first in the background
// (Serve): each stage wakes the next. A command line drives them in the
// foreground for the documents it imported (Finish) and exits. Both run
// the same stage code, and each stage claims its document in the store,
// so a server and a command line on one data directory never do a stage
// twice: one does it, and the other waits for it or reports it.
package pipeline

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/app/ingest"
	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/storage"
)

// Stage is where a document stands in the pipeline.
type Stage string

// The stages, in their order, and the states a document can wait in.
const (
	Stored     Stage = "stored"     // its bytes and text layer are in the store
	Reading    Stage = "reading"    // OCR reads its pages, or will
	Embedding  Stage = "embedding"  // its chunks wait for vectors
	Extracting Stage = "extracting" // auto-create: its kind, its row
	Done       Stage = "done"       // its row, or a proposal waiting for review
	// NeedsPassword: an encrypted PDF waits for its password.
	NeedsPassword Stage = "needs_password"
	Failed        Stage = "failed"
)

// StageOf says where d stands, from what the store holds of it. embedded
// says whether its chunks have their vectors (or no embedding model is
// set), which the document row does not hold.
func StageOf(d storage.Document, embedded bool) Stage {
	switch {
	case d.Status == storage.StatusFailed && d.ErrorCode == storage.ErrorCodePasswordRequired:
		return NeedsPassword
	case d.Status == storage.StatusFailed:
		return Failed
	case d.Status == storage.StatusNeedsOCR || d.Status == storage.StatusOCR:
		return Reading
	case d.AutoCreateStatus == storage.AutoCreatePending || d.AutoCreateStatus == storage.AutoCreateRunning:
		if !embedded {
			return Embedding
		}
		return Extracting
	case d.AutoCreateStatus == storage.AutoCreateFailed:
		return Failed
	case !embedded:
		return Embedding
	case d.AutoCreateStatus == storage.AutoCreateNone:
		return Stored
	}
	return Done
}

// Pipeline drives documents through the stages. Make it with New.
type Pipeline struct {
	db       *storage.DB
	importer *ingest.Importer
	agent    func() *agent.Agent
	logger   *slog.Logger
	changed  func(storage.Document)

	ocr        *ocr.Worker
	autoCreate *agent.AutoCreateScheduler
	embedding  embedding
	embedPoll  time.Duration // embedPoll unless a test sets it
}

// Config is what a pipeline works with.
type Config struct {
	DB *storage.DB
	// Importer stores files; nil means one over DB with default limits.
	Importer *ingest.Importer
	// Agent returns the agent in effect, asked again at each stage (a
	// server's changes with its settings); nil, or a nil agent, leaves
	// the chunks and the auto-create queue waiting.
	Agent func() *agent.Agent
	// OCRLang returns the OCR languages of a background run; nil means
	// the Settings page's (ocr.SettingLang).
	OCRLang func() string
	// OCRVision returns the vision tier of a background run (the Settings
	// page's model); nil means none.
	OCRVision func(ctx context.Context) (*ocr.Vision, error)
	// Changed hears of each document a stage changed: stored, read (page
	// by page), auto-created. Nil hears nothing.
	Changed func(storage.Document)
	// AutoCreateDone hears of each auto-create run as it ends (a row made,
	// a proposal waiting, a failure), with the document as the run left it.
	AutoCreateDone func(ctx context.Context, d storage.Document, res agent.AutoCreateResult, err error)
	Logger         *slog.Logger
}

// New returns a pipeline over cfg. Nothing runs until Serve.
func New(cfg Config) *Pipeline {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	p := &Pipeline{db: cfg.DB, importer: cfg.Importer, agent: cfg.Agent, logger: logger, changed: cfg.Changed,
		embedding: embedding{wake: make(chan struct{}, 1)}}
	if p.importer == nil {
		p.importer = &ingest.Importer{DB: cfg.DB}
	}
	if p.agent == nil {
		p.agent = func() *agent.Agent { return nil }
	}
	p.ocr = ocr.NewWorker(cfg.DB, logger)
	p.ocr.OnDocument = p.afterRead
	p.ocr.Lang = cfg.OCRLang
	if p.ocr.Lang == nil {
		p.ocr.Lang = func() string { return ocr.SettingLang(context.Background(), cfg.DB) }
	}
	p.ocr.VisionSetting = cfg.OCRVision
	p.autoCreate = &agent.AutoCreateScheduler{
		DB:          cfg.DB,
		Logger:      logger,
		Concurrency: backgroundAutoCreates,
		Creator: func() *agent.AutoCreator {
			a := p.agent()
			if a == nil {
				return nil
			}
			return &agent.AutoCreator{Agent: a}
		},
		Done: func(ctx context.Context, d storage.Document, res agent.AutoCreateResult, err error) {
			if err != nil && ctx.Err() == nil {
				logger.Warn("auto-create ended without a proposal", "document", d.ID, "status", res.Status, "err", err,
					"refused", len(res.Refused)) // kept with the document: GET /api/documents/{id}, auto_create_refused
			}
			// The document as the run left it (its kind, its status),
			// read once for its streams and for AutoCreateDone.
			if fresh, gerr := cfg.DB.GetDocument(context.WithoutCancel(ctx), d.ID); gerr == nil {
				d = fresh
				p.notify(d)
			}
			if cfg.AutoCreateDone != nil {
				cfg.AutoCreateDone(ctx, d, res, err)
			}
		},
	}
	return p
}

// backgroundAutoCreates is how many queued documents a server auto-creates
// at once: one, because a local model serves one request at a time anyway;
// the batch command is the tool for running many side by side against a
// hosted API.
const backgroundAutoCreates = 1

// Options apply to every file of one import.
type Options struct {
	ingest.Options
	// AutoCreate queues each stored document for the last stage: its kind
	// recognised and its row extracted, or a proposal for a new kind.
	AutoCreate bool
	// Model is the model its auto-create runs with ("" for the default
	// in effect when it runs).
	Model string
}

// ImportFiles stores the files at paths (the first stage), one worker per
// core, and hands the documents on to the next stages. progress, if not
// nil, hears of each file as it is stored. See ingest.Importer.ImportFiles.
func (p *Pipeline) ImportFiles(ctx context.Context, paths []string, opts Options, progress func(done int, o ingest.Outcome)) []ingest.Outcome {
	outcomes := p.importer.ImportFiles(ctx, paths, opts.Options, progress)
	p.handOn(ctx, outcomes, opts)
	return outcomes
}

// ImportBytes stores one file's bytes under name; see ImportReader.
func (p *Pipeline) ImportBytes(ctx context.Context, name string, data []byte, opts Options) ingest.Outcome {
	return p.ImportReader(ctx, name, bytes.NewReader(data), int64(len(data)), opts)
}

// ImportReader stores one file of size bytes read from src under name, and
// hands it on to the next stages. See ingest.Importer.ImportReader.
func (p *Pipeline) ImportReader(ctx context.Context, name string, src io.ReaderAt, size int64, opts Options) ingest.Outcome {
	outcomes := []ingest.Outcome{p.importer.ImportReader(ctx, name, src, size, opts.Options)}
	p.handOn(ctx, outcomes, opts)
	return outcomes[0]
}

// handOn is the order of the stages after storing: a document whose pages
// are images goes to OCR, every new text to embedding, and with
// opts.AutoCreate every document to the auto-create queue (which takes it
// once it is ready). The outcomes' documents are updated with what the
// queue made of them (pending). In a server, Serve's workers are woken; a
// command line runs them itself (Finish).
func (p *Pipeline) handOn(ctx context.Context, outcomes []ingest.Outcome, opts Options) {
	var ids []string
	for _, o := range outcomes {
		if o.Document == nil {
			continue
		}
		ids = append(ids, o.Document.ID)
		if o.Document.Status == storage.StatusNeedsOCR {
			p.ocr.Wake()
		}
	}
	if len(ids) == 0 {
		return
	}
	if opts.AutoCreate && ctx.Err() == nil {
		queued, err := p.db.QueueAutoCreate(ctx, opts.Model, ids...)
		if err != nil {
			p.logger.Warn("queue auto-create", "err", err)
		}
		byID := map[string]storage.Document{}
		for _, d := range queued {
			byID[d.ID] = d
		}
		for i, o := range outcomes {
			if o.Document == nil {
				continue
			}
			if q, ok := byID[o.Document.ID]; ok {
				outcomes[i].Document = &q
			}
		}
	}
	for _, o := range outcomes {
		if o.Document == nil {
			continue
		}
		if !o.Duplicate {
			p.notify(*o.Document)
		}
		if o.Document.Status == storage.StatusReady && o.Document.AutoCreateStatus == storage.AutoCreatePending {
			p.autoCreate.Wake() // a document read again in place may have waited in the queue
		}
	}
	p.WakeEmbedding() // the new text waits for its vectors
}

// QueueAutoCreate queues documents for the last stage with model ("" for
// the default) and wakes the queue: POST /api/documents/{id}/auto-create.
func (p *Pipeline) QueueAutoCreate(ctx context.Context, model string, ids ...string) ([]storage.Document, error) {
	docs, err := p.db.QueueAutoCreate(ctx, model, ids...)
	if err != nil {
		return nil, err
	}
	if len(docs) > 0 {
		p.autoCreate.Wake()
	}
	return docs, nil
}

// afterRead is told of each document the background OCR changes: it is
// published (its progress), its new text waits for its vectors, and one OCR
// made ready while it was queued for auto-create wakes the queue, which
// runs only ready ones.
func (p *Pipeline) afterRead(d storage.Document) {
	p.notify(d)
	p.WakeEmbedding()
	if d.Status == storage.StatusReady && d.AutoCreateStatus == storage.AutoCreatePending {
		p.autoCreate.Wake()
	}
}

// WakeOCR has the background OCR look for documents now (settings that
// let it run again).
func (p *Pipeline) WakeOCR() { p.ocr.Wake() }

func (p *Pipeline) notify(d storage.Document) {
	if p.changed != nil && d.ID != "" {
		p.changed(d)
	}
}

// Serve drives the stages after storing in the background until ctx ends:
// the OCR of documents that wait for it, the embedding of chunks, and the
// auto-create queue, each woken by the stage before it, and each also
// looking for work at its own interval (documents another process stored,
// a model that was down, a lapsed claim).
func (p *Pipeline) Serve(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { p.ocr.Serve(ctx) })
	wg.Go(func() { p.serveEmbedding(ctx) })
	wg.Go(func() { p.autoCreate.Serve(ctx) })
	wg.Wait()
}
