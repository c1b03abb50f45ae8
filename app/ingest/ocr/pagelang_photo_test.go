package ocr_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// TestGermanPhotoReadInEnglishIsReadAgainInGerman: a photo of a German
// invoice (its page rendered to a PNG) imported and read on an English
// machine is read by PP-OCR (where installed) and then again by
// Tesseract in deu+eng, from the image Tesseract reads photos from; the
// stored page records the engine, the languages and a note, and its text
// the invoice's ü, ö, ß and €. (Photos are read with best_int data where
// it is installed, whose deu reads this page's ä as a: "Fälligkeitstag"
// comes out "Falligkeitstag", which the system's data reads right.)
func TestGermanPhotoReadInEnglishIsReadAgainInGerman(t *testing.T) {
	needLangs(t, "deu")
	ocr.ForgetPPOCR()
	t.Cleanup(ocr.ForgetPPOCR)
	pdf, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), "zugferd", "v1_ZUGFeRD_1p0_COMFORT_Kraftfahrversicherung_Bruttopreise.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	png, err := ocr.RenderPNG(pdf, 1, ocr.RenderDPI, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	db := openDB(t)
	doc := importFile(t, db, "beitragsrechnung.png", png)
	got, err := ocrDocument(t, db, doc.ID, ocr.Options{Lang: "eng"})
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("after OCR: %s %q, %v", got.Status, got.Error, err)
	}
	details, err := db.PageDetails(context.Background(), doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := details[0]; d.Lang != "deu+eng" || !strings.HasPrefix(d.Engine, "tesseract ") || !strings.HasPrefix(d.Note, ocr.NoteReadInLang) {
		t.Errorf("page details %+v: want read again by Tesseract in deu+eng, with a note", d)
	}
	text, _ := db.PageText(context.Background(), doc.ID, 1)
	for _, want := range []string{"berücksichtigt", "Lösen Sie", "Grüße", "220,00 €"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q not read; the text: %q", want, text)
		}
	}
	words, err := db.PageWords(context.Background(), doc.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range words.Words {
		if w.X < 0 || w.Y < 0 || w.X+w.W > words.Width || w.Y+w.H > words.Height {
			t.Fatalf("word %+v outside the %d×%d page", w, words.Width, words.Height)
		}
	}
}
