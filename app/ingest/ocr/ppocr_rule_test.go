package ocr

import "testing"

// TestUsePPOCR: PP-OCR reads the pages of image files in English; rendered
// and scanned PDF pages, and German, stay with Tesseract.
func TestUsePPOCR(t *testing.T) {
	for _, c := range []struct {
		method, langs string
		want          bool
	}{
		{"image", "eng", true},
		{"image", "deu+eng", false},
		{"image", "deu", false},
		{"render", "eng", false},
		{"scan", "eng", false},
	} {
		if got := usePPOCR(PageImage{Method: c.method}, c.langs); got != c.want {
			t.Errorf("usePPOCR(%s, %s) = %v, want %v", c.method, c.langs, got, c.want)
		}
	}
}
