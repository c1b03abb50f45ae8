package pinned

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file with its pinned sum passes, whole or read; one cut short is
// refused with its path and both sums' starts; a missing one says so.
func TestCheckAndReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.onnx")
	data := []byte("the pinned bytes")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	want := hex.EncodeToString(sum[:])
	if err := Check(path, want); err != nil {
		t.Errorf("Check of the pinned file: %v", err)
	}
	if got, err := ReadFile(path, want); err != nil || string(got) != string(data) {
		t.Errorf("ReadFile of the pinned file: %q, %v", got, err)
	}

	if err := os.WriteFile(path, data[:5], 0o600); err != nil {
		t.Fatal(err)
	}
	cut := sha256.Sum256(data[:5])
	for name, err := range map[string]error{"Check": Check(path, want), "ReadFile": second(ReadFile(path, want))} {
		var m *MismatchError
		if !errors.Is(err, ErrMismatch) || !errors.As(err, &m) || m.Got != hex.EncodeToString(cut[:]) {
			t.Errorf("%s of a cut file: %v, want a mismatch", name, err)
			continue
		}
		for _, part := range []string{path, "damaged or another version", want[:12], m.Got[:12], "reinstall Docent", "scripts/run"} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("%s: %q does not say %q", name, err, part)
			}
		}
	}

	missing := filepath.Join(dir, "none")
	if err := Check(missing, want); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Check of a missing file: %v", err)
	}
	if _, err := ReadFile(missing, want); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing file: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }
