package secret

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WritePrivateFile writes data to path, readable by the user alone,
// replacing what is there. It writes a file beside it, which CreateTemp
// makes 0600 from the start, syncs it and renames it into place, so that
// a crash never leaves half a file and no one else can read it meanwhile.
func WritePrivateFile(path string, data []byte) error {
	return writePrivateFile(path, data, os.Rename)
}

// CreatePrivateFile is WritePrivateFile for a file that must never be
// replaced (a key that sealed secrets): it is linked into place, which
// fails with fs.ErrExist in the error's chain when another process made
// the file first.
func CreatePrivateFile(path string, data []byte) error {
	return writePrivateFile(path, data, os.Link)
}

func writePrivateFile(path string, data []byte, place func(tmp, path string) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name()) // once renamed there is nothing to remove
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := place(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
