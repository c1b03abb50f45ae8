package agent

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// CostFunc is the cost in USD of one call; ok is false when the model has
// no known price (Prices.Cost gives one).
type CostFunc func(ctx context.Context, provider, model string, inputTokens, outputTokens, cachedTokens int) (usd float64, ok bool)

// Bounds the meter holds reported counts to.
const (
	// reserveOutputTokens is what a call that sets no output limit is
	// held to spend in output: enough for any extraction or answer Docent
	// asks for, so that the limit is overshot by no more than one call.
	reserveOutputTokens = 4096
	// maxWindowTokens bounds a count when the call's window is unknown
	// (hosted models): no model takes more.
	maxWindowTokens = 2_000_000
)

// UsageMeter is the provider.Meter of the app: every model call is checked
// against the spending limits and holds its maximum before it goes out
// (storage.ReserveUsage), and is written to the usage ledger when it ends
// (storage.RecordUsage), with what the context says it served
// (storage.UsageScopeFrom).
type UsageMeter struct {
	DB *storage.DB
	// Cost prices a call; nil means every price is unknown, but a local
	// model's, which is 0.
	Cost   CostFunc
	Logger *slog.Logger
	// Poll is how often a call held back by the calls under way (of this
	// process or another) asks again when none of this process ends
	// first; default 250ms.
	Poll time.Duration

	mu    sync.Mutex
	ended chan struct{} // closed and replaced when a call of this meter ends
}

// Begin checks the limits and holds the call's maximum: it waits while the
// calls under way may take the room left, and fails with spending_limit
// once a limit is reached.
func (m *UsageMeter) Begin(ctx context.Context, c provider.Call) (func(provider.CallEnd), error) {
	out := c.MaxOutputTokens
	if out <= 0 && c.Kind != "embed" { // an embedding answers no tokens
		out = reserveOutputTokens
	}
	req := storage.UsageRequest{Provider: c.Provider, Model: c.Model, Tokens: c.PromptTokens + out, CostUSD: m.cost(ctx, c.Provider, c.Model, c.PromptTokens, out, 0)}
	var hold int64
	for {
		ended := m.endedChan()
		var err error
		hold, err = m.DB.ReserveUsage(ctx, req)
		if err == nil {
			break
		}
		if !errors.Is(err, storage.ErrUsageHeld) {
			return nil, err
		}
		t := time.NewTimer(m.poll())
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-ended:
			t.Stop()
		case <-t.C:
		}
	}
	scope := storage.UsageScopeFrom(ctx)
	tally := spendTallyFrom(ctx)
	return func(e provider.CallEnd) {
		defer m.signalEnded()
		row := m.row(ctx, c, scope, e)
		if tally != nil {
			tally.add(row.CostUSD)
		}
		// The call has ended: its row is written even when the caller's
		// context was cancelled.
		if err := m.DB.RecordUsage(context.WithoutCancel(ctx), hold, row); err != nil {
			loggerOr(m.Logger).Error("usage: record a model call", "model", c.Provider+"/"+c.Model, "err", err)
		}
	}, nil
}

// row is a call's ledger row, its counts held to what is possible.
func (m *UsageMeter) row(ctx context.Context, c provider.Call, scope storage.UsageScope, e provider.CallEnd) storage.UsageCall {
	window := e.Window
	if window <= 0 {
		window = maxWindowTokens
	}
	clamped := false
	clamp := func(n int) int {
		switch {
		case n < 0:
			clamped = true
			return 0
		case n > window:
			clamped = true
			return window
		}
		return n
	}
	in, out, cached := clamp(e.Usage.PromptTokens), clamp(e.Usage.CompletionTokens), clamp(e.Usage.CachedTokens)
	if cached > in {
		cached, clamped = in, true
	}
	outcome := "ok"
	if e.Err != nil {
		outcome = string(fault.ErrorCode(e.Err))
	}
	return storage.UsageCall{
		Edge: string(scope.Edge), ThreadID: scope.ThreadID, RunID: scope.RunID, DocumentID: scope.DocumentID,
		Provider: c.Provider, Model: c.Model, Kind: c.Kind,
		InputTokens: in, OutputTokens: out, CachedTokens: cached, Estimated: e.Estimated, Clamped: clamped,
		DurationMS: e.Duration.Milliseconds(), Outcome: outcome, CostUSD: m.cost(context.WithoutCancel(ctx), c.Provider, c.Model, in, out, cached),
	}
}

// cost prices a call: 0 on a local model, nil when the price is unknown.
func (m *UsageMeter) cost(ctx context.Context, providerName, model string, in, out, cached int) *float64 {
	if providerName == storage.ProviderLocal {
		zero := 0.0
		return &zero
	}
	if m.Cost == nil {
		return nil
	}
	usd, ok := m.Cost(ctx, providerName, model, in, out, cached)
	if !ok {
		return nil
	}
	return &usd
}

func (m *UsageMeter) poll() time.Duration {
	if m.Poll > 0 {
		return m.Poll
	}
	return 250 * time.Millisecond
}

func (m *UsageMeter) endedChan() chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ended == nil {
		m.ended = make(chan struct{})
	}
	return m.ended
}

func (m *UsageMeter) signalEnded() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ended != nil {
		close(m.ended)
	}
	m.ended = make(chan struct{})
}

// spendTally sums what the model calls made under a context cost: a turn
// puts one in its context (withSpendTally) and the meter adds each call's
// cost as the call ends. A round's tools run concurrently, hence the lock.
type spendTally struct {
	mu       sync.Mutex
	usd      float64
	priced   bool // some call had a price, so usd is a figure, not nothing
	unpriced int
}

// newSpendTally begins a tally from what u says was spent already (before
// a pause).
func newSpendTally(u TurnUsage) *spendTally {
	s := &spendTally{unpriced: u.UnpricedCalls}
	if u.CostUSD != nil {
		s.usd, s.priced = *u.CostUSD, true
	}
	return s
}

func (s *spendTally) add(cost *float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cost == nil {
		s.unpriced++
		return
	}
	s.usd += *cost
	s.priced = true
}

// totals is TurnUsage's CostUSD and UnpricedCalls.
func (s *spendTally) totals() (*float64, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.priced {
		return nil, s.unpriced
	}
	return new(s.usd), s.unpriced
}

type spendTallyKey struct{}

func withSpendTally(ctx context.Context, s *spendTally) context.Context {
	return context.WithValue(ctx, spendTallyKey{}, s)
}

func spendTallyFrom(ctx context.Context) *spendTally {
	s, _ := ctx.Value(spendTallyKey{}).(*spendTally)
	return s
}
