package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// seedUsage writes n ledger rows over the year before the store's clock,
// with their rollup, in one transaction to keep setup short: ten models
// (two local), the five edges, half the calls in auto-create runs of
// twenty calls.
func seedUsage(b testing.TB, db *DB, n int) {
	b.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	edges := []Edge{EdgeAgent, EdgeAutoCreate, EdgeUI, EdgeCLI, EdgeMCP}
	err := db.update(ctx, "seed usage", func(t *writeTx) error {
		ins, err := t.PrepareContext(ctx, `INSERT INTO usage_calls (at, day, edge, run_id, provider, model, kind,
			input_tokens, output_tokens, cached_tokens, duration_ms, outcome, cost_usd) VALUES (?, ?, ?, ?, ?, ?, 'chat', ?, ?, 0, ?, 'ok', ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		for i := range n {
			at := t.now.Add(-time.Duration(float64(n-i) / float64(n) * float64(365*24*time.Hour)))
			day := at.Format(time.DateOnly)
			m := r.IntN(10)
			provider := "openai"
			if m < 2 {
				provider = ProviderLocal
			}
			model := fmt.Sprintf("model-%d", m)
			edge, run := edges[r.IntN(len(edges))], ""
			if i%2 == 0 {
				edge, run = EdgeAutoCreate, fmt.Sprintf("thr_%08d", i/40)
			}
			in, out := 500+r.IntN(2000), 50+r.IntN(500)
			cost := float64(in)*1e-7 + float64(out)*4e-7
			if _, err := ins.ExecContext(ctx, formatTime(at), day, edge, run, provider, model, in, out, 40, cost); err != nil {
				return err
			}
			if err := rollUp(ctx, t, day, provider, model, string(edge), run, in, out, cost); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// rollUp adds one seeded call to the rollup tables, as RecordUsage does.
func rollUp(ctx context.Context, t *writeTx, day, provider, model, edge, run string, in, out int, cost float64) error {
	for _, period := range []string{day, day[:7]} {
		if _, err := t.ExecContext(ctx, `INSERT INTO usage_periods (period, local, tokens, cost_usd) VALUES (?, ?, ?, ?)
			ON CONFLICT (period, local) DO UPDATE SET tokens = tokens + excluded.tokens, cost_usd = cost_usd + excluded.cost_usd`,
			period, provider == ProviderLocal, in+out, cost); err != nil {
			return err
		}
	}
	sums := []any{in, out, 0, cost, 0, 40}
	if _, err := t.ExecContext(ctx, `INSERT INTO usage_days (day, provider, model, edge, calls, input_tokens, output_tokens, cached_tokens, cost_usd, unpriced_calls, duration_ms)
		VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?) ON CONFLICT (day, provider, model, edge) DO UPDATE SET `+rollupSums,
		append([]any{day, provider, model, edge}, sums...)...); err != nil || run == "" {
		return err
	}
	_, err := t.ExecContext(ctx, `INSERT INTO usage_runs (run_id, day, calls, input_tokens, output_tokens, cached_tokens, cost_usd, unpriced_calls, duration_ms)
		VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, day) DO UPDATE SET `+rollupSums, append([]any{run, day}, sums...)...)
	return err
}

// usageBenchDB is a store of 1,000,000 ledger rows.
func usageBenchDB(b *testing.B) *DB {
	db := mustOpen(b)
	db.Now = time.Now
	seedUsage(b, db, 1_000_000)
	return db
}

// BenchmarkUsageSummary1M: each of the Usage page's figures (and docent
// usage's) over a ledger of 1,000,000 calls, since the start and since a
// month ago.
func BenchmarkUsageSummary1M(b *testing.B) {
	db := usageBenchDB(b)
	ctx := context.Background()
	for _, by := range UsageGroupings {
		for _, since := range []struct {
			name string
			t    time.Time
		}{{"all", time.Time{}}, {"month", time.Now().AddDate(0, -1, 0)}} {
			b.Run(by+"/"+since.name, func(b *testing.B) {
				for b.Loop() {
					if _, err := db.UsageSummary(ctx, since.t, by); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
	b.Run("status", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.UsageStatus(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkUsageReserveAndRecord: what the meter adds to one model call —
// the limit check with its reservation, and the ledger row with the
// reservation's release, two write transactions — on a ledger of
// 1,000,000 rows under a daily and a monthly limit, by one worker and by 8
// at once. ms/call-p50 and -p99 are the latency one call sees, waiting
// for the other workers' transactions included (8 workers that do nothing
// but meter queue for SQLite's one writer; real calls take seconds).
func BenchmarkUsageReserveAndRecord(b *testing.B) {
	db := usageBenchDB(b)
	ctx := context.Background()
	high := 1e15
	if err := db.SetUsageLimits(ctx, UsageLimits{Daily: &high, Monthly: &high, Unit: UnitTokens, AllModels: true}); err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			var mu sync.Mutex
			var took []time.Duration
			b.SetParallelism(max(1, workers/runtime.GOMAXPROCS(0)))
			if workers == 1 {
				b.SetParallelism(1)
			}
			run := func(next func() bool) {
				var mine []time.Duration
				for next() {
					start := time.Now()
					hold, err := db.ReserveUsage(ctx, UsageRequest{Provider: "openai", Model: "model-3", Tokens: 5096})
					if err != nil {
						b.Error(err)
						return
					}
					if err := db.RecordUsage(ctx, hold, UsageCall{Edge: "cli", Provider: "openai", Model: "model-3", Kind: "chat", InputTokens: 1000, OutputTokens: 100}); err != nil {
						b.Error(err)
						return
					}
					mine = append(mine, time.Since(start))
				}
				mu.Lock()
				took = append(took, mine...)
				mu.Unlock()
			}
			if workers == 1 {
				run(b.Loop)
			} else {
				b.RunParallel(func(pb *testing.PB) { run(pb.Next) })
			}
			if len(took) > 0 {
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms/call-p50")
				b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "ms/call-p99")
			}
		})
	}
}
