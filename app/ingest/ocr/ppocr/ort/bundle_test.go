package ort

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// printLibraryEnv makes the test binary, copied into a bundle folder, print
// what Library answers there and exit: os.Executable is then the copy.
const printLibraryEnv = "DOCENT_TEST_PRINT_LIBRARY"

func TestMain(m *testing.M) {
	if os.Getenv(printLibraryEnv) == "1" {
		path, sum, err := Library()
		fmt.Printf("%s\n%s\n%v\n", path, sum, err)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// copyFile copies src to dst with mode perm.
func copyFile(t *testing.T, src, dst string, perm os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// libraryIn runs a copy of this test binary placed in dir, as a release
// places docent beside its runtime, with an empty cache, and returns what
// Library answered there: path, SHA-256 and error text ("<nil>").
func libraryIn(t *testing.T, dir string) (path, sum, errText string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	copyFile(t, exe, filepath.Join(dir, "docent"), 0o755)
	cmd := exec.Command(filepath.Join(dir, "docent"))
	cmd.Env = append(os.Environ(), printLibraryEnv+"=1", "DOCENT_ONNXRUNTIME=", "DOCENT_CACHE_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("running the copy in %s: %v\n%s", dir, err, out)
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) < 3 {
		t.Fatalf("the copy printed %q", out)
	}
	return lines[0], lines[1], lines[2]
}

func TestLibraryIsFoundBesideTheExecutable(t *testing.T) {
	if LibraryName() == "" {
		t.Skipf("no ONNX Runtime build is pinned for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	bundle := t.TempDir()
	lib := filepath.Join(bundle, LibraryName())
	if err := os.WriteFile(lib, []byte("not the library"), 0o644); err != nil {
		t.Fatal(err)
	}
	path, sum, errText := libraryIn(t, bundle)
	if path != lib || sum != pinnedLibrary[runtime.GOOS+"/"+runtime.GOARCH].sha256 || errText != "<nil>" {
		t.Errorf("Library beside the executable = %q, %q, %s; want %s with the pinned SHA-256", path, sum, errText, lib)
	}
	// The file there is checked as the cache's is: a damaged one is not
	// loaded, and the error names it.
	if _, err := Load(path, sum); !errors.Is(err, ErrBadHash) || !strings.Contains(err.Error(), lib) {
		t.Errorf("Load of a damaged bundled library: %v, want ErrBadHash naming %s", err, lib)
	}
}

func TestBundleWithModelsButNoLibrarySaysWhatIsMissing(t *testing.T) {
	if LibraryName() == "" {
		t.Skipf("no ONNX Runtime build is pinned for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	bundle := t.TempDir()
	if err := os.MkdirAll(filepath.Join(bundle, "ppocr", "PP-OCRv4"), 0o755); err != nil {
		t.Fatal(err)
	}
	path, _, errText := libraryIn(t, bundle)
	if path != "" || !strings.Contains(errText, ErrBundleIncomplete.Error()) || !strings.Contains(errText, LibraryName()) {
		t.Errorf("Library in a bundle without the library = %q, %s; want an error naming %s", path, errText, LibraryName())
	}
}

func TestNoBundleMeansTheCache(t *testing.T) {
	if LibraryName() == "" {
		t.Skipf("no ONNX Runtime build is pinned for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	if got := findBundle([]string{t.TempDir(), t.TempDir()}, LibraryName()); got != "" {
		t.Errorf("findBundle of empty folders = %q, want none", got)
	}
	path, _, errText := libraryIn(t, t.TempDir())
	if !strings.Contains(path, filepath.Join("onnxruntime", Version)) || errText != "<nil>" {
		t.Errorf("Library with no bundle = %q, %s; want the cache's", path, errText)
	}
}
