package ingest

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

func newImporter(t *testing.T) *Importer {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "docent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &Importer{DB: db}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTextFileSplitsPagesAtFormFeeds(t *testing.T) {
	im := newImporter(t)
	ctx := context.Background()
	o := im.ImportBytes(ctx, "notes/report.txt", []byte("\xef\xbb\xbfpage one\r\nline two\fpage two\f"), Options{})
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if o.Document.Name != "report.txt" || o.Document.MediaType != MediaText || o.Document.Pages != 2 || o.Document.Status != storage.StatusReady {
		t.Fatalf("document = %+v, want report.txt, text/plain, 2 pages, ready", o.Document)
	}
	text, err := im.DB.PageText(ctx, o.Document.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if text != "page one\nline two" {
		t.Errorf("page 1 = %q, want the BOM and CR removed", text)
	}
}

func TestLatin1TextIsReadNotDropped(t *testing.T) {
	im := newImporter(t)
	o := im.ImportBytes(context.Background(), "old.txt", []byte("Stra\xdfe 5, K\xf6ln"), Options{})
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	text, err := im.DB.PageText(context.Background(), o.Document.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if text != "Straße 5, Köln" {
		t.Errorf("text = %q, want Latin-1 decoded", text)
	}
}

func TestSameBytesTwiceIsOneDocument(t *testing.T) {
	im := newImporter(t)
	ctx := context.Background()
	first := im.ImportBytes(ctx, "a.md", []byte("# Invoice 42"), Options{})
	second := im.ImportBytes(ctx, "copy-of-a.md", []byte("# Invoice 42"), Options{})
	if first.Err != nil || second.Err != nil {
		t.Fatal(first.Err, second.Err)
	}
	if !second.Duplicate || second.Document.ID != first.Document.ID {
		t.Fatalf("second import = %+v, want a duplicate of %s", second, first.Document.ID)
	}
	_, total, err := im.DB.ListDocuments(ctx, storage.DocumentFilter{})
	if err != nil || total != 1 {
		t.Fatalf("total = %d, %v; want 1", total, err)
	}
}

func TestUnsupportedTypeIsAClearError(t *testing.T) {
	im := newImporter(t)
	o := im.ImportBytes(context.Background(), "data.json", []byte(`{"a":1}`), Options{})
	if !errors.Is(o.Err, ErrUnsupported) || !strings.Contains(o.Err.Error(), ".json") {
		t.Fatalf("err = %v, want unsupported type naming .json", o.Err)
	}
	if o.Document != nil {
		t.Errorf("an unsupported file was stored: %+v", o.Document)
	}
}

func TestMalformedPDFIsStoredAsFailedWithItsCause(t *testing.T) {
	im := newImporter(t)
	o := im.ImportBytes(context.Background(), "broken.pdf", []byte("%PDF-1.4\nthis is not a pdf"), Options{})
	if o.Err == nil || !errors.Is(o.Err, pdftext.ErrMalformed) {
		t.Fatalf("err = %v, want a malformed-PDF error", o.Err)
	}
	if o.Document == nil || o.Document.Status != storage.StatusFailed || o.Document.Error == "" {
		t.Fatalf("document = %+v, want stored as failed with the error", o.Document)
	}
}

func TestPlanWalksFoldersAndCountsWhatItSkips(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.txt", "a")
	writeFile(t, dir, "sub/b.md", "b")
	writeFile(t, dir, "sub/c.json", "{}")
	writeFile(t, dir, "sub/d.JSON", "{}")
	writeFile(t, dir, ".hidden/e.txt", "e")
	named := writeFile(t, t.TempDir(), "f.xml", "<x/>")

	plan, err := PlanPaths([]string{dir, named})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a.txt"), filepath.Join(dir, "sub/b.md"), named}
	if strings.Join(plan.Files, "|") != strings.Join(want, "|") {
		t.Errorf("files = %v, want %v (hidden folders left out, named files kept)", plan.Files, want)
	}
	if plan.Skipped[".json"] != 2 || !strings.Contains(plan.SkippedSummary(), "skipped 2 files") {
		t.Errorf("skipped = %v (%q), want 2 .json", plan.Skipped, plan.SkippedSummary())
	}
	if _, err := PlanPaths([]string{filepath.Join(dir, "missing")}); err == nil {
		t.Error("a missing path was accepted")
	}
}

func TestCancelledImportStoresNothingHalfDone(t *testing.T) {
	im := newImporter(t)
	started := make(chan struct{}, 8)
	im.Extract = func(ctx context.Context, r io.Reader, size int64, opts pdftext.Options) (pdftext.Result, error) {
		started <- struct{}{}
		<-ctx.Done() // a slow PDF: only cancellation ends it
		return pdftext.Result{}, ctx.Err()
	}
	dir := t.TempDir()
	var files []string
	for _, name := range []string{"1.pdf", "2.pdf", "3.pdf", "4.pdf", "5.pdf"} {
		files = append(files, writeFile(t, dir, name, "%PDF-1.4 "+name))
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	outcomes := im.ImportFiles(ctx, files, Options{}, nil)
	if len(outcomes) == 0 || len(outcomes) > len(files) {
		t.Fatalf("outcomes = %d for %d files, want at least the one started", len(outcomes), len(files))
	}
	for _, o := range outcomes {
		if !errors.Is(o.Err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", o.File, o.Err)
		}
	}
	if _, total, _ := im.DB.ListDocuments(context.Background(), storage.DocumentFilter{}); total != 0 {
		t.Errorf("%d documents stored by an interrupted import, want 0", total)
	}
}

func TestPasswordProtectedPDFFailsThenReadsWithThePassword(t *testing.T) {
	dir := testcorpus.Dir(t)
	data, err := os.ReadFile(filepath.Join(dir, "qpdf/encrypted-40-bit-R3.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	im := newImporter(t)
	ctx := context.Background()
	first := im.ImportBytes(ctx, "encrypted-40-bit-R3.pdf", data, Options{})
	if !errors.Is(first.Err, pdftext.ErrPasswordRequired) || !strings.Contains(first.Err.Error(), "--password") {
		t.Fatalf("err = %v, want password required with a hint", first.Err)
	}
	if first.Document == nil || first.Document.Status != storage.StatusFailed || first.Document.ErrorCode != storage.ErrorCodePasswordRequired {
		t.Fatalf("document = %+v, want stored as failed with error code %s", first.Document, storage.ErrorCodePasswordRequired)
	}
	// A wrong password leaves it failed for the same reason: its password.
	wrong := im.ImportBytes(ctx, "encrypted-40-bit-R3.pdf", data, Options{Password: "guess"})
	if !errors.Is(wrong.Err, pdftext.ErrWrongPassword) || wrong.Document == nil || wrong.Document.ID != first.Document.ID ||
		wrong.Document.Status != storage.StatusFailed || wrong.Document.ErrorCode != storage.ErrorCodePasswordRequired {
		t.Fatalf("with a wrong password: %+v, %v; want the same document failed with error code %s", wrong.Document, wrong.Err, storage.ErrorCodePasswordRequired)
	}
	second := im.ImportBytes(ctx, "encrypted-40-bit-R3.pdf", data, Options{Password: "623"})
	if second.Err != nil {
		t.Fatal(second.Err)
	}
	if second.Document.ID != first.Document.ID || second.Document.Status != storage.StatusReady || second.Document.Pages != 1 || second.Document.ErrorCode != "" {
		t.Fatalf("re-import = %+v, want the same document, ready, 1 page, no error code", second.Document)
	}
	text, err := im.DB.PageText(ctx, second.Document.ID, 1)
	if err != nil || strings.TrimSpace(text) == "" {
		t.Fatalf("page 1 = %q, %v; want text", text, err)
	}
	if pw, err := im.DB.PageWords(ctx, second.Document.ID, 1); err != nil || len(pw.Words) == 0 {
		t.Errorf("page 1 words = %+v, %v; want the words of the text read again", pw, err)
	}
}

func TestFailedDocumentIsNotRereadAsAnotherType(t *testing.T) {
	im := newImporter(t)
	ctx := context.Background()
	data := []byte("not a PDF at all, whatever the name says")
	first := im.ImportBytes(ctx, "fake.pdf", data, Options{})
	if first.Document == nil || first.Document.Status != storage.StatusFailed || first.Document.ErrorCode != "" {
		t.Fatalf("fake.pdf: %+v, %v; want stored as failed, without an error code (no password helps)", first.Document, first.Err)
	}
	second := im.ImportBytes(ctx, "fake.txt", data, Options{})
	if second.Err == nil || !strings.Contains(second.Err.Error(), "same bytes as fake.pdf ("+first.Document.ID+"), which failed as application/pdf") ||
		!strings.Contains(second.Err.Error(), "delete that document to import them as text/plain") {
		t.Errorf("fake.txt: err = %v, want it to name the failed fake.pdf and what to do", second.Err)
	}
	if !second.Duplicate || second.Document == nil || second.Document.ID != first.Document.ID {
		t.Errorf("fake.txt: %+v, want a duplicate of %s", second, first.Document.ID)
	}
	doc, err := im.DB.GetDocument(ctx, first.Document.ID)
	if err != nil || doc.Status != storage.StatusFailed || doc.Name != "fake.pdf" || doc.MediaType != MediaPDF || doc.Pages != 0 {
		t.Errorf("the failed document became %+v, %v; want it unchanged", doc, err)
	}
}

func TestBlankPDFIsReadyAndSaysItIsBlank(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("pdftext", "testdata", "blank.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	im := newImporter(t)
	o := im.ImportBytes(context.Background(), "blank.pdf", data, Options{})
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if d := o.Document; d.Status != storage.StatusReady || d.Pages != 2 || d.Error != "the pages are blank: they have neither text nor images" {
		t.Errorf("document = %+v, want ready, 2 pages, saying the pages are blank", d)
	}
}

func TestPagesWithoutTextNeedOCROnlyWhenTheyDrawSomething(t *testing.T) {
	for _, c := range []struct {
		name string
		info []pdftext.PageInfo
		want string
	}{
		{"an image on one page", []pdftext.PageInfo{{}, {Images: 1}}, storage.StatusNeedsOCR},
		{"text as outlines", []pdftext.PageInfo{{PathSegments: 5000}}, storage.StatusNeedsOCR},
		{"a page read halfway", []pdftext.PageInfo{{Incomplete: true}}, storage.StatusNeedsOCR},
		{"no page info", nil, storage.StatusNeedsOCR},
		{"a frame and a rule", []pdftext.PageInfo{{PathSegments: 5}, {}}, storage.StatusReady},
	} {
		im := newImporter(t)
		im.Extract = func(ctx context.Context, r io.Reader, size int64, opts pdftext.Options) (pdftext.Result, error) {
			_, err := io.Copy(io.Discard, r)
			return pdftext.Result{Pages: make([]string, max(len(c.info), 1)), Info: c.info}, err
		}
		o := im.ImportBytes(context.Background(), "x.pdf", []byte("%PDF-1.4 "+c.name), Options{})
		if o.Err != nil || o.Document.Status != c.want {
			t.Errorf("%s: %+v, %v; want status %s", c.name, o.Document, o.Err, c.want)
		}
	}
}
