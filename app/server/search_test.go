package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/app/settings"
	"github.com/docent/docent/storage"
)

// withEmbedding gives the fixture's server live settings on srv whose
// agents embed with the embedding model the settings name, as the
// composition root builds them.
func withEmbedding(t testing.TB, srv *modeltest.Server) func(*server.Config) {
	return func(cfg *server.Config) {
		db := cfg.DB
		env := provider.Config{OllamaHost: srv.OllamaURL(), IdleTimeout: 10 * time.Second, MaxRetries: -1}
		ls, err := settings.NewLive(context.Background(), db, env, "", func(setup settings.Setup) *agent.Agent {
			reg := provider.NewRegistry(setup.Config)
			return &agent.Agent{DB: db, Providers: reg, DefaultModel: setup.DefaultModel,
				Embedder: &agent.Embedder{DB: db, Providers: reg, Model: setup.EmbedModel}}
		})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Agent, cfg.Settings = nil, ls
	}
}

type statusBody struct {
	Model      string `json:"model"`
	Chunks     int    `json:"chunks"`
	Embedded   int    `json:"embedded"`
	Dimensions int    `json:"dimensions"`
	Running    bool   `json:"running"`
	Error      string `json:"error"`
}

// waitStatus polls GET /api/search/status until ok says it is done; the
// deadline is only against a hang.
func (f *fixture) waitStatus(what string, ok func(statusBody) bool) statusBody {
	f.t.Helper()
	var st statusBody
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		st = statusBody{} // a field the answer leaves out is not the last answer's
		f.call("GET", "/api/search/status", nil, 200, &st)
		if ok(st) {
			return st
		}
	}
	f.t.Fatalf("%s: status %+v", what, st)
	return st
}

// Choosing an embedding model in Settings has the server embed every
// chunk in the background, the status says how far it got and why it
// stopped, and the search then finds by meaning.
func TestBackgroundEmbeddingAndSearchByMeaning(t *testing.T) {
	srv := modeltest.New(t, modeltest.DefaultModel)
	f := newFixture(t, withEmbedding(t, srv))

	var st statusBody
	f.call("GET", "/api/search/status", nil, 200, &st)
	if st.Model != "" || st.Chunks != 0 {
		t.Errorf("status without a model: %+v", st)
	}
	var hits searchResultBody
	f.call("GET", "/api/search?q=Widgets", nil, 200, &hits)
	if hits.By != "words" || len(hits.Hits) != 1 || !strings.Contains(hits.Note, "search by meaning is off") {
		t.Errorf("search without a model: %+v", hits)
	}

	// The model is not pulled at first: the chunks wait, and the status
	// says why, however often the background run tries.
	f.call("PUT", "/api/settings", map[string]string{"embed_model": "ollama/nomic-embed-text"}, 200, nil)
	st = f.waitStatus("model not pulled", func(s statusBody) bool { return s.Error != "" && !s.Running })
	if st.Model != "ollama/nomic-embed-text" || st.Embedded != 0 || st.Chunks != 2 || !strings.Contains(st.Error, "ollama pull nomic-embed-text") {
		t.Errorf("status with the model missing: %+v", st)
	}
	// Once it is pulled, a new upload wakes the background run, which now
	// embeds every chunk.
	srv.SetModels(modeltest.DefaultModel, modeltest.EmbedModel)
	if status, b := f.upload(map[string]string{"receipt.txt": "Taxifahrt vom 29.10.2018\nGesamtbetrag 16,90 EUR"}, nil); status != 200 && status != 201 {
		t.Fatalf("upload: %d %s", status, b)
	}
	st = f.waitStatus("embedding", func(s statusBody) bool { return s.Chunks == 3 && s.Embedded == 3 && !s.Running })
	if st.Error != "" || st.Dimensions != modeltest.DefaultDimensions {
		t.Errorf("status once embedded: %+v", st)
	}
	var doc statusBody
	f.call("GET", "/api/search/status?document_id="+f.doc.ID, nil, 200, &doc)
	if doc.Chunks != 2 || doc.Embedded != 2 {
		t.Errorf("the document's status: %+v", doc)
	}

	f.call("GET", "/api/search?q=cab+ride", nil, 200, &hits)
	if hits.By != "both" || hits.Model != "ollama/nomic-embed-text" || len(hits.Hits) == 0 || hits.Hits[0].DocumentName != "receipt.txt" || hits.Hits[0].Matched != "meaning" {
		t.Errorf("cab ride: %+v", hits)
	}
	f.call("GET", "/api/search?q=cab+ride&by=words", nil, 200, &hits)
	if hits.By != "words" || len(hits.Hits) != 0 {
		t.Errorf("cab ride by words: %+v", hits)
	}
	f.call("GET", "/api/search?q=Widgets&by=meaning&limit=1", nil, 200, &hits)
	if len(hits.Hits) != 1 || hits.Hits[0].Matched != "meaning" {
		t.Errorf("by meaning, limit 1: %+v", hits)
	}
	f.wantError("GET", "/api/search?q=x&by=sound", nil, 400, "invalid")
	f.wantError("GET", "/api/search?q=x&tag=nonesuch", nil, 404, "not_found")
	f.wantError("GET", "/api/search?q=x&limit=1000", nil, 400, "invalid")
	f.wantError("GET", "/api/search?q="+strings.Repeat("a", 3000), nil, 400, "invalid")
}

type searchResultBody struct {
	Hits  []storage.SearchHit `json:"hits"`
	By    string              `json:"by"`
	Model string              `json:"model"`
	Note  string              `json:"note"`
}

// A search that finds nothing answers an empty list, never null: also when
// it asked for both and went on by words alone (no embedding model).
func TestSearchThatFindsNothingAnswersAnEmptyList(t *testing.T) {
	f := newFixture(t)
	for _, by := range []string{"words", "both", ""} {
		body := string(f.call("GET", "/api/search?q=zeppelin&by="+by, nil, 200, nil))
		if !strings.Contains(body, `"hits":[]`) {
			t.Errorf("by %q: %s; want \"hits\":[]", by, body)
		}
	}
}
