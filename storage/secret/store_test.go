package secret

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// fakeKeyring is an in-memory keyring; set err to make it refuse, block
// to make it hang until the channel is closed.
type fakeKeyring struct {
	mu      sync.Mutex
	entries map[string]string
	err     error
	block   chan struct{}
}

func (k *fakeKeyring) wait() error {
	if k.block != nil {
		<-k.block
	}
	return k.err
}

func (k *fakeKeyring) Set(service, user, password string) error {
	if err := k.wait(); err != nil {
		return err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.entries == nil {
		k.entries = map[string]string{}
	}
	k.entries[service+"/"+user] = password
	return nil
}

func (k *fakeKeyring) Get(service, user string) (string, error) {
	if err := k.wait(); err != nil {
		return "", err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.entries[service+"/"+user]
	if !ok {
		return "", ErrNotFound
	}
	return v, nil
}

func (k *fakeKeyring) Delete(service, user string) error {
	if err := k.wait(); err != nil {
		return err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.entries[service+"/"+user]; !ok {
		return ErrNotFound
	}
	delete(k.entries, service+"/"+user)
	return nil
}

func testStore(t *testing.T, kr keyring) *Store {
	t.Setenv(KeyringEnv, "off") // NewStore must not pick the real keyring
	s := NewStore(t.TempDir(), nil)
	s.keyring = kr
	return s
}

func TestKeyringFromEnv(t *testing.T) {
	t.Setenv(KeyringEnv, "off")
	if keyringFromEnv() != nil {
		t.Errorf("%s=off still uses the keyring", KeyringEnv)
	}
	t.Setenv(KeyringEnv, "")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	if got := keyringFromEnv(); runtime.GOOS == "linux" && got != nil {
		t.Errorf("without a session bus the keyring is %v", got)
	}
}

func TestSealInTheKeyring(t *testing.T) {
	kr := &fakeKeyring{}
	s := testStore(t, kr)
	ctx := context.Background()
	ref, err := s.Seal(ctx, "openai_api_key", New(testSecret))
	if err != nil || ref.Keyring == "" || ref.Sealed != "" || !strings.Contains(ref.Keyring, s.dir) {
		t.Fatalf("Seal = %+v, %v; want a keyring account naming the data directory", ref, err)
	}
	if _, err := os.Stat(filepath.Join(s.dir, KeyFile)); !os.IsNotExist(err) {
		t.Errorf("a key file was made although the keyring took the secret: %v", err)
	}
	if v, err := s.Open(ctx, "openai_api_key", ref); err != nil || v.Reveal() != testSecret {
		t.Errorf("Open = %v, %v", v.Reveal(), err)
	}
	if err := s.Delete(ctx, ref); err != nil || len(kr.entries) != 0 {
		t.Errorf("Delete = %v, entries left %d", err, len(kr.entries))
	}
	if err := s.Delete(ctx, ref); err != nil {
		t.Errorf("deleting a deleted entry: %v", err)
	}
	if _, err := s.Open(ctx, "openai_api_key", ref); err == nil || strings.Contains(err.Error(), testSecret) {
		t.Errorf("Open of a deleted entry = %v", err)
	}
}

// A keyring that refuses leaves the secret sealed with the key file.
func TestSealFallsBackToTheKeyFile(t *testing.T) {
	s := testStore(t, &fakeKeyring{err: errors.New("org.freedesktop.secrets was not provided by any .service files")})
	ctx := context.Background()
	ref, err := s.Seal(ctx, "openai_api_key", New(testSecret))
	if err != nil || ref.Sealed == "" || ref.Keyring != "" || strings.Contains(ref.Sealed, testSecret) {
		t.Fatalf("Seal = %+v, %v", ref, err)
	}
	fi, err := os.Stat(filepath.Join(s.dir, KeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v, %v", fi, err)
	}
	if v, err := s.Open(ctx, "openai_api_key", ref); err != nil || v.Reveal() != testSecret {
		t.Errorf("Open = %q, %v", v.Reveal(), err)
	}
	// Sealed under one name, it does not open under another.
	if _, err := s.Open(ctx, "other", ref); err == nil {
		t.Error("a sealed secret opened under another name")
	}
	// Without its key file it is lost, and says so.
	if err := os.Remove(filepath.Join(s.dir, KeyFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(ctx, "openai_api_key", ref); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("Open without the key file = %v", err)
	}
}

// Two stores of one folder share one key file, whoever makes it.
func TestKeyFileIsSharedNotReplaced(t *testing.T) {
	s := testStore(t, nil)
	other := &Store{dir: s.dir, timeout: KeyringTimeout, logger: s.logger}
	a, err := s.Seal(context.Background(), "k", New("first-secret"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Seal(context.Background(), "k", New("second-secret")); err != nil {
		t.Fatal(err)
	}
	if v, err := other.Open(context.Background(), "k", a); err != nil || v.Reveal() != "first-secret" {
		t.Errorf("the second store replaced the key file: %q, %v", v.Reveal(), err)
	}
}

// A keyring that never answers (an unlock prompt nobody sees) costs the
// timeout, then the key file takes the secret. Under synctest the
// timeout passes without real waiting.
func TestHangingKeyringTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		kr := &fakeKeyring{block: make(chan struct{})}
		s := testStore(t, kr)
		ctx := context.Background()
		start := time.Now()
		ref, err := s.Seal(ctx, "openai_api_key", New(testSecret))
		if err != nil || ref.Sealed == "" {
			t.Fatalf("Seal = %+v, %v; want the key file", ref, err)
		}
		if waited := time.Since(start); waited != KeyringTimeout {
			t.Errorf("waited %v for the keyring, want %v", waited, KeyringTimeout)
		}
		_, err = s.Open(ctx, "openai_api_key", Ref{Keyring: "openai_api_key@x"})
		if err == nil || !strings.Contains(err.Error(), "no answer within") {
			t.Errorf("Open from a hanging keyring = %v", err)
		}
		close(kr.block) // the calls left behind finish
		synctest.Wait()
	})
}
