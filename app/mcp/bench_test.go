package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/app/internal/teststore"
	"github.com/docent/docent/storage"
)

// BenchmarkReadOnlyToolCall measures read-only tool calls through MCP (the
// official SDK's client and server over the in-memory transport: JSON-RPC
// encoding, dispatch, the result's structured and text content) beside the
// same call made directly (agent.CallTool, as a turn makes it), on a store
// of 10,000 documents. The difference is what MCP adds to Docent's own
// time; it should stay under 5 ms, well below a model's answer.
func BenchmarkReadOnlyToolCall(b *testing.B) {
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(b.TempDir(), "docent.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	start := time.Now()
	teststore.Documents(b, db, 10_000)
	b.Logf("seeded 10,000 documents in %v", time.Since(start).Round(time.Millisecond))
	docs, _, err := db.ListDocuments(ctx, storage.DocumentFilter{Limit: 1})
	if err != nil || len(docs) != 1 {
		b.Fatalf("list: %v", err)
	}
	a := &agent.Agent{DB: db}
	cs := connect(b, func() *agent.Agent { return a }, true, nil)

	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_document", map[string]any{"document_id": docs[0].ID}},
		{"list_documents", map[string]any{"limit": 20}},
		{"search_docs", map[string]any{"query": "invoice total", "limit": 5}},
	} {
		raw, _ := json.Marshal(c.args)
		b.Run(c.tool+"/direct", func(b *testing.B) {
			for b.Loop() {
				env := &agent.ToolEnv{DB: db}
				if res := agent.CallTool(ctx, env, c.tool, raw); !res.Success {
					b.Fatal(res.Error)
				}
			}
		})
		b.Run(c.tool+"/mcp", func(b *testing.B) {
			for b.Loop() {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}
