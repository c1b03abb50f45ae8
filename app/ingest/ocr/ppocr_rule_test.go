package ocr

import "testing"

// TestUsePPOCR: PP-OCR reads every page in English, photos and rendered
// and scanned PDF pages (it misses fewer values than Tesseract on both,
// docs/benchmarks.md); with German among the languages, Tesseract reads.
func TestUsePPOCR(t *testing.T) {
	for _, c := range []struct {
		method, langs string
		want          bool
	}{
		{"image", "eng", true},
		{"image", "deu+eng", false},
		{"image", "deu", false},
		{"render", "eng", true},
		{"scan", "eng", true},
		{"render", "deu+eng", false},
		{"scan", "deu", false},
		{"image", "eng+fra", false},
	} {
		if got := usePPOCR(c.langs); got != c.want {
			t.Errorf("usePPOCR(%s, %s) = %v, want %v", c.method, c.langs, got, c.want)
		}
	}
}
