package mcp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
)

// TestCancelledRunCancelsTheModelCall: a client that cancels run_extraction
// (after it heard the call start) cancels the model's request, and nothing
// is stored.
func TestCancelledRunCancelsTheModelCall(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	sch, err := f.db.CreateSchema(ctx, "totals", []byte(`{"type":"json_schema","json_schema":{"name":"totals","schema":{"type":"object","properties":{"total":{"type":"number"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.CreatePrompt(ctx, storage.NewPrompt{Name: "totals", Content: "Extract the total.", SchemaID: sch.SchemaID}); err != nil {
		t.Fatal(err)
	}

	// The model's requests pass a tap that says when one was given up by
	// Docent's side: the proxy's incoming request is cancelled then.
	target, _ := url.Parse(f.models.OllamaURL())
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorLog = nil
	proxy.ErrorHandler = func(http.ResponseWriter, *http.Request, error) {}
	given := make(chan error, 1)
	tap := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/chat" { // not the model's details, asked first
			// Deferred: the proxy aborts a response cut short with a panic.
			defer func() { given <- r.Context().Err() }()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(tap.Close)
	reg := provider.NewRegistry(provider.Config{OllamaHost: tap.URL, IdleTimeout: time.Minute, MaxRetries: -1})
	a := &agent.Agent{DB: f.db, Providers: reg, Extractor: &agent.Extractor{DB: f.db, Providers: reg, DefaultModel: "ollama/qwen3:8b"}}
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	f.models.Enqueue(modeltest.Reply{Text: `{"total": 12.5}`, HoldAfterChunks: 1, Hold: hold})

	started := make(chan struct{}, 1)
	cs := connect(t, func() *agent.Agent { return a }, false, &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) {
			select {
			case started <- struct{}{}:
			default:
			}
		}})
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &sdk.CallToolParams{Name: "run_extraction", Arguments: map[string]any{"document_id": f.doc.ID, "prompt_revid": "totals"}}
	p.SetProgressToken("run")
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, p)
		done <- err
	}()
	deadline := time.After(30 * time.Second) // against hangs only
	select {
	case <-started:
	case <-deadline:
		t.Fatal("run_extraction never said it started")
	}
	for len(f.models.Requests()) == 0 {
		select {
		case <-deadline:
			t.Fatal("the model was never asked")
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call returned %v", err)
	}
	select {
	case err := <-given:
		if err == nil {
			t.Error("the model's request finished, not cancelled")
		}
	case <-deadline:
		t.Fatal("the model's request was not cancelled: it still waits for its answer")
	}
	if _, err := f.db.LatestExtraction(ctx, f.doc.ID, ""); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("after the cancel, an extraction is stored (%v)", err)
	}
	// The server goes on.
	f.ok(t, "list_documents", map[string]any{}, nil)
}
