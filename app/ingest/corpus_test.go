package ingest

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/app/pdftext"
	"github.com/docent/docent/storage"
)

// TestImportWholeCorpus imports every PDF of the shared corpus as a user's
// `docent import ../shared/corpus` would, with no password, and checks that
// each file is accounted for: read with the manifest's page count, stored as
// needing OCR, or failed with a categorised error.
func TestImportWholeCorpus(t *testing.T) {
	dir, entries := testcorpus.Manifest(t)
	if testing.Short() {
		t.Skip("skipping the whole-corpus import in -short mode")
	}
	im := newImporter(t)
	// Images (the receipt photos) are not imported until OCR reads them:
	// named explicitly they are refused as unsupported, with nothing stored.
	var files []string
	var unsupported []string
	kept := entries[:0:0]
	for _, e := range entries {
		if !Supported(e.File) {
			unsupported = append(unsupported, filepath.Join(dir, e.File))
			continue
		}
		files = append(files, filepath.Join(dir, e.File))
		kept = append(kept, e)
	}
	entries = kept
	for _, o := range im.ImportFiles(context.Background(), unsupported, Options{}, nil) {
		if !errors.Is(o.Err, ErrUnsupported) || o.Document != nil {
			t.Errorf("%s: %v, %+v; want unsupported and nothing stored", o.File, o.Err, o.Document)
		}
	}
	outcomes := im.ImportFiles(context.Background(), files, Options{}, nil)
	if len(outcomes) != len(entries) {
		t.Fatalf("%d outcomes for %d files", len(outcomes), len(entries))
	}

	var ready, needsOCR, failed, duplicates, popplerReads, docentReadsOfThose int
	for i, o := range outcomes {
		e := entries[i]
		if e.PdftotextChars > 0 {
			popplerReads++
		}
		switch {
		case o.Duplicate:
			duplicates++ // the corpus holds a few byte-identical files under two names
			continue
		case o.Err != nil:
			failed++
			if o.Document == nil || o.Document.Status != storage.StatusFailed || o.Document.Error == "" {
				t.Errorf("%s: failed (%v) but not stored as failed: %+v", e.File, o.Err, o.Document)
			}
			if !categorised(o.Err) {
				t.Errorf("%s: error without a category: %v", e.File, o.Err)
			}
			if e.Password != "" && !errors.Is(o.Err, pdftext.ErrPasswordRequired) {
				t.Errorf("%s needs password %q: got %v, want password required", e.File, e.Password, o.Err)
			}
			if e.PdftotextChars > 0 {
				t.Errorf("%s: pdftotext reads %d chars, Docent failed: %v", e.File, e.PdftotextChars, o.Err)
			}
		case o.Document.Status == storage.StatusNeedsOCR:
			needsOCR++
			if e.PdftotextChars > 0 {
				t.Errorf("%s: pdftotext reads %d chars, Docent found no text", e.File, e.PdftotextChars)
			}
		default:
			ready++
			if e.PdftotextChars > 0 {
				docentReadsOfThose++
			}
			if e.Pages > 0 && o.Document.Pages != e.Pages {
				t.Errorf("%s: %d pages, the manifest says %d", e.File, o.Document.Pages, e.Pages)
			}
		}
	}
	t.Logf("corpus: %d files: %d ready, %d need OCR, %d failed, %d duplicates; %d images not imported (no OCR yet)",
		len(entries), ready, needsOCR, failed, duplicates, len(unsupported))
	t.Logf("text read: pdftotext %d files, Docent %d of those (and %d in all)", popplerReads, docentReadsOfThose, ready)
}

// categorised reports whether an import error is one of the kinds a user is
// told about, rather than an unexplained failure.
func categorised(err error) bool {
	for _, kind := range []error{pdftext.ErrPasswordRequired, pdftext.ErrMalformed, pdftext.ErrNoPages, pdftext.ErrTimeout, pdftext.ErrTooLarge, ErrUnsupported} {
		if errors.Is(err, kind) {
			return true
		}
	}
	return false
}
