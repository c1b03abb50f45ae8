package mcp_test

import (
	"context"
	"errors"
	"io"
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
	docentmcp "github.com/docent/docent/app/mcp"
	"github.com/docent/docent/storage"
)

// TestCancelledRunCancelsTheModelCall: a client that cancels run_extraction
// (after it heard the call start) cancels the model's request, and nothing
// is stored.
func TestCancelledRunCancelsTheModelCall(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	a, given := heldModel(t, f)

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
	waitAsked(t, f, deadline)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call returned %v", err)
	}
	wantGivenUp(t, f, given, deadline)
	// The server goes on.
	f.ok(t, "list_documents", map[string]any{}, nil)
}

// heldModel stores a prompt "totals" on a schema, and returns an agent
// whose model answers run_extraction's request with one chunk and then
// holds it until the test ends, behind a tap that says (given) whether
// Docent's side gave that request up: the proxy's incoming request is
// cancelled then.
func heldModel(t *testing.T, f *fixture) (*agent.Agent, <-chan error) {
	t.Helper()
	ctx := context.Background()
	sch, err := f.db.CreateSchema(ctx, "totals", []byte(`{"type":"json_schema","json_schema":{"name":"totals","schema":{"type":"object","properties":{"total":{"type":"number"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.CreatePrompt(ctx, storage.NewPrompt{Name: "totals", Content: "Extract the total.", SchemaID: sch.SchemaID}); err != nil {
		t.Fatal(err)
	}
	target, _ := url.Parse(f.models.OllamaURL())
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorHandler = func(http.ResponseWriter, *http.Request, error) {}
	given := make(chan error, 1)
	tap := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/chat" { // not the model's details, asked first
			// Deferred: the proxy aborts a response cut short with a panic.
			// The server cancels the request's context once it reads the
			// closed connection, which may come just after the proxy's
			// copy failed: wait for it (the bound is against hangs only; a
			// request that finished is not cancelled in it, and says so).
			defer func() {
				select {
				case <-r.Context().Done():
				case <-time.After(10 * time.Second):
				}
				given <- r.Context().Err()
			}()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(tap.Close)
	reg := provider.NewRegistry(provider.Config{OllamaHost: tap.URL, IdleTimeout: time.Minute, MaxRetries: -1})
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	f.models.Enqueue(modeltest.Reply{Text: `{"total": 12.5}`, HoldAfterChunks: 1, Hold: hold})
	return &agent.Agent{DB: f.db, Providers: reg, Extractor: &agent.Extractor{DB: f.db, Providers: reg, DefaultModel: "ollama/qwen3:8b"}}, given
}

// waitAsked waits until the model was asked.
func waitAsked(t *testing.T, f *fixture, deadline <-chan time.Time) {
	t.Helper()
	for len(f.models.Requests()) == 0 {
		select {
		case <-deadline:
			t.Fatal("the model was never asked")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// wantGivenUp fails unless the model's request was cancelled by Docent's
// side, and nothing was stored.
func wantGivenUp(t *testing.T, f *fixture, given <-chan error, deadline <-chan time.Time) {
	t.Helper()
	select {
	case err := <-given:
		if err == nil {
			t.Error("the model's request finished, not cancelled")
		}
	case <-deadline:
		t.Fatal("the model's request was not cancelled: it still waits for its answer")
	}
	if _, err := f.db.LatestExtraction(context.Background(), f.doc.ID, ""); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("an extraction is stored (%v)", err)
	}
}

// TestClientThatLeavesMidCallCancelsIt: a stdio client that closes its
// end while run_extraction waits for the model ends the call (the model's
// request is given up, nothing stored) and the server returns.
func TestClientThatLeavesMidCallCancelsIt(t *testing.T) {
	f := newFixture(t, false)
	a, given := heldModel(t, f)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- docentmcp.ServeStdio(context.Background(), docentmcp.Options{Agent: func() *agent.Agent { return a }, Edge: "stdio"}, false, inR, outW)
	}()
	go func() { _, _ = io.Copy(io.Discard, outR) }() // a client reads its answers
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"leaver","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_extraction","arguments":{"document_id":"` + f.doc.ID + `","prompt_revid":"totals"}}}`,
	} {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.After(30 * time.Second) // against hangs only
	waitAsked(t, f, deadline)
	inW.Close() // the client goes away mid-call
	wantGivenUp(t, f, given, deadline)
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	case <-deadline:
		t.Fatal("ServeStdio did not return after its client left")
	}
	outW.Close()
}
