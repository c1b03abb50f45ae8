package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage"
)

// TestMCPWritesAreTheClientsInTheHistory: a write through /mcp is in the
// history (GET /api/history) as the MCP client's, through the mcp edge,
// though the server journals its routes' writes as the person's in the UI;
// undo takes it back.
func TestMCPWritesAreTheClientsInTheHistory(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var h struct{ Entries []storage.JournalEntry }
	f.call(http.MethodGet, "/api/history", nil, http.StatusOK, &h)
	seen := len(h.Entries) // the fixture's import
	cs, err := f.connectMCP(t, testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"update_document", map[string]any{"document_id": f.doc.ID, "name": "renamed.txt"}},
		{"create_tag", map[string]any{"name": "paid"}},
	} {
		if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args}); err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", c.tool, err, res)
		}
	}

	f.call(http.MethodGet, "/api/history", nil, http.StatusOK, &h)
	h.Entries = h.Entries[:len(h.Entries)-seen] // newest first
	kinds := map[string]bool{}
	for _, e := range h.Entries {
		if e.Edge != string(storage.EdgeMCP) || e.Actor != "remote-test-client" {
			t.Errorf("entry %d (%s) is %s's through %s, want remote-test-client's through mcp", e.ID, e.Summary, e.Actor, e.Edge)
		}
		kinds[e.ObjectKind] = true
	}
	if len(h.Entries) != 2 || !kinds["document"] || !kinds["tag"] {
		t.Fatalf("history after two MCP writes: %+v", h.Entries)
	}
	var rename storage.JournalEntry
	for _, e := range h.Entries {
		if e.ObjectKind == "document" {
			rename = e
		}
	}
	f.call(http.MethodPost, "/api/history/"+strconv.FormatInt(rename.ID, 10)+"/undo", nil, http.StatusOK, nil)
	if d, err := f.db.GetDocument(ctx, f.doc.ID); err != nil || d.Name != "acme.txt" {
		t.Errorf("after undo the document is %q (%v), want acme.txt", d.Name, err)
	}
}

// TestMCPClientNameIsCut: the name a client gives in initialize is cut to
// 200 characters before it is the journal's actor or logged: ten writes
// from a client named with 5 MB leave a history of kilobytes.
func TestMCPClientNameIsCut(t *testing.T) {
	var log lockedBuffer
	f := newFixture(t, func(c *server.Config) { c.Logger = slog.New(slog.NewJSONHandler(&log, nil)) })
	ctx := context.Background()
	name := strings.Repeat("n", 5<<20)
	session := f.initializeMCP(name)
	for i := range 10 {
		a := f.postMCP(ctx, session, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+2)+`,"method":"tools/call","params":{"name":"create_tag","arguments":{"name":"tag`+strconv.Itoa(i)+`"}}}`)
		if a.msg.Error != nil || strings.Contains(string(a.msg.Result), `"isError":true`) {
			t.Fatalf("create_tag %d: %d %.300s", i, a.status, a.body)
		}
	}

	status, body := f.do(http.MethodGet, "/api/history", nil)
	if status != http.StatusOK || len(body) > 64<<10 {
		t.Errorf("GET /api/history after 10 writes: %d, %d bytes, want 200 and kilobytes", status, len(body))
	}
	var h struct{ Entries []storage.JournalEntry }
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatal(err)
	}
	var mine int
	for _, e := range h.Entries {
		if e.Edge != string(storage.EdgeMCP) {
			continue
		}
		mine++
		if n := utf8.RuneCountInString(e.Actor); n > 200 || !strings.HasPrefix(e.Actor, strings.Repeat("n", 100)) {
			t.Errorf("entry %d's actor is %d characters (%.20q...), want the name's start, at most 200", e.ID, n, e.Actor)
		}
	}
	if mine != 10 {
		t.Errorf("%d MCP entries in the history, want the 10 writes", mine)
	}
	if logged := log.String(); !strings.Contains(logged, "write through MCP") || strings.Contains(logged, strings.Repeat("n", 201)) || len(logged) > 64<<10 {
		t.Errorf("the log (%d bytes) has the whole name, or no write: %.300s", len(logged), logged)
	}
}

// lockedBuffer is a log's output that requests on several goroutines
// write to.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
