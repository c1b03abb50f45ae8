package ocr_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/app/ingest/ocr/ppocr"
	"github.com/docent/docent/app/ingest/ocr/ppocr/ort"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// needPPOCR skips a test without the ONNX Runtime and the PP-OCR models,
// except in CI, which must have them (scripts/test installs them).
func needPPOCR(t *testing.T) {
	t.Helper()
	_, err := ort.LoadInstalled()
	if err == nil {
		_, err = ppocr.LoadModels()
	}
	if err != nil {
		if os.Getenv("CI") != "true" && (errors.Is(err, ort.ErrNotInstalled) || errors.Is(err, ppocr.ErrModelsMissing)) {
			t.Skipf("skipping: %v (scripts/test installs it)", err)
		}
		t.Fatalf("PP-OCR: %v", err)
	}
	ocr.ForgetPPOCR()
	t.Cleanup(ocr.ForgetPPOCR)
}

func normalised(s string) string { return strings.ToUpper(strings.Join(strings.Fields(s), "")) }

// TestReceiptPhotoReadsWithPPOCR: a receipt photo imported as a JPEG is
// read by PP-OCR in a reader child: the page records the engine and the
// runtime's version, the labelled total is in the text, and the words are
// stored with their boxes in the photo's own pixels.
func TestReceiptPhotoReadsWithPPOCR(t *testing.T) {
	needTesseract(t)
	needPPOCR(t)
	dir := filepath.Join(testcorpus.Dir(t), "sroie")
	data, err := os.ReadFile(filepath.Join(dir, "000.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	var label map[string]string
	raw, _ := os.ReadFile(filepath.Join(dir, "000.expected.json"))
	if err := json.Unmarshal(raw, &label); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	db := openDB(t)
	doc := importFile(t, db, "receipt.jpg", data)
	got, err := ocrDocument(t, db, doc.ID, ocr.Options{Lang: "eng"})
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("after OCR: %s %q, %v", got.Status, got.Error, err)
	}
	details, _ := db.PageDetails(context.Background(), doc.ID)
	if d := details[0]; !strings.HasPrefix(d.Engine, "ppocr PP-OCRv4 onnxruntime "+ort.Version) || d.Source != storage.SourceOCR || d.Confidence == nil {
		t.Fatalf("page details %+v", d)
	}
	text, _ := db.PageText(context.Background(), doc.ID, 1)
	if !strings.Contains(normalised(text), normalised(label["total"])) || !strings.Contains(normalised(text), normalised(label["date"])) {
		t.Errorf("total %q or date %q not in the text %q", label["total"], label["date"], text)
	}
	words, err := db.PageWords(context.Background(), doc.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if words.Width != cfg.Width || words.Height != cfg.Height || len(words.Words) < 20 {
		t.Fatalf("words of a %d×%d photo: %d×%d, %d words", cfg.Width, cfg.Height, words.Width, words.Height, len(words.Words))
	}
	for _, w := range words.Words {
		if w.W <= 0 || w.H <= 0 || w.X < 0 || w.Y < 0 || w.X+w.W > cfg.Width || w.Y+w.H > cfg.Height || strings.ContainsAny(w.Text, " \n") {
			t.Fatalf("word %+v outside the photo or not one word", w)
		}
	}
}

// TestWithoutRuntimeTesseractReadsPhotos: with the ONNX Runtime missing,
// an image is read by Tesseract, and the log says once why PP-OCR is off.
func TestWithoutRuntimeTesseractReadsPhotos(t *testing.T) {
	needTesseract(t)
	withoutPPOCR(t)
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	db := openDB(t)
	for range 2 {
		doc := importFile(t, db, "receipt.png", pngBytes(t, printed(1200, 400, "INVOICE 2024-117", "TOTAL EUR 42.50")))
		got, err := ocrDocument(t, db, doc.ID, ocr.Options{Lang: "eng", Logger: logger})
		if err != nil || got.Status != storage.StatusReady {
			t.Fatalf("after OCR: %s %q, %v", got.Status, got.Error, err)
		}
		details, _ := db.PageDetails(context.Background(), doc.ID)
		if !strings.HasPrefix(details[0].Engine, "tesseract ") {
			t.Fatalf("page details %+v", details[0])
		}
		text, _ := db.PageText(context.Background(), doc.ID, 1)
		if !strings.Contains(text, "TOTAL EUR 42") {
			t.Fatalf("OCR text %q", text)
		}
		ocr.ForgetPPOCR() // asked again: said once all the same
	}
	if n := strings.Count(log.String(), "PP-OCR is off"); n != 1 || !strings.Contains(log.String(), "ONNX Runtime is not installed") {
		t.Errorf("the log says %d times that PP-OCR is off: %s", n, log.String())
	}
}

// TestGermanPhotoKeepsTesseract: with German among the languages, an
// image is read by Tesseract, whose German data spells ö, ß and €, which
// PP-OCR's dictionary lacks.
func TestGermanPhotoKeepsTesseract(t *testing.T) {
	needLangs(t, "deu+eng")
	needPPOCR(t)
	db := openDB(t)
	doc := importFile(t, db, "rechnung.png", pngBytes(t, printed(1200, 400, "RECHNUNG 2024-117", "SUMME EUR 42,50")))
	got, err := ocrDocument(t, db, doc.ID, ocr.Options{Lang: "deu+eng"})
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("after OCR: %s %q, %v", got.Status, got.Error, err)
	}
	details, _ := db.PageDetails(context.Background(), doc.ID)
	if !strings.HasPrefix(details[0].Engine, "tesseract ") {
		t.Fatalf("a German page read by %q", details[0].Engine)
	}
}

// TestPPOCRFailureFallsBackToTesseract: a page PP-OCR refuses (an image
// too small for it) is read by Tesseract, with a note that says why; a
// photo of noise is ready, with whatever text was found in it.
func TestPPOCRFailureFallsBackToTesseract(t *testing.T) {
	needTesseract(t)
	needPPOCR(t)
	db := openDB(t)
	thin := image.NewGray(image.Rect(0, 0, 3, 200))
	for i := range thin.Pix {
		thin.Pix[i] = uint8(255 * (i % 2))
	}
	doc := importFile(t, db, "thin.png", pngBytes(t, thin))
	got, err := ocrDocument(t, db, doc.ID, ocr.Options{Lang: "eng"})
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("after OCR: %s %q, %v", got.Status, got.Error, err)
	}
	details, _ := db.PageDetails(context.Background(), doc.ID)
	if d := details[0]; !strings.HasPrefix(d.Engine, "tesseract ") || !strings.HasPrefix(d.Note, ocr.NotePPOCRFailed+": ") || !strings.Contains(d.Note, "too small") {
		t.Fatalf("page details %+v", d)
	}
	if !strings.Contains(got.Error, "PP-OCR could not read page 1") {
		t.Errorf("document message %q", got.Error)
	}
	// Tesseract read the page enlarged twice, as it reads photos, though
	// PP-OCR's page image was made at the file's own size.
	if w, err := db.PageWords(context.Background(), doc.ID, 1); err != nil || w.Width != 6 || w.Height != 400 {
		t.Errorf("the words of the page Tesseract read: %d×%d (%v), want 6×400", w.Width, w.Height, err)
	}

	noise := image.NewRGBA(image.Rect(0, 0, 400, 300))
	r := rand.New(rand.NewPCG(1, 2))
	for y := range 300 {
		for x := range 400 {
			noise.Set(x, y, color.RGBA{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), 255})
		}
	}
	doc = importFile(t, db, "noise.png", pngBytes(t, noise))
	got, err = ocrDocument(t, db, doc.ID, ocr.Options{Lang: "eng"})
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("noise after OCR: %s %q, %v", got.Status, got.Error, err)
	}
	details, _ = db.PageDetails(context.Background(), doc.ID)
	t.Logf("noise: %+v, message %q", details[0], got.Error)
	if !strings.HasPrefix(details[0].Engine, "ppocr ") {
		t.Errorf("noise read by %q", details[0].Engine)
	}
}

// TestCorruptModelTesseractReadsPhotos: a PP-OCR model that is not the
// pinned one (cut short) turns PP-OCR off with the cause in the log, and
// Tesseract reads the image.
func TestCorruptModelTesseractReadsPhotos(t *testing.T) {
	needTesseract(t)
	needPPOCR(t)
	lib, _, err := ort.Library()
	if err != nil {
		t.Fatal(err)
	}
	m, err := ppocr.LoadModels()
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	dir := filepath.Join(cache, filepath.FromSlash(ppocr.ModelsDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"det.onnx": m.Det, "rec.onnx": m.Rec[:len(m.Rec)/2], "keys.txt": []byte(strings.Join(m.Dict, "\n") + "\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("DOCENT_ONNXRUNTIME", lib)
	t.Setenv("DOCENT_CACHE_DIR", cache)
	ocr.ForgetPPOCR()
	var log bytes.Buffer
	db := openDB(t)
	doc := importFile(t, db, "receipt.png", pngBytes(t, printed(1200, 400, "INVOICE 2024-117", "TOTAL EUR 42.50")))
	got, err := ocrDocument(t, db, doc.ID, ocr.Options{Lang: "eng", Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("after OCR: %s %q, %v", got.Status, got.Error, err)
	}
	details, _ := db.PageDetails(context.Background(), doc.ID)
	if !strings.HasPrefix(details[0].Engine, "tesseract ") {
		t.Fatalf("page details %+v", details[0])
	}
	if !strings.Contains(log.String(), "PP-OCR is off") || !strings.Contains(log.String(), "SHA-256") {
		t.Errorf("the log: %s", log.String())
	}
}

// TestScannedPDFPageReadsWithPPOCR: a scanned PDF page read in English is
// read by PP-OCR, from its rendered image, and since the scan is of a
// German invoice (Amazon.de's), read again by Tesseract in deu+eng
// (pagelang.go): the page records the engine, the languages and a note,
// the text has the invoice's words, and the words' boxes are in the
// rendered page's pixels at its resolution (where OCR reads more than the
// scan's text layer, which it replaces). Read in deu+eng, Tesseract
// reads it at once. (PP-OCR's own read of a PDF page, kept for an English
// one, is TestEnglishPageIsNotReadAgain's.)
func TestScannedPDFPageReadsWithPPOCR(t *testing.T) {
	needTesseract(t)
	needPPOCR(t)
	data, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), "invoice2data", "Amazon_EU_2014-06-04.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	db := openDB(t)
	for _, c := range []struct{ lang, engine, note string }{{"eng", "tesseract ", ocr.NoteReadInLang}, {"deu+eng", "tesseract ", ""}} {
		if e, _ := ocr.FindEngine(context.Background()); e.CheckLangs(c.lang) != nil {
			t.Logf("no %s data for Tesseract", c.lang)
			continue
		}
		doc := importFile(t, db, "scan-"+c.lang+".pdf", data)
		got, err := ocrDocument(t, db, doc.ID, ocr.Options{Lang: c.lang})
		if err != nil || got.Status != storage.StatusReady {
			t.Fatalf("%s: after OCR: %s %q, %v", c.lang, got.Status, got.Error, err)
		}
		details, _ := db.PageDetails(context.Background(), doc.ID)
		if d := details[0]; !strings.HasPrefix(d.Engine, c.engine) || d.Lang != "deu+eng" || (c.note != "" && !strings.HasPrefix(d.Note, c.note)) {
			t.Fatalf("%s: page details %+v, want read by %s in deu+eng, note %q", c.lang, d, c.engine, c.note)
		}
		if details[0].Source != storage.SourceOCR {
			// The scan has a text layer, kept when OCR reads no more
			// (Tesseract in deu+eng, here, as a rule).
			continue
		}
		text, _ := db.PageText(context.Background(), doc.ID, 1)
		if !strings.Contains(normalised(text), "AMAZON") {
			t.Errorf("%s: text %.200q", c.lang, text)
		}
		words, err := db.PageWords(context.Background(), doc.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		if words.DPI < 150 || len(words.Words) < 20 {
			t.Fatalf("%s: words at %v dpi, %d words", c.lang, words.DPI, len(words.Words))
		}
		for _, w := range words.Words {
			if w.X < 0 || w.Y < 0 || w.X+w.W > words.Width || w.Y+w.H > words.Height {
				t.Fatalf("%s: word %+v outside the %d×%d page", c.lang, w, words.Width, words.Height)
			}
		}
	}
}
