package agent

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// metered gives the fixture's extractor a registry whose calls go through
// a UsageMeter on its store.
func (f *extractFixture) metered(cost CostFunc) *UsageMeter {
	m := &UsageMeter{DB: f.db, Cost: cost}
	f.x.Providers = testRegistry(f.srv.OllamaURL(), f.srv.OpenAIURL()).Metered(m)
	return m
}

// Each extraction's model call is one ledger row with the counts the
// server reported, the document it served and the edge of its context,
// priced by the cost function; an unpriced hosted model's cost is unknown,
// a local one's 0.
func TestUsageMeterRecordsEveryCall(t *testing.T) {
	f := newExtractFixture(t, modeltest.Model{Name: "priced"}, modeltest.Model{Name: "unpriced"}, modeltest.Model{Name: "qwen3:8b"})
	f.metered(func(_ context.Context, p, m string, in, out, cached int) (float64, bool) {
		if m != "priced" {
			return 0, false
		}
		return float64(in)*1e-6 + float64(out)*4e-6, true
	})
	ctx := storage.WithActor(context.Background(), storage.Actor{Edge: storage.EdgeCLI, Name: "docent extract"})
	for _, model := range []string{"openai/priced", "openai/unpriced", "ollama/qwen3:8b"} {
		f.srv.Enqueue(modeltest.Reply{Text: f.answer(t, nil), PromptTokens: 1000, CompletionTokens: 100})
		if _, err := f.x.Run(ctx, ExtractRequest{DocumentID: f.doc.ID, PromptRevID: f.prompt.PromptRevID, Model: model}); err != nil {
			t.Fatalf("%s: %v", model, err)
		}
	}
	rows, err := f.db.UsageCalls(ctx, time.Time{}, 10)
	if err != nil || len(rows) != 3 {
		t.Fatalf("ledger: %d rows (%v), want 3", len(rows), err)
	}
	costs := map[string]float64{}
	for _, r := range rows {
		if r.InputTokens != 1000 || r.OutputTokens != 100 || r.Estimated || r.Edge != "cli" || r.DocumentID != f.doc.ID || r.Kind != "chat" || r.Outcome != "ok" {
			t.Errorf("row %+v: want 1000/100 reported, edge cli, document %s, ok", r, f.doc.ID)
		}
		costs[r.Model] = -1 // unknown
		if r.CostUSD != nil {
			costs[r.Model] = *r.CostUSD
		}
	}
	if math.Abs(costs["priced"]-0.0014) > 1e-12 || costs["unpriced"] != -1 || costs["qwen3:8b"] != 0 {
		t.Errorf("costs %v: want priced 0.0014, unpriced unknown, local 0", costs)
	}
}

// A call over the limit does not go out: the extraction fails with
// spending_limit and the server hears nothing.
func TestUsageMeterStopsCallsOverTheLimit(t *testing.T) {
	f := newExtractFixture(t)
	f.metered(nil)
	ctx := context.Background()
	limit := 1100.0
	if err := f.db.SetUsageLimits(ctx, storage.UsageLimits{Daily: &limit, Unit: storage.UnitTokens, AllModels: true}); err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(modeltest.Reply{Text: f.answer(t, nil), PromptTokens: 1000, CompletionTokens: 100})
	if _, err := f.run(t, "ollama/qwen3:8b"); err != nil {
		t.Fatalf("the first call, within the limit: %v", err)
	}
	before := len(f.srv.Requests())
	_, err := f.run(t, "ollama/qwen3:8b")
	if !errors.Is(err, fault.SpendingLimit) || fault.ErrorCode(err) != fault.SpendingLimit {
		t.Fatalf("the second call: %v (code %q), want spending_limit", err, fault.ErrorCode(err))
	}
	if after := len(f.srv.Requests()); after != before {
		t.Errorf("the refused call reached the server: %d requests, want %d", after, before)
	}
}

// Counts a server cannot have meant are stored clamped and flagged, and a
// server that reports none is estimated and flagged.
func TestUsageMeterClampsAndEstimates(t *testing.T) {
	db := openStore(t)
	m := &UsageMeter{DB: db}
	ctx := context.Background()
	for _, e := range []provider.CallEnd{
		{Usage: provider.Usage{PromptTokens: -3, CompletionTokens: 5_000_000}, Window: 0},
		{Usage: provider.Usage{PromptTokens: 9000, CompletionTokens: 10}, Window: 8192},
		{Usage: provider.Usage{PromptTokens: 40, CompletionTokens: 10}, Estimated: true, Err: context.Canceled},
	} {
		end, err := m.Begin(ctx, provider.Call{Provider: "openai", Model: "m", Kind: "chat", PromptTokens: 40})
		if err != nil {
			t.Fatal(err)
		}
		end(e)
	}
	rows, err := db.UsageCalls(ctx, time.Time{}, 10)
	if err != nil || len(rows) != 3 {
		t.Fatalf("ledger: %v %v", rows, err)
	}
	// Newest first.
	if r := rows[2]; r.InputTokens != 0 || r.OutputTokens != maxWindowTokens || !r.Clamped {
		t.Errorf("negative and absurd counts stored as %+v, want 0 and %d, clamped", r, maxWindowTokens)
	}
	if r := rows[1]; r.InputTokens != 8192 || r.OutputTokens != 10 || !r.Clamped {
		t.Errorf("a prompt over its window stored as %+v, want 8192, clamped", r)
	}
	if r := rows[0]; !r.Estimated || r.Clamped || r.Outcome != "canceled" {
		t.Errorf("an estimated, cancelled call stored as %+v, want estimated, outcome canceled", r)
	}
}

// An embedding has no output: it holds only its input against the limits,
// so embedding batches under a tight limit do not wait for one another.
func TestUsageMeterHoldsNoOutputForEmbeddings(t *testing.T) {
	db := openStore(t)
	ctx := context.Background()
	limit := 4000.0
	if err := db.SetUsageLimits(ctx, storage.UsageLimits{Daily: &limit, Unit: storage.UnitTokens, AllModels: true}); err != nil {
		t.Fatal(err)
	}
	m := &UsageMeter{DB: db}
	call := provider.Call{Provider: "ollama", Model: "nomic-embed-text", Kind: "embed", PromptTokens: 100}
	first, err := m.Begin(ctx, call)
	if err != nil {
		t.Fatal(err)
	}
	// A guard, not a wait: the second call goes at once unless the first
	// holds room it cannot use.
	guard, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	second, err := m.Begin(guard, call)
	if err != nil {
		t.Fatalf("a second embedding while the first holds its input: %v, want it to go at once", err)
	}
	second(provider.CallEnd{Usage: provider.Usage{PromptTokens: 100}})
	first(provider.CallEnd{Usage: provider.Usage{PromptTokens: 100}})
}
