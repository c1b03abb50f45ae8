package storage

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docent/docent/storage/fault"
)

func tokenLimits(daily float64, allModels bool) UsageLimits {
	return UsageLimits{Daily: &daily, Unit: UnitTokens, AllModels: allModels}
}

// call is a hosted call of 1,000 prompt and 100 completion tokens.
func call(edge Edge, runID string) UsageCall {
	return UsageCall{Edge: string(edge), RunID: runID, Provider: "openai", Model: "gpt-4o-mini", Kind: "chat",
		InputTokens: 1000, OutputTokens: 100, CachedTokens: 200, DurationMS: 40, CostUSD: ptr(0.01)}
}

// spendUntilRefused reserves and records calls of 1,100 tokens until the
// store refuses one, and returns how many went out.
func spendUntilRefused(t *testing.T, db *DB, ctx context.Context) (int, error) {
	t.Helper()
	for n := 0; n < 1000; n++ {
		hold, err := db.ReserveUsage(ctx, UsageRequest{Provider: "openai", Model: "gpt-4o-mini", Tokens: 1100})
		if err != nil {
			return n, err
		}
		if err := db.RecordUsage(ctx, hold, call(EdgeCLI, "")); err != nil {
			t.Fatalf("RecordUsage: %v", err)
		}
	}
	t.Fatal("no limit was reached after 1000 calls")
	return 0, nil
}

// Every row is summed by day, model, edge and run, and the total is the
// sum of the rows.
func TestUsageSummarySumsTheLedger(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	for _, c := range []UsageCall{call(EdgeAutoCreate, "run1"), call(EdgeAutoCreate, "run1"), call(EdgeCLI, ""),
		{Edge: "ui", Provider: "ollama", Model: "qwen3:8b", Kind: "chat", InputTokens: 50, OutputTokens: 5, CostUSD: ptr(0.0)},
		{Edge: "mcp", Provider: "openai", Model: "mystery", Kind: "embed", InputTokens: 7}} {
		if err := db.RecordUsage(ctx, 0, c); err != nil {
			t.Fatal(err)
		}
	}
	s, err := db.UsageSummary(ctx, time.Time{}, UsageByModel)
	if err != nil {
		t.Fatal(err)
	}
	want := UsageTotals{Calls: 5, InputTokens: 3057, OutputTokens: 305, CachedTokens: 600, CostUSD: 0.03, UnpricedCalls: 1, DurationMS: 120}
	if s.Total.Calls != want.Calls || s.Total.InputTokens != want.InputTokens || s.Total.OutputTokens != want.OutputTokens ||
		s.Total.CachedTokens != want.CachedTokens || s.Total.UnpricedCalls != want.UnpricedCalls || s.Total.DurationMS != want.DurationMS ||
		s.Total.CostUSD < 0.0299999 || s.Total.CostUSD > 0.0300001 {
		t.Errorf("total %+v, want %+v", s.Total, want)
	}
	models := map[string]int64{}
	for _, g := range s.Groups {
		models[g.Model] = g.Calls
	}
	if len(models) != 3 || models["openai/gpt-4o-mini"] != 3 || models["ollama/qwen3:8b"] != 1 || models["openai/mystery"] != 1 {
		t.Errorf("by model: %v", models)
	}
	byRun, err := db.UsageSummary(ctx, time.Time{}, UsageByRun)
	if err != nil || len(byRun.Groups) != 1 || byRun.Groups[0].RunID != "run1" || byRun.Groups[0].Calls != 2 {
		t.Errorf("by run: %+v (%v), want run1 with 2 calls", byRun.Groups, err)
	}
	byEdge, err := db.UsageSummary(ctx, time.Time{}, UsageByEdge)
	if err != nil || len(byEdge.Groups) != 4 {
		t.Errorf("by edge: %+v (%v), want 4 edges", byEdge.Groups, err)
	}
	later, err := db.UsageSummary(ctx, time.Date(2025, 1, 3, 0, 0, 0, 0, time.UTC), UsageByDay)
	if err != nil || later.Total.Calls != 0 || len(later.Groups) != 0 {
		t.Errorf("since the next day: %+v (%v), want nothing", later, err)
	}
	if _, err := db.UsageSummary(ctx, time.Time{}, "week"); !errors.Is(err, ErrInvalid) {
		t.Errorf("by week: %v, want invalid", err)
	}
	rows, err := db.UsageCalls(ctx, time.Time{}, 10)
	if err != nil || len(rows) != 5 || rows[0].Model != "mystery" || rows[0].CostUSD != nil || rows[4].CostUSD == nil {
		t.Errorf("calls: %+v (%v), want 5, newest first, the unpriced one without a cost", rows, err)
	}
}

// Impossible counts are stored cut to what is possible and marked.
func TestRecordUsageClampsImpossibleCounts(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	if err := db.RecordUsage(ctx, 0, UsageCall{Provider: "openai", Model: "m", Kind: "chat", InputTokens: -5, OutputTokens: 10, CachedTokens: 30}); err != nil {
		t.Fatal(err)
	}
	rows, err := db.UsageCalls(ctx, time.Time{}, 1)
	if err != nil || len(rows) != 1 {
		t.Fatalf("calls: %v %v", rows, err)
	}
	if r := rows[0]; r.InputTokens != 0 || r.CachedTokens != 0 || r.OutputTokens != 10 || !r.Clamped || r.Edge != "system" || r.Outcome != "ok" {
		t.Errorf("stored %+v, want 0 input and cached tokens, clamped, system edge, ok", r)
	}
}

// A daily token limit lets calls out while there is room, then refuses
// with spending_limit, saying the limit, what was spent and where to raise
// it; a hosted limit does not count local models; raising it lets calls
// out again.
func TestReserveUsageKeepsTheDailyLimit(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	if err := db.SetUsageLimits(ctx, tokenLimits(6600, false)); err != nil {
		t.Fatal(err)
	}
	n, err := spendUntilRefused(t, db, ctx)
	if n != 6 || !errors.Is(err, fault.SpendingLimit) {
		t.Fatalf("%d calls went out, then %v; want 6, then spending_limit", n, err)
	}
	for _, want := range []string{"6,600 tokens spent today", "the limit is 6,600 tokens a day", "hosted models", "docent usage limit --daily", "Settings"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if hold, err := db.ReserveUsage(ctx, UsageRequest{Provider: "ollama", Model: "qwen3:8b", Tokens: 5000}); err != nil || hold != 0 {
		t.Errorf("a local model under a hosted limit: hold %d, %v; want none, nil", hold, err)
	}
	if err := db.UsageAllowed(ctx, "openai"); !errors.Is(err, fault.SpendingLimit) {
		t.Errorf("UsageAllowed: %v, want spending_limit", err)
	}
	if err := db.SetUsageLimits(ctx, tokenLimits(100000, false)); err != nil {
		t.Fatal(err)
	}
	if err := db.UsageAllowed(ctx, "openai"); err != nil {
		t.Errorf("UsageAllowed after raising: %v", err)
	}
	if _, err := db.ReserveUsage(ctx, UsageRequest{Provider: "openai", Model: "gpt-4o-mini", Tokens: 1100}); err != nil {
		t.Errorf("after raising the limit: %v", err)
	}
}

// Calls under way hold their maximum: while they may fill the limit a
// further call is told to wait (ErrUsageHeld), and goes once they end.
func TestReserveUsageHoldsCallsUnderWay(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	if err := db.SetUsageLimits(ctx, tokenLimits(3000, true)); err != nil {
		t.Fatal(err)
	}
	var holds []int64
	for range 3 {
		h, err := db.ReserveUsage(ctx, UsageRequest{Provider: "ollama", Model: "qwen3:8b", Tokens: 1100})
		if err != nil {
			t.Fatalf("reserve %d: %v", len(holds)+1, err)
		}
		holds = append(holds, h)
	}
	if _, err := db.ReserveUsage(ctx, UsageRequest{Provider: "ollama", Model: "qwen3:8b", Tokens: 1100}); !errors.Is(err, ErrUsageHeld) {
		t.Fatalf("a fourth call while three hold 3,300: %v, want ErrUsageHeld", err)
	}
	// The calls failed having spent nothing: their holds are released.
	for _, h := range holds {
		if err := db.RecordUsage(ctx, h, UsageCall{Provider: "ollama", Model: "qwen3:8b", Kind: "chat", Outcome: "unreachable"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ReserveUsage(ctx, UsageRequest{Provider: "ollama", Model: "qwen3:8b", Tokens: 1100}); err != nil {
		t.Errorf("after the holds were released: %v", err)
	}
}

// A limit of 0 lets nothing out and says so; bad limits are refused and
// change nothing; --off removes them.
func TestUsageLimitsZeroBadAndOff(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	if err := db.SetUsageLimits(ctx, UsageLimits{Monthly: ptr(0.0), Unit: UnitUSD}); err != nil {
		t.Fatal(err)
	}
	_, err := db.ReserveUsage(ctx, UsageRequest{Provider: "openai", Model: "m", Tokens: 10, CostUSD: ptr(0.001)})
	if !errors.Is(err, fault.SpendingLimit) || !strings.Contains(err.Error(), "nothing may be spent") {
		t.Errorf("a limit of 0: %v, want spending_limit saying nothing may be spent", err)
	}
	_, err = db.ReserveUsage(ctx, UsageRequest{Provider: "openai", Model: "m", Tokens: 10})
	if !errors.Is(err, fault.SpendingLimit) || !strings.Contains(err.Error(), "price of openai/m is unknown") {
		t.Errorf("an unpriced model under a USD limit: %v, want spending_limit naming the unknown price", err)
	}
	for _, bad := range []UsageLimits{{Daily: ptr(-1.0), Unit: UnitTokens}, {Daily: ptr(1.5), Unit: UnitTokens}, {Daily: ptr(5.0), Unit: "euros"}} {
		if err := db.SetUsageLimits(ctx, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("limits %+v: %v, want invalid", bad, err)
		}
	}
	if l, err := db.UsageLimits(ctx); err != nil || l.Monthly == nil || *l.Monthly != 0 || l.Unit != UnitUSD {
		t.Errorf("after bad limits: %+v (%v), want the monthly $0 limit kept", l, err)
	}
	if err := db.SetUsageLimits(ctx, UsageLimits{}); err != nil {
		t.Fatal(err)
	}
	if l, err := db.UsageLimits(ctx); err != nil || l.Any() {
		t.Errorf("after removing: %+v (%v), want none", l, err)
	}
	if _, err := db.ReserveUsage(ctx, UsageRequest{Provider: "openai", Model: "m", Tokens: 10}); err != nil {
		t.Errorf("without limits: %v", err)
	}
}

// A clock moved back a day does not reopen the day's limit: usage is
// recorded at the latest time seen.
func TestUsageClockBackwardsKeepsThePeriod(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	if err := db.SetUsageLimits(ctx, tokenLimits(2200, false)); err != nil {
		t.Fatal(err)
	}
	if n, err := spendUntilRefused(t, db, ctx); n != 2 || !errors.Is(err, fault.SpendingLimit) {
		t.Fatalf("%d calls, then %v; want 2, then spending_limit", n, err)
	}
	now = now.Add(-24 * time.Hour)
	if _, err := db.ReserveUsage(ctx, UsageRequest{Provider: "openai", Model: "m", Tokens: 1100}); !errors.Is(err, fault.SpendingLimit) {
		t.Errorf("with the clock a day back: %v, want spending_limit still", err)
	}
	now = now.Add(48 * time.Hour)
	if _, err := db.ReserveUsage(ctx, UsageRequest{Provider: "openai", Model: "m", Tokens: 1100}); err != nil {
		t.Errorf("the next day: %v, want the new day's room", err)
	}
}

// Eight workers in each of two processes (two handles on one file) spend
// no more than the limit plus one call.
func TestReserveUsageTwoProcessesEightWorkers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "docent.db")
	ctx := context.Background()
	var dbs []*DB
	for range 2 {
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	if err := dbs[0].SetUsageLimits(ctx, tokenLimits(6600, false)); err != nil {
		t.Fatal(err)
	}
	var refused atomic.Int64
	var wg sync.WaitGroup
	for w := range 16 {
		db := dbs[w%2]
		wg.Go(func() {
			for {
				hold, err := db.ReserveUsage(ctx, UsageRequest{Provider: "openai", Model: "m", Tokens: 1100})
				if errors.Is(err, ErrUsageHeld) {
					continue
				}
				if err != nil {
					if !errors.Is(err, fault.SpendingLimit) {
						t.Errorf("reserve: %v", err)
					}
					refused.Add(1)
					return
				}
				if err := db.RecordUsage(ctx, hold, call(EdgeCLI, "")); err != nil {
					t.Errorf("record: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	s, err := dbs[1].UsageSummary(ctx, time.Time{}, UsageByDay)
	if err != nil {
		t.Fatal(err)
	}
	if spent := s.Total.InputTokens + s.Total.OutputTokens; spent < 6600 || spent > 6600+1100 {
		t.Errorf("spent %d tokens in %d calls; want from 6,600 to 7,700 (the limit plus one call)", spent, s.Total.Calls)
	}
	if refused.Load() != 16 {
		t.Errorf("%d workers were refused, want all 16", refused.Load())
	}
}
