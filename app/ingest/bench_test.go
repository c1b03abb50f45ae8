package ingest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// BenchmarkImportCorpus imports every corpus PDF into a fresh store, as
// `docent import ../shared/corpus` does (a child process per PDF, every core),
// and reports pages per second. Compare it with the pdftotext figure of the
// same run:
//
//	go test -run '^$' -bench 'Corpus|Pdftotext' -benchtime 3x ./app/ingest ./app/pdftext
func BenchmarkImportCorpus(b *testing.B) {
	dir, entries := testcorpus.Manifest(b)
	files := make([]string, len(entries))
	for i, e := range entries {
		files[i] = filepath.Join(dir, e.File)
	}
	pages := 0
	for b.Loop() {
		b.StopTimer()
		db, err := storage.Open(context.Background(), filepath.Join(b.TempDir(), "docent.db"))
		if err != nil {
			b.Fatal(err)
		}
		im := &Importer{DB: db}
		b.StartTimer()
		for _, o := range im.ImportFiles(context.Background(), files, Options{}, nil) {
			if o.Document != nil {
				pages += o.Document.Pages
			}
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
	b.ReportMetric(float64(len(files)*b.N)/b.Elapsed().Seconds(), "files/s")
}
