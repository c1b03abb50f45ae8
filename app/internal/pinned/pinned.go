// Package pinned checks the files Docent downloads at pinned versions
// (ONNX Runtime, the PP-OCR models, Tesseract's best_int data) against the
// SHA-256 each is pinned to, so that a partial download, another version
// or a file changed on disk is refused with one message wherever it is
// met. scripts/lib.sh pins the same sums when it installs them.
package pinned

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrMismatch is in the chain of every error for a file whose SHA-256 is
// not the pinned one.
var ErrMismatch = errors.New("does not match its pinned SHA-256")

// MismatchError is a file whose SHA-256 is not the pinned one.
type MismatchError struct {
	Path, Got, Want string // the sums in hex
}

// The remedy names both ways in: a download carries the file (in a
// release's bundle), a clone's scripts/run downloads it into the cache.
func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s is damaged or another version (SHA-256 %.12s…, expected %.12s…): reinstall Docent, or from a clone run scripts/run", e.Path, e.Got, e.Want)
}

// Unwrap makes errors.Is(err, ErrMismatch) true.
func (e *MismatchError) Unwrap() error { return ErrMismatch }

// Check reads the file at path and returns nil when its SHA-256 is want
// (hex), a *MismatchError when it is another, and the error of opening
// or reading it otherwise (fs.ErrNotExist in its chain when it is
// missing).
func Check(path, want string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return compare(path, h.Sum(nil), want)
}

// ReadFile reads the file at path whole and checks it as Check does.
func ReadFile(path, want string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	if err := compare(path, sum[:], want); err != nil {
		return nil, err
	}
	return data, nil
}

func compare(path string, sum []byte, want string) error {
	if got := hex.EncodeToString(sum); got != want {
		return &MismatchError{Path: path, Got: got, Want: want}
	}
	return nil
}
