package storage

import (
	"context"
	"path/filepath"
	"testing"
)

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
	host, key, model := " http://gpu:11434 ", "sk-1", "ollama/qwen3:8b"
	if err := db.SetProviderSettings(ctx, ProviderSettingsPatch{OllamaHost: &host, OpenAIKey: &key, DefaultModel: &model}); err != nil {
		t.Fatal(err)
	}
	empty := ""
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
