package ocr

import (
	"context"
	"image"
	"image/draw"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/docent/docent/app/ingest/pdftext"
)

// TestGermanTextReadsUmlautsSharpSAndEuro: a German invoice's words, set
// in the Go font at the size of 10 pt print scanned at 300 dpi, read with
// deu+eng keep ö, ü, ß and € (with best_int data where it is installed,
// which CI has, else the system's).
func TestGermanTextReadsUmlautsSharpSAndEuro(t *testing.T) {
	needTesseract(t)
	ft, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(ft, &opentype.FaceOptions{Size: 10, DPI: 300, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{"Rechnung für die Größe Straße 5", "Gesamtbetrag: 1.234,56 €", "Zahlbar über Überweisung"}
	img := image.NewGray(image.Rect(0, 0, 1800, 400))
	draw.Draw(img, img.Rect, image.White, image.Point{}, draw.Src)
	d := font.Drawer{Dst: img, Src: image.Black, Face: face}
	for i, l := range lines {
		d.Dot = fixed.P(60, 90+100*i)
		d.DrawString(l)
	}
	data := encodePNG(t, img)
	dir := t.TempDir()
	imgs, err := runPages(context.Background(), data, pagesRequest{Pages: []int{1}, Dir: dir}, pdftext.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	forgetEngine()
	t.Cleanup(forgetEngine)
	e, err := FindEngine(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	needLangs(t, e, "deu+eng")
	text, _, err := e.Recognize(context.Background(), imgs[0].File, "deu+eng", imgs[0].ocrDPI(), pdftext.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %q", e.DataNote("deu+eng"), text)
	for _, want := range []string{"Größe", "Straße", "für", "1.234,56 €", "über", "Überweisung"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q not read (%s); the text: %q", want, e.NameFor("deu+eng"), text)
		}
	}
}
