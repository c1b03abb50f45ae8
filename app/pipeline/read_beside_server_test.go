package pipeline

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/storage"
)

// TestReadBesideServerCountsDocumentsAnotherProcessRead: beside a running `docent --serve`, the server's OCR worker may
// read an imported photo before the import does. The import printed
// "failed 2: OCR: document … is ready, not waiting for OCR" and exited 1
// though both documents were fine. A document another process finished is
// a success; one it is reading is waited for; one it failed is a failure
// with its cause.
func TestReadBesideServerCountsDocumentsAnotherProcessRead(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "docent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p := New(Config{DB: db})
	eng := ocr.Options{Lang: "eng"}
	scan := func(name string) storage.Document {
		d, err := db.CreateDocument(ctx, storage.NewDocument{Name: name, MediaType: "image/png", Data: []byte(name),
			Status: storage.StatusNeedsOCR, Pages: []string{""}, OCRPages: []int{1}})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// The server's worker (the same store, as another process has it).
	server := func(id string) storage.OCRJob {
		job, err := db.ClaimOCR(ctx, id, false, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return job
	}
	finish := func(job storage.OCRJob) {
		if _, err := db.FinishOCR(ctx, &job, []storage.OCRPage{{Page: 1, Text: "TOTAL 9.00"}}, storage.StatusReady, ""); err != nil {
			t.Fatal(err)
		}
	}

	// Read and finished by the server before the import looked.
	done := scan("done.png")
	finish(server(done.ID))
	// Failed by the server.
	bad := scan("bad.png")
	badJob := server(bad.ID)
	if _, err := db.FailOCR(ctx, &badJob, storage.StatusFailed, "OCR failed: page 1: tesseract crashed"); err != nil {
		t.Fatal(err)
	}
	results := p.Read(ctx, []string{done.ID, bad.ID}, eng, false, nil)
	if len(results) != 2 || results[0].Err != nil || results[0].Document.Status != storage.StatusReady {
		t.Fatalf("a document the server read: %+v", results)
	}
	if r := results[1]; r.Err == nil || !strings.Contains(r.Err.Error(), "tesseract crashed") {
		t.Fatalf("a document the server failed: %+v", r)
	}

	// Being read by the server when the import claims it: waited for. The
	// store's clock says when the import's claim has begun; the server
	// finishes after it.
	busy := scan("busy.png")
	busyJob := server(busy.ID)
	claimed := make(chan struct{}, 1)
	db.Now = func() time.Time {
		select {
		case claimed <- struct{}{}:
		default:
		}
		return time.Now()
	}
	readWaitPoll = 10 * time.Millisecond
	t.Cleanup(func() { readWaitPoll = time.Second })
	got := make(chan []ReadResult, 1)
	go func() { got <- p.Read(ctx, []string{busy.ID}, eng, false, nil) }()
	<-claimed
	finish(busyJob)
	results = <-got
	if len(results) != 1 || results[0].Err != nil || results[0].Document.Status != storage.StatusReady {
		t.Fatalf("a document the server was reading: %+v", results)
	}
}
