package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/app/server"
)

// startMCP starts `docent mcp` as a real child process (this test binary
// re-executed, as TestMain allows) and connects the official SDK's client
// to its stdin and stdout.
func startMCP(t *testing.T, args ...string) (*sdk.ClientSession, *lockedBuffer) {
	t.Helper()
	argv, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DOCENT_TEST_MAIN=1", "DOCENT_TEST_ARGS="+string(argv))
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "docent-test-client", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to docent %s: %v\nstderr: %s", strings.Join(args, " "), err, stderr)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, stderr
}

// mcpCall calls a tool; a protocol error fails the test.
func mcpCall(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", name, args, err)
	}
	return res
}

// mcpOK calls a tool that must succeed and decodes its structured content.
func mcpOK(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	res := mcpCall(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s(%v): tool error %s", name, args, mcpText(res))
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, raw, err)
	}
}

func mcpText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestMCPClientWorksOnDocuments is what an MCP client does, on stdio: a
// real MCP client starts `docent mcp` on a data directory with a real
// invoice, lists the tools with their annotations, searches, lists and
// reads the document, creates a schema and a prompt, runs an extraction on
// the scripted model and reads the result with its evidence; bad ids,
// unknown tools and wrong argument types are errors and the server stays
// up.
func TestMCPClientWorksOnDocuments(t *testing.T) {
	corpus := testcorpus.Dir(t)
	srv := modeltest.New(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("DOCENT_MODEL", "")
	data := t.TempDir()
	if code, out, errOut := docent(t, data, "import", filepath.Join(corpus, "invoice2data", "AmazonWebServices.pdf")); code != ExitOK {
		t.Fatalf("import: %d\n%s\n%s", code, out, errOut)
	}

	cs, stderr := startMCP(t, "--data-dir", data, "--model", "ollama/qwen3:8b", "mcp")

	tools := map[string]*sdk.Tool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = tool
	}
	if len(tools) != len(agent.Tools()) {
		t.Errorf("%d tools, the agent has %d", len(tools), len(agent.Tools()))
	}
	if a := tools["get_document"].Annotations; a == nil || !a.ReadOnlyHint {
		t.Errorf("get_document annotations %+v", a)
	}
	if a := tools["delete_schema"].Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("delete_schema annotations %+v", a)
	}

	// Search, list and read.
	var hits struct {
		Hits []struct {
			DocumentID string `json:"document_id"`
		} `json:"hits"`
	}
	mcpOK(t, cs, "search_docs", map[string]any{"query": "Amazon"}, &hits)
	if len(hits.Hits) == 0 {
		t.Fatal("search_docs found nothing for Amazon")
	}
	docID := hits.Hits[0].DocumentID
	var list struct {
		Documents []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"documents"`
		Total int `json:"total"`
	}
	mcpOK(t, cs, "list_documents", map[string]any{}, &list)
	if list.Total != 1 || list.Documents[0].ID != docID || list.Documents[0].Name != "AmazonWebServices.pdf" {
		t.Errorf("list_documents = %+v", list)
	}
	var page struct {
		Text string `json:"text"`
	}
	mcpOK(t, cs, "get_ocr_text", map[string]any{"document_id": docID, "page_num": 1}, &page)
	if !strings.Contains(page.Text, "Amazon Web Services") {
		t.Errorf("get_ocr_text page 1 = %.200q", page.Text)
	}

	// A schema, a prompt, an extraction on the scripted model.
	var schema struct {
		SchemaID string `json:"schema_id"`
	}
	mcpOK(t, cs, "create_schema", map[string]any{"name": "invoice", "response_format": json.RawMessage(invoiceSchemaJSON)}, &schema)
	var prompt struct {
		PromptRevID string `json:"prompt_revid"`
	}
	mcpOK(t, cs, "create_prompt", map[string]any{"name": "aws", "content": "Extract the invoice number and the total amount due.", "schema_id": "invoice"}, &prompt)
	if schema.SchemaID == "" || prompt.PromptRevID == "" {
		t.Fatalf("created schema %+v, prompt %+v", schema, prompt)
	}
	srv.Enqueue(modeltest.Reply{Text: `{"invoice_number": "42183017", "total": 4.11}`})
	type extraction struct {
		Extraction struct {
			ID               string          `json:"extraction_id"`
			Value            json.RawMessage `json:"value"`
			Model            string          `json:"model"`
			ValidationStatus string          `json:"validation_status"`
			Ungrounded       []string        `json:"ungrounded"`
		} `json:"extraction"`
	}
	var run extraction
	mcpOK(t, cs, "run_extraction", map[string]any{"document_id": docID, "prompt_revid": "aws"}, &run)
	if run.Extraction.ValidationStatus != "valid" || run.Extraction.Model != "ollama/qwen3:8b" {
		t.Errorf("run_extraction = %+v", run)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "Amazon Web Services") {
		t.Errorf("the model was asked %d times, not with the document's text", len(reqs))
	}
	var got extraction
	mcpOK(t, cs, "get_extraction_result", map[string]any{"document_id": docID}, &got)
	if got.Extraction.ID != run.Extraction.ID || string(got.Extraction.Value) != `{"invoice_number":"42183017","total":4.11}` || len(got.Extraction.Ungrounded) != 0 {
		t.Errorf("get_extraction_result = %+v", got)
	}
	// Its evidence: where each value stands.
	res, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "docent://extractions/" + run.Extraction.ID})
	if err != nil {
		t.Fatalf("read the extraction: %v", err)
	}
	var stored struct {
		Evidence map[string]struct {
			Page int `json:"page"`
		} `json:"evidence"`
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &stored); err != nil || stored.Evidence["invoice_number"].Page != 1 {
		t.Errorf("extraction resource evidence = %+v (%v): %.300s", stored, err, res.Contents[0].Text)
	}

	// Bad ids, an unknown tool, wrong argument types: errors, and the
	// server stays up.
	for _, bad := range []struct {
		name string
		args map[string]any
	}{
		{"get_document", map[string]any{"document_id": "doc_nope"}},
		{"get_ocr_text", map[string]any{"document_id": docID, "page_num": "one"}},
		{"run_extraction", map[string]any{"document_id": docID, "prompt_revid": "no such prompt"}},
		{"create_schema", map[string]any{"name": 7, "response_format": "{}"}},
	} {
		if res := mcpCall(t, cs, bad.name, bad.args); !res.IsError || mcpText(res) == "" {
			t.Errorf("%s(%v) = %s, want a tool error", bad.name, bad.args, mcpText(res))
		}
	}
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "format_disk"}); err == nil {
		t.Error("an unknown tool ran")
	}
	mcpOK(t, cs, "list_documents", map[string]any{}, &list)
	if list.Total != 1 {
		t.Errorf("after the errors, list_documents = %+v", list)
	}

	// Each write is recorded, with the client and the edge.
	if log := stderr.String(); !strings.Contains(log, "write through MCP") || !strings.Contains(log, "client=docent-test-client") ||
		!strings.Contains(log, "tool=create_schema") || !strings.Contains(log, "tool=run_extraction") {
		t.Errorf("writes are not in the log:\n%s", log)
	}
}

// TestMCPReadOnlyListsNoWriteTool: `docent mcp --read-only` lists only
// the read-only tools.
func TestMCPReadOnlyListsNoWriteTool(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	cs, stderr := startMCP(t, "--data-dir", t.TempDir(), "mcp", "--read-only")
	n := 0
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		n++
		if t0, _ := agent.ToolByName(tool.Name); t0.Access != agent.ReadOnly || !tool.Annotations.ReadOnlyHint {
			t.Errorf("--read-only lists %s", tool.Name)
		}
	}
	if n != len(agent.ReadOnlyToolNames()) {
		t.Errorf("--read-only lists %d tools, want the %d read-only ones", n, len(agent.ReadOnlyToolNames()))
	}
}

func TestMCPTakesNoArguments(t *testing.T) {
	if code, _, errOut := docent(t, t.TempDir(), "mcp", "extra"); code != ExitUsage || !strings.Contains(errOut, "usage: docent mcp") {
		t.Errorf("docent mcp extra: exit %d %q", code, errOut)
	}
}

// TestMCPOnStdioAndHTTPAtOnce: two MCP clients on one data directory, one
// through `docent mcp` (its own process) and one through /mcp of a server
// on the same directory, write at the same time; every write of both is
// stored, and each sees the other's.
func TestMCPOnStdioAndHTTPAtOnce(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	ctx := context.Background()
	data := t.TempDir()
	env := &Env{IO: &IOStreams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard},
		Root: app.Root{DataDir: data, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	t.Cleanup(func() { env.Close() })
	cfg, err := env.ServerConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Token = strings.Repeat("7", 64)
	srv := server.New(cfg)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(srv.Close)
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+cfg.Token)
		return http.DefaultTransport.RoundTrip(r)
	})}
	remote, err := sdk.NewClient(&sdk.Implementation{Name: "remote", Version: "1"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { remote.Close() })
	local, stderr := startMCP(t, "--data-dir", data, "mcp")

	const each = 15
	var wg sync.WaitGroup
	errs := make(chan string, 2*each)
	for name, cs := range map[string]*sdk.ClientSession{"stdio": local, "http": remote} {
		wg.Go(func() {
			for i := range each {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "create_tag", Arguments: map[string]any{"name": fmt.Sprintf("%s %02d", name, i)}})
				if err != nil {
					errs <- fmt.Sprintf("%s %d: %v", name, i, err)
				} else if res.IsError {
					errs <- fmt.Sprintf("%s %d: %s", name, i, mcpText(res))
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("a write failed: %s\n%s", e, stderr)
	}
	for name, cs := range map[string]*sdk.ClientSession{"stdio": local, "http": remote} {
		var tags struct {
			Tags []struct {
				Name string `json:"name"`
			} `json:"tags"`
			Total int `json:"total"`
		}
		mcpOK(t, cs, "list_tags", map[string]any{"limit": 100}, &tags)
		if tags.Total != 2*each {
			t.Errorf("%s sees %d tags, want %d: %+v", name, tags.Total, 2*each, tags.Tags)
		}
	}

	// `docent history` shows each write as its client's, through the mcp
	// edge: the HTTP client's too, though the server journals the requests
	// of its routes as the person's in the UI.
	code, out, errOut := docent(t, data, "history", "--limit", "100", "--json")
	var h historyList
	if code != ExitOK || json.Unmarshal([]byte(out), &h) != nil {
		t.Fatalf("history --json: %d %s %s", code, out, errOut)
	}
	tagsBy := map[string]int{}
	for _, e := range h.Entries {
		if e.ObjectKind == "tag" {
			tagsBy[e.Edge+" "+e.Actor]++
		}
	}
	if want := map[string]int{"mcp docent-test-client": each, "mcp remote": each}; !maps.Equal(tagsBy, want) {
		t.Errorf("the history's tag entries by edge and actor: %v, want %v", tagsBy, want)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestMCPStdioMessageOverTheCap: through `docent mcp`, a call whose
// message is over 16 MiB fails with an error that says so, and the
// client's session goes on; nothing is stored.
func TestMCPStdioMessageOverTheCap(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	cs, stderr := startMCP(t, "--data-dir", t.TempDir(), "mcp")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // against a hang only
	defer cancel()
	_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "create_tag", Arguments: map[string]any{"name": "big", "description": strings.Repeat("x", 20<<20)}})
	if err == nil || !strings.Contains(err.Error(), "16 MiB") {
		t.Errorf("a 20 MB call: %v, want an error that says 16 MiB\nstderr: %s", err, stderr)
	}
	var tags struct {
		Total int `json:"total"`
	}
	mcpOK(t, cs, "list_tags", map[string]any{}, &tags)
	if tags.Total != 0 {
		t.Errorf("after the refused call, %d tags", tags.Total)
	}
}
