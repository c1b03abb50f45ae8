package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
)

// bearer adds the access token to every request, as a remote MCP client
// configured with the token's header does.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connectMCP connects the official SDK's client to /mcp over Streamable
// HTTP, with the token when token is set.
func (f *fixture) connectMCP(t *testing.T, token string, opts *sdk.ClientOptions) (*sdk.ClientSession, error) {
	t.Helper()
	hc := f.ts.Client()
	if token != "" {
		hc = &http.Client{Transport: bearer{token: token, next: f.ts.Client().Transport}}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "remote-test-client", Version: "1"}, opts)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: f.ts.URL + "/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func mcpTools(t *testing.T, cs *sdk.ClientSession) map[string]*sdk.Tool {
	t.Helper()
	out := map[string]*sdk.Tool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = tool
	}
	return out
}

func TestMCPOverStreamableHTTP(t *testing.T) {
	f := newFixture(t)

	// Without the token, or with a wrong one: 401, and no session.
	if _, err := f.connectMCP(t, "", nil); err == nil {
		t.Error("connected to /mcp without the token")
	}
	if _, err := f.connectMCP(t, strings.Repeat("0", 64), nil); err == nil {
		t.Error("connected to /mcp with a wrong token")
	}
	req, _ := http.NewRequest(http.MethodPost, f.ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	if status, body := f.send(req); status != http.StatusUnauthorized || !strings.Contains(string(body), `"code":"unauthorized"`) {
		t.Errorf("POST /mcp without the token: %d %s", status, body)
	}
	// A page of another origin, even with the token: 403.
	req = f.request(context.Background(), http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	req.Header.Set("Origin", "https://evil.example")
	if status, body := f.send(req); status != http.StatusForbidden {
		t.Errorf("POST /mcp from another origin: %d %s", status, body)
	}

	progress := make(chan *sdk.ProgressNotificationParams, 16)
	cs, err := f.connectMCP(t, testToken, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
		progress <- r.Params
	}})
	if err != nil {
		t.Fatalf("connect with the token: %v", err)
	}
	tools := mcpTools(t, cs)
	if len(tools) != len(agent.Tools()) || !tools["list_tags"].Annotations.ReadOnlyHint || tools["delete_tag"].Annotations.ReadOnlyHint {
		t.Errorf("%d tools listed over HTTP", len(tools))
	}

	call := func(name string, args map[string]any, meta sdk.Meta) *sdk.CallToolResult {
		t.Helper()
		p := &sdk.CallToolParams{Name: name, Arguments: args}
		p.Meta = meta
		res, err := cs.CallTool(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: protocol error %v", name, err)
		}
		return res
	}
	res := call("search_docs", map[string]any{"query": "invoice"}, nil)
	if res.IsError || !strings.Contains(toolText(res), f.doc.ID) {
		t.Errorf("search_docs over HTTP: %s", toolText(res))
	}
	res = call("create_schema", map[string]any{"name": "invoice", "response_format": json.RawMessage(`{"type":"object","properties":{"total":{"type":"number"}},"required":["total"],"additionalProperties":false}`)}, nil)
	if res.IsError {
		t.Fatalf("create_schema: %s", toolText(res))
	}
	res = call("create_prompt", map[string]any{"name": "totals", "content": "Extract the total due.", "schema_id": "invoice"}, nil)
	if res.IsError {
		t.Fatalf("create_prompt: %s", toolText(res))
	}

	// run_extraction with a progress token hears that it started.
	f.model.Enqueue(modeltest.Reply{Text: `{"total": 12.5}`})
	res = call("run_extraction", map[string]any{"document_id": f.doc.ID, "prompt_revid": "totals"}, sdk.Meta{"progressToken": "run-1"})
	if res.IsError || !strings.Contains(toolText(res), `"validation_status":"valid"`) {
		t.Fatalf("run_extraction: %s", toolText(res))
	}
	select {
	case p := <-progress:
		if p.ProgressToken != "run-1" || !strings.Contains(p.Message, "totals") {
			t.Errorf("progress %+v", p)
		}
	case <-time.After(10 * time.Second): // against a hang only: it is sent before the result
		t.Error("no progress notification for run_extraction")
	}
	res = call("get_document", map[string]any{"document_id": "doc_nope"}, nil)
	if !res.IsError {
		t.Errorf("get_document of an unknown id: %s", toolText(res))
	}

	// The Settings switch: a new client sees only the read-only tools, and
	// the one connected before has its writes refused.
	if status, body := f.do(http.MethodPut, "/api/settings/mcp", map[string]any{"read_only": true}); status != http.StatusOK || !strings.Contains(string(body), `"read_only":true`) {
		t.Fatalf("PUT /api/settings/mcp: %d %s", status, body)
	}
	ro, err := f.connectMCP(t, testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	roTools := mcpTools(t, ro)
	if len(roTools) != len(agent.ReadOnlyToolNames()) {
		t.Errorf("with the switch on, %d tools are listed", len(roTools))
	}
	for name := range roTools {
		if tool, _ := agent.ToolByName(name); tool.Access != agent.ReadOnly {
			t.Errorf("with the switch on, %s is listed", name)
		}
	}
	res = call("create_tag", map[string]any{"name": "late"}, nil)
	if !res.IsError || !strings.Contains(toolText(res), "read-only") {
		t.Errorf("create_tag with the switch on: %s", toolText(res))
	}
	if _, err := f.db.FindTag(context.Background(), "late"); err == nil {
		t.Error("the tag was created with the switch on")
	}
	if status, body := f.do(http.MethodGet, "/api/settings/mcp", nil); status != http.StatusOK || string(body) != "{\"read_only\":true}\n" {
		t.Errorf("GET /api/settings/mcp: %d %s", status, body)
	}
}

func toolText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}
