package prices

import (
	"bytes"
	"encoding/json"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/storage/envvar"
)

var update = flag.Bool("update", false, "rewrite genai-prices.json from the installed pinned price list")

// pinnedData is the pinned price list scripts/test installs
// ($DOCENT_CACHE_DIR/genai-prices/VERSION/data.json). The test skips
// without it, and fails in CI (CI=true), which must check the real list.
func pinnedData(t *testing.T) []byte {
	t.Helper()
	dir := envvar.Get(envvar.CacheDir)
	if dir == "" {
		user, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(user, "docent")
	}
	path := filepath.Join(dir, "genai-prices", PinnedVersion, "data.json")
	data, err := os.ReadFile(path)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the pinned price list is required in CI: %v", err)
		}
		t.Skipf("skipping: no pinned price list (%v); scripts/test installs it (ensure_prices in scripts/lib.sh)", err)
	}
	return data
}

// warnings is a logger and what it logged at warning level or above.
func warnings() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn})), &buf
}

func pinnedList(t *testing.T) *List {
	t.Helper()
	log, logged := warnings()
	l, err := Parse(bytes.NewReader(pinnedData(t)), log)
	if err != nil {
		t.Fatalf("parse the pinned list: %v", err)
	}
	if logged.Len() > 0 {
		t.Errorf("the pinned list has entries Docent cannot read:\n%s", logged)
	}
	return l
}

// The embedded snapshot is exactly the pinned list as Docent reads it, so
// the binary's prices are the list's. After moving to another version:
// go test ./agent/prices -run TestSnapshotIsThePinnedList -update
func TestSnapshotIsThePinnedList(t *testing.T) {
	l := pinnedList(t)
	if want := "@pydantic/genai-prices@" + PinnedVersion; l.Source() != want {
		t.Fatalf("the installed list is from %q, want %q", l.Source(), want)
	}
	got, err := json.MarshalIndent(l, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile("genai-prices.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, snapshot) {
		t.Fatalf("genai-prices.json is not the pinned list %s (%d bytes, want %d): rerun with -update", l.Source(), len(snapshot), len(got))
	}
	s, err := Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if s.Source() != l.Source() || s.Date() != l.Date() {
		t.Fatalf("the snapshot is %s of %s, the pinned list %s of %s", s.Source(), s.Date(), l.Source(), l.Date())
	}
}

// rawPrices is a model's prices object as the pinned data writes it.
func rawPrices(t *testing.T, data []byte, providerID, modelID string) map[string]any {
	t.Helper()
	var file struct {
		Providers []struct {
			ID     string `json:"id"`
			Models []struct {
				ID     string `json:"id"`
				Prices any    `json:"prices"`
			} `json:"models"`
		} `json:"providers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	for _, p := range file.Providers {
		for _, m := range p.Models {
			if p.ID == providerID && m.ID == modelID {
				flat, ok := m.Prices.(map[string]any)
				if !ok {
					t.Fatalf("%s/%s has conditional prices; pick a model with one price", providerID, modelID)
				}
				return flat
			}
		}
	}
	t.Fatalf("the pinned list has no %s/%s", providerID, modelID)
	return nil
}

func number(t *testing.T, prices map[string]any, key string) float64 {
	t.Helper()
	v, ok := prices[key].(float64)
	if !ok {
		t.Fatalf("%s is %v, not a flat price", key, prices[key])
	}
	return v
}

// Well-known models, as Docent names them, have the prices the list says.
func TestWellKnownModelsHaveTheListsPrices(t *testing.T) {
	data := pinnedData(t)
	l := pinnedList(t)
	cases := []struct {
		provider, model         string // as Docent names them
		listProvider, listModel string // the entry in the list
	}{
		{"openai", "gpt-4o-mini", "openai", "gpt-4o-mini"},
		{"openai", "gpt-4.1", "openai", "gpt-4.1"},
		// A dated id the list writes with dashes.
		{"openai", "gpt-4.1-20250414", "openai", "gpt-4.1"},
		// Anthropic's and Google's OpenAI-compatible APIs, and a router's prefix.
		{"openai", "claude-haiku-4-5", "anthropic", "claude-haiku-4-5"},
		{"openai", "anthropic/claude-haiku-4.5", "anthropic", "claude-haiku-4-5"},
		{"openai", "gemini-2.5-flash", "google", "gemini-2.5-flash"},
		// Mistral's pattern has a lookahead RE2 lacks.
		{"openai", "codestral-latest", "mistral", "codestral"},
		// The list's gemini-2.5-pro excludes -tts ids by a lookahead.
		{"openai", "gemini-2.5-pro-preview-tts", "google", "gemini-2.5-pro-tts"},
	}
	for _, c := range cases {
		raw := rawPrices(t, data, c.listProvider, c.listModel)
		want := Price{Input: number(t, raw, keyInput), Output: number(t, raw, keyOutput), Date: l.Date()}
		want.CachedInput = want.Input
		if _, ok := raw[keyCacheRead]; ok {
			want.CachedInput = number(t, raw, keyCacheRead)
		}
		got, ok := l.Lookup(c.provider, c.model)
		if !ok {
			t.Errorf("%s/%s: no price, want %s/%s's %+v", c.provider, c.model, c.listProvider, c.listModel, want)
			continue
		}
		if got.Input != want.Input || got.Output != want.Output || got.CachedInput != want.CachedInput || got.Date != want.Date || len(got.Tiers) != 0 {
			t.Errorf("%s/%s = %+v, want %s/%s's %+v", c.provider, c.model, got, c.listProvider, c.listModel, want)
		}
	}
}

// A model priced by context length gets the tier of the call's input
// tokens, for every rate, as the list's library computes it.
func TestTieredPricesFollowTheInputTokens(t *testing.T) {
	data := pinnedData(t)
	l := pinnedList(t)
	raw := rawPrices(t, data, "google", "gemini-2.5-pro")
	rate := func(key string) (base float64, start int, above float64) {
		tiered, ok := raw[key].(map[string]any)
		if !ok {
			t.Fatalf("gemini-2.5-pro's %s is not tiered: %v", key, raw[key])
		}
		tier := tiered["tiers"].([]any)[0].(map[string]any)
		return tiered["base"].(float64), int(tier["start"].(float64)), tier["price"].(float64)
	}
	in, start, inAbove := rate(keyInput)
	out, _, outAbove := rate(keyOutput)
	cached, _, cachedAbove := rate(keyCacheRead)

	got, ok := l.Cost("openai", "gemini-2.5-pro", start, 1000, 1000)
	if want := (float64(start-1000)*in + 1000*cached + 1000*out) / 1e6; !ok || got != want {
		t.Errorf("cost at %d input tokens = %v, %v; want the base rates' %v", start, got, ok, want)
	}
	got, ok = l.Cost("openai", "gemini-2.5-pro", start+1, 1000, 1000)
	if want := (float64(start+1-1000)*inAbove + 1000*cachedAbove + 1000*outAbove) / 1e6; !ok || got != want {
		t.Errorf("cost at %d input tokens = %v, %v; want the tier's %v", start+1, got, ok, want)
	}
}

func TestOllamaCostsNothing(t *testing.T) {
	l, err := Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := l.Lookup("ollama", "qwen3:8b"); !ok || p.Input != 0 || p.Output != 0 || p.CachedInput != 0 || len(p.Tiers) != 0 {
		t.Errorf("ollama/qwen3:8b = %+v, %v; want a known price of 0", p, ok)
	}
	// Even a local model named like a hosted one.
	if usd, ok := l.Cost("ollama", "gpt-oss:20b", 1000, 100, 0); !ok || usd != 0 {
		t.Errorf("ollama/gpt-oss:20b costs %v, %v; want 0, true", usd, ok)
	}
}

func TestUnknownModelHasNoPrice(t *testing.T) {
	l, err := Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// A fine-tune nobody lists, and a model served by a local vLLM.
	for _, model := range []string{"my-invoice-model-v3", "Qwen/Qwen3-8B-AWQ"} {
		if p, ok := l.Lookup("openai", model); ok {
			t.Errorf("openai/%s = %+v, want unknown", model, p)
		}
		if usd, ok := l.Cost("openai", model, 1000, 100, 0); ok || usd != 0 {
			t.Errorf("openai/%s costs %v, %v; want unknown", model, usd, ok)
		}
	}
	if p, ok := l.Lookup("openai", strings.Repeat("x", 10)); ok {
		t.Errorf("xxxxxxxxxx = %+v, want unknown", p)
	}
}

// A model only a host without its own naming sells (Together's
// "Gryphe/MythoMax-L2-13b") is not priced at that host's rate when served
// by an OpenAI-compatible server, which may be a local vLLM: only a
// provider named, by Docent or by the model's prefix, prices it.
func TestHostedOnlyModelIsUnknownUnlessItsHostIsNamed(t *testing.T) {
	data := pinnedData(t)
	l := pinnedList(t)
	const model = "Gryphe/MythoMax-L2-13b"
	raw := rawPrices(t, data, "together", model)
	if p, ok := l.Lookup("openai", model); ok {
		t.Errorf("openai/%s = %+v, want unknown", model, p)
	}
	if p, ok := l.Lookup("together", model); !ok || p.Input != number(t, raw, keyInput) {
		t.Errorf("together/%s = %+v, %v; want the list's input %v", model, p, ok, raw[keyInput])
	}
}
