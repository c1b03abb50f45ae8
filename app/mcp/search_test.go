package mcp_test

import (
	"context"
	"testing"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
)

// search_docs over MCP searches with the agent's embedder, as the agent's
// own search_docs does: by meaning when an embedding model is set, not by
// words with a note that none is.
func TestSearchDocsByMeaningWithTheAgentsEmbedder(t *testing.T) {
	f := newFixture(t, false)
	f.models.SetModels(modeltest.DefaultModel, modeltest.EmbedModel)
	emb := &agent.Embedder{DB: f.db, Providers: f.agent.Providers, Model: "ollama/" + modeltest.EmbedModel.Name}
	if _, err := emb.EmbedMissing(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	f.agent.Embedder = emb
	var out struct {
		Hits  []storage.SearchHit `json:"hits"`
		By    string              `json:"by"`
		Model string              `json:"model"`
		Note  string              `json:"note"`
	}
	f.ok(t, "search_docs", map[string]any{"query": "invoice total", "by": "meaning"}, &out)
	if out.By != "meaning" || out.Model != emb.Model || out.Note != "" || len(out.Hits) == 0 {
		t.Errorf("search_docs by meaning: by %q, model %q, note %q, %d hits; want by meaning with %s", out.By, out.Model, out.Note, len(out.Hits), emb.Model)
	}
}
