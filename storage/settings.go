package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/docent/docent/storage/secret"
)

// Keys of the settings the Settings page edits. Each value is a JSON string.
const (
	SettingOllamaHost    = "ollama_host"
	SettingOpenAIBaseURL = "openai_base_url"
	SettingOpenAIKey     = "openai_api_key"
	SettingDefaultModel  = "default_model"
	// SettingEmbedModel is the embedding model for search by meaning
	// (app/settings).
	SettingEmbedModel = "embed_model"
	// SettingOCRLang is the OCR languages, "deu+eng" (app/server/ocr_settings.go).
	SettingOCRLang = "ocr_lang"
	// SettingOCRVision is the vision tier of OCR, {"model", "all"}
	// (app/ingest/ocr.VisionSetting).
	SettingOCRVision = "ocr_vision"
)

// ProviderSettings are the saved model-provider settings; "" means not
// saved (the environment or the built-in default applies).
type ProviderSettings struct {
	OllamaHost    string
	OpenAIBaseURL string
	// OpenAIKey is kept out of the database file: in the OS keyring, else
	// sealed with the key file beside the database (package secret); the
	// settings row holds only where it is. It is sent nowhere but to the
	// OpenAI-compatible server it is for.
	OpenAIKey    secret.Value
	DefaultModel string
}

// GetSetting reads the setting key into v (a pointer, as for
// json.Unmarshal). It reports false, leaving v alone, when the setting is
// not saved.
func (db *DB) GetSetting(ctx context.Context, key string, v any) (bool, error) {
	var raw string
	err := db.sql.QueryRowContext(ctx, "SELECT value FROM settings WHERE key = ?", key).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, translate("get setting "+key, err)
	}
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		return false, fmt.Errorf("setting %s: %w", key, err)
	}
	return true, nil
}

// Settings returns every saved setting, by key, as its stored JSON.
func (db *DB) Settings(ctx context.Context) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	err := db.view(ctx, "list settings", func(tx *sql.Tx) error {
		return queryEach(ctx, tx, func(s scanner) error {
			var k, v string
			if err := s.Scan(&k, &v); err != nil {
				return err
			}
			out[k] = json.RawMessage(v)
			return nil
		}, "SELECT key, value FROM settings ORDER BY key")
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SetSetting saves one setting (any JSON-encodable value); nil deletes it.
func (db *DB) SetSetting(ctx context.Context, key string, v any) error {
	return db.SetSettings(ctx, map[string]any{key: v})
}

// SetSettings saves several settings in one transaction: all or none are
// written. A nil value deletes its key.
func (db *DB) SetSettings(ctx context.Context, values map[string]any) error {
	encoded := make(map[string]*string, len(values))
	for k, v := range values {
		if strings.TrimSpace(k) == "" {
			return Errorf(ErrInvalid, "a setting needs a key")
		}
		if v == nil {
			encoded[k] = nil
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return Errorf(ErrInvalid, "setting %s: %v", k, err)
		}
		s := string(b)
		encoded[k] = &s
	}
	return db.update(ctx, "save settings", func(tx *writeTx) error {
		for k, v := range encoded {
			var err error
			if v == nil {
				_, err = tx.ExecContext(ctx, "DELETE FROM settings WHERE key = ?", k)
			} else {
				_, err = tx.ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
					ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
					k, *v, tx.nowText())
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// GetProviderSettings reads the saved model-provider settings. A key an
// older Docent saved in plain text is moved out of the database on this
// first read (see sealPlaintextKey). A key that cannot be read (a locked
// keyring that does not answer, a missing key file) is logged and left
// out rather than failing: Docent then runs without it until it is
// entered again.
func (db *DB) GetProviderSettings(ctx context.Context) (ProviderSettings, error) {
	all, err := db.Settings(ctx)
	if err != nil {
		return ProviderSettings{}, err
	}
	var ps ProviderSettings
	for key, dst := range map[string]*string{
		SettingOllamaHost: &ps.OllamaHost, SettingOpenAIBaseURL: &ps.OpenAIBaseURL, SettingDefaultModel: &ps.DefaultModel,
	} {
		raw, ok := all[key]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return ProviderSettings{}, fmt.Errorf("setting %s is not a string: %w", key, err)
		}
	}
	if raw, ok := all[SettingOpenAIKey]; ok {
		if ps.OpenAIKey, err = db.openAIKey(ctx, raw); err != nil {
			return ProviderSettings{}, err
		}
	}
	return ps, nil
}

// openAIKey reads the key whose stored setting is raw: a secret.Ref, or
// the plain JSON string of a version before secrets were kept apart.
func (db *DB) openAIKey(ctx context.Context, raw json.RawMessage) (secret.Value, error) {
	var plain string
	if json.Unmarshal(raw, &plain) == nil {
		key := secret.New(plain)
		if err := db.sealPlaintextKey(ctx, raw, key); err != nil {
			slog.WarnContext(ctx, "the OpenAI API key is still in the database in plain text", "error", secret.Redact(err.Error(), key))
		}
		return key, nil
	}
	var ref secret.Ref
	if err := json.Unmarshal(raw, &ref); err != nil || !ref.Valid() {
		return secret.Value{}, fmt.Errorf("setting %s: not a reference to a secret", SettingOpenAIKey)
	}
	key, err := db.secrets().Open(ctx, SettingOpenAIKey, ref)
	if err != nil {
		slog.WarnContext(ctx, "the saved OpenAI API key cannot be read; running without it (enter it again on the Settings page)", "error", err)
		return secret.Value{}, nil
	}
	return key, nil
}

// secrets is the secret store of the database's folder.
func (db *DB) secrets() *secret.Store { return secret.NewStore(filepath.Dir(db.path), nil) }

// sealPlaintextKey moves a key stored in plain text (raw) to the secret
// store and puts the reference in its place, unless the setting changed
// meanwhile. Deleted bytes linger in SQLite's free space and in the WAL,
// so the update runs with secure_delete (freed space is zeroed) and is
// followed by a checkpoint that empties the WAL. The checkpoint is best
// effort: a reader holding an old snapshot keeps the WAL until it is
// done, and SQLite reuses it from the start after that.
func (db *DB) sealPlaintextKey(ctx context.Context, raw json.RawMessage, key secret.Value) error {
	if key.IsZero() {
		return nil
	}
	ref, err := db.secrets().Seal(ctx, SettingOpenAIKey, key)
	if err != nil {
		return fmt.Errorf("move the OpenAI API key out of the database: %w", err)
	}
	b, err := json.Marshal(ref)
	if err != nil {
		return err
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return translate("seal the OpenAI API key", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA secure_delete = ON"); err != nil {
		return translate("seal the OpenAI API key", err)
	}
	// The connection goes back to the pool as it came.
	defer conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA secure_delete = OFF")
	err = func() error {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback() // after Commit, a no-op
		if _, err := tx.ExecContext(ctx, "UPDATE settings SET value = ?, updated_at = ? WHERE key = ? AND value = ?",
			string(b), formatTime(db.now()), SettingOpenAIKey, string(raw)); err != nil {
			return err
		}
		return tx.Commit()
	}()
	if err != nil {
		return translate("seal the OpenAI API key", err)
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		slog.WarnContext(ctx, "checkpoint after sealing the OpenAI API key", "error", err)
	}
	return nil
}

// ProviderSettingsPatch is what SetProviderSettings changes: nil fields
// stay as they are, "" removes the saved value.
type ProviderSettingsPatch struct {
	OllamaHost, OpenAIBaseURL, DefaultModel *string
	OpenAIKey                               *secret.Value
}

// SetProviderSettings saves the set fields of p in one transaction. A new
// key goes to the secret store first and the settings row gets where it
// went; a key replaced or removed is deleted from the keyring after the
// settings are saved.
func (db *DB) SetProviderSettings(ctx context.Context, p ProviderSettingsPatch) error {
	values := map[string]any{}
	for key, v := range map[string]*string{
		SettingOllamaHost: p.OllamaHost, SettingOpenAIBaseURL: p.OpenAIBaseURL, SettingDefaultModel: p.DefaultModel,
	} {
		switch {
		case v == nil:
		case strings.TrimSpace(*v) == "":
			values[key] = nil
		default:
			values[key] = strings.TrimSpace(*v)
		}
	}
	var old, ref secret.Ref
	if p.OpenAIKey != nil {
		var raw json.RawMessage
		if ok, err := db.GetSetting(ctx, SettingOpenAIKey, &raw); err != nil {
			return err
		} else if ok {
			_ = json.Unmarshal(raw, &old) // a plain-text key has no Ref: nothing to delete elsewhere
		}
		key := secret.New(strings.TrimSpace(p.OpenAIKey.Reveal()))
		values[SettingOpenAIKey] = nil
		if !key.IsZero() {
			var err error
			if ref, err = db.secrets().Seal(ctx, SettingOpenAIKey, key); err != nil {
				return fmt.Errorf("save the OpenAI API key: %w", err)
			}
			values[SettingOpenAIKey] = ref
		}
	}
	if len(values) == 0 {
		return nil
	}
	if err := db.SetSettings(ctx, values); err != nil {
		return err
	}
	// The same keyring entry is overwritten by a new key, not deleted.
	if old.Keyring != "" && old.Keyring != ref.Keyring {
		if err := db.secrets().Delete(ctx, old); err != nil {
			slog.WarnContext(ctx, "the replaced OpenAI API key is still in the system keyring", "account", old.Keyring, "error", err)
		}
	}
	return nil
}
