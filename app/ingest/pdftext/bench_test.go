package pdftext

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docent/docent/app/internal/testcorpus"
)

// The two benchmarks read the same corpus files (those pdftotext reads),
// with one worker per CPU, and report pages per second, so that Docent's
// reader and poppler's pdftotext can be compared in one run:
//
//	go test -run '^$' -bench 'BenchmarkCorpus|BenchmarkPdftotext' -benchtime 3x ./app/ingest/pdftext/

type benchFile struct {
	path  string
	data  []byte
	pages int
}

func benchFiles(b *testing.B) []benchFile {
	b.Helper()
	dir, entries := testcorpus.Manifest(b)
	var files []benchFile
	for _, e := range entries {
		if e.PdftotextChars == 0 || e.Pages == 0 {
			continue
		}
		path := filepath.Join(dir, e.File)
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, benchFile{path: path, data: data, pages: e.Pages})
	}
	return files
}

// runPool calls read for every file with runtime.NumCPU() workers and
// returns the pages read.
func runPool(b *testing.B, files []benchFile, read func(benchFile) (int, error)) int64 {
	var pages atomic.Int64
	jobs := make(chan benchFile)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range jobs {
				n, err := read(f)
				if err != nil {
					b.Errorf("%s: %v", f.path, err)
					continue
				}
				pages.Add(int64(n))
			}
		}()
	}
	for _, f := range files {
		jobs <- f
	}
	close(jobs)
	wg.Wait()
	return pages.Load()
}

func BenchmarkCorpus(b *testing.B) {
	files := benchFiles(b)
	var pages int64
	start := time.Now()
	for b.Loop() {
		pages += runPool(b, files, func(f benchFile) (int, error) {
			res, err := ExtractIsolated(context.Background(), f.data, Options{}, Limits{})
			return len(res.Pages), err
		})
	}
	b.ReportMetric(float64(pages)/time.Since(start).Seconds(), "pages/s")
	b.ReportMetric(float64(len(files)), "files")
}

func BenchmarkPdftotext(b *testing.B) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		b.Skip("pdftotext is not installed (apt-get install poppler-utils)")
	}
	files := benchFiles(b)
	var pages int64
	start := time.Now()
	for b.Loop() {
		pages += runPool(b, files, func(f benchFile) (int, error) {
			if err := exec.Command("pdftotext", "-layout", "-q", f.path, "-").Run(); err != nil {
				return 0, err
			}
			return f.pages, nil
		})
	}
	b.ReportMetric(float64(pages)/time.Since(start).Seconds(), "pages/s")
	b.ReportMetric(float64(len(files)), "files")
}
