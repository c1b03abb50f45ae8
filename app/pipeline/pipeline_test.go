package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
)

// TestAStoredDocumentGoesOnToEmbeddingAtOnce: whatever door a document
// comes through, storing it wakes the next stage. The desktop window's
// drop used to wake OCR alone, so a dropped document's text waited for
// the embedding's next poll (a minute) before search by meaning found it.
// The poll here is an hour: only the hand-on can embed the document.
func TestAStoredDocumentGoesOnToEmbeddingAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "docent.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv := modeltest.New(t, modeltest.EmbedModel)
	reg := provider.NewRegistry(provider.Config{OllamaHost: srv.OllamaURL(), MaxRetries: -1})
	emb := &agent.Embedder{DB: db, Providers: reg, Model: "ollama/" + modeltest.EmbedModel.Name}
	a := &agent.Agent{DB: db, Providers: reg, Embedder: emb}
	p := New(Config{DB: db, Agent: func() *agent.Agent { return a }})
	p.embedPoll = time.Hour

	served := make(chan struct{})
	go func() { defer close(served); p.Serve(ctx) }()
	defer func() { cancel(); <-served }()
	// The embedding's first look, at start, finds nothing; it then sleeps
	// for the poll.
	waitFor(t, "the embedding's first look", func() (bool, string) {
		p.embedding.mu.Lock()
		defer p.embedding.mu.Unlock()
		return p.embedding.model == emb.Model && !p.embedding.running, "model " + p.embedding.model
	})

	file := filepath.Join(t.TempDir(), "note.txt")
	if err := os.WriteFile(file, []byte("Invoice 2024-117 from Acme GmbH, total 1,250.00 EUR, due in 30 days."), 0o600); err != nil {
		t.Fatal(err)
	}
	out := p.ImportFiles(ctx, []string{file}, Options{}, nil)
	if len(out) != 1 || out[0].Err != nil || out[0].Document == nil {
		t.Fatalf("import: %+v", out)
	}
	waitFor(t, "the dropped document's chunks embedded", func() (bool, string) {
		st, err := emb.Progress(ctx, out[0].Document.ID)
		if err != nil {
			return false, err.Error()
		}
		return st.Chunks > 0 && st.Embedded == st.Chunks, fmt.Sprintf("%d chunks, %d embedded", st.Chunks, st.Embedded)
	})
}

// waitFor polls done until it says yes; the deadline is only against a
// hang, and the failure says what was seen last.
func waitFor(t *testing.T, what string, done func() (bool, string)) {
	t.Helper()
	seen := ""
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var ok bool
		if ok, seen = done(); ok {
			return
		}
	}
	t.Fatalf("%s: never happened; last seen: %s", what, seen)
}
