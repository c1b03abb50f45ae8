package ocr

import (
	"image"
	"strings"
	"testing"

	"github.com/docent/docent/storage"
)

func TestFindLoop(t *testing.T) {
	receipt := "SHOP 42\nMilk 1.20\nBread 2.10\n"
	for _, tc := range []struct {
		name, text, keep string
		loop             bool
	}{
		{"a line over and over", receipt + strings.Repeat("TOTAL 3.30\n", 40), receipt + "TOTAL 3.30\n", true},
		{"a line, cut mid-way", receipt + strings.Repeat("TOTAL 3.30\n", 40) + "TOT", receipt + "TOTAL 3.30\n", true},
		{"two lines", receipt + strings.Repeat("Tax 0.00\nSum 3.30\n", 30), receipt + "Tax 0.00\nSum 3.30\n", true},
		{"a number", "Amounts: " + strings.Repeat("0.00 ", 200), "Amounts: 0.00 ", true},
		{"a word in a line", "and the " + strings.Repeat("the ", 100), "and the ", true},
		{"runes", "Straße " + strings.Repeat("Grüße ", 100), "Straße Grüße ", true},
		{"real text", receipt + strings.Repeat("Item 1.00\nItem 2.00\n", 3) + strings.Repeat("-", 60) + "\n", "", false},
		{"leader dots", "Contents" + strings.Repeat(".", 120) + "3\n", "", false},
		{"seven lines", receipt + strings.Repeat("a much longer line of text that is repeated\n", 7), "", false},
		{"short", strings.Repeat("ab", 20), "", false},
	} {
		keep, ok := findLoop(tc.text)
		if ok != tc.loop || ok && tc.text[:keep] != tc.keep {
			got := ""
			if ok {
				got = tc.text[:keep]
			}
			t.Errorf("%s: loop %v, keeps %q; want %v, %q", tc.name, ok, got, tc.loop, tc.keep)
		}
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"  TOTAL 4.50\n":               "TOTAL 4.50",
		"```\nTOTAL 4.50\n```":         "TOTAL 4.50",
		"```text\nTOTAL\n4.50\n```\n":  "TOTAL\n4.50",
		"```markdown\nTOTAL 4.50 (cut": "TOTAL 4.50 (cut",
		"```\nA\n```\nnote after":      "```\nA\n```\nnote after",
	} {
		if got := clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestVisionWants is the rule of which pages the model reads.
func TestVisionWants(t *testing.T) {
	conf := func(c float64) *float64 { return &c }
	scan := PageImage{Method: "scan"}
	for _, tc := range []struct {
		name    string
		v       Vision
		img     PageImage
		ocr     storage.OCRPage
		ocrRead bool
		want    bool
	}{
		{"a good scan", Vision{}, scan, storage.OCRPage{Confidence: conf(0.91)}, true, false},
		{"a poor scan", Vision{}, scan, storage.OCRPage{Confidence: conf(0.42)}, true, true},
		{"a scan without words", Vision{}, scan, storage.OCRPage{}, true, true},
		{"a photo", Vision{}, PageImage{Method: "image"}, storage.OCRPage{Confidence: conf(0.95)}, true, true},
		{"no tesseract", Vision{}, scan, storage.OCRPage{}, false, true},
		{"all", Vision{All: true}, scan, storage.OCRPage{Confidence: conf(0.99)}, true, true},
		{"a higher bar", Vision{Below: 0.95}, scan, storage.OCRPage{Confidence: conf(0.91)}, true, true},
		{"blank", Vision{All: true}, PageImage{Method: "image", Blank: true}, storage.OCRPage{}, false, false},
	} {
		if got := tc.v.wants(tc.img, tc.ocr, tc.ocrRead); got != tc.want {
			t.Errorf("%s: wants %v", tc.name, got)
		}
	}
}

func TestFitPixels(t *testing.T) {
	big := image.NewGray(image.Rect(0, 0, 3000, 4000))
	got := fitPixels(big, VisionMaxPixels).Bounds()
	if got.Dx()*got.Dy() > VisionMaxPixels || got.Dx() < 1050 || got.Dy() < 1410 {
		t.Errorf("12 MP fit to %v", got)
	}
	small := image.NewGray(image.Rect(0, 0, 800, 600))
	if fitPixels(small, VisionMaxPixels) != image.Image(small) {
		t.Error("a small image was scaled")
	}
}
