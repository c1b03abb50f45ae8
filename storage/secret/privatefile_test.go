package secret

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A private file is written whole, readable by the user alone, with
// nothing left beside it; WritePrivateFile replaces what is there,
// CreatePrivateFile does not and says so.
func TestPrivateFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "token")
	check := func(what, want string) {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil || string(data) != want {
			t.Errorf("%s: %q, %v; want %q", what, data, err, want)
		}
		if fi, err := os.Stat(path); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v; want 0600", what, fi.Mode().Perm(), err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%s: %d files in the folder, want the one", what, len(entries))
		}
	}
	if err := CreatePrivateFile(path, []byte("first\n")); err != nil {
		t.Fatal(err)
	}
	check("created", "first\n")
	if err := CreatePrivateFile(path, []byte("second\n")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("created again: %v, want fs.ErrExist", err)
	}
	check("created again", "first\n")
	if err := WritePrivateFile(path, []byte("third\n")); err != nil {
		t.Fatal(err)
	}
	check("replaced", "third\n")
	if err := WritePrivateFile(filepath.Join(dir, "no", "such", "folder"), []byte("x")); err == nil {
		t.Error("a file in a missing folder was written")
	}
}
