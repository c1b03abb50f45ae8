package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/storage/secret"
)

// TestMain keeps the tests away from the user's keyring: secrets go to
// the key file in each test's temporary folder.
func TestMain(m *testing.M) {
	os.Setenv(secret.KeyringEnv, "off")
	os.Exit(m.Run())
}

func TestSettingsRoundTrip(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	var s string
	if ok, err := db.GetSetting(ctx, "missing", &s); ok || err != nil {
		t.Fatalf("GetSetting(missing) = %v, %v", ok, err)
	}
	if err := db.SetSetting(ctx, "ui", map[string]any{"n": 1}); err != nil {
		t.Fatal(err)
	}
	var v struct{ N int }
	if ok, err := db.GetSetting(ctx, "ui", &v); !ok || err != nil || v.N != 1 {
		t.Fatalf("GetSetting(ui) = %v, %v, %+v", ok, err, v)
	}
	if err := db.SetSetting(ctx, "ui", map[string]any{"n": 2}); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.GetSetting(ctx, "ui", &v); !ok || err != nil || v.N != 2 {
		t.Fatalf("GetSetting(ui) after update = %v, %v, %+v", ok, err, v)
	}
	all, err := db.Settings(ctx)
	if err != nil || len(all) != 1 || string(all["ui"]) != `{"n":2}` {
		t.Fatalf("Settings = %v, %v", all, err)
	}
	if err := db.SetSetting(ctx, "ui", nil); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.GetSetting(ctx, "ui", &v); ok || err != nil {
		t.Fatalf("GetSetting after delete = %v, %v", ok, err)
	}
	wantCode(t, db.SetSetting(ctx, " ", "x"), ErrInvalid, "a setting needs a key")
}

func TestProviderSettingsPersist(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "docent.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if ps, err := db.GetProviderSettings(ctx); err != nil || ps != (ProviderSettings{}) {
		t.Fatalf("empty = %+v, %v", ps, err)
	}
	host, key, model := " http://gpu:11434 ", secret.New("sk-1"), "ollama/qwen3:8b"
	if err := db.SetProviderSettings(ctx, ProviderSettingsPatch{OllamaHost: &host, OpenAIKey: &key, DefaultModel: &model}); err != nil {
		t.Fatal(err)
	}
	empty := secret.Value{}
	if err := db.SetProviderSettings(ctx, ProviderSettingsPatch{OpenAIKey: &empty}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := ProviderSettings{OllamaHost: "http://gpu:11434", DefaultModel: "ollama/qwen3:8b"}
	if ps, err := db.GetProviderSettings(ctx); err != nil || ps != want {
		t.Fatalf("after reopen = %+v, %v; want %+v", ps, err, want)
	}
}

const testKey = "sk-test-4f9c2e7a1b3d5f60"

// fileHas reports whether the database file or its WAL holds s.
func fileHas(t *testing.T, dbPath, s string) bool {
	t.Helper()
	for _, p := range []string{dbPath, dbPath + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	return false
}

// A saved key is sealed with the key file: the database file holds a
// reference, a copy of docent.db alone gives no key, and the folder as a
// whole (a backup) does.
func TestSavedKeyStaysOutOfTheDatabaseFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "docent.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	key := secret.New(testKey)
	if err := db.SetProviderSettings(ctx, ProviderSettingsPatch{OpenAIKey: &key}); err != nil {
		t.Fatal(err)
	}
	var ref secret.Ref
	if ok, err := db.GetSetting(ctx, SettingOpenAIKey, &ref); !ok || err != nil || ref.Sealed == "" || ref.Keyring != "" {
		t.Fatalf("stored setting = %+v, %v, %v; want a sealed reference", ref, ok, err)
	}
	if ps, err := db.GetProviderSettings(ctx); err != nil || ps.OpenAIKey.Reveal() != testKey {
		t.Fatalf("key read back = %q, %v", ps.OpenAIKey.Reveal(), err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if fileHas(t, path, testKey) {
		t.Error("docent.db holds the key in plain text")
	}
	fi, err := os.Stat(filepath.Join(dir, secret.KeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, %v; want mode 0600", fi, err)
	}

	// docent.db copied alone: the key is lost, the rest of the settings work.
	other := filepath.Join(t.TempDir(), "docent.db")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, b, 0o600); err != nil {
		t.Fatal(err)
	}
	copied, err := Open(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	if ps, err := copied.GetProviderSettings(ctx); err != nil || !ps.OpenAIKey.IsZero() {
		t.Errorf("a copy of docent.db alone gave key %q, %v", ps.OpenAIKey.Reveal(), err)
	}

	// The whole folder: the key comes back, and a key file others could
	// read is made private.
	if err := os.Chmod(filepath.Join(dir, secret.KeyFile), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if ps, err := db.GetProviderSettings(ctx); err != nil || ps.OpenAIKey.Reveal() != testKey {
		t.Errorf("after reopening = %q, %v", ps.OpenAIKey.Reveal(), err)
	}
	if fi, err := os.Stat(filepath.Join(dir, secret.KeyFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("loose key file not tightened: %v, %v", fi, err)
	}
}

// A key an older version stored in plain text is moved out on the first
// read, and its bytes are gone from the file.
func TestPlaintextKeyIsMovedOutOfTheDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "docent.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	// What an older version wrote: the key as a JSON string.
	if err := db.SetSetting(ctx, SettingOpenAIKey, testKey); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if !fileHas(t, path, testKey) {
		t.Fatal("the test wrote no plain-text key to start from")
	}

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if ps, err := db.GetProviderSettings(ctx); err != nil || ps.OpenAIKey.Reveal() != testKey {
		t.Fatalf("migrated key = %q, %v", ps.OpenAIKey.Reveal(), err)
	}
	all, err := db.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ref secret.Ref
	if err := json.Unmarshal(all[SettingOpenAIKey], &ref); err != nil || !ref.Valid() || strings.Contains(string(all[SettingOpenAIKey]), testKey) {
		t.Errorf("stored setting after the move = %s, %v", all[SettingOpenAIKey], err)
	}
	if fileHas(t, path, testKey) {
		t.Error("the plain-text key is still in the file while it is open")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if fileHas(t, path, testKey) {
		t.Error("the plain-text key is still in the file after closing")
	}
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if ps, err := db.GetProviderSettings(ctx); err != nil || ps.OpenAIKey.Reveal() != testKey {
		t.Errorf("key after reopening = %q, %v", ps.OpenAIKey.Reveal(), err)
	}
}

// Removing the key removes the reference; replacing it seals the new one.
func TestReplaceAndRemoveKey(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	for _, k := range []string{"sk-first-key", "sk-second-key"} {
		key := secret.New(k)
		if err := db.SetProviderSettings(ctx, ProviderSettingsPatch{OpenAIKey: &key}); err != nil {
			t.Fatal(err)
		}
		if ps, err := db.GetProviderSettings(ctx); err != nil || ps.OpenAIKey.Reveal() != k {
			t.Fatalf("key = %q, %v; want %q", ps.OpenAIKey.Reveal(), err, k)
		}
	}
	none := secret.New("  ")
	if err := db.SetProviderSettings(ctx, ProviderSettingsPatch{OpenAIKey: &none}); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.GetSetting(ctx, SettingOpenAIKey, new(json.RawMessage)); ok || err != nil {
		t.Errorf("a removed key left its setting: %v, %v", ok, err)
	}
}
