package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/eventcheck"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage"
)

const (
	testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	testModel = "ollama/qwen3:8b"
)

// invoiceSchema is a bare JSON Schema the agent's checks accept.
const invoiceSchema = `{"type":"object","properties":{"invoice_number":{"type":"string"},"total":{"type":"number"}},"required":["invoice_number","total"],"additionalProperties":false}`

// fixture is a server over a real store in a temp dir, with an agent talking
// to the scripted model server through the real providers, behind a real
// HTTP listener.
type fixture struct {
	t     testing.TB
	path  string // the store's file
	db    *storage.DB
	model *modeltest.Server
	srv   *server.Server
	ts    *httptest.Server
	doc   storage.Document
}

func newFixture(t testing.TB, opts ...func(*server.Config)) *fixture {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "docent.db")
	db, err := storage.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	doc, err := db.CreateDocument(ctx, storage.NewDocument{
		Name: "acme.txt", MediaType: "text/plain", Data: []byte("ACME invoice A-1"),
		Pages: []string{"ACME Corporation\nInvoice A-1\n", "Widgets 10.00\nTotal due: 12.50 EUR\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	model := modeltest.New(t)
	reg := provider.NewRegistry(provider.Config{
		OllamaHost: model.OllamaURL(), OpenAIBaseURL: model.OpenAIURL(), OpenAIKey: "test",
		IdleTimeout: 10 * time.Second, MaxRetries: -1,
	})
	cfg := server.Config{
		DB: db, Version: "test", Logger: nil, Token: testToken,
		Assets: fstest.MapFS{"index.html": {Data: []byte("<title>Docent</title>")}},
		Agent: &agent.Agent{
			DB: db, Providers: reg, DefaultModel: testModel,
			Extractor: &agent.Extractor{DB: db, Providers: reg, DefaultModel: testModel},
		},
		KeepaliveInterval: 50 * time.Millisecond,
	}
	for _, o := range opts {
		o(&cfg)
	}
	// The server's background work (the auto-create queue) ends with the
	// test, before the store closes.
	srv := server.New(cfg)
	srv.Start(context.Background())
	t.Cleanup(srv.Close)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return &fixture{t: t, path: path, db: db, model: model, srv: srv, ts: ts, doc: doc}
}

// request builds a request with the token; body is JSON unless it is an
// io.Reader or a string (sent as is).
func (f *fixture) request(ctx context.Context, method, path string, body any) *http.Request {
	f.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case io.Reader:
		rd = b
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			f.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, f.ts.URL+path, rd)
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if rd != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

// do sends a request with the token and returns the status and body.
func (f *fixture) do(method, path string, body any) (int, []byte) {
	f.t.Helper()
	return f.send(f.request(context.Background(), method, path, body))
}

func (f *fixture) send(req *http.Request) (int, []byte) {
	f.t.Helper()
	res, err := f.ts.Client().Do(req)
	if err != nil {
		f.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		f.t.Fatalf("%s %s: read body: %v", req.Method, req.URL.Path, err)
	}
	return res.StatusCode, b
}

// call sends a request, wants the status, and decodes the JSON answer into
// out (when not nil).
func (f *fixture) call(method, path string, body any, want int, out any) []byte {
	f.t.Helper()
	status, b := f.do(method, path, body)
	if status != want {
		f.t.Fatalf("%s %s: status %d, want %d: %s", method, path, status, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			f.t.Fatalf("%s %s: decode %s: %v", method, path, b, err)
		}
	}
	return b
}

// wantError sends a request and wants an error answer with this status and
// code.
func (f *fixture) wantError(method, path string, body any, status int, code string) string {
	f.t.Helper()
	got, b := f.do(method, path, body)
	var e struct{ Error, Code string }
	if err := json.Unmarshal(b, &e); err != nil || got != status || e.Code != code || e.Error == "" {
		f.t.Errorf("%s %s: %d %s, want %d with code %q", method, path, got, b, status, code)
	}
	return e.Error
}

// stream sends a streaming request and returns the raw SSE body, checked
// with eventcheck (with opts) and decoded.
func (f *fixture) stream(path string, body any, opts ...eventcheck.Option) (string, []agent.Event) {
	f.t.Helper()
	req := f.request(context.Background(), http.MethodPost, path, body)
	res, err := f.ts.Client().Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		f.t.Fatalf("POST %s: %d %s: %s", path, res.StatusCode, res.Header.Get("Content-Type"), raw)
	}
	if err := eventcheck.CheckSSE(strings.NewReader(string(raw)), opts...); err != nil {
		f.t.Fatalf("POST %s: events: %v\n%s", path, err, raw)
	}
	evs, err := eventcheck.ReadSSE(strings.NewReader(string(raw)))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(raw), evs
}

// upload posts files as multipart `file` fields with extra form values.
func (f *fixture) upload(files map[string]string, values map[string][]string) (int, []byte) {
	f.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for name, content := range files {
		fw, err := mw.CreateFormFile("file", name)
		if err != nil {
			f.t.Fatal(err)
		}
		_, _ = fw.Write([]byte(content))
	}
	for k, vs := range values {
		for _, v := range vs {
			_ = mw.WriteField(k, v)
		}
	}
	_ = mw.Close()
	req := f.request(context.Background(), http.MethodPost, "/api/documents", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return f.send(req)
}

// closeIdle closes the keep-alive connections of the test client and of
// the providers (http.DefaultTransport), whose goroutines would otherwise
// count as left behind.
func (f *fixture) closeIdle() {
	f.ts.Client().CloseIdleConnections()
	if tr, ok := http.DefaultTransport.(*http.Transport); ok {
		tr.CloseIdleConnections()
	}
}

// goroutines is the goroutine count once idle connections are closed and
// their goroutines had a moment to end.
func (f *fixture) goroutines() int {
	f.closeIdle()
	time.Sleep(50 * time.Millisecond)
	return runtime.NumGoroutine()
}

// settleGoroutines waits, up to a deadline that only guards against a
// hang, for the goroutine count to come back to at most baseline, and
// fails with the stacks when it does not.
func (f *fixture) settleGoroutines(baseline int) {
	t := f.t
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		f.closeIdle()
		n := runtime.NumGoroutine()
		if n <= baseline {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines, baseline %d:\n%s", n, baseline, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
