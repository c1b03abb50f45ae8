package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
)

// BenchmarkAskTurn is Docent's time per Ask turn outside the model, at
// 10,000 extracted documents: the scripted model answers at once (over
// local HTTP) with one tool call, then with the answer citing it; the
// whole Ask call is measured (thread, messages, the tool, citations).
// The target, under 50 ms, is for the turn's own work, since the model's
// time is not Docent's to spend: "search"
// (a search_docs over words every document has). "sum" adds a query_data
// aggregate over the 10,000 rows with its source rows and their evidence,
// whose own budget is 100 ms (BenchmarkAskData in storage).
func BenchmarkAskTurn(b *testing.B) {
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(b.TempDir(), "docent.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	s, err := db.CreateSchema(ctx, "Receipt", json.RawMessage(`{"type":"object","properties":{"store":{"type":"string"},"total":{"type":"number"}}}`))
	if err != nil {
		b.Fatal(err)
	}
	p, err := db.CreatePrompt(ctx, storage.NewPrompt{Name: "receipts", Content: "x", SchemaID: s.SchemaID})
	if err != nil {
		b.Fatal(err)
	}
	const docs = 10_000
	for i := 1; i <= docs; i++ {
		d, err := db.CreateDocument(ctx, storage.NewDocument{Name: fmt.Sprintf("r%05d.txt", i), MediaType: "text/plain",
			Data: []byte(fmt.Sprintf("receipt %d", i)), Pages: []string{fmt.Sprintf("Spar %d\nTotal %d.50\n", i%7, i%100)}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.CreateExtraction(ctx, storage.NewExtraction{DocumentID: d.ID, PromptRevID: p.PromptRevID, Model: "m",
			Value:    json.RawMessage(fmt.Sprintf(`{"store":"Spar %d","total":%d.5}`, i%7, i%100)),
			Evidence: json.RawMessage(fmt.Sprintf(`{"total":{"page":1,"quote":"%d.50","status":"grounded"}}`, i%100))}); err != nil {
			b.Fatal(err)
		}
	}
	srv := modeltest.New(b)
	reg := provider.NewRegistry(provider.Config{
		OllamaHost: srv.OllamaURL(), OpenAIBaseURL: srv.OpenAIURL(), OpenAIKey: "test",
		IdleTimeout: 5 * time.Second, MaxRetries: -1,
	})
	a := &agent.Agent{DB: db, Providers: reg, DefaultModel: "ollama/qwen3:8b"}
	for _, c := range []struct {
		name     string
		call     modeltest.ToolCall
		question string
	}{
		{"search", modeltest.ToolCall{ID: "s1", Name: "search_docs", Arguments: `{"query":"Spar total","by":"words"}`}, "where did I shop?"},
		{"sum", queryCall("q1", "SELECT sum(total) FROM receipt WHERE store = 'Spar 3'"), "how much did I spend at Spar 3?"},
	} {
		b.Run(c.name, func(b *testing.B) {
			// On a busy machine wall time waits for other processes; the
			// CPU time per turn (this process's, the scripted model's
			// replies included) is the steadier figure.
			start, turns := cpuTime(b), 0
			for b.Loop() {
				turns++
				srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{c.call}}, modeltest.Reply{Text: "There [1]."})
				res, err := a.Ask(ctx, agent.AskRequest{Message: c.question}, nil)
				if err != nil || len(res.Citations) != 1 || res.Citations[0].Kind == agent.CiteQuery && len(res.Citations[0].Sources) == 0 {
					b.Fatalf("Ask: %v, %+v", err, res.Citations)
				}
			}
			b.ReportMetric(float64(cpuTime(b)-start)/float64(time.Millisecond)/float64(turns), "cpu-ms/op")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
