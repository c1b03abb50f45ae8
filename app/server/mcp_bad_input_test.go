package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
)

// rpcAnswer is one JSON-RPC answer from /mcp: its HTTP status and, when
// the body is a JSON-RPC message (as JSON or as the first event of an
// event stream), that message.
type rpcAnswer struct {
	status  int
	session string // Mcp-Session-Id
	body    string
	msg     struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
}

// postMCP sends one raw JSON-RPC message to /mcp with the token, as a
// client that speaks the protocol by hand does.
func (f *fixture) postMCP(ctx context.Context, session, body string) rpcAnswer {
	f.t.Helper()
	req := f.request(ctx, http.MethodPost, "/mcp", body)
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	res, err := f.ts.Client().Do(req)
	if err != nil {
		f.t.Fatalf("POST /mcp %.60s: %v", body, err)
	}
	defer res.Body.Close()
	a := rpcAnswer{status: res.StatusCode, session: res.Header.Get("Mcp-Session-Id")}
	var data []byte
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() { // the first message is the answer
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
	a.body = string(data)
	_ = json.Unmarshal(data, &a.msg)
	return a
}

// initializeMCP opens a session by hand and returns its id.
func (f *fixture) initializeMCP(name string) string {
	f.t.Helper()
	a := f.postMCP(context.Background(), "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"`+name+`","version":"1"}}}`)
	if a.status != http.StatusOK || a.session == "" || a.msg.Error != nil {
		f.t.Fatalf("initialize: %d session %q %s", a.status, a.session, a.body)
	}
	if b := f.postMCP(context.Background(), a.session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); b.status != http.StatusAccepted {
		f.t.Fatalf("notifications/initialized: %d %s", b.status, b.body)
	}
	return a.session
}

// TestMCPBadInputOverHTTP: what a client can send wrong to /mcp
// (malformed JSON-RPC, a request before initialize, an unknown method, an
// unknown tool, wrong argument types, a 10 MB argument, a message over
// the cap) each gets a JSON-RPC, HTTP or tool error that says what is wrong, the client's
// session and the server go on (a later valid call answers), and nothing
// is written.
func TestMCPBadInputOverHTTP(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	before, err := f.db.ListJournal(ctx, storage.JournalFilter{})
	if err != nil {
		t.Fatal(err)
	}

	// Malformed JSON-RPC: a JSON-RPC parse error.
	a := f.postMCP(ctx, "", `{"jsonrpc":"2.0","id":1,"method":`)
	if a.status != http.StatusBadRequest || a.msg.Error == nil || a.msg.Error.Code != -32700 {
		t.Errorf("malformed JSON: %d %s, want 400 with a parse error (-32700)", a.status, a.body)
	}
	// A request before initialize: an error naming the method, and no
	// session (the SDK closes the one it opened for it).
	a = f.postMCP(ctx, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if a.msg.Error == nil || !strings.Contains(a.msg.Error.Message, "tools/list") || a.msg.Result != nil || a.session != "" {
		t.Errorf("tools/list before initialize: %d %s, want a JSON-RPC error and no session", a.status, a.body)
	}
	// A session that does not exist: 404, as the protocol says.
	if a = f.postMCP(ctx, "NOSUCHSESSION", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); a.status != http.StatusNotFound {
		t.Errorf("tools/list in an unknown session: %d %s, want 404", a.status, a.body)
	}

	session := f.initializeMCP("raw-client")
	// An unknown method: 400 naming it (the SDK's answer), and the session
	// goes on.
	a = f.postMCP(ctx, session, `{"jsonrpc":"2.0","id":2,"method":"docent/no_such_method","params":{}}`)
	if a.status != http.StatusBadRequest || !strings.Contains(a.body, "docent/no_such_method") {
		t.Errorf("unknown method: %d %s, want 400 naming the method", a.status, a.body)
	}
	// A body that is JSON but no JSON-RPC message.
	a = f.postMCP(ctx, session, `[1, 2]`)
	if a.status != http.StatusBadRequest {
		t.Errorf("a JSON array of numbers: %d %s, want 400", a.status, a.body)
	}
	a = f.postMCP(ctx, session, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_documents","arguments":{}}}`)
	if a.msg.Error != nil || !strings.Contains(string(a.msg.Result), f.doc.ID) {
		t.Errorf("list_documents after the bad requests: %d %s", a.status, a.body)
	}

	// The SDK's client: an unknown tool, wrong argument types, a 10 MB
	// argument and a message over the cap are errors, and its session
	// answers after each.
	cs, err := f.connectMCP(t, testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	still := func(after string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_document", Arguments: map[string]any{"document_id": f.doc.ID}})
		if err != nil || res.IsError || !strings.Contains(toolText(res), "acme.txt") {
			t.Fatalf("get_document after %s: %v %+v", after, err, res)
		}
	}
	if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}}); err == nil && !res.IsError {
		t.Errorf("an unknown tool answered %s", toolText(res))
	} else if err != nil && !strings.Contains(err.Error(), "no_such_tool") {
		t.Errorf("an unknown tool: %v, want an error naming it", err)
	}
	still("an unknown tool")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"create_tag", map[string]any{"name": 42}},
		{"update_document", map[string]any{"document_id": f.doc.ID, "name": []int{1}}},
		{"get_document", map[string]any{"document_id": 7}},
		{"create_schema", map[string]any{"name": "s", "response_format": "not an object"}},
	} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || !res.IsError || toolText(res) == "" {
			t.Errorf("%s with %v: %v %+v, want a tool error", c.tool, c.args, err, res)
		}
		still(c.tool + " with wrong types")
	}

	// A 10 MB argument is read, as `docent mcp` reads it on stdio, and
	// answered by its tool.
	big := strings.Repeat("x", 10<<20)
	if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_tag", Arguments: map[string]any{"tag_id": big}}); err != nil || !res.IsError {
		t.Errorf("get_tag of a 10 MB id: %v %+v, want a tool error", err, res)
	}
	still("a 10 MB argument")
	// A message over the cap (16 MiB) gets an error that says how large
	// one may be, the session stays usable, and nothing is stored.
	huge := strings.Repeat(big, 2)
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "create_tag", Arguments: map[string]any{"name": "big", "description": huge}})
	if err == nil || !strings.Contains(err.Error(), "16 MiB") {
		t.Errorf("a 20 MB argument: %v, want an error that says how large a request may be", err)
	}
	still("a 20 MB argument")
	// Raw, the cap is a JSON-RPC error for the request's id, with 413.
	a = f.postMCP(ctx, session, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"create_tag","arguments":{"name":"big","description":"`+huge+`"}}}`)
	if a.status != http.StatusRequestEntityTooLarge || a.msg.Error == nil || a.msg.Error.Code != -32600 || string(a.msg.ID) != "9" {
		t.Errorf("a 20 MB body: %d %.300s, want 413 with a JSON-RPC error for id 9", a.status, a.body)
	}

	if _, err := f.db.FindTag(ctx, "big"); err == nil {
		t.Error("the tag of the 10 MB call was created")
	}
	after, err := f.db.ListJournal(ctx, storage.JournalFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("the bad requests wrote %d journal entries: %+v", len(after)-len(before), after[:len(after)-len(before)])
	}
	if d, err := f.db.GetDocument(ctx, f.doc.ID); err != nil || d.Name != "acme.txt" {
		t.Errorf("the document is now %q (%v)", d.Name, err)
	}
}

// TestMCPBadResourceURIOverHTTP: a resource URI with a control character
// (or another character Go's %q writes in a way JSON does not read) is
// "Resource not found" with the URI as JSON data, in an answer that is
// JSON, and the session answers the next request.
func TestMCPBadResourceURIOverHTTP(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	session := f.initializeMCP("raw-client")
	for i, uri := range []string{"docent://extractions/\u0000", "docent://extractions/\x7f", "docent://schemas/\U0010ffff", "nope://\u0000"} {
		id := strconv.Itoa(10 + i)
		params, _ := json.Marshal(map[string]string{"uri": uri})
		a := f.postMCP(ctx, session, `{"jsonrpc":"2.0","id":`+id+`,"method":"resources/read","params":`+string(params)+`}`)
		if a.status != http.StatusOK || string(a.msg.ID) != id || a.msg.Error == nil || int64(a.msg.Error.Code) != sdk.CodeResourceNotFound {
			t.Errorf("read %+q: %d %.300q, want a JSON-RPC Resource not found (%d) for id %s", uri, a.status, a.body, sdk.CodeResourceNotFound, id)
			continue
		}
		var data struct{ URI string }
		if err := json.Unmarshal(a.msg.Error.Data, &data); err != nil || data.URI != uri {
			t.Errorf("read %+q: the error's data %s (%v), want the URI", uri, a.msg.Error.Data, err)
		}
	}
	a := f.postMCP(ctx, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_document","arguments":{"document_id":"`+f.doc.ID+`"}}}`)
	if a.status != http.StatusOK || a.msg.Error != nil || string(a.msg.ID) != "2" || !strings.Contains(string(a.msg.Result), "acme.txt") {
		t.Errorf("get_document after the bad URIs: %d %.300q", a.status, a.body)
	}
}

// TestMCPClientThatDisconnectsMidCall: a client whose connection drops
// while run_extraction waits for the model does not take the server with
// it: other clients are answered meanwhile, the call finishes and its
// extraction is stored whole once the model answers (the protocol says a
// disconnection is no cancellation), and the server answers after.
func TestMCPClientThatDisconnectsMidCall(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	cs, err := f.connectMCP(t, testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"create_schema", map[string]any{"name": "invoice", "response_format": json.RawMessage(`{"type":"object","properties":{"total":{"type":"number"}},"required":["total"],"additionalProperties":false}`)}},
		{"create_prompt", map[string]any{"name": "totals", "content": "Extract the total due.", "schema_id": "invoice"}},
	} {
		if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args}); err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", c.tool, err, res)
		}
	}

	hold := make(chan struct{})
	released := false
	release := func() {
		if !released {
			released = true
			close(hold)
		}
	}
	t.Cleanup(release)
	f.model.Enqueue(modeltest.Reply{Text: `{"total": 12.5}`, HoldAfterChunks: 1, Hold: hold})
	session := f.initializeMCP("leaver")
	callCtx, disconnect := context.WithCancel(ctx)
	defer disconnect()
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		req := f.request(callCtx, http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_extraction","arguments":{"document_id":"`+f.doc.ID+`","prompt_revid":"totals"}}}`)
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", session)
		if res, err := f.ts.Client().Do(req); err == nil {
			_, _ = bufio.NewReader(res.Body).ReadString(0) // until the connection drops
			res.Body.Close()
		}
	}()
	deadline := time.After(30 * time.Second) // against hangs only
	poll := func(what string, ok func() bool) {
		t.Helper()
		for !ok() {
			select {
			case <-deadline:
				t.Fatalf("gave up waiting: %s", what)
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	poll("the model to be asked", func() bool { return len(f.model.Requests()) > 0 })
	disconnect()
	<-gone

	// Meanwhile the server answers, and nothing of the call is stored.
	if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_documents", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Fatalf("list_documents while the left call waits: %v %+v", err, res)
	}
	if _, err := f.db.LatestExtraction(ctx, f.doc.ID, ""); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("while the model still answers, an extraction is stored (%v)", err)
	}

	// The model answers: the call finishes, its extraction stored whole.
	release()
	var ex storage.Extraction
	poll("the left call's extraction", func() bool {
		ex, err = f.db.LatestExtraction(ctx, f.doc.ID, "")
		return err == nil
	})
	if ex.ValidationStatus != "valid" || !strings.Contains(string(ex.Value), "12.5") {
		t.Errorf("the left call stored %s (%s), want the whole answer, valid", ex.Value, ex.ValidationStatus)
	}
	if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_extraction_result", Arguments: map[string]any{"document_id": f.doc.ID}}); err != nil || res.IsError || !strings.Contains(toolText(res), "12.5") {
		t.Errorf("get_extraction_result after the client left: %v %+v", err, res)
	}
}
