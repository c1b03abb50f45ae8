package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// KeyFile is the name, in the data directory, of the key that seals the
// secrets the keyring does not keep: 32 random bytes in hex, readable by
// the user alone. Copying docent.db without it reveals no secret; backing
// up the whole folder keeps both, as a backup should.
const KeyFile = "secret.key"

// seal encrypts v under the key file's key, making the key file first if
// there is none.
func (s *Store) seal(name string, v Value) (string, error) {
	key, err := s.fileKey(true)
	if err != nil {
		return "", err
	}
	aead, err := newAEAD(key)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(v.s)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("seal secret %s: %w", name, err)
	}
	return base64.StdEncoding.EncodeToString(aead.Seal(nonce, nonce, []byte(v.s), []byte(name))), nil
}

// unseal decrypts what seal made.
func (s *Store) unseal(name, sealed string) (Value, error) {
	key, err := s.fileKey(false)
	if err != nil {
		return Value{}, fmt.Errorf("secret %s: %w", name, err)
	}
	aead, err := newAEAD(key)
	if err != nil {
		return Value{}, err
	}
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < aead.NonceSize()+aead.Overhead() {
		return Value{}, fmt.Errorf("secret %s: the sealed value in the database is damaged", name)
	}
	plain, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], []byte(name))
	if err != nil {
		return Value{}, fmt.Errorf("secret %s: %s does not open it (was the file replaced?)", name, KeyFile)
	}
	return New(string(plain)), nil
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	return cipher.NewGCM(block)
}

// fileKey reads the key file, making it private again when others may
// read it. When it does not exist, create says whether to make it: a
// secret is sealed with a new key, but a missing key cannot open an old
// one.
func (s *Store) fileKey(create bool) ([]byte, error) {
	path := filepath.Join(s.dir, KeyFile)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := MakePrivate(path, s.logger); err != nil {
			return nil, err
		}
		key, derr := hex.DecodeString(strings.TrimSpace(string(data)))
		if derr != nil || len(key) != 32 {
			return nil, fmt.Errorf("%s is damaged: want 64 hex digits", path)
		}
		return key, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read %s: %w", path, err)
	case !create:
		return nil, fmt.Errorf("%s is missing, so the secret sealed with it is lost; enter it again", path)
	}
	return s.createKeyFile(path)
}

// createKeyFile writes a new key beside the database, or reads the one a
// concurrent process wrote first (CreatePrivateFile never overwrites).
func (s *Store) createKeyFile(path string) ([]byte, error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the data directory: %w", err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("make a secret key: %w", err)
	}
	if err := CreatePrivateFile(path, []byte(hex.EncodeToString(key)+"\n")); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return s.fileKey(false)
		}
		return nil, err
	}
	return key, nil
}

// MakePrivate makes a private file (the secret key, the access token, the
// HTTPS key) readable by its owner alone when group or others may read or
// write it, and logs that it did.
func MakePrivate(path string, logger *slog.Logger) error {
	if runtime.GOOS == "windows" {
		return nil // permission bits mean little there; the profile folder is private
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("check the permissions of %s: %w", path, err)
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	logger.Warn("a private file was readable by others; making it private", "path", path, "mode", fi.Mode().Perm().String())
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("make %s private: %w", path, err)
	}
	return nil
}
