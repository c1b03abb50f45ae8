package agent_test

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
)

// metered sends the fixture's model calls through a UsageMeter on its
// store that prices the model "priced" only.
func (f *turnFixture) metered() {
	m := &agent.UsageMeter{DB: f.db, Cost: func(_ context.Context, p, model string, in, out, cached int) (float64, bool) {
		if model != "priced" {
			return 0, false
		}
		return float64(in)*1e-6 + float64(out)*4e-6, true
	}}
	f.agent.Providers = f.agent.Providers.Metered(m)
	f.agent.Extractor.Providers = f.agent.Providers
}

// A turn's result carries what its model calls cost: the sum of the
// ledger's priced rows, or the number of calls with no known price.
func TestTurnResultUsageCarriesTheTurnsCost(t *testing.T) {
	for _, tc := range []struct {
		model        string
		wantCost     *float64
		wantUnpriced int
	}{
		{"openai/priced", new((1000+1200)*1e-6 + (100+20)*4e-6), 0},
		{"openai/unpriced", nil, 2},
		{"ollama/qwen3:8b", new(0.0), 0},
	} {
		t.Run(tc.model, func(t *testing.T) {
			priced, unpriced := modeltest.DefaultModel, modeltest.DefaultModel
			priced.Name, unpriced.Name = "priced", "unpriced"
			f := newTurnFixture(t, priced, unpriced, modeltest.DefaultModel)
			f.metered()
			f.srv.Enqueue(
				modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "get_ocr_text", Arguments: `{"page_num":2}`}}, PromptTokens: 1000, CompletionTokens: 100},
				modeltest.Reply{Text: "The total is 12.50 EUR.", PromptTokens: 1200, CompletionTokens: 20},
			)
			res, _ := f.chat(t, agent.ChatRequest{Message: "what is the total?", Model: tc.model})
			u := res.Usage
			if u.PromptTokens != 2200 || u.CompletionTokens != 120 {
				t.Fatalf("usage %+v, want 2200 in, 120 out", u)
			}
			rows, err := f.db.UsageCalls(context.Background(), time.Time{}, 10)
			if err != nil || len(rows) != 2 {
				t.Fatalf("ledger: %d rows (%v), want 2", len(rows), err)
			}
			var ledger float64
			for _, r := range rows {
				if r.CostUSD != nil {
					ledger += *r.CostUSD
				}
			}
			switch {
			case tc.wantCost == nil && u.CostUSD != nil:
				t.Errorf("cost_usd %v, want none: no call was priced", *u.CostUSD)
			case tc.wantCost != nil && (u.CostUSD == nil || math.Abs(*u.CostUSD-*tc.wantCost) > 1e-12 || math.Abs(*u.CostUSD-ledger) > 1e-12):
				t.Errorf("cost_usd %v, want %v (the ledger sums to %v)", u.CostUSD, *tc.wantCost, ledger)
			}
			if u.UnpricedCalls != tc.wantUnpriced {
				t.Errorf("unpriced_calls %d, want %d", u.UnpricedCalls, tc.wantUnpriced)
			}
		})
	}
}

// A turn that pauses for approval carries what it spent before the pause
// into the result of its continuation.
func TestTurnCostCarriesAcrossAPause(t *testing.T) {
	priced := modeltest.DefaultModel
	priced.Name = "priced"
	f := newTurnFixture(t, priced)
	f.metered()
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{createSchemaCall("c1", "receipt")}, PromptTokens: 1000, CompletionTokens: 100})
	res, paused := f.chat(t, agent.ChatRequest{Message: "make a receipt schema", Model: "openai/priced"})
	first := 1000*1e-6 + 100*4e-6
	if !res.Paused() || res.Usage.CostUSD == nil || math.Abs(*res.Usage.CostUSD-first) > 1e-12 {
		t.Fatalf("paused result usage %+v, want paused at cost %v", res.Usage, first)
	}
	f.srv.Enqueue(modeltest.Reply{Text: "Created it.", PromptTokens: 1200, CompletionTokens: 20})
	res2, _ := f.approve(t, paused, res.TurnID, agent.Approval{CallID: "c1", Approved: true})
	want := first + 1200*1e-6 + 20*4e-6
	if res2.Usage.CostUSD == nil || math.Abs(*res2.Usage.CostUSD-want) > 1e-12 || res2.Usage.UnpricedCalls != 0 {
		t.Errorf("continued result usage %+v, want cost %v over both calls", res2.Usage, want)
	}
}

// The calls an approval runs are the turn's: an approved run_extraction's
// model call is in the ledger with the thread, as the rounds' are; and the
// turn's final answer keeps the turn's usage, cost included, so that the
// thread reopened later shows the footer the live turn showed.
func TestApprovedCallsAreMeteredWithTheThread(t *testing.T) {
	priced := modeltest.DefaultModel
	priced.Name = "priced"
	f := newTurnFixture(t, priced)
	f.metered()
	ctx := context.Background()
	s, err := f.db.CreateSchema(ctx, "Receipt", json.RawMessage(`{"type":"json_schema","json_schema":{"name":"receipt","strict":true,"schema":`+receiptSchema+`}}`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.db.CreatePrompt(ctx, storage.NewPrompt{Name: "receipts", Content: "Extract the total.", SchemaID: s.SchemaID, Model: "openai/priced"})
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "x1", Name: "run_extraction", Arguments: `{"prompt_revid":"` + p.PromptRevID + `"}`}},
		PromptTokens: 1000, CompletionTokens: 100})
	res, paused := f.chat(t, agent.ChatRequest{Message: "extract it", Model: "openai/priced"})
	if !res.Paused() {
		t.Fatalf("run_extraction did not wait for approval: %+v", res)
	}
	f.srv.Enqueue(
		modeltest.Reply{Text: `{"total": 12.5}`, PromptTokens: 500, CompletionTokens: 50},
		modeltest.Reply{Text: "The total is 12.50.", PromptTokens: 1200, CompletionTokens: 20},
	)
	res2, _ := f.approve(t, paused, res.TurnID, agent.Approval{CallID: "x1", Approved: true})
	rows, err := f.db.UsageCalls(ctx, time.Time{}, 10)
	if err != nil || len(rows) != 3 {
		t.Fatalf("ledger: %+v (%v), want the two rounds and the extraction", rows, err)
	}
	for _, r := range rows {
		if r.ThreadID != res2.ThreadID {
			t.Errorf("the %d-token call is recorded with thread %q, want %q", r.InputTokens, r.ThreadID, res2.ThreadID)
		}
	}

	msgs, err := f.db.ThreadMessages(ctx, res2.ThreadID)
	if err != nil {
		t.Fatal(err)
	}
	last := agent.ParseMessageData(msgs[len(msgs)-1].Data)
	want := 1000*1e-6 + 100*4e-6 + 500*1e-6 + 50*4e-6 + 1200*1e-6 + 20*4e-6
	if u := last.TurnUsage; u == nil || u.CostUSD == nil || math.Abs(*u.CostUSD-want) > 1e-12 || *u.CostUSD != *res2.Usage.CostUSD ||
		u.PromptTokens != res2.Usage.PromptTokens {
		t.Errorf("the stored answer's turn usage is %+v, want the result's %+v (cost %v)", u, res2.Usage, want)
	}
}
