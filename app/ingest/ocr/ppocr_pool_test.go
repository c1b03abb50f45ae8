package ocr_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// readReceiptsAsImportDoes imports the SROIE photos named by ids and reads
// them as `docent import` does (app/cli: as many documents at once as
// there are reader slots), and returns how many times a PP-OCR child
// loaded the models meanwhile.
func readReceiptsAsImportDoes(t testing.TB, db *storage.DB, ids []string) int64 {
	dir := filepath.Join(testcorpus.Dir(t), "sroie")
	docs := make([]string, len(ids))
	for i, id := range ids {
		data, err := os.ReadFile(filepath.Join(dir, id+".jpg"))
		if err != nil {
			t.Fatal(err)
		}
		docs[i] = importFile(t.(*testing.T), db, id+".jpg", data).ID
	}
	before := ocr.PPOCRLoads()
	sem := make(chan struct{}, pdftext.MaxReaders())
	var wg sync.WaitGroup
	for _, id := range docs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			job, err := db.ClaimOCR(context.Background(), id, false, ocr.Lease)
			if err != nil {
				t.Errorf("claim %s: %v", id, err)
				return
			}
			got, err := ocr.Run(context.Background(), db, &job, ocr.Options{Lang: "eng"})
			if err != nil || got.Status != storage.StatusReady {
				t.Errorf("%s: %s %q %v", got.Name, got.Status, got.Error, err)
			}
		})
	}
	wg.Wait()
	return ocr.PPOCRLoads() - before
}

// TestPPOCRChildKeepsTheModels: receipt photos read two at a time, as an
// import of many reads them, are read by PP-OCR children that keep the
// models loaded: eight receipts took nine loads, now one per reader slot.
// A child that has grown past PPOCRRetain is still retired (on all 40
// receipts, after 4 to 13 pages), so the bound here is two pages a load.
func TestPPOCRChildKeepsTheModels(t *testing.T) {
	needTesseract(t)
	needPPOCR(t)
	ids := []string{"000", "001", "002", "003", "004", "005", "006", "007"}
	if os.Getenv("DOCENT_SROIE_ALL") == "1" {
		ids = nil
		files, _ := filepath.Glob(filepath.Join(testcorpus.Dir(t), "sroie", "*.jpg"))
		for _, f := range files {
			ids = append(ids, filepath.Base(f)[:3])
		}
	}
	loads := readReceiptsAsImportDoes(t, openDB(t), ids)
	t.Logf("%d receipts, %d reader slots: %d model loads (%.1f pages per load)", len(ids), pdftext.MaxReaders(), loads, float64(len(ids))/float64(max(loads, 1)))
	if 2*loads > int64(len(ids)) {
		t.Errorf("%d model loads for %d receipts, want at least two receipts a load", loads, len(ids))
	}
}
