package settings_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/app/settings"
	"github.com/docent/docent/storage"
)

// The embedding model: saved on the Settings page, removed with "", and
// --embed-model or DOCENT_EMBED_MODEL wins over what is saved; each change
// builds an agent whose embedder uses it.
func TestEmbedModelSavedAndFromTheEnvironment(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "docent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	live := func(envEmbed string) *settings.Live {
		t.Helper()
		l, err := settings.NewLiveEmbed(ctx, db, provider.Config{IdleTimeout: time.Second}, "", envEmbed, func(s settings.Setup) *agent.Agent {
			return &agent.Agent{DB: db, Embedder: &agent.Embedder{DB: db, Model: s.EmbedModel}}
		})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	l := live("")
	v, _ := l.Get(ctx)
	if v.EmbedModel != "" || v.Sources["embed_model"] != "default" || l.Agent().Embedder.On() {
		t.Fatalf("nothing set: %+v, embedder on %v", v, l.Agent().Embedder.On())
	}
	m := " ollama/nomic-embed-text "
	if v, err = l.Put(ctx, settings.Patch{EmbedModel: &m}); err != nil || v.EmbedModel != "ollama/nomic-embed-text" || v.Sources["embed_model"] != "settings" {
		t.Fatalf("saved: %+v %v", v, err)
	}
	if got := l.Agent().Embedder.Model; got != "ollama/nomic-embed-text" {
		t.Errorf("the new agent embeds with %q", got)
	}
	if v, _ := live("openai/text-embedding-3-small").Get(ctx); v.EmbedModel != "openai/text-embedding-3-small" || v.Sources["embed_model"] != "env" {
		t.Errorf("the environment's: %+v", v)
	}
	bad := "nomic-embed-text"
	if _, err := l.Put(ctx, settings.Patch{EmbedModel: &bad}); !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("a model without its provider: %v", err)
	}
	none := ""
	if v, err = l.Put(ctx, settings.Patch{EmbedModel: &none}); err != nil || v.EmbedModel != "" || l.Agent().Embedder.On() {
		t.Errorf("removed: %+v %v", v, err)
	}
}

// First-run setup suggests an embedding model while none is set: one
// Ollama has pulled, else `ollama pull nomic-embed-text`; none once set.
func TestStatusSuggestsAnEmbeddingModel(t *testing.T) {
	ctx := context.Background()
	srv := modeltest.New(t, modeltest.DefaultModel)
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "docent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	l, err := settings.NewLiveEmbed(ctx, db, provider.Config{OllamaHost: srv.OllamaURL(), IdleTimeout: 5 * time.Second, MaxRetries: -1}, "", "", func(s settings.Setup) *agent.Agent {
		return &agent.Agent{DB: db}
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := l.Status(ctx)
	if err != nil || st.EmbedSuggestion == nil || st.EmbedSuggestion.Command != "ollama pull nomic-embed-text" || st.EmbedSuggestion.Model != "ollama/nomic-embed-text" {
		t.Fatalf("nothing pulled: %+v %v", st.EmbedSuggestion, err)
	}
	srv.SetModels(modeltest.DefaultModel, modeltest.EmbedModel)
	if st, _ = l.Status(ctx); st.EmbedSuggestion == nil || st.EmbedSuggestion.Command != "" || st.EmbedSuggestion.Model != "ollama/nomic-embed-text" {
		t.Errorf("pulled: %+v", st.EmbedSuggestion)
	}
	m := "ollama/nomic-embed-text"
	if _, err := l.Put(ctx, settings.Patch{EmbedModel: &m}); err != nil {
		t.Fatal(err)
	}
	if st, _ = l.Status(ctx); st.EmbedSuggestion != nil || st.EmbedModel != m {
		t.Errorf("set: %+v %q", st.EmbedSuggestion, st.EmbedModel)
	}
}
