package ingest

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/app/internal/testcorpus"
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
	var files []string
	for _, e := range entries {
		if !Supported(e.File) {
			t.Errorf("%s: not a type Docent imports", e.File)
		}
		files = append(files, filepath.Join(dir, e.File))
	}
	outcomes := im.ImportFiles(context.Background(), files, Options{}, nil)
	if len(outcomes) != len(entries) {
		t.Fatalf("%d outcomes for %d files", len(outcomes), len(entries))
	}

	var ready, needsOCR, failed, duplicates, popplerReads, docentReadsOfThose, withWords int
	for i, o := range outcomes {
		e := entries[i]
		if e.PdftotextChars > 0 {
			popplerReads++
		}
		if o.Document != nil && !o.Duplicate && o.Err == nil {
			// Every page with a text layer has its words from the import.
			missing, err := im.DB.PagesWithoutWords(context.Background(), o.Document.ID)
			if err != nil || len(missing) > 0 {
				t.Errorf("%s: pages without words %v, %v; want none", e.File, missing, err)
			}
			if d, _ := im.DB.PageDetails(context.Background(), o.Document.ID); len(d) > 0 && d[0].Width > 0 {
				withWords++
			}
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
			// A document with text and some scanned pages waits for OCR
			// too, with the text it has.
			if e.PdftotextChars > 0 {
				pages, err := im.DB.DocumentText(context.Background(), o.Document.ID)
				if err != nil || !hasText(pages) {
					t.Errorf("%s: pdftotext reads %d chars, Docent found no text (%v)", e.File, e.PdftotextChars, err)
				}
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
	t.Logf("corpus: %d files: %d ready, %d need OCR, %d failed, %d duplicates",
		len(entries), ready, needsOCR, failed, duplicates)
	t.Logf("text read: pdftotext %d files, Docent %d of those (and %d in all); %d with words on page 1", popplerReads, docentReadsOfThose, ready, withWords)
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
