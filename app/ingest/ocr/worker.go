package ocr

import (
	"context"
	"log/slog"
	"time"

	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// Worker reads, one after the other, the documents waiting for OCR, for
// `docent --serve` and the desktop app: documents imported with images,
// and those an earlier process left (a lapsed lease is taken over). Pages
// of a document are read side by side in the reader slots of
// app/ingest/pdftext, so the worker shares the machine with imports and
// with other readers.
type Worker struct {
	DB *storage.DB
	// Lang returns the OCR languages; nil means DefaultLang.
	Lang   func() string
	Logger *slog.Logger
	// Poll is how often the worker looks for work without being woken
	// (lapsed leases, documents another process imported); 0 means half
	// a Lease, so that a document whose run was killed is taken up again
	// soon after its lease lapses.
	Poll time.Duration
	// OnDocument, if not nil, is called when a document changes: claimed,
	// after each batch of pages, and at the end.
	OnDocument func(storage.Document)
	// Vision, if not nil, is the vision tier of every run (vision.go),
	// checked by whoever sets it (Vision.Check); with it the worker runs
	// without Tesseract too.
	Vision *Vision
	// VisionSetting, if not nil, gives the vision tier in place of Vision,
	// asked before each document (the Settings page's model, which can
	// change while the worker runs): nil for none. An error (the model is
	// gone, cannot see, its server is down) keeps OCR off as a missing
	// engine does: documents wait, noted with the cause, for the model or
	// another setting.
	VisionSetting func(ctx context.Context) (*Vision, error)

	wake chan struct{}
	// dataNote is the last DataNote logged, so it is logged when it changes.
	dataNote string
}

// NewWorker returns a worker over db.
func NewWorker(db *storage.DB, logger *slog.Logger) *Worker {
	if logger == nil {
		logger = slog.Default()
	}
	return &Worker{DB: db, Logger: logger, wake: make(chan struct{}, 1)}
}

// Wake tells the worker that a document may wait for OCR (an upload).
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Serve runs until ctx ends. Without an OCR engine it notes on every
// waiting document what to install, and looks again when woken or at the
// next poll.
func (w *Worker) Serve(ctx context.Context) {
	poll := w.Poll
	if poll <= 0 {
		poll = Lease / 2
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	missing := ""
	for {
		for ctx.Err() == nil {
			vision, err := w.vision(ctx)
			if err == nil {
				err = w.ready(ctx, vision)
			}
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				msg := fault.ErrorMessage(err)
				if msg != missing {
					w.Logger.Warn("OCR is off", "reason", msg)
					missing = msg
				}
				if _, err := w.DB.NoteOCRUnavailable(ctx, msg); err != nil && ctx.Err() == nil {
					w.Logger.Warn("note that OCR is off", "err", err)
				}
				break
			}
			missing = ""
			job, ok, err := w.DB.NextOCR(ctx, Lease)
			if err != nil {
				if ctx.Err() == nil {
					w.Logger.Warn("OCR queue", "err", err)
				}
				break
			}
			if !ok {
				break
			}
			w.notify(job.Document)
			doc, err := Run(ctx, w.DB, &job, Options{Lang: w.lang(), Vision: vision, Logger: w.Logger, Progress: func(d storage.Document, done, total int) {
				w.notify(d)
			}})
			if err != nil && ctx.Err() == nil {
				// What the document now says: the cause (an internal
				// error's details were logged by Run).
				w.Logger.Warn("OCR failed", "document", job.Document.ID, "name", job.Document.Name, "status", doc.Status, "err", fault.ErrorMessage(err))
			}
			w.notify(doc)
		}
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-t.C:
		}
	}
}

func (w *Worker) lang() string {
	if w.Lang != nil {
		if l := w.Lang(); l != "" {
			return l
		}
	}
	return DefaultLang()
}

// vision is the vision tier of the next run: VisionSetting's, else Vision.
func (w *Worker) vision(ctx context.Context) (*Vision, error) {
	if w.VisionSetting != nil {
		return w.VisionSetting(ctx)
	}
	return w.Vision, nil
}

// ready checks that the pages can be read in the worker's languages:
// Tesseract with their data, or PP-OCR or the vision model without it
// (Ready).
func (w *Worker) ready(ctx context.Context, vision *Vision) error {
	lang, err := ParseLang(w.lang())
	if err != nil {
		return err
	}
	e, err := Ready(ctx, lang, vision != nil, w.Logger)
	if err != nil || e == nil {
		return err
	}
	if note := e.DataNote(lang); note != w.dataNote {
		w.Logger.Info("OCR language data", "note", note)
		w.dataNote = note
	}
	return nil
}

func (w *Worker) notify(d storage.Document) {
	if w.OnDocument != nil && d.ID != "" {
		w.OnDocument(d)
	}
}
