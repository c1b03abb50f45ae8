package pdftext

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/docent/docent/app/internal/testcorpus"
)

// maxSeedBytes keeps the seed corpus small enough that a plain `go test`,
// which runs every seed once, stays quick.
const maxSeedBytes = 64 << 10

// FuzzExtract feeds Extract arbitrary bytes in this process: it must return,
// never panic, and stop soon after its context ends. Extract checks its
// context between pages and every few thousand operators and avoids the
// loops of the pinned reader it knows about; an input on which it still
// hangs fails the target, which is the bug the fuzzer should report.
//
// Run the fuzzer with: go test -run '^$' -fuzz FuzzExtract -fuzztime 5m ./app/ingest/pdftext/
func FuzzExtract(f *testing.F) {
	f.Add([]byte(minimalPDF))
	f.Add([]byte("%PDF-1.7\n"))
	_, entries := testcorpus.Manifest(f)
	dir := testcorpus.Dir(f)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.File))
		if err != nil || len(data) > maxSeedBytes {
			continue
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := Extract(ctx, data, Options{})
			done <- err
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("Extract did not return 18s after its 2s context ended (%d bytes)", len(data))
		}
	})
}
