package ocr_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/docent/docent/app/ingest"
	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

func openDB(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "docent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func needTesseract(t *testing.T) {
	t.Helper()
	if _, err := ocr.FindEngine(context.Background()); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("tesseract is required in CI: %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
}

// needLangs skips a test when Tesseract has no data for one of langs
// ("deu+eng"), except in CI, which must have them all (scripts/test
// installs the shipped languages).
func needLangs(t *testing.T, langs string) {
	t.Helper()
	needTesseract(t)
	e, _ := ocr.FindEngine(context.Background())
	if err := e.CheckLangs(langs); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Tesseract's data for %s is required in CI: %v", langs, err)
		}
		t.Skipf("skipping: %v", err)
	}
}

// importFile imports bytes under name and returns the document.
func importFile(t *testing.T, db *storage.DB, name string, data []byte) storage.Document {
	t.Helper()
	o := (&ingest.Importer{DB: db}).ImportBytes(context.Background(), name, data, ingest.Options{})
	if o.Document == nil {
		t.Fatalf("import %s: %v", name, o.Err)
	}
	return *o.Document
}

// ocrDocument claims and reads one document.
func ocrDocument(t *testing.T, db *storage.DB, id string, opts ocr.Options) (storage.Document, error) {
	t.Helper()
	job, err := db.ClaimOCR(context.Background(), id, true, ocr.Lease)
	if err != nil {
		t.Fatalf("claim %s: %v", id, err)
	}
	if opts.Lang == "" {
		opts.Lang = "eng"
	}
	return ocr.Run(context.Background(), db, &job, opts)
}

// printed draws lines of text as a 300 dpi scan would show 12 pt type.
func printed(w, h int, lines ...string) *image.Gray {
	const scale = 3
	small := image.NewGray(image.Rect(0, 0, w/scale, h/scale))
	draw.Draw(small, small.Rect, image.White, image.Point{}, draw.Src)
	d := font.Drawer{Dst: small, Src: image.Black, Face: basicfont.Face7x13}
	for i, line := range lines {
		d.Dot = fixed.P(20, 30+18*i)
		d.DrawString(line)
	}
	big := image.NewGray(image.Rect(0, 0, w, h))
	xdraw.NearestNeighbor.Scale(big, big.Rect, small, small.Rect, draw.Src, nil)
	return big
}

func pngBytes(t *testing.T, img image.Image) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestImageBecomesReadyWithTextAndWords(t *testing.T) {
	needTesseract(t)
	withoutPPOCR(t) // Tesseract's words, in the pixels of its enlarged image
	db := openDB(t)
	doc := importFile(t, db, "receipt.png", pngBytes(t, printed(1200, 400, "INVOICE 2024-117", "TOTAL EUR 42.50")))
	if doc.Status != storage.StatusNeedsOCR || doc.Pages != 1 || doc.MediaType != "image/png" {
		t.Fatalf("imported image: %+v", doc)
	}
	var progress []int
	got, err := ocrDocument(t, db, doc.ID, ocr.Options{Progress: func(d storage.Document, done, total int) { progress = append(progress, done) }})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != storage.StatusReady || got.Error != "" || len(progress) != 1 {
		t.Fatalf("after OCR: %+v (progress %v)", got, progress)
	}
	text, _ := db.PageText(context.Background(), doc.ID, 1)
	if !strings.Contains(text, "TOTAL EUR 42") || !strings.Contains(text, "2024-117") {
		t.Fatalf("OCR text %q", text)
	}
	details, _ := db.PageDetails(context.Background(), doc.ID)
	d := details[0]
	if d.Source != storage.SourceOCR || !strings.HasPrefix(d.Engine, "tesseract ") || d.Lang != "eng" || d.Confidence == nil || *d.Confidence < 0.5 {
		t.Fatalf("page details %+v", d)
	}
	words, err := db.PageWords(context.Background(), doc.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	var total *storage.Word
	for i, w := range words.Words {
		if w.Text == "TOTAL" {
			total = &words.Words[i]
		}
	}
	// The second line starts 48 px lower than the first at 3× scale,
	// 20 px from the left edge scaled 3×; the boxes are in the pixels of
	// the image tesseract read, enlarged twice (narrower than 2,000 px).
	if words.Width != 2400 || words.Height != 800 {
		t.Fatalf("the words' page is %d×%d, want the 1200×400 image enlarged twice", words.Width, words.Height)
	}
	if total == nil || total.X < 80 || total.X > 160 || total.Y < 200 || total.Y > 320 {
		t.Fatalf("the word TOTAL and its box: %+v in %+v", total, words)
	}
	// Full-text search finds OCR text like any other.
	docs, _, err := db.ListDocuments(context.Background(), storage.DocumentFilter{Search: "total"})
	if err != nil || len(docs) != 1 {
		t.Fatalf("search: %d %v", len(docs), err)
	}
}

func TestTIFFPagesAndABlankPage(t *testing.T) {
	needTesseract(t)
	db := openDB(t)
	data := ocr.MultiTIFF(printed(900, 300, "FIRST PAGE"), blank(900, 300), printed(900, 300, "THIRD PAGE"))
	doc := importFile(t, db, "fax.tif", data)
	if doc.Pages != 3 || doc.Status != storage.StatusNeedsOCR {
		t.Fatalf("imported TIFF %+v", doc)
	}
	got, err := ocrDocument(t, db, doc.ID, ocr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != storage.StatusReady || got.Error != "page 2 is blank" {
		t.Fatalf("after OCR: %s %q", got.Status, got.Error)
	}
	pages, _ := db.DocumentText(context.Background(), doc.ID)
	if !strings.Contains(pages[0], "FIRST PAGE") || pages[1] != "" || !strings.Contains(pages[2], "THIRD PAGE") {
		t.Fatalf("pages %q", pages)
	}
}

func TestFiveHundredPageTIFF(t *testing.T) {
	needTesseract(t)
	db := openDB(t)
	frames := make([]*image.Gray, 500)
	for i := range frames {
		frames[i] = blank(64, 64)
	}
	doc := importFile(t, db, "archive.tif", ocr.MultiTIFF(frames...))
	if doc.Pages != 500 || doc.Status != storage.StatusNeedsOCR {
		t.Fatalf("imported %+v", doc)
	}
	got, err := ocrDocument(t, db, doc.ID, ocr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != storage.StatusReady || got.Error != "the pages are blank: OCR found nothing to read" {
		t.Fatalf("after OCR: %s %q", got.Status, got.Error)
	}
}

// fakeTesseract puts a tesseract on PATH that answers --version and
// --list-langs and then runs body for a page.
func fakeTesseract(t *testing.T, body string) {
	t.Helper()
	dir := t.TempDir()
	script := fmt.Sprintf(`#!/bin/sh
case "$1" in
--version) echo "tesseract 5.3.0"; exit 0;;
--list-langs) printf 'List of available languages (2):\neng\nosd\n'; exit 0;;
esac
%s
`, body)
	if err := os.WriteFile(filepath.Join(dir, "tesseract"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":/usr/bin:/bin")
	ocr.ForgetEngine()
	t.Cleanup(ocr.ForgetEngine)
	withoutPPOCR(t) // the fake reads the images
}

// withoutPPOCR points DOCENT_ONNXRUNTIME at a missing library, so that
// Tesseract reads images as it does without the runtime.
func withoutPPOCR(t *testing.T) {
	t.Helper()
	t.Setenv("DOCENT_ONNXRUNTIME", filepath.Join(t.TempDir(), "libonnxruntime.so"))
	ocr.ForgetPPOCR()
	t.Cleanup(ocr.ForgetPPOCR)
}

func TestAnEngineThatHangsOrCrashesFailsTheDocumentOnly(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"hangs", "exec sleep 600", "did not finish within 1s"},
		{"crashes", "kill -SEGV $$", "tesseract crashed"},
		{"garbles", "echo nonsense", "not TSV"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := openDB(t)
			bad := importFile(t, db, "a.png", pngBytes(t, printed(600, 200, "HELLO")))
			fakeTesseract(t, c.body)
			got, err := ocrDocument(t, db, bad.ID, ocr.Options{PageTimeout: time.Second})
			if err == nil || got.Status != storage.StatusFailed || !strings.Contains(got.Error, c.want) {
				t.Fatalf("got %s %q (%v), want failed with %q", got.Status, got.Error, err, c.want)
			}
			// Nothing half-written: the page is as import left it.
			details, _ := db.PageDetails(context.Background(), bad.ID)
			if details[0].Source != storage.SourceNone || details[0].Engine != "" {
				t.Fatalf("page after a failed OCR: %+v", details[0])
			}
		})
	}
}

func TestMissingEngineOrLanguageSaysWhatToInstall(t *testing.T) {
	db := openDB(t)
	doc := importFile(t, db, "a.png", pngBytes(t, printed(600, 200, "HELLO")))

	t.Setenv("PATH", t.TempDir())
	ocr.ForgetEngine()
	t.Cleanup(ocr.ForgetEngine)
	withoutPPOCR(t) // which reads English pages without Tesseract
	got, err := ocrDocument(t, db, doc.ID, ocr.Options{})
	if err == nil || got.Status != storage.StatusNeedsOCR || !strings.Contains(got.Error, "sudo apt-get install tesseract-ocr tesseract-ocr-deu") {
		t.Fatalf("without tesseract: %s %q", got.Status, got.Error)
	}

	fakeTesseract(t, "exit 1")
	// Portuguese: a language neither the system's nor the scripts' data
	// (best_int, which also counts) has.
	got, err = ocrDocument(t, db, doc.ID, ocr.Options{Lang: "por+eng"})
	if err == nil || got.Status != storage.StatusNeedsOCR || !strings.Contains(got.Error, "sudo apt-get install tesseract-ocr tesseract-ocr-por") {
		t.Fatalf("without Portuguese: %s %q", got.Status, got.Error)
	}
}

// TestCorpusScansBecomeReady imports every scan the corpus's manifest lists
// (image-only PDFs, a blank scan, a scan with a junk text layer, and the
// receipt photos; -short leaves the forty photos out) and reads it: each
// must end ready. A few are also checked for a word they show.
func TestCorpusScansBecomeReady(t *testing.T) {
	dir, entries := testcorpus.Manifest(t)
	needTesseract(t)
	db := openDB(t)
	want := map[string]string{
		"invoice2data/Amazon_EU_2014-06-04.pdf":  "Rechnung",
		"pypdf-sample-files/018_base64image.pdf": "assign it to yourself",
	}
	// Not in the manifest's scanned category (it is encrypted with an
	// empty password), but its pages are images all the same.
	files := []string{"qpdf/encrypted-with-images.pdf"}
	var scans, photos int
	for _, e := range entries {
		switch e.Category {
		case "scanned":
			files = append(files, e.File)
			scans++
		case "receipt-scan":
			if !testing.Short() {
				files = append(files, e.File)
			}
			photos++
		}
	}
	// A manifest that lost its scans would make this test pass on nothing.
	if scans < 10 || photos < 40 {
		t.Fatalf("the manifest lists %d scans and %d receipt photos, want at least 10 and 40", scans, photos)
	}
	for _, file := range files {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		doc := importFile(t, db, filepath.Base(file), data)
		if doc.Status != storage.StatusNeedsOCR {
			t.Errorf("%s: imported as %s (%s), want needs_ocr", file, doc.Status, doc.Error)
			continue
		}
		got, err := ocrDocument(t, db, doc.ID, ocr.Options{Lang: "eng"})
		if err != nil || got.Status != storage.StatusReady {
			t.Errorf("%s: %s %q (%v), want ready", file, got.Status, got.Error, err)
			continue
		}
		pages, _ := db.DocumentText(context.Background(), doc.ID)
		text := strings.Join(pages, "\n")
		if !strings.Contains(text, want[file]) {
			t.Errorf("%s: text %.200q lacks %q", file, text, want[file])
		}
		if file == "pdfcpu/blank-scan.pdf" && (text != "" || !strings.Contains(got.Error, "blank")) {
			t.Errorf("blank scan: text %q, message %q", text, got.Error)
		}
		t.Logf("%s: %s, %d chars, %q", file, got.Status, len(text), got.Error)
	}
}

// TestSROIEReceipts imports three receipt photos and reads them; the
// benchmark does all forty.
func TestSROIEReceipts(t *testing.T) {
	dir := testcorpus.Dir(t)
	needTesseract(t)
	db := openDB(t)
	found, labels := 0, 0
	norm := func(s string) string { return strings.ToUpper(strings.Join(strings.Fields(s), "")) }
	for _, id := range []string{"000", "003", "009"} {
		data, err := os.ReadFile(filepath.Join(dir, "sroie", id+".jpg"))
		if err != nil {
			t.Fatal(err)
		}
		var label map[string]string
		raw, _ := os.ReadFile(filepath.Join(dir, "sroie", id+".expected.json"))
		_ = json.Unmarshal(raw, &label)
		doc := importFile(t, db, id+".jpg", data)
		got, err := ocrDocument(t, db, doc.ID, ocr.Options{Lang: "eng"})
		if err != nil || got.Status != storage.StatusReady {
			t.Fatalf("%s: %s %q %v", id, got.Status, got.Error, err)
		}
		text, _ := db.PageText(context.Background(), doc.ID, 1)
		if len(text) < 100 {
			t.Errorf("%s: %d characters read", id, len(text))
		}
		for _, k := range []string{"company", "date", "total"} {
			labels++
			if strings.Contains(norm(text), norm(label[k])) {
				found++
			} else {
				t.Logf("%s: %s %q not in the text", id, k, label[k])
			}
		}
	}
	// Tesseract 5.3 finds all nine; other versions read a little
	// differently.
	if found < 6 {
		t.Errorf("%d of %d labelled values in the OCR text, want at least 6", found, labels)
	}
}

func blank(w, h int) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	draw.Draw(g, g.Rect, image.White, image.Point{}, draw.Src)
	return g
}

// waitFor polls the store until the document's status is want.
func waitFor(t *testing.T, db *storage.DB, id, want string, check func(storage.Document) bool) storage.Document {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		d, err := db.GetDocument(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if d.Status == want && (check == nil || check(d)) {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("document %s is %s (%q), want %s", id, d.Status, d.Error, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestWorkerReadsWaitingDocumentsInTheBackground(t *testing.T) {
	needTesseract(t)
	db := openDB(t)
	w := ocr.NewWorker(db, nil)
	w.Lang = func() string { return "eng" }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	doc := importFile(t, db, "note.png", pngBytes(t, printed(900, 300, "PAID IN FULL")))
	w.Wake()
	waitFor(t, db, doc.ID, storage.StatusReady, nil)
	text, _ := db.PageText(context.Background(), doc.ID, 1)
	// The worker is what is tested, not the reading of a blocky bitmap
	// font: best_int data reads this "PAID" as "FARID", the system's data
	// reads it right, and both read "FULL".
	if !strings.Contains(text, "FULL") {
		t.Fatalf("text %q", text)
	}
}

func TestWorkerWithoutEngineSaysWhatToInstall(t *testing.T) {
	db := openDB(t)
	doc := importFile(t, db, "note.png", pngBytes(t, printed(900, 300, "PAID")))
	t.Setenv("PATH", t.TempDir())
	ocr.ForgetEngine()
	t.Cleanup(ocr.ForgetEngine)
	withoutPPOCR(t) // which reads English pages without Tesseract
	w := ocr.NewWorker(db, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	waitFor(t, db, doc.ID, storage.StatusNeedsOCR, func(d storage.Document) bool {
		return strings.Contains(d.Error, "sudo apt-get install tesseract-ocr")
	})
}
