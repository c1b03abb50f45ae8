package prices

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"
)

// The list's price keys Docent uses: tokens in, out, and read from a cache,
// per million. The others (audio, images, web searches, cache writes) are
// not what Docent's calls spend and are left out.
const (
	keyInput     = "input_mtok"
	keyOutput    = "output_mtok"
	keyCacheRead = "cache_read_mtok"
)

var tokenKeys = []string{keyInput, keyOutput, keyCacheRead}

type provider struct {
	id         string
	modelMatch *matcher // nil: the provider claims no model by its id
	fallback   []string
	models     []model
	slim       json.RawMessage // the entry as MarshalJSON writes it
}

type model struct {
	id    string
	match matcher
	// prices are the model's prices and the conditions under which each
	// applies, in the list's order: the last whose condition holds wins.
	prices []conditional
}

type conditional struct {
	// since: from this time on (the list's start_date); zero: always.
	since time.Time
	// from, to: between these seconds of the UTC day, to excluded, across
	// midnight when to < from (off-peak hours); daily false: any time.
	daily    bool
	from, to int
	rates    map[string]tiered // by token key; no keyInput: not priced by tokens
}

// tiered is one rate: base, or a tier's price when the call's input tokens
// are more than its start.
type tiered struct {
	base  float64
	tiers []step
}

type step struct {
	start int
	price float64
}

func (t tiered) at(inputTokens int) float64 {
	rate := t.base
	for _, s := range t.tiers {
		if inputTokens > s.start {
			rate = s.price
		}
	}
	return rate
}

func parseProvider(raw json.RawMessage, log *slog.Logger) (provider, error) {
	var in struct {
		ID         string            `json:"id"`
		ModelMatch json.RawMessage   `json:"model_match"`
		Fallback   []string          `json:"fallback_model_providers"`
		Models     []json.RawMessage `json:"models"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return provider{}, err
	}
	if in.ID == "" {
		return provider{}, fmt.Errorf("no id")
	}
	p := provider{id: in.ID, fallback: in.Fallback}
	slim := struct {
		ID         string            `json:"id"`
		ModelMatch json.RawMessage   `json:"model_match,omitempty"`
		Fallback   []string          `json:"fallback_model_providers,omitempty"`
		Models     []json.RawMessage `json:"models"`
	}{ID: in.ID, Fallback: in.Fallback, Models: []json.RawMessage{}}
	if len(in.ModelMatch) > 0 && string(in.ModelMatch) != "null" {
		m, err := parseMatcher(in.ModelMatch)
		if err != nil {
			// Its models are still found by naming the provider.
			log.Warn("price list: a provider's model pattern skipped", "provider", in.ID, "err", err)
		} else {
			p.modelMatch, slim.ModelMatch = &m, in.ModelMatch
		}
	}
	for i, raw := range in.Models {
		m, mslim, err := parseModel(raw)
		if err != nil {
			log.Warn("price list: model skipped", "provider", in.ID, "index", i, "err", err)
			continue
		}
		p.models = append(p.models, m)
		slim.Models = append(slim.Models, mslim)
	}
	var err error
	p.slim, err = json.Marshal(slim)
	return p, err
}

func parseModel(raw json.RawMessage) (model, json.RawMessage, error) {
	var in struct {
		ID     string          `json:"id"`
		Match  json.RawMessage `json:"match"`
		Prices json.RawMessage `json:"prices"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return model{}, nil, err
	}
	if in.ID == "" {
		return model{}, nil, fmt.Errorf("no id")
	}
	match, err := parseMatcher(in.Match)
	if err != nil {
		return model{}, nil, fmt.Errorf("%s: %w", in.ID, err)
	}
	m := model{id: in.ID, match: match}
	type entry struct {
		Constraint json.RawMessage            `json:"constraint,omitempty"`
		Prices     map[string]json.RawMessage `json:"prices"`
	}
	var entries []entry
	var slimPrices any
	if len(in.Prices) > 0 && in.Prices[0] == '[' {
		if err := json.Unmarshal(in.Prices, &entries); err != nil {
			return model{}, nil, fmt.Errorf("%s: prices: %w", in.ID, err)
		}
		if len(entries) == 0 {
			return model{}, nil, fmt.Errorf("%s: no prices", in.ID)
		}
		slimPrices = entries
	} else {
		var flat map[string]json.RawMessage
		if err := json.Unmarshal(in.Prices, &flat); err != nil || flat == nil {
			return model{}, nil, fmt.Errorf("%s: prices are neither a list nor an object", in.ID)
		}
		entries = []entry{{Prices: flat}}
	}
	for i := range entries {
		c, err := parseConditional(entries[i].Constraint, entries[i].Prices)
		if err != nil {
			return model{}, nil, fmt.Errorf("%s: %w", in.ID, err)
		}
		m.prices = append(m.prices, c)
		for k := range entries[i].Prices {
			if !slices.Contains(tokenKeys, k) {
				delete(entries[i].Prices, k)
			}
		}
	}
	if slimPrices == nil {
		slimPrices = entries[0].Prices
	}
	slim, err := json.Marshal(struct {
		ID     string          `json:"id"`
		Match  json.RawMessage `json:"match"`
		Prices any             `json:"prices"`
	}{in.ID, in.Match, slimPrices})
	return m, slim, err
}

func parseConditional(rawConstraint json.RawMessage, prices map[string]json.RawMessage) (conditional, error) {
	var c conditional
	if len(rawConstraint) > 0 && string(rawConstraint) != "null" {
		var in struct {
			Type      string `json:"type"`
			StartDate string `json:"start_date"`
			StartTime string `json:"start_time"`
			EndTime   string `json:"end_time"`
		}
		if err := json.Unmarshal(rawConstraint, &in); err != nil {
			return c, fmt.Errorf("constraint: %w", err)
		}
		switch in.Type {
		case "start_date":
			since, err := parseStartDate(in.StartDate)
			if err != nil {
				return c, err
			}
			c.since = since
		case "time_of_date":
			from, err1 := secondOfDay(in.StartTime)
			to, err2 := secondOfDay(in.EndTime)
			if err1 != nil || err2 != nil {
				return c, fmt.Errorf("time_of_date constraint %q to %q: want HH:MM:SS with Z or an offset", in.StartTime, in.EndTime)
			}
			c.daily, c.from, c.to = true, from, to
		default:
			return c, fmt.Errorf("unknown price constraint %q", in.Type)
		}
	}
	c.rates = map[string]tiered{}
	for _, key := range tokenKeys {
		raw, ok := prices[key]
		if !ok {
			continue
		}
		t, err := parseTiered(raw)
		if err != nil {
			return c, fmt.Errorf("%s: %w", key, err)
		}
		c.rates[key] = t
	}
	return c, nil
}

// parseStartDate reads a start_date as JavaScript's Date does: a bare day
// is midnight UTC.
func parseStartDate(s string) (time.Time, error) {
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d, nil
	}
	if d, err := time.Parse(time.RFC3339, s); err == nil {
		return d, nil
	}
	return time.Time{}, fmt.Errorf("start_date %q is not a date", s)
}

var timeOfDay = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$`)
})

// secondOfDay is "HH:MM:SS" with Z or an offset as a second of the UTC day.
func secondOfDay(s string) (int, error) {
	m := timeOfDay().FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("not a time of day: %q", s)
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	h, min, sec := num(m[1]), num(m[2]), num(m[3])
	if h > 23 || min > 59 || sec > 59 {
		return 0, fmt.Errorf("not a time of day: %q", s)
	}
	offset := 0
	if m[4] != "Z" {
		offset = (num(m[6])*60 + num(m[7])) * 60
		if m[5] == "-" {
			offset = -offset
		}
	}
	return ((h*3600+min*60+sec-offset)%86400 + 86400) % 86400, nil
}

func parseTiered(raw json.RawMessage) (tiered, error) {
	var flat float64
	if err := json.Unmarshal(raw, &flat); err == nil {
		if flat < 0 {
			return tiered{}, fmt.Errorf("negative price %v", flat)
		}
		return tiered{base: flat}, nil
	}
	var in struct {
		Base  *float64 `json:"base"`
		Tiers []struct {
			Start *int     `json:"start"`
			Price *float64 `json:"price"`
		} `json:"tiers"`
	}
	if err := json.Unmarshal(raw, &in); err != nil || in.Base == nil || *in.Base < 0 {
		return tiered{}, fmt.Errorf("want a price of 0 or more, or {base, tiers}: %s", raw)
	}
	t := tiered{base: *in.Base}
	for _, s := range in.Tiers {
		if s.Start == nil || *s.Start < 0 || s.Price == nil || *s.Price < 0 {
			return tiered{}, fmt.Errorf("want tiers of {start: 0 or more tokens, price: 0 or more}: %s", raw)
		}
		t.tiers = append(t.tiers, step{start: *s.Start, price: *s.Price})
	}
	slices.SortFunc(t.tiers, func(a, b step) int { return a.start - b.start })
	return t, nil
}

// priceAt is the model's price at a time: the last of its prices whose
// condition holds then, else its first, as the list's library picks.
func (m *model) priceAt(t time.Time) (Price, bool) {
	chosen := m.prices[0]
	for i := len(m.prices) - 1; i >= 0; i-- {
		if m.prices[i].holdsAt(t) {
			chosen = m.prices[i]
			break
		}
	}
	return chosen.price()
}

func (c conditional) holdsAt(t time.Time) bool {
	switch {
	case !c.since.IsZero():
		return !t.Before(c.since)
	case c.daily:
		u := t.UTC()
		s := u.Hour()*3600 + u.Minute()*60 + u.Second()
		if c.to < c.from {
			return s >= c.from || s < c.to
		}
		return s >= c.from && s < c.to
	}
	return true
}

// price is the Price of these rates; false when they have no price for
// input tokens (a model billed per image, per second, per request).
func (c conditional) price() (Price, bool) {
	in, ok := c.rates[keyInput]
	if !ok {
		return Price{}, false
	}
	out := c.rates[keyOutput]
	cached, ok := c.rates[keyCacheRead]
	if !ok {
		// No cache price: cached tokens are billed as input, as the list's
		// library counts them.
		cached = in
	}
	p := Price{Input: in.base, Output: out.base, CachedInput: cached.base}
	var starts []int
	for _, t := range []tiered{in, out, cached} {
		for _, s := range t.tiers {
			starts = append(starts, s.start)
		}
	}
	slices.Sort(starts)
	for _, start := range slices.Compact(starts) {
		// A call with start+1 input tokens is the first this tier prices.
		n := start + 1
		p.Tiers = append(p.Tiers, Tier{AboveInputTokens: start, Input: in.at(n), Output: out.at(n), CachedInput: cached.at(n)})
	}
	return p, true
}

// datedSuffix is a -YYYYMMDD date ending the id or followed by - or :.
var datedSuffix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`-20\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?:-|:|$)`)
})
