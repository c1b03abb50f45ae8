package ingest

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// The import benchmarks and poppler's pdftotext on the same files, with the
// same number of workers (one per core), in one run:
//
//	go test -p 1 -run '^$' -bench 'Import|Pdftotext' -benchtime 3x ./app/ingest
//
// ns/op is the wall time of one pass over the files. Import counts the
// pages of the documents it stores; pdftotext those that the manifest gives
// for each file it reads (exit status 0).

// benchSet is a set of corpus files and the manifest's page counts.
type benchSet struct {
	files []string
	pages map[string]int
}

// corpusFiles returns the corpus files whose path starts with one of
// prefixes, or every file without prefixes.
func corpusFiles(b *testing.B, prefixes ...string) benchSet {
	dir, entries := testcorpus.Manifest(b)
	set := benchSet{pages: map[string]int{}}
	for _, e := range entries {
		keep := len(prefixes) == 0
		for _, p := range prefixes {
			keep = keep || strings.HasPrefix(e.File, p)
		}
		if keep {
			path := filepath.Join(dir, e.File)
			set.files = append(set.files, path)
			set.pages[path] = e.Pages
		}
	}
	if len(set.files) == 0 {
		b.Fatalf("no corpus file under %q", prefixes)
	}
	return set
}

// invoicePrefixes are the corpus folders of invoices: 69 files of 1 to 5
// pages, the typical import.
var invoicePrefixes = []string{"invoice2data/", "zugferd/"}

// BenchmarkImportCorpus imports every corpus PDF into a fresh store, as
// `docent import ../shared/corpus` does (reader children, every core), and
// reports pages per second.
func BenchmarkImportCorpus(b *testing.B) { benchImport(b, corpusFiles(b)) }

// BenchmarkImportInvoices imports the corpus's 69 invoices.
func BenchmarkImportInvoices(b *testing.B) { benchImport(b, corpusFiles(b, invoicePrefixes...)) }

// BenchmarkPdftotextCorpus runs `pdftotext -layout` on the files of
// BenchmarkImportCorpus.
func BenchmarkPdftotextCorpus(b *testing.B) { benchPdftotext(b, corpusFiles(b)) }

// BenchmarkPdftotextInvoices runs `pdftotext -layout` on the files of
// BenchmarkImportInvoices.
func BenchmarkPdftotextInvoices(b *testing.B) {
	benchPdftotext(b, corpusFiles(b, invoicePrefixes...))
}

func benchImport(b *testing.B, set benchSet) {
	pages := 0
	for b.Loop() {
		b.StopTimer()
		db, err := storage.Open(context.Background(), filepath.Join(b.TempDir(), "docent.db"))
		if err != nil {
			b.Fatal(err)
		}
		im := &Importer{DB: db}
		b.StartTimer()
		for _, o := range im.ImportFiles(context.Background(), set.files, Options{}, nil) {
			if o.Document != nil {
				pages += o.Document.Pages
			}
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
	b.ReportMetric(float64(len(set.files)*b.N)/b.Elapsed().Seconds(), "files/s")
}

func benchPdftotext(b *testing.B, set benchSet) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		b.Skip("pdftotext is not installed (apt-get install poppler-utils)")
	}
	var pages, read atomic.Int64
	for b.Loop() {
		jobs := make(chan string)
		var wg sync.WaitGroup
		for range min(runtime.NumCPU(), len(set.files)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for path := range jobs {
					// The text is read and dropped, as the importer's is stored.
					if exec.Command("pdftotext", "-layout", "-q", path, "-").Run() == nil {
						pages.Add(int64(set.pages[path]))
						read.Add(1)
					}
				}
			}()
		}
		for _, f := range set.files {
			jobs <- f
		}
		close(jobs)
		wg.Wait()
	}
	b.ReportMetric(float64(pages.Load())/b.Elapsed().Seconds(), "pages/s")
	b.ReportMetric(float64(len(set.files)*b.N)/b.Elapsed().Seconds(), "files/s")
	b.ReportMetric(float64(read.Load())/float64(b.N), "read/op")
}
