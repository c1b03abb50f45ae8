package secret

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/docent/docent/storage/envvar"
)

// KeyringEnv is the environment variable that chooses where secrets go:
// "off" keeps them in the key file beside the database even where there
// is an OS keyring (tests set it, so they never touch the user's
// keyring); "on" uses the keyring without first looking for a session
// bus; unset or anything else means "auto".
const KeyringEnv = string(envvar.Keyring)

// KeyringTimeout bounds every keyring call: a locked keyring can wait for
// an unlock prompt nobody answers, and Docent must start anyway.
const KeyringTimeout = 5 * time.Second

// keyringService is the service name of Docent's keyring entries.
const keyringService = "docent"

// Ref says where a secret is: what the database keeps in its place. A Ref
// reveals nothing without the keyring or the key file. Exactly one field
// is set.
type Ref struct {
	// Keyring is the account of the secret's entry in the OS keyring,
	// under the service "docent".
	Keyring string `json:"keyring,omitempty"`
	// Sealed is the secret sealed with AES-256-GCM under the key in the
	// key file (KeyFile, beside the database): base64 of the 12-byte
	// nonce followed by the ciphertext. The secret's name is the
	// additional data, so a sealed value cannot be moved to another name.
	Sealed string `json:"sealed,omitempty"`
}

// Valid reports whether exactly one place is named.
func (r Ref) Valid() bool { return (r.Keyring != "") != (r.Sealed != "") }

// Store keeps the secrets of one data directory.
type Store struct {
	dir     string
	keyring keyring // nil: the key file only
	timeout time.Duration
	logger  *slog.Logger
}

// NewStore returns the store of the data directory dir (where docent.db
// and the key file are). It uses the OS keyring when KeyringEnv allows and
// one is likely there (see keyringFromEnv), else the key file.
func NewStore(dir string, logger *slog.Logger) *Store {
	if logger == nil {
		logger = slog.Default()
	}
	return &Store{dir: dir, keyring: keyringFromEnv(), timeout: KeyringTimeout, logger: logger}
}

// account is the keyring account of the secret name: the data directory
// is part of it so that two data directories keep two keys.
func (s *Store) account(name string) string {
	dir, err := filepath.Abs(s.dir)
	if err != nil {
		dir = s.dir
	}
	return name + "@" + dir
}

// Seal puts v, the secret called name, in the keyring or, failing that,
// the key file, and returns where it went.
func (s *Store) Seal(ctx context.Context, name string, v Value) (Ref, error) {
	if v.IsZero() {
		return Ref{}, errors.New("seal an empty secret")
	}
	if s.keyring != nil {
		account := s.account(name)
		err := s.call(ctx, func() error { return s.keyring.Set(keyringService, account, v.Reveal()) })
		if err == nil {
			return Ref{Keyring: account}, nil
		}
		// The keyring refused or did not answer: the key file still keeps
		// the secret out of the database.
		s.logger.WarnContext(ctx, "the system keyring did not take the secret; sealing it with the key file instead",
			"secret", name, "file", filepath.Join(s.dir, KeyFile), "error", Redact(err.Error(), v))
	}
	sealed, err := s.seal(name, v)
	if err != nil {
		return Ref{}, err
	}
	return Ref{Sealed: sealed}, nil
}

// Open reads the secret called name from where r says it is.
func (s *Store) Open(ctx context.Context, name string, r Ref) (Value, error) {
	switch {
	case !r.Valid():
		return Value{}, fmt.Errorf("secret %s: the database names no place for it", name)
	case r.Sealed != "":
		return s.unseal(name, r.Sealed)
	}
	kr := s.keyring
	if kr == nil {
		// Saved to the keyring by a run that could reach it; this one
		// was told not to (KeyringEnv=off) or found no session.
		return Value{}, fmt.Errorf("secret %s is in the system keyring, which this run does not use (%s=%s, or no session bus)", name, KeyringEnv, keyringSetting())
	}
	var v string
	err := s.call(ctx, func() error {
		var err error
		v, err = kr.Get(keyringService, r.Keyring)
		return err
	})
	if err != nil {
		return Value{}, fmt.Errorf("secret %s from the system keyring: %w", name, err)
	}
	return New(v), nil
}

// Delete removes the secret r points at, when it is in the keyring (a
// sealed secret lives in the database row its caller deletes). A secret
// already gone is no error.
func (s *Store) Delete(ctx context.Context, r Ref) error {
	if r.Keyring == "" || s.keyring == nil {
		return nil
	}
	err := s.call(ctx, func() error { return s.keyring.Delete(keyringService, r.Keyring) })
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("delete a secret from the system keyring: %w", err)
	}
	return nil
}

// call runs one keyring call within the store's timeout. The keyring
// libraries take no context, so a call that hangs (an unlock prompt
// nobody answers) cannot be stopped: it is left to finish in the
// background, its result dropped, and the caller goes on.
func (s *Store) call(ctx context.Context, fn func() error) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	done := make(chan error, 1) // buffered: a late answer never blocks
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("no answer within %s (is the keyring locked?)", s.timeout)
		}
		return ctx.Err()
	}
}
