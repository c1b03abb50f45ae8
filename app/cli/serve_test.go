package cli

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestTokenIsCreatedOnceAndKeptPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	token, err := loadOrCreateToken(dir, logger)
	if err != nil {
		t.Fatal(err)
	}
	if len(token) != 64 {
		t.Errorf("token %q: want 32 bytes in hex", token)
	}
	path := filepath.Join(dir, tokenFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	again, err := loadOrCreateToken(dir, logger)
	if err != nil || again != token {
		t.Errorf("second run: %q, %v; want the same token", again, err)
	}

	if runtime.GOOS == "windows" {
		return
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := loadOrCreateToken(dir, logger); err != nil || again != token {
		t.Errorf("after chmod 644: %q, %v", again, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("a readable token file stays %v, want 0600", fi.Mode().Perm())
	}

	// An emptied file gets a new token.
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if fresh, err := loadOrCreateToken(dir, logger); err != nil || len(fresh) != 64 || fresh == token {
		t.Errorf("after emptying: %q, %v", fresh, err)
	}
}

func TestMaxUploadGoesWithServe(t *testing.T) {
	if code, _, errOut := docent(t, t.TempDir(), "--max-upload", "5"); code != ExitUsage {
		t.Errorf("--max-upload without --serve: exit %d %q", code, errOut)
	}
	if code, _, errOut := docent(t, t.TempDir(), "--serve", "--max-upload", "0"); code != ExitUsage {
		t.Errorf("--max-upload 0: exit %d %q", code, errOut)
	}
}
