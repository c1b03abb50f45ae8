package ocr_test

import (
	"context"
	"encoding/json"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// withoutTesseract leaves tesseract off PATH, as on a Windows machine
// with Docent's download alone (the ONNX Runtime and PP-OCR's models
// inside, no Tesseract).
func withoutTesseract(t *testing.T) {
	t.Helper()
	t.Setenv("PATH", t.TempDir())
	ocr.ForgetEngine()
	t.Cleanup(ocr.ForgetEngine)
	if _, err := ocr.FindEngine(context.Background()); err == nil {
		t.Fatal("tesseract is found with an empty PATH")
	}
}

// hint is what the errors and notes say to install Tesseract with the
// data for langs on this machine (Debian, in the tests).
func hint(langs string) string {
	return strings.TrimSpace("sudo apt-get install tesseract-ocr " + langs)
}

// TestPPOCRReadsReceiptPhotosWithoutTesseract: without Tesseract, the
// corpus's receipt photos are read by PP-OCR in English: each is ready,
// read by PP-OCR, with its labelled total in the text.
func TestPPOCRReadsReceiptPhotosWithoutTesseract(t *testing.T) {
	needPPOCR(t)
	withoutTesseract(t)
	dir := filepath.Join(testcorpus.Dir(t), "sroie")
	db := openDB(t)
	for _, name := range []string{"000", "001"} {
		data, err := os.ReadFile(filepath.Join(dir, name+".jpg"))
		if err != nil {
			t.Fatal(err)
		}
		var label map[string]string
		raw, _ := os.ReadFile(filepath.Join(dir, name+".expected.json"))
		if err := json.Unmarshal(raw, &label); err != nil {
			t.Fatal(err)
		}
		doc := importFile(t, db, name+".jpg", data)
		got, err := ocrDocument(t, db, doc.ID, ocr.Options{Lang: "eng"})
		if err != nil || got.Status != storage.StatusReady {
			t.Fatalf("%s after OCR: %s %q, %v", name, got.Status, got.Error, err)
		}
		details, _ := db.PageDetails(context.Background(), doc.ID)
		if d := details[0]; !strings.HasPrefix(d.Engine, "ppocr ") || d.Source != storage.SourceOCR || d.Lang != "eng" {
			t.Fatalf("%s: page details %+v", name, d)
		}
		text, _ := db.PageText(context.Background(), doc.ID, 1)
		if !strings.Contains(normalised(text), normalised(label["total"])) {
			t.Errorf("%s: total %q not in the text %q", name, label["total"], text)
		}
	}
}

// TestPPOCRReadsAScannedPDFPageWithoutTesseract: without Tesseract, the
// corpus's scanned German invoice read in English is read by PP-OCR and
// keeps its reading, which Tesseract would have read again in deu+eng:
// the page's note says it is in German and how to add Tesseract.
func TestPPOCRReadsAScannedPDFPageWithoutTesseract(t *testing.T) {
	needPPOCR(t)
	withoutTesseract(t)
	data, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), "invoice2data", "Amazon_EU_2014-06-04.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	db := openDB(t)
	doc := importFile(t, db, "scan.pdf", data)
	got, err := ocrDocument(t, db, doc.ID, ocr.Options{Lang: "eng"})
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("after OCR: %s %q, %v", got.Status, got.Error, err)
	}
	details, _ := db.PageDetails(context.Background(), doc.ID)
	d := details[0]
	if !strings.HasPrefix(d.Engine, "ppocr ") || d.Source != storage.SourceOCR || d.Lang != "eng" {
		t.Fatalf("page details %+v, want PP-OCR's reading in eng", d)
	}
	if !strings.Contains(d.Note, "German") || !strings.Contains(d.Note, "Tesseract") || !strings.Contains(d.Note, "not installed") ||
		!strings.Contains(d.Note, hint("tesseract-ocr-deu")) {
		t.Errorf("note %q: want it to say the page is in German and how to add Tesseract", d.Note)
	}
	text, _ := db.PageText(context.Background(), doc.ID, 1)
	if !strings.Contains(normalised(text), "AMAZON") {
		t.Errorf("text %.200q", text)
	}
}

// TestPPOCRFailureWithoutTesseractSaysSo: a page PP-OCR refuses (an image
// too small for it), which Tesseract would read, fails the document
// without Tesseract: the message says PP-OCR failed and that Tesseract,
// which would read the page, is not installed, and how to add it; the
// page is as import left it.
func TestPPOCRFailureWithoutTesseractSaysSo(t *testing.T) {
	needPPOCR(t)
	withoutTesseract(t)
	db := openDB(t)
	thin := image.NewGray(image.Rect(0, 0, 3, 200))
	for i := range thin.Pix {
		thin.Pix[i] = uint8(255 * (i % 2))
	}
	doc := importFile(t, db, "thin.png", pngBytes(t, thin))
	got, err := ocrDocument(t, db, doc.ID, ocr.Options{Lang: "eng"})
	if err == nil || got.Status != storage.StatusFailed {
		t.Fatalf("after OCR: %s %q, %v; want failed", got.Status, got.Error, err)
	}
	for _, want := range []string{"PP-OCR", "too small", "Tesseract", "not installed", hint("")} {
		if !strings.Contains(got.Error, want) {
			t.Errorf("message %q lacks %q", got.Error, want)
		}
	}
	details, _ := db.PageDetails(context.Background(), doc.ID)
	if details[0].Source != storage.SourceNone || details[0].Engine != "" {
		t.Fatalf("page after a failed OCR: %+v", details[0])
	}
}

// TestDensePageWithoutTesseractKeepsPPOCRsReading: a page of small print
// PP-OCR missed text of, which Tesseract would read again at full
// resolution, keeps PP-OCR's reading without Tesseract, with a note that
// says so and how to add it.
func TestDensePageWithoutTesseractKeepsPPOCRsReading(t *testing.T) {
	needPPOCR(t)
	withoutTesseract(t)
	img, _ := densePage(t)
	db := openDB(t)
	doc := importFile(t, db, "dense.png", pngBytes(t, img))
	got, err := ocrDocument(t, db, doc.ID, ocr.Options{Lang: "eng", PageTimeout: 30 * time.Minute}) // a shared machine may be slow
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("after OCR: %s %q, %v", got.Status, got.Error, err)
	}
	details, _ := db.PageDetails(context.Background(), doc.ID)
	d := details[0]
	if !strings.HasPrefix(d.Engine, "ppocr ") || !strings.HasPrefix(d.Note, ocr.NoteMissedText) ||
		!strings.Contains(d.Note, "Tesseract") || !strings.Contains(d.Note, "not installed") || !strings.Contains(d.Note, hint("")) {
		t.Errorf("page read by %q, note %q: want PP-OCR's reading kept, with a note that Tesseract would read it again", d.Engine, d.Note)
	}
	t.Logf("note: %s", d.Note)
}

// TestLanguagePPOCRCannotSpellWithoutTesseract: without Tesseract, OCR
// in deu+eng, which PP-OCR's dictionary cannot spell fully, is still
// read by PP-OCR, and the page's note names the language and says how to
// add Tesseract with its data.
func TestLanguagePPOCRCannotSpellWithoutTesseract(t *testing.T) {
	needPPOCR(t)
	withoutTesseract(t)
	db := openDB(t)
	doc := importFile(t, db, "rechnung.png", pngBytes(t, printed(1200, 400, "RECHNUNG 2024-117", "SUMME EUR 42,50")))
	got, err := ocrDocument(t, db, doc.ID, ocr.Options{Lang: "deu+eng"})
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("after OCR: %s %q, %v; want it read", got.Status, got.Error, err)
	}
	details, _ := db.PageDetails(context.Background(), doc.ID)
	d := details[0]
	text, _ := db.PageText(context.Background(), doc.ID, 1)
	if !strings.HasPrefix(d.Engine, "ppocr ") || !strings.Contains(text, "SUMME EUR") {
		t.Errorf("page read by %q: %q, want PP-OCR's reading", d.Engine, text)
	}
	for _, want := range []string{"deu", "Tesseract", "not installed", hint("tesseract-ocr-deu")} {
		if !strings.Contains(d.Note, want) {
			t.Errorf("note %q lacks %q", d.Note, want)
		}
	}
}

// TestEngineReadersWithoutTesseract: without Tesseract, EngineReaders
// says PP-OCR reads photos and PDF pages in English, and its note that
// Tesseract is not installed, what it would add and how to add it; in
// deu+eng, that PP-OCR reads, but without ö, ß or €, and how to add Tesseract.
func TestEngineReadersWithoutTesseract(t *testing.T) {
	needPPOCR(t)
	withoutTesseract(t)
	ctx := context.Background()
	r := ocr.EngineReaders(ctx, "eng", nil)
	if !strings.HasPrefix(r.PPOCR, "ppocr ") || r.Photos != r.PPOCR || r.PDFPages != r.PPOCR {
		t.Errorf("eng: %+v, want PP-OCR reading photos and PDF pages", r)
	}
	for _, want := range []string{"Tesseract is not installed", "other languages", hint("")} {
		if !strings.Contains(r.PPOCRNote, want) {
			t.Errorf("eng: note %q lacks %q", r.PPOCRNote, want)
		}
	}
	r = ocr.EngineReaders(ctx, "deu+eng", nil)
	if r.PPOCR == "" || r.Photos != r.PPOCR || r.PDFPages != r.PPOCR {
		t.Errorf("deu+eng: %+v, want PP-OCR reading photos and PDF pages", r)
	}
	for _, want := range []string{"deu", "Tesseract", "not installed", hint("tesseract-ocr-deu")} {
		if !strings.Contains(r.PPOCRNote, want) {
			t.Errorf("deu+eng: note %q lacks %q", r.PPOCRNote, want)
		}
	}
}

// TestWorkerReadsWithPPOCRWithoutTesseract: the background worker reads
// a receipt photo with PP-OCR when Tesseract is not installed, in
// English, and in deu+eng too, where the page's note says what to install.
func TestWorkerReadsWithPPOCRWithoutTesseract(t *testing.T) {
	needPPOCR(t)
	withoutTesseract(t)
	data, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), "sroie", "000.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ lang, status, engine, note string }{
		{"eng", storage.StatusReady, "ppocr ", ""},
		{"deu+eng", storage.StatusReady, "ppocr ", hint("tesseract-ocr-deu")},
	} {
		db := openDB(t)
		doc := importFile(t, db, "receipt.jpg", data)
		w := ocr.NewWorker(db, nil)
		w.Lang = func() string { return c.lang }
		func() {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { w.Serve(ctx); close(done) }()
			defer func() { cancel(); <-done }()
			waitFor(t, db, doc.ID, c.status, func(d storage.Document) bool { return d.Error == "" })
		}()
		details, _ := db.PageDetails(context.Background(), doc.ID)
		if !strings.HasPrefix(details[0].Engine, c.engine) || !strings.Contains(details[0].Note, c.note) {
			t.Errorf("%s: page read by %q, note %q; want %q in the note", c.lang, details[0].Engine, details[0].Note, c.note)
		}
	}
}

// TestVisionReadsWhatPPOCRFailsOnWithoutTesseract: without Tesseract, a
// page PP-OCR refuses is read by the vision model when there is one, in
// Tesseract's place: the document is ready with the model's text.
func TestVisionReadsWhatPPOCRFailsOnWithoutTesseract(t *testing.T) {
	needPPOCR(t)
	withoutTesseract(t)
	s := modeltest.New(t, visionModel)
	s.Enqueue(modeltest.Reply{Text: "|||"})
	v := newVision(t, s, "ollama/qwen2.5vl:7b")
	db := openDB(t)
	thin := image.NewGray(image.Rect(0, 0, 3, 200))
	for i := range thin.Pix {
		thin.Pix[i] = uint8(255 * (i % 2))
	}
	doc := importFile(t, db, "thin.png", pngBytes(t, thin))
	got, err := visionRun(context.Background(), t, db, doc.ID, v, nil)
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("after OCR: %s %q, %v", got.Status, got.Error, err)
	}
	if d := details(t, db, doc.ID)[0]; d.Source != storage.SourceVision || pageText(t, db, doc.ID, 1) != "|||" {
		t.Fatalf("page details %+v, text %q: want the model's reading", d, pageText(t, db, doc.ID, 1))
	}
}

// TestVisionAfterPPOCRInALanguageItCannotSpell: without Tesseract, in
// deu+eng with a vision model, PP-OCR reads a scanned page first, as it
// does in English and as Settings and `docent ocr` report it; the model
// reads only the pages it wants (photos, pages read badly), so the
// scan's clear page keeps PP-OCR's reading, with its note on deu.
func TestVisionAfterPPOCRInALanguageItCannotSpell(t *testing.T) {
	needPPOCR(t)
	withoutTesseract(t)
	data, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), "invoice2data", "Amazon_EU_2014-06-04.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	s := modeltest.New(t, visionModel)
	for range 4 {
		s.Enqueue(modeltest.Reply{Text: "read by the model"})
	}
	v := newVision(t, s, "ollama/qwen2.5vl:7b")
	db := openDB(t)
	doc := importFile(t, db, "scan.pdf", data)
	job, err := db.ClaimOCR(context.Background(), doc.ID, true, ocr.Lease)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ocr.Run(context.Background(), db, &job, ocr.Options{Lang: "deu+eng", Vision: v})
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("after OCR: %s %q, %v", got.Status, got.Error, err)
	}
	d := details(t, db, doc.ID)[0]
	if !strings.HasPrefix(d.Engine, "ppocr ") || !strings.Contains(d.Note, "cannot spell deu") {
		t.Errorf("page %+v: want PP-OCR's reading, noted as in a language it cannot spell", d)
	}
}
