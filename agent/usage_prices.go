package agent

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/docent/docent/agent/prices"
	"github.com/docent/docent/storage"
)

// Prices prices model calls: the price list built into Docent
// (prices.Snapshot), with the prices set by hand in Settings
// (storage.PriceOverrides) winning over it. The overrides are read at
// every call, so that a change applies to the next call without a
// restart.
type Prices struct {
	DB     *storage.DB
	Logger *slog.Logger

	warn sync.Once
}

// PriceSource is where a model's price comes from.
type PriceSource string

// Sources of a model's price.
const (
	PriceFromList     PriceSource = "list"
	PriceFromOverride PriceSource = "override"
	PriceLocal        PriceSource = "local"
	PriceUnknown      PriceSource = "unknown"
)

// list is the price list with the overrides in effect now.
func (p *Prices) list(ctx context.Context) (*prices.List, map[string]prices.Price, error) {
	l, err := prices.Snapshot()
	if err != nil {
		return nil, nil, err
	}
	saved, err := p.DB.PriceOverrides(ctx)
	if err != nil {
		return nil, nil, err
	}
	overrides := make(map[string]prices.Price, len(saved))
	for model, mp := range saved {
		overrides[model] = priceOf(mp)
	}
	with, err := l.WithOverrides(overrides)
	return with, overrides, err
}

// priceOf is a price set by hand as the list writes prices: cached input
// at the input price when it sets none.
func priceOf(mp storage.PriceOverride) prices.Price {
	var p prices.Price
	if mp.Input != nil {
		p.Input, p.CachedInput = *mp.Input, *mp.Input
	}
	if mp.Output != nil {
		p.Output = *mp.Output
	}
	if mp.Cached != nil {
		p.CachedInput = *mp.Cached
	}
	return p
}

// Cost is the CostFunc of the app's meter. A list or overrides that
// cannot be read leave the price unknown, which the ledger shows as such,
// rather than stopping the call.
func (p *Prices) Cost(ctx context.Context, providerName, model string, in, out, cached int) (float64, bool) {
	l, _, err := p.list(ctx)
	if err != nil {
		p.warn.Do(func() { loggerOr(p.Logger).Warn("models' prices are unknown", "err", err) })
		return 0, false
	}
	return l.Cost(providerName, model, in, out, cached)
}

// ModelPrice is a model's price as Settings shows it, in US dollars per
// million tokens.
type ModelPrice struct {
	// Model is the model id, provider/model.
	Model string `json:"model"`
	// Source is where the price comes from: "list" (the price list built
	// in), "override" (set in Settings), "local" (an Ollama model: 0) or
	// "unknown" (no price: Input, Output and Cached are left out).
	Source PriceSource `json:"source"`
	Input  *float64    `json:"input,omitempty"`
	Output *float64    `json:"output,omitempty"`
	// Cached is the price of input tokens read from the provider's cache.
	Cached *float64 `json:"cached,omitempty"`
}

// PriceReport is the prices of the models that matter, and the list they
// come from.
type PriceReport struct {
	// ListSource names the price list built in and its version
	// ("@pydantic/genai-prices@0.1.8"); ListDate is the day it was
	// published.
	ListSource string       `json:"list_source"`
	ListDate   string       `json:"list_date"`
	Models     []ModelPrice `json:"models"`
}

// Report prices the models that matter: those the ledger has calls of,
// the default model, and every one with an override, in order.
func (p *Prices) Report(ctx context.Context, defaultModel string) (PriceReport, error) {
	l, overrides, err := p.list(ctx)
	if err != nil {
		return PriceReport{}, err
	}
	used, err := p.DB.UsageModels(ctx)
	if err != nil {
		return PriceReport{}, err
	}
	ids := map[string]bool{}
	for _, m := range used {
		ids[m[0]+"/"+m[1]] = true
	}
	if defaultModel != "" {
		ids[defaultModel] = true
	}
	for id := range overrides {
		ids[id] = true
	}
	out := PriceReport{ListSource: l.Source(), ListDate: l.Date(), Models: []ModelPrice{}}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		out.Models = append(out.Models, p.price(l, overrides, id))
	}
	return out, nil
}

func (p *Prices) price(l *prices.List, overrides map[string]prices.Price, id string) ModelPrice {
	providerName, model, _ := strings.Cut(id, "/")
	mp := ModelPrice{Model: id}
	pr, ok := l.Lookup(providerName, model)
	_, overridden := overrides[id]
	switch {
	case providerName == storage.ProviderLocal: // as the meter prices it
		mp.Source = PriceLocal
		pr = prices.Price{}
	case overridden:
		mp.Source = PriceFromOverride
	case ok:
		mp.Source = PriceFromList
	default:
		mp.Source = PriceUnknown
		return mp
	}
	mp.Input, mp.Output, mp.Cached = new(pr.Input), new(pr.Output), new(pr.CachedInput)
	return mp
}
