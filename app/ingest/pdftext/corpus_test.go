package pdftext

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docent/docent/app/internal/testcorpus"
)

// corpusOutcome is what ExtractIsolated made of one corpus file.
type corpusOutcome struct {
	entry testcorpus.Entry
	res   Result
	err   error
	took  time.Duration
}

// readCorpus reads every manifest file through ExtractIsolated with a worker
// per CPU, with the manifest's password when it lists one.
func readCorpus(t testing.TB, dir string, entries []testcorpus.Entry, withPassword bool) []corpusOutcome {
	t.Helper()
	out := make([]corpusOutcome, len(entries))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				e := entries[i]
				data, err := os.ReadFile(filepath.Join(dir, e.File))
				if err != nil {
					t.Errorf("%s: %v", e.File, err)
					continue
				}
				opts := Options{}
				if withPassword {
					opts.Password = e.Password
				}
				start := time.Now()
				res, err := ExtractIsolated(context.Background(), data, opts, Limits{Timeout: 30 * time.Second})
				out[i] = corpusOutcome{entry: e, res: res, err: err, took: time.Since(start)}
			}
		}()
	}
	for i := range entries {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out
}

// knownUnreadable lists the corpus files pdftotext reads and Docent does
// not, each with the reason. Keep it short: every entry is a file a user
// would see fail.
var knownUnreadable = map[string]string{}

func categorised(err error) bool {
	for _, kind := range []error{ErrPasswordRequired, ErrMalformed, ErrNoPages, ErrTimeout, ErrTooLarge} {
		if errors.Is(err, kind) {
			return true
		}
	}
	return false
}

func hasText(pages []string) bool {
	for _, p := range pages {
		if strings.TrimSpace(p) != "" {
			return true
		}
	}
	return false
}

// TestCorpusReadsWhatPdftotextReads reads the whole shared corpus in child
// processes: nothing may crash or hang, every file either reads with the
// manifest's page count, has no text (a scan), or fails with a categorised
// error, and every file pdftotext reads must give text.
func TestCorpusReadsWhatPdftotextReads(t *testing.T) {
	dir, entries := testcorpus.Manifest(t)
	if testing.Short() {
		t.Skip("skipping the whole corpus in -short mode")
	}
	outcomes := readCorpus(t, dir, entries, true)

	var read, scanned, failed, popplerReads, docentReadsOfThose, repaired, decrypted int
	for _, o := range outcomes {
		e := o.entry
		if e.PdftotextChars > 0 {
			popplerReads++
		}
		switch {
		case o.err != nil:
			failed++
			if !categorised(o.err) {
				t.Errorf("%s: error without a category: %v", e.File, o.err)
			}
			if e.PdftotextChars > 0 && knownUnreadable[e.File] == "" {
				t.Errorf("%s: pdftotext reads %d chars, Docent failed: %v", e.File, e.PdftotextChars, o.err)
			}
			t.Logf("%-60s failed: %v", e.File, o.err)
		case !hasText(o.res.Pages):
			scanned++
			if e.PdftotextChars > 0 && knownUnreadable[e.File] == "" {
				t.Errorf("%s: pdftotext reads %d chars, Docent found no text in %d pages (warnings %q)", e.File, e.PdftotextChars, len(o.res.Pages), o.res.Warnings)
			}
		default:
			read++
			if e.PdftotextChars > 0 {
				docentReadsOfThose++
			}
			if e.Pages > 0 && len(o.res.Pages) != e.Pages {
				t.Errorf("%s: %d pages, the manifest says %d", e.File, len(o.res.Pages), e.Pages)
			}
		}
		if o.err == nil && o.res.Repaired {
			repaired++
		}
		if o.err == nil && o.res.Decrypted {
			decrypted++
		}
		if o.err == nil && (o.res.Repaired || len(o.res.Warnings) > 0) {
			t.Logf("%-60s read, repaired=%v decrypted=%v warnings=%q", e.File, o.res.Repaired, o.res.Decrypted, o.res.Warnings)
		}
	}
	for file := range knownUnreadable {
		found := false
		for _, o := range outcomes {
			if o.entry.File == file {
				found = true
				if o.err == nil && hasText(o.res.Pages) {
					t.Errorf("%s is listed as unreadable but reads now: take it off knownUnreadable", file)
				}
			}
		}
		if !found {
			t.Errorf("%s is listed as unreadable but is not in the manifest", file)
		}
	}
	t.Logf("corpus: %d files: %d read with text, %d without text (scans), %d failed", len(entries), read, scanned, failed)
	t.Logf("pdftotext reads %d files; Docent reads %d of those (and %d in all); %d repaired, %d decrypted", popplerReads, docentReadsOfThose, read, repaired, decrypted)
}
