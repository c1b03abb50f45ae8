// Package prices says what a call to a hosted model costs, from a pinned,
// dated price list: the data of the npm package @pydantic/genai-prices,
// of which Docent embeds a snapshot (genai-prices.json, the token prices
// only) so that it knows prices with no network. Per-model overrides from
// Settings win over the list; a local Ollama model costs 0; a model the
// list does not price is unknown, never a guessed figure.
package prices

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"
)

// PinnedVersion is the version of @pydantic/genai-prices the embedded
// snapshot was made from; scripts/lib.sh pins the same
// (GENAI_PRICES_VERSION) and installs it for the tests that check the
// snapshot against it.
const PinnedVersion = "0.1.8"

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	// Input is the price of input tokens not read from the provider's cache.
	Input float64 `json:"input"`
	// Output is the price of output tokens (reasoning tokens included).
	Output float64 `json:"output"`
	// CachedInput is the price of input tokens read from the provider's
	// cache; the list's Input where the provider has no cache price.
	CachedInput float64 `json:"cached_input"`
	// Tiers are higher prices for long prompts, by the call's input tokens
	// (cached ones included), in increasing order; each replaces the whole
	// call's prices, as the providers bill it.
	Tiers []Tier `json:"tiers,omitempty"`
	// Date is the day the list this price comes from was published
	// (YYYY-MM-DD); empty for a local model's 0.
	Date string `json:"date,omitempty"`
}

// Tier is a Price's rates for a call with more than AboveInputTokens input
// tokens.
type Tier struct {
	AboveInputTokens int     `json:"above_input_tokens"`
	Input            float64 `json:"input"`
	Output           float64 `json:"output"`
	CachedInput      float64 `json:"cached_input"`
}

// Cost is the price in US dollars of one call: inputTokens counts every
// input token, cachedTokens those of them read from the cache (as OpenAI
// reports prompt_tokens and cached_tokens).
func (p Price) Cost(inputTokens, outputTokens, cachedTokens int) float64 {
	input, output, cached := p.Input, p.Output, p.CachedInput
	for _, t := range p.Tiers {
		if inputTokens > t.AboveInputTokens {
			input, output, cached = t.Input, t.Output, t.CachedInput
		}
	}
	return (float64(inputTokens-cachedTokens)*input + float64(cachedTokens)*cached + float64(outputTokens)*output) / 1e6
}

// Validate says why a price typed into Settings cannot be used.
func (p Price) Validate() error {
	rates := func(r ...float64) error {
		for _, v := range r {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fmt.Errorf("a price must be a number of dollars per million tokens, 0 or more, not %v", v)
			}
		}
		return nil
	}
	if err := rates(p.Input, p.Output, p.CachedInput); err != nil {
		return err
	}
	for i, t := range p.Tiers {
		if t.AboveInputTokens < 0 || i > 0 && t.AboveInputTokens <= p.Tiers[i-1].AboveInputTokens {
			return fmt.Errorf("price tiers must start above 0 or more input tokens, in increasing order")
		}
		if err := rates(t.Input, t.Output, t.CachedInput); err != nil {
			return err
		}
	}
	return nil
}

// List is a parsed price list. It is not changed after it is made, so any
// number of goroutines may use it.
type List struct {
	source    string // "@pydantic/genai-prices@0.1.8"
	date      string
	providers []provider
	overrides map[string]Price
	now       func() time.Time
}

// Source names the list: the package and version it was made from.
func (l *List) Source() string { return l.source }

// Date is the day the list was published (YYYY-MM-DD).
func (l *List) Date() string { return l.date }

// WithOverrides returns the list with Settings' prices, keyed by Docent's
// model id ("openai/gpt-4o-mini", "ollama/qwen3:8b"), winning over its own.
func (l *List) WithOverrides(overrides map[string]Price) (*List, error) {
	for model, p := range overrides {
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("price of %s: %w", model, err)
		}
	}
	c := *l
	c.overrides = overrides
	return &c, nil
}

// Lookup is the price of a model as Docent names it: the provider
// ("openai" for any OpenAI-compatible server, "ollama") and the model id
// without the provider ("gpt-4o-mini", "claude-sonnet-4-5",
// "anthropic/claude-sonnet-4.5" through a router, "qwen3:8b"). An
// override wins; an Ollama model costs 0; otherwise the list's price in
// effect now, or false when the list has no token price for it.
func (l *List) Lookup(provider, model string) (Price, bool) {
	if p, ok := l.overrides[provider+"/"+model]; ok {
		return p, true
	}
	if provider == "ollama" {
		return Price{}, true
	}
	m, ok := l.find(provider, model)
	if !ok {
		return Price{}, false
	}
	p, ok := m.priceAt(l.clock())
	if !ok {
		return Price{}, false
	}
	p.Date = l.date
	return p, true
}

// Cost in USD of one call; ok false when the model has no known price, or
// when the counts are impossible (negative, or more cached tokens than
// input tokens): what such a call cost is unknown.
func (l *List) Cost(provider, model string, inputTokens, outputTokens, cachedTokens int) (usd float64, ok bool) {
	if inputTokens < 0 || outputTokens < 0 || cachedTokens < 0 || cachedTokens > inputTokens {
		return 0, false
	}
	p, ok := l.Lookup(provider, model)
	if !ok {
		return 0, false
	}
	return p.Cost(inputTokens, outputTokens, cachedTokens), true
}

func (l *List) clock() time.Time {
	if l.now != nil {
		return l.now()
	}
	return time.Now()
}

// find is the list's model for a Docent provider and model id. An
// OpenAI-compatible server may be OpenAI itself, a router that prefixes
// the maker ("anthropic/claude-…"), or another maker's compatible API
// ("claude-…" at Anthropic), so it tries, in order: the provider the
// model's prefix names, the provider of Docent's name, then each provider
// whose own pattern claims the model (Anthropic "claude", Google "gemini").
func (l *List) find(provider, model string) (*model, bool) {
	if prefix, rest, ok := strings.Cut(model, "/"); ok {
		if p := l.provider(prefix); p != nil {
			if m := l.findIn(p, rest); m != nil {
				return m, true
			}
		}
	}
	if p := l.provider(provider); p != nil {
		if m := l.findIn(p, model); m != nil {
			return m, true
		}
	}
	for i := range l.providers {
		p := &l.providers[i]
		if p.modelMatch != nil && p.modelMatch.matches(model) {
			if m := l.findIn(p, model); m != nil {
				return m, true
			}
		}
	}
	return nil, false
}

func (l *List) provider(id string) *provider {
	for i := range l.providers {
		if strings.EqualFold(l.providers[i].id, id) {
			return &l.providers[i]
		}
	}
	return nil
}

// findIn is the first of p's models that matches the id, else of its
// fallback providers' (Azure serves OpenAI's models), else the same with a
// dated suffix written as the list writes it (-20250514 as -2025-05-14).
func (l *List) findIn(p *provider, id string) *model {
	search := func(id string) *model {
		if m := p.match(id); m != nil {
			return m
		}
		for _, f := range p.fallback {
			if fp := l.provider(f); fp != nil {
				if m := fp.match(id); m != nil {
					return m
				}
			}
		}
		return nil
	}
	if m := search(id); m != nil {
		return m
	}
	if dashed := dashDates(id); dashed != id {
		return search(dashed)
	}
	return nil
}

func (p *provider) match(id string) *model {
	for i := range p.models {
		if p.models[i].match.matches(id) {
			return &p.models[i]
		}
	}
	return nil
}

// dashDates writes a -YYYYMMDD date in a model id as -YYYY-MM-DD.
func dashDates(id string) string {
	return datedSuffix().ReplaceAllStringFunc(id, func(s string) string {
		day, after := s[1:9], s[9:]
		d, err := time.Parse("20060102", day)
		if err != nil {
			return s // not a day of the calendar (20250231)
		}
		return "-" + d.Format(time.DateOnly) + after
	})
}

//go:embed genai-prices.json
var snapshot []byte

var parseSnapshot = sync.OnceValues(func() (*List, error) {
	return Parse(bytes.NewReader(snapshot), slog.Default())
})

// Snapshot is the price list embedded in Docent, the token prices of
// @pydantic/genai-prices at PinnedVersion.
func Snapshot() (*List, error) {
	l, err := parseSnapshot()
	if err != nil {
		return nil, fmt.Errorf("the embedded price list: %w", err)
	}
	return l, nil
}

// ErrNoPrices is returned by Parse for a file that is not a price list.
var ErrNoPrices = errors.New("not a price list")

// Parse reads a price list in the schema of genai-prices' data.json,
// wrapped as scripts/genai-prices.mjs writes it: {"source", "date",
// "providers"}. A provider or model entry that fails to parse is skipped
// with a warning on log and the rest is read; a file with no provider
// left, no date or no source is an error.
func Parse(r io.Reader, log *slog.Logger) (*List, error) {
	var file struct {
		Source    string            `json:"source"`
		Date      string            `json:"date"`
		Providers []json.RawMessage `json:"providers"`
	}
	if err := json.NewDecoder(r).Decode(&file); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoPrices, err)
	}
	if file.Source == "" {
		return nil, fmt.Errorf("%w: it names no source", ErrNoPrices)
	}
	if _, err := time.Parse(time.DateOnly, file.Date); err != nil {
		return nil, fmt.Errorf("%w: its date %q is not YYYY-MM-DD", ErrNoPrices, file.Date)
	}
	l := &List{source: file.Source, date: file.Date}
	for i, raw := range file.Providers {
		p, err := parseProvider(raw, log)
		if err != nil {
			log.Warn("price list: provider skipped", "source", file.Source, "index", i, "err", err)
			continue
		}
		l.providers = append(l.providers, p)
	}
	if len(l.providers) == 0 {
		return nil, fmt.Errorf("%w: no provider could be read", ErrNoPrices)
	}
	return l, nil
}

// MarshalJSON writes the list as Parse reads it, with what Docent uses
// of each entry only: the embedded snapshot is this of the pinned list.
func (l *List) MarshalJSON() ([]byte, error) {
	slim := struct {
		Source    string            `json:"source"`
		Date      string            `json:"date"`
		Providers []json.RawMessage `json:"providers"`
	}{Source: l.source, Date: l.date}
	for _, p := range l.providers {
		slim.Providers = append(slim.Providers, p.slim)
	}
	return json.Marshal(slim)
}
