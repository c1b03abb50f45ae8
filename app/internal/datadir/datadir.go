// Package datadir is where Docent keeps its data by default: one rule for
// the composition root (the data directory) and for what lives beside it
// whatever --data-dir says (OCR's best_int language data).
package datadir

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/docent/docent/storage/envvar"
	"github.com/docent/docent/storage/fault"
)

// Default is where Docent keeps its data when neither --data-dir nor
// DOCENT_DATA_DIR says otherwise: $XDG_DATA_HOME/docent (~/.local/share/docent)
// on Linux and other Unixes, the platform's application-data folder elsewhere.
func Default() (string, error) {
	switch runtime.GOOS {
	case "windows":
		if dir := envvar.Get(envvar.LocalAppData); dir != "" {
			return filepath.Join(dir, "Docent"), nil
		}
	case "darwin":
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the home directory: %w", err)
		}
		return filepath.Join(home, "Library", "Application Support", "Docent"), nil
	}
	if dir := envvar.Get(envvar.XDGDataHome); dir != "" {
		return filepath.Join(dir, "docent"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fault.Errorf(fault.Unavailable, "find the home directory (set --data-dir or DOCENT_DATA_DIR): %w", err)
	}
	return filepath.Join(home, ".local", "share", "docent"), nil
}
