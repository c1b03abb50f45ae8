package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Keys of the settings the Settings page edits. Each value is a JSON string.
const (
	SettingOllamaHost    = "ollama_host"
	SettingOpenAIBaseURL = "openai_base_url"
	SettingOpenAIKey     = "openai_api_key"
	SettingDefaultModel  = "default_model"
)

// ProviderSettings are the saved model-provider settings; "" means not
// saved (the environment or the built-in default applies).
type ProviderSettings struct {
	OllamaHost    string
	OpenAIBaseURL string
	// OpenAIKey is kept in the local database only; it is sent nowhere but
	// to the OpenAI-compatible server it is for.
	OpenAIKey    string
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
		rows, err := tx.QueryContext(ctx, "SELECT key, value FROM settings ORDER BY key")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				return err
			}
			out[k] = json.RawMessage(v)
		}
		return rows.Err()
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

// GetProviderSettings reads the saved model-provider settings.
func (db *DB) GetProviderSettings(ctx context.Context) (ProviderSettings, error) {
	all, err := db.Settings(ctx)
	if err != nil {
		return ProviderSettings{}, err
	}
	var ps ProviderSettings
	for key, dst := range map[string]*string{
		SettingOllamaHost: &ps.OllamaHost, SettingOpenAIBaseURL: &ps.OpenAIBaseURL,
		SettingOpenAIKey: &ps.OpenAIKey, SettingDefaultModel: &ps.DefaultModel,
	} {
		raw, ok := all[key]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return ProviderSettings{}, fmt.Errorf("setting %s is not a string: %w", key, err)
		}
	}
	return ps, nil
}

// ProviderSettingsPatch is what SetProviderSettings changes: nil fields
// stay as they are, "" removes the saved value.
type ProviderSettingsPatch struct {
	OllamaHost, OpenAIBaseURL, OpenAIKey, DefaultModel *string
}

// SetProviderSettings saves the set fields of p in one transaction.
func (db *DB) SetProviderSettings(ctx context.Context, p ProviderSettingsPatch) error {
	values := map[string]any{}
	for key, v := range map[string]*string{
		SettingOllamaHost: p.OllamaHost, SettingOpenAIBaseURL: p.OpenAIBaseURL,
		SettingOpenAIKey: p.OpenAIKey, SettingDefaultModel: p.DefaultModel,
	} {
		switch {
		case v == nil:
		case strings.TrimSpace(*v) == "":
			values[key] = nil
		default:
			values[key] = strings.TrimSpace(*v)
		}
	}
	if len(values) == 0 {
		return nil
	}
	return db.SetSettings(ctx, values)
}
