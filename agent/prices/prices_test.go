package prices

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func parse(t *testing.T, data string) (*List, string) {
	t.Helper()
	log, logged := warnings()
	l, err := Parse(strings.NewReader(data), log)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return l, logged.String()
}

// A malformed entry is skipped with a warning naming it; the rest of the
// list, before and after it, is read.
func TestMalformedEntryIsSkipped(t *testing.T) {
	l, logged := parse(t, `{"source": "test", "date": "2026-01-02", "providers": [
		42,
		{"id": "acme", "models": [
			{"id": "cheap-text", "match": {"equals": "cheap"}, "prices": {"input_mtok": "cheap"}},
			{"id": "bad-match", "match": {"resembles": "x"}, "prices": {"input_mtok": 1}},
			{"id": "bad-tier", "match": {"equals": "tiered"}, "prices": {"input_mtok": {"base": 1, "tiers": [{"price": 2}]}}},
			{"id": "bad-constraint", "match": {"equals": "dated"}, "prices": [{"constraint": {"type": "full_moon"}, "prices": {"input_mtok": 1}}]},
			{"id": "negative", "match": {"equals": "negative"}, "prices": {"input_mtok": -1}},
			{"id": "good", "match": {"equals": "good"}, "prices": {"input_mtok": 1, "output_mtok": 2}}
		]}
	]}`)
	if p, ok := l.Lookup("acme", "good"); !ok || p.Input != 1 || p.Output != 2 || p.CachedInput != 1 || p.Date != "2026-01-02" {
		t.Errorf("good = %+v, %v; want input 1, output 2, cached 1 (as input), dated 2026-01-02", p, ok)
	}
	for _, model := range []string{"cheap", "x", "tiered", "dated", "negative"} {
		if p, ok := l.Lookup("acme", model); ok {
			t.Errorf("%s = %+v from a malformed entry, want unknown", model, p)
		}
	}
	for _, want := range []string{"provider skipped", "cheap-text", "bad-match", "bad-tier", "bad-constraint", "negative"} {
		if !strings.Contains(logged, want) {
			t.Errorf("the warnings do not mention %q:\n%s", want, logged)
		}
	}
	if strings.Contains(logged, "id=good") {
		t.Errorf("the good entry was warned about:\n%s", logged)
	}
}

func TestNotAPriceListIsAnError(t *testing.T) {
	for name, data := range map[string]string{
		"not JSON":      `<html>`,
		"no date":       `{"source": "test", "providers": [{"id": "acme", "models": []}]}`,
		"no source":     `{"date": "2026-01-02", "providers": [{"id": "acme", "models": []}]}`,
		"no provider":   `{"source": "test", "date": "2026-01-02", "providers": []}`,
		"all malformed": `{"source": "test", "date": "2026-01-02", "providers": [1, "two"]}`,
	} {
		log, _ := warnings()
		if l, err := Parse(strings.NewReader(data), log); !errors.Is(err, ErrNoPrices) {
			t.Errorf("%s: got %v, %v; want ErrNoPrices", name, l, err)
		}
	}
}

// An override from Settings wins over the list, and over Ollama's 0; a
// bad one is refused and changes nothing.
func TestOverridesWin(t *testing.T) {
	l, _ := parse(t, `{"source": "test", "date": "2026-01-02", "providers": [
		{"id": "openai", "models": [{"id": "gpt-x", "match": {"equals": "gpt-x"}, "prices": {"input_mtok": 1, "output_mtok": 2}}]}
	]}`)
	mine := Price{Input: 0.5, Output: 1.5, CachedInput: 0.25, Date: "2026-02-03"}
	gpu := Price{Input: 0.01, Output: 0.02, CachedInput: 0.01}
	o, err := l.WithOverrides(map[string]Price{"openai/gpt-x": mine, "ollama/qwen3:8b": gpu})
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := o.Lookup("openai", "gpt-x"); !ok || p.Input != mine.Input || p.Date != mine.Date {
		t.Errorf("overridden gpt-x = %+v, %v; want %+v", p, ok, mine)
	}
	if usd, ok := o.Cost("ollama", "qwen3:8b", 1_000_000, 1_000_000, 0); !ok || usd != 0.03 {
		t.Errorf("overridden ollama/qwen3:8b costs %v, %v; want 0.03", usd, ok)
	}
	if p, _ := l.Lookup("openai", "gpt-x"); p.Input != 1 {
		t.Errorf("the list itself changed: gpt-x = %+v", p)
	}
	if _, err := o.WithOverrides(map[string]Price{"openai/gpt-x": {Input: -1}}); err == nil || !strings.Contains(err.Error(), "openai/gpt-x") {
		t.Errorf("a negative override: err = %v, want one naming the model", err)
	}
	if _, err := o.WithOverrides(map[string]Price{"openai/gpt-x": {Tiers: []Tier{{AboveInputTokens: 9}, {AboveInputTokens: 5}}}}); err == nil {
		t.Error("tiers out of order were accepted")
	}
	if p, _ := o.Lookup("openai", "gpt-x"); p.Input != mine.Input {
		t.Errorf("a refused override changed the list: gpt-x = %+v", p)
	}
}

// Input tokens include the cached ones, which have their own rate.
func TestCostSplitsCachedInput(t *testing.T) {
	l, _ := parse(t, `{"source": "test", "date": "2026-01-02", "providers": [
		{"id": "openai", "models": [{"id": "gpt-x", "match": {"equals": "gpt-x"}, "prices": {"input_mtok": 2, "cache_read_mtok": 1, "output_mtok": 10}}]}
	]}`)
	if usd, ok := l.Cost("openai", "gpt-x", 1000, 100, 400); !ok || usd != (600*2+400*1+100*10)/1e6 {
		t.Errorf("cost = %v, %v; want %v", usd, ok, (600*2+400*1+100*10)/1e6)
	}
	for _, c := range [][3]int{{-1, 0, 0}, {0, -1, 0}, {10, 0, -1}, {10, 0, 11}} {
		if usd, ok := l.Cost("openai", "gpt-x", c[0], c[1], c[2]); ok {
			t.Errorf("impossible counts %v cost %v, want unknown", c, usd)
		}
	}
}

// A model's prices may change on a date, or by the time of day; the one in
// effect at the call is used.
func TestConditionalPricesByDateAndTimeOfDay(t *testing.T) {
	l, _ := parse(t, `{"source": "test", "date": "2026-01-02", "providers": [
		{"id": "deep", "model_match": {"starts_with": "deep-"}, "models": [
			{"id": "deep-dated", "match": {"equals": "deep-dated"}, "prices": [
				{"prices": {"input_mtok": 1}},
				{"constraint": {"type": "start_date", "start_date": "2026-03-01"}, "prices": {"input_mtok": 2}}
			]},
			{"id": "deep-peak", "match": {"equals": "deep-peak"}, "prices": [
				{"prices": {"input_mtok": 0.5}},
				{"constraint": {"type": "time_of_date", "start_time": "16:30:00Z", "end_time": "00:30:00Z"}, "prices": {"input_mtok": 1}}
			]}
		]}
	]}`)
	at := func(when string, model string) float64 {
		t.Helper()
		now, err := time.Parse(time.RFC3339, when)
		if err != nil {
			t.Fatal(err)
		}
		l.now = func() time.Time { return now }
		p, ok := l.Lookup("openai", model)
		if !ok {
			t.Fatalf("%s at %s: no price", model, when)
		}
		return p.Input
	}
	for _, c := range []struct {
		when, model string
		want        float64
	}{
		{"2026-02-28T23:59:59Z", "deep-dated", 1},
		{"2026-03-01T00:00:00Z", "deep-dated", 2},
		{"2026-03-01T16:29:59Z", "deep-peak", 0.5},
		{"2026-03-01T16:30:00Z", "deep-peak", 1},
		{"2026-03-01T00:29:59Z", "deep-peak", 1},
		{"2026-03-01T00:30:00Z", "deep-peak", 0.5},
	} {
		if got := at(c.when, c.model); got != c.want {
			t.Errorf("%s at %s: input %v, want %v", c.model, c.when, got, c.want)
		}
	}
}

// A price with no input-token rate (a model billed per image) is unknown,
// not 0.
func TestModelWithoutTokenPriceIsUnknown(t *testing.T) {
	l, _ := parse(t, `{"source": "test", "date": "2026-01-02", "providers": [
		{"id": "openai", "models": [{"id": "img", "match": {"equals": "img"}, "prices": {"output_image_mtok": 30}}]}
	]}`)
	if p, ok := l.Lookup("openai", "img"); ok {
		t.Errorf("img = %+v, want unknown", p)
	}
}
