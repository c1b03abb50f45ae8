package ocr

import (
	"os"
	"testing"

	"github.com/docent/docent/app/ingest/pdftext"
)

// TestMain lets this test binary serve as the reader child (image
// decoding, page rendering) and as the launcher of a memory-limited
// tesseract, as main does for docent.
func TestMain(m *testing.M) {
	pdftext.RunChildIfRequested()
	os.Exit(m.Run())
}
