package ocr

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/docent/docent/app/internal/testcorpus"
)

// corpusFile reads a file of the shared corpus.
func corpusFile(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
