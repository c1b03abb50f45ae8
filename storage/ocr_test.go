package storage

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func mustCreateScan(t *testing.T, db *DB, name string, pages int) Document {
	t.Helper()
	nd := NewDocument{Name: name, MediaType: "image/png", Status: StatusNeedsOCR, Data: []byte(name)}
	for i := range pages {
		nd.Pages = append(nd.Pages, "")
		nd.OCRPages = append(nd.OCRPages, i+1)
	}
	return mustCreateDocument(t, db, nd)
}

func TestOCRStatusIsAllowedOnEveryConnection(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateScan(t, db, "scan.png", 1)
	// Several connections at once, each of which must know the widened
	// CHECK constraint of migration 0005.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			tx, err := db.sql.BeginTx(ctx, nil)
			if err != nil {
				errs <- err
				return
			}
			defer tx.Rollback()
			if _, err := tx.ExecContext(ctx, `UPDATE documents SET status = 'ocr' WHERE id = ?`, doc.ID); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("status ocr refused: %v", err)
	}
	if _, err := db.sql.ExecContext(ctx, `UPDATE documents SET status = 'bogus' WHERE id = ?`, doc.ID); err == nil {
		t.Fatal("status bogus accepted: the CHECK constraint is gone")
	}
}

func TestOCRJobStoresTextWordsAndIndex(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateScan(t, db, "receipt.jpg", 2)
	if doc.Status != StatusNeedsOCR {
		t.Fatalf("status %q", doc.Status)
	}
	job, ok, err := db.NextOCR(ctx, time.Minute)
	if err != nil || !ok {
		t.Fatalf("NextOCR: %v %v", ok, err)
	}
	if job.Document.Status != StatusOCR || len(job.Pages) != 2 || job.Document.OCRPagesTotal != 2 {
		t.Fatalf("job %+v", job)
	}
	if _, ok, _ := db.NextOCR(ctx, time.Minute); ok {
		t.Fatal("a claimed document was claimed again")
	}
	if _, err := db.ClaimOCR(ctx, doc.ID, true, time.Minute); !errors.Is(err, ErrConflict) {
		t.Fatalf("claim of a document under a live lease: %v, want a conflict", err)
	}
	if err := db.OCRProgress(ctx, &job, 1, time.Minute); err != nil {
		t.Fatal(err)
	}
	if d, _ := db.GetDocument(ctx, doc.ID); d.OCRPagesDone != 1 {
		t.Fatalf("progress %d", d.OCRPagesDone)
	}
	conf := 0.91
	words := &PageWords{Width: 100, Height: 200, DPI: 300, Words: []Word{{X: 1, Y: 2, W: 30, H: 10, Conf: 91.234, Text: "TOTAL"}, {X: 40, Y: 2, W: 20, H: 10, Conf: 88, Text: "9.00"}}}
	got, err := db.FinishOCR(ctx, &job, []OCRPage{
		{Page: 1, Text: "TOTAL 9.00", Engine: "tesseract 5.3.0", Lang: "eng", Confidence: &conf, Words: words},
		{Page: 2, Text: "", Engine: "tesseract 5.3.0", Lang: "eng", Note: "blank page", Words: &PageWords{Width: 10, Height: 10}},
	}, StatusReady, "page 2 is blank")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusReady || got.Error != "page 2 is blank" || got.OCRPagesTotal != 0 {
		t.Fatalf("finished document %+v", got)
	}
	docs, _, err := db.ListDocuments(ctx, DocumentFilter{Search: "total"})
	if err != nil || len(docs) != 1 {
		t.Fatalf("search for OCR text: %d documents, %v", len(docs), err)
	}
	details, err := db.PageDetails(ctx, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := details[0]; d.Source != SourceOCR || d.Engine != "tesseract 5.3.0" || d.Confidence == nil || *d.Confidence != conf || d.Width != 100 || d.Chars != 10 {
		t.Fatalf("page 1 details %+v", d)
	}
	if d := details[1]; d.Note != "blank page" || d.Confidence != nil {
		t.Fatalf("page 2 details %+v", d)
	}
	pw, err := db.PageWords(ctx, doc.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(pw.Words) != 2 || pw.Words[0].Text != "TOTAL" || pw.Words[0].Conf != 91.2 || pw.Height != 200 {
		t.Fatalf("words %+v", pw)
	}
	// Running OCR again (another language) takes the same pages.
	again, err := db.ClaimOCR(ctx, doc.ID, true, time.Minute)
	if err != nil || len(again.Pages) != 2 || again.Previous != StatusReady {
		t.Fatalf("again: %+v %v", again, err)
	}
	if _, err := db.FailOCR(ctx, &again, StatusFailed, "tesseract crashed"); err != nil {
		t.Fatal(err)
	}
	// The failure stored no page: the earlier text stays.
	if text, _ := db.PageText(ctx, doc.ID, 1); text != "TOTAL 9.00" {
		t.Fatalf("page 1 after a failed run: %q", text)
	}
}

func TestOCRLeaseLapsesAndIsTakenOver(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateScan(t, db, "scan.tif", 1)
	first, err := db.ClaimOCR(ctx, doc.ID, false, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	// The test clock moves a second per transaction: the lease has lapsed.
	second, ok, err := db.NextOCR(ctx, time.Hour)
	if err != nil || !ok || second.Document.ID != doc.ID {
		t.Fatalf("take over: %v %v", ok, err)
	}
	if err := db.OCRProgress(ctx, &first, 1, time.Second); !errors.Is(err, ErrConflict) {
		t.Fatalf("progress of the first worker: %v, want a conflict", err)
	}
	if _, err := db.FinishOCR(ctx, &first, nil, StatusReady, ""); !errors.Is(err, ErrConflict) {
		t.Fatalf("finish of the first worker: %v, want a conflict", err)
	}
	if _, err := db.FailOCR(ctx, &first, StatusFailed, "too slow"); !errors.Is(err, ErrConflict) {
		t.Fatalf("failure of the first worker: %v, want a conflict", err)
	}
	if _, err := db.FinishOCR(ctx, &second, []OCRPage{{Page: 1, Text: "x"}}, StatusReady, ""); err != nil {
		t.Fatal(err)
	}
}

func TestClaimOCRWithoutPagesToRead(t *testing.T) {
	db := mustOpen(t)
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"hello"}})
	if _, err := db.ClaimOCR(context.Background(), doc.ID, true, time.Minute); !errors.Is(err, ErrNothingToOCR) {
		t.Fatalf("ClaimOCR of a text document: %v", err)
	}
	if _, err := db.ClaimOCR(context.Background(), doc.ID, false, time.Minute); !errors.Is(err, ErrInvalid) {
		t.Fatalf("ClaimOCR of a ready document without again: %v", err)
	}
}

func TestMigrationMarksDocumentsThatWaitedForOCR(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	// A document stored as an earlier version did: needs_ocr, no page marked.
	doc := mustCreateDocument(t, db, NewDocument{Name: "old-scan.pdf", MediaType: "application/pdf", Status: StatusNeedsOCR, Pages: []string{"", ""}})
	mustExec(t, db, `UPDATE pages SET needs_ocr = 0, source = 'text_layer' WHERE document_id = ?`, doc.ID)
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	// Run the OCR migration's page update again, as on a database that
	// had documents before it.
	for _, m := range ms {
		if strings.HasSuffix(m.name, "_ocr.sql") {
			stmt := m.sql[strings.Index(m.sql, "UPDATE pages SET needs_ocr = 1"):]
			stmt = stmt[:strings.Index(stmt, ";")]
			mustExec(t, db, stmt)
		}
	}
	job, err := db.ClaimOCR(ctx, doc.ID, false, time.Minute)
	if err != nil || len(job.Pages) != 2 {
		t.Fatalf("claim of an old scan: %+v %v", job.Pages, err)
	}
}
