// Package artifacts is where end-to-end tests keep what a person looks at
// afterwards (screenshots), and where they find the repository.
package artifacts

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// RepoRoot is the module's root, found from this file's own path so any
// test package can use it.
func RepoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("artifacts: no caller information")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// Dir is an empty folder for t's artifacts: $DOCENT_TEST_ARTIFACTS/NAME,
// else test-artifacts/NAME at the repository's root (ignored by git). The
// last run's files are removed first.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("DOCENT_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(RepoRoot(), "test-artifacts")
	}
	dir = filepath.Join(dir, t.Name())
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
