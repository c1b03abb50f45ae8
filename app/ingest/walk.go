package ingest

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/docent/docent/agent/workpool"
	"github.com/docent/docent/storage/fault"
)

// Plan is the list of files an import will read, found by walking its paths.
type Plan struct {
	// Files to import, in the order they were named and found.
	Files []string
	// Skipped counts the files of other types found inside folders, by
	// extension. A file named directly is never skipped: it gets an error.
	Skipped map[string]int
}

// SkippedSummary says in one line what the walk left out, or "".
func (p Plan) SkippedSummary() string {
	if len(p.Skipped) == 0 {
		return ""
	}
	exts := make([]string, 0, len(p.Skipped))
	total := 0
	for ext, n := range p.Skipped {
		exts = append(exts, fmt.Sprintf("%s ×%d", ext, n))
		total += n
	}
	sort.Strings(exts)
	return fmt.Sprintf("skipped %d files of other types in folders (%s)", total, strings.Join(exts, ", "))
}

// PlanPaths walks files and folders (recursively, hidden entries aside). A
// path that does not exist is an error for the whole import, before anything
// is read.
func PlanPaths(paths []string) (Plan, error) {
	plan := Plan{Skipped: map[string]int{}}
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			return Plan{}, fault.Errorf(fault.Invalid, "import %s: %w", root, err)
		}
		if !info.IsDir() {
			plan.Files = append(plan.Files, root)
			continue
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return fault.Errorf(fault.Invalid, "walk %s: %w", path, err)
			}
			if path != root && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if !Supported(path) {
				ext := strings.ToLower(filepath.Ext(path))
				if ext == "" {
					ext = "(none)"
				}
				plan.Skipped[ext]++
				return nil
			}
			plan.Files = append(plan.Files, path)
			return nil
		})
		if err != nil {
			return Plan{}, err
		}
	}
	return plan, nil
}

// ImportFiles imports the files of a plan with one worker per core and one
// more (reading a PDF is CPU-bound and happens in a reader child, one per
// core: the extra worker keeps both children reading while another worker
// stores its document in the parent; on 2 cores, 7 % faster for the 69
// corpus invoices, where a second extra worker was slower: see
// docs/benchmarks.md).
// progress, if not nil, is called once per finished file, from one goroutine
// at a time. Outcomes come back in the plan's order. When ctx is cancelled the
// workers stop taking files; files not started are left out of the outcomes.
func (im *Importer) ImportFiles(ctx context.Context, files []string, opts Options, progress func(done int, o Outcome)) []Outcome {
	outcomes := make([]Outcome, len(files))
	started := make([]bool, len(files))
	var mu sync.Mutex
	done := 0
	// An import's failure is its file's outcome; only ctx stops the rest.
	_ = workpool.ForEach(ctx, files, runtime.NumCPU()+1, func(ctx context.Context, i int, file string) error {
		started[i] = true
		o := im.importFile(ctx, file, opts)
		mu.Lock()
		defer mu.Unlock()
		outcomes[i] = o
		done++
		if progress != nil {
			progress(done, o)
		}
		return nil
	})

	kept := outcomes[:0]
	for i, o := range outcomes {
		if started[i] {
			kept = append(kept, o)
		}
	}
	return kept
}

func (im *Importer) importFile(ctx context.Context, path string, opts Options) Outcome {
	if err := ctx.Err(); err != nil {
		return Outcome{File: path, Err: err}
	}
	f, err := os.Open(path)
	if err != nil {
		return Outcome{File: path, Err: fault.Errorf(fault.Invalid, "%w", err)}
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return Outcome{File: path, Err: fault.Errorf(fault.Invalid, "%w", err)}
	}
	// The file is streamed from disk, never read into memory whole.
	return im.ImportReader(ctx, path, f, info.Size(), opts)
}
