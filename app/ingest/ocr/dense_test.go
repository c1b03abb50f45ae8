package ocr_test

import (
	"context"
	"fmt"
	"image"
	"image/draw"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/storage"
)

// densePage draws 150 lines of 40 six-digit numbers, 12 px type in the
// Go font, on a page of 3,000 × 3,000 pixels: small print that PP-OCR's
// detection, which sees the page scaled to 1,600 pixels, cannot make
// out. It returns the page and its numbers.
func densePage(t *testing.T) (*image.Gray, []string) {
	t.Helper()
	ft, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(ft, &opentype.FaceOptions{Size: 12, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewGray(image.Rect(0, 0, 3000, 3000))
	draw.Draw(img, img.Rect, image.White, image.Point{}, draw.Src)
	d := font.Drawer{Dst: img, Src: image.Black, Face: face}
	var numbers []string
	for i := range 150 {
		var line []string
		for j := range 40 {
			line = append(line, fmt.Sprintf("%06d", (i*7919+j*104729)%1000000))
		}
		numbers = append(numbers, line...)
		d.Dot = fixed.P(40, 16+20*i)
		d.DrawString(strings.Join(line, " "))
	}
	return img, numbers
}

// TestDensePageOfSmallNumbersIsRead: a page of 6,000 small numbers
// imported as a PNG and read on an English machine is not left ready
// with a line or two that PP-OCR made out and a high confidence (a
// receipt of small numbers in the corpus): its ink shows 150 lines, so Tesseract reads it too, at full
// resolution, and its reading, the better, is kept; the page's note says
// so.
func TestDensePageOfSmallNumbersIsRead(t *testing.T) {
	needTesseract(t)
	needPPOCR(t)
	img, numbers := densePage(t)
	db := openDB(t)
	doc := importFile(t, db, "dense.png", pngBytes(t, img))
	got, err := ocrDocument(t, db, doc.ID, ocr.Options{Lang: "eng", PageTimeout: 30 * time.Minute}) // a shared machine may be slow
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("after OCR: %s %q, %v", got.Status, got.Error, err)
	}
	text, err := db.PageText(context.Background(), doc.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	words := map[string]bool{}
	for _, w := range strings.Fields(text) {
		words[w] = true
	}
	for _, n := range numbers {
		if words[n] {
			found++
		}
	}
	details, err := db.PageDetails(context.Background(), doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	d := details[0]
	conf := "none"
	if d.Confidence != nil {
		conf = fmt.Sprint(*d.Confidence)
	}
	if found < len(numbers)*9/10 {
		t.Errorf("%d of the page's %d numbers read (%d characters, engine %q, confidence %v, note %q)",
			found, len(numbers), len(text), d.Engine, conf, d.Note)
	}
	if !strings.HasPrefix(d.Note, ocr.NoteMissedText) || !strings.Contains(d.Note, "Tesseract") ||
		!strings.Contains(d.Note, "its reading is kept") || !strings.HasPrefix(d.Engine, "tesseract ") {
		t.Errorf("page read by %q (confidence %s), note %q: want Tesseract's reading kept, with a note that says why", d.Engine, conf, d.Note)
	}
}
