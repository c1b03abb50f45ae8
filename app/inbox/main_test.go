package inbox_test

import (
	"os"
	"testing"

	"github.com/docent/docent/app/ingest/pdftext"
)

// TestMain lets this test binary serve as the PDF reader child, as main
// does for docent: the importer reads PDFs in children of itself.
func TestMain(m *testing.M) {
	pdftext.RunChildIfRequested()
	os.Exit(m.Run())
}
