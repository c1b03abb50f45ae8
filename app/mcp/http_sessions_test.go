package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	docentmcp "github.com/docent/docent/app/mcp"
	"github.com/docent/docent/storage"
)

// httpClient speaks JSON-RPC to an MCP Handler over real HTTP, one
// message a POST, as a client that writes the protocol by hand does.
type httpClient struct {
	t   testing.TB
	url string
	hc  *http.Client
}

func serveHTTP(t testing.TB, a *agent.Agent) *httpClient {
	t.Helper()
	ts := httptest.NewServer(docentmcp.Handler(docentmcp.Options{Agent: func() *agent.Agent { return a }, Edge: "http"}))
	t.Cleanup(ts.Close)
	return &httpClient{t: t, url: ts.URL, hc: ts.Client()}
}

// post sends one message in session (none: "") and returns the HTTP
// status, the session id the answer names, and the JSON-RPC answer (the
// first message of an event stream) when there is one.
func (c *httpClient) post(session, body string) (status int, sessionID string, a answer) {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("POST %.60s: %v", body, err)
	}
	defer res.Body.Close()
	var data []byte
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				data = []byte(d)
				break
			}
		}
	} else {
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(res.Body)
		data = buf.Bytes()
	}
	_ = json.Unmarshal(data, &a)
	return res.StatusCode, res.Header.Get("Mcp-Session-Id"), a
}

// initialize opens a session and returns its id.
func (c *httpClient) initialize(name string) string {
	c.t.Helper()
	status, id, a := c.post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"`+name+`","version":"1"}}}`)
	if status != http.StatusOK || id == "" || a.Error != nil {
		c.t.Fatalf("initialize %s: %d session %q error %+v", name, status, id, a.Error)
	}
	if status, _, _ := c.post(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted {
		c.t.Fatalf("notifications/initialized of %s: %d", name, status)
	}
	return id
}

// ping is the HTTP status of a ping in session: 200 while it lives, 404
// ("session not found", the SDK's answer) once it is gone.
func (c *httpClient) ping(session string) int {
	c.t.Helper()
	status, _, _ := c.post(session, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	return status
}

// TestHTTPSessionsAreCapped: past MaxHTTPSessions live sessions, each new
// one closes the session idle longest; a session used since it opened is
// kept over the ones opened after it and left idle. The sessions closed
// answer 404 "session not found", the others go on.
func TestHTTPSessionsAreCapped(t *testing.T) {
	f := newFixture(t, false)
	c := serveHTTP(t, f.agent)
	const over = 3
	sessions := make([]string, docentmcp.MaxHTTPSessions+over)
	for i := range docentmcp.MaxHTTPSessions {
		sessions[i] = c.initialize("client-" + strconv.Itoa(i))
	}
	// The first session is used again: the next ones are idle longer.
	if status := c.ping(sessions[0]); status != http.StatusOK {
		t.Fatalf("ping in the first session: %d", status)
	}
	for i := docentmcp.MaxHTTPSessions; i < len(sessions); i++ {
		sessions[i] = c.initialize("client-" + strconv.Itoa(i))
	}

	// Sessions 1..over are closed, each when one more opened; closing
	// runs beside the answer to initialize, so poll for it.
	deadline := time.Now().Add(30 * time.Second) // against a hang only
	for i := 1; i <= over; i++ {
		for status := c.ping(sessions[i]); status != http.StatusNotFound; status = c.ping(sessions[i]) {
			if time.Now().After(deadline) {
				t.Fatalf("session %d of %d, idle longest, still answers %d, want 404", i, len(sessions), status)
			}
			runtime.Gosched()
		}
	}
	live := 0
	for i, s := range sessions {
		if i >= 1 && i <= over {
			continue
		}
		if status := c.ping(s); status != http.StatusOK {
			t.Errorf("session %d: ping answered %d, want 200 (it is one of the %d kept)", i, status, docentmcp.MaxHTTPSessions)
			continue
		}
		live++
	}
	if live != docentmcp.MaxHTTPSessions {
		t.Errorf("%d sessions live, want %d", live, docentmcp.MaxHTTPSessions)
	}
}

// BenchmarkHTTPInitialize10000 opens 10,000 MCP sessions over HTTP, each
// an initialize that is never used again (as a client that reconnects
// each time, or a flood, does), and reports the memory they leave (the Go
// heap and stacks in use after a collection, beside those before), the
// goroutines and the process's resident memory (the test's client too).
func BenchmarkHTTPInitialize10000(b *testing.B) {
	db, err := storage.Open(context.Background(), filepath.Join(b.TempDir(), "docent.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	for b.Loop() {
		b.StopTimer()
		c := serveHTTP(b, &agent.Agent{DB: db})
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		for i := range 10_000 {
			status, id, a := c.post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"flood-`+strconv.Itoa(i)+`","version":"1"}}}`)
			if status != http.StatusOK || id == "" || a.Error != nil {
				b.Fatalf("initialize %d: %d session %q error %+v", i, status, id, a.Error)
			}
		}
		b.StopTimer()
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		kept := int64(after.HeapInuse+after.StackInuse) - int64(before.HeapInuse+before.StackInuse)
		b.ReportMetric(float64(kept)/1e6, "MB-kept")
		b.ReportMetric(float64(runtime.NumGoroutine()), "goroutines")
		b.ReportMetric(rssMB(), "rss-MB")
		b.StartTimer()
	}
}

// rssMB is the process's resident memory in MB, from /proc/self/status.
func rssMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb float64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb / 1000
		}
	}
	return 0
}
