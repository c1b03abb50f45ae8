package cli

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/docent/docent/storage/secret"
)

// tokenFile is the name, inside the data directory, of the access token
// that `docent --serve` asks of every client.
const tokenFile = "token"

// loadOrCreateToken returns the access token kept in dir, creating it on
// first use: 32 random bytes, hex, in a file only the user may read. The
// same token serves later runs, so a browser signed in once stays signed
// in across restarts. A token file others may read is made private again.
func loadOrCreateToken(dir string, logger *slog.Logger) (string, error) {
	path := filepath.Join(dir, tokenFile)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		token := strings.TrimSpace(string(data))
		if len(token) < minTokenLength {
			break // empty or cut short: make a new one below
		}
		if err := secret.MakePrivate(path, logger); err != nil {
			return "", err
		}
		return token, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read the access token: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create the data directory: %w", err)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("make an access token: %w", err)
	}
	token := hex.EncodeToString(raw[:])
	if err := secret.WritePrivateFile(path, []byte(token+"\n")); err != nil {
		return "", fmt.Errorf("write the access token: %w", err)
	}
	return token, nil
}

// minTokenLength is the shortest token file accepted: 128 bits in hex.
const minTokenLength = 32
