package server_test

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/prices"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// pricedMeter is metered with the app's prices: the list built in, with
// the overrides saved in the store.
func pricedMeter(cfg *server.Config) {
	m := &agent.UsageMeter{DB: cfg.DB, Cost: (&agent.Prices{DB: cfg.DB}).Cost}
	reg := cfg.Agent.Providers.Metered(m)
	cfg.Agent.Providers, cfg.Agent.Extractor.Providers = reg, reg
}

// extractionRoute makes a schema and prompt and returns the route and body
// of an extraction of the fixture's document with them.
func extractionRoute(t *testing.T, f *fixture) (string, map[string]any) {
	t.Helper()
	var prm storage.PromptRevision
	var sch storage.SchemaRevision
	f.call("POST", "/api/schemas", map[string]any{"name": "Invoice", "response_format": json.RawMessage(invoiceSchema)}, http.StatusCreated, &sch)
	f.call("POST", "/api/prompts", map[string]any{"name": "Invoice prompt", "content": "Extract it.", "schema_id": sch.SchemaID}, http.StatusCreated, &prm)
	return "/api/documents/" + f.doc.ID + "/extractions", map[string]any{"prompt_revid": prm.PromptRevID}
}

// TestPerMinuteLimit: with a limit of 2 model-calling requests a minute,
// the third within the minute is answered 429 rate_limited with
// Retry-After and a message that says the limit and where to raise it,
// and reaches no model; requests that call no model are not counted; a
// minute later requests go through again; the limit is removed with the
// others.
func TestPerMinuteLimit(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)}
	f := newFixture(t, metered, func(c *server.Config) { c.Now = clock.now })
	route, body := extractionRoute(t, f)

	var st storage.UsageStatus
	f.call("PUT", "/api/usage/limits", map[string]any{"per_minute": 2, "unit": "tokens"}, http.StatusOK, &st)
	if st.Limits.PerMinute != 2 || st.Limits.Any() {
		t.Fatalf("after PUT per_minute 2: %+v", st.Limits)
	}
	for range 2 {
		f.model.Enqueue(modeltest.Reply{Text: `{"invoice_number": "A-1", "total": 12.5}`})
		f.call("POST", route, body, http.StatusCreated, nil)
		// Requests that call no model are not counted.
		f.call("GET", "/api/documents", nil, http.StatusOK, nil)
		f.call("GET", "/api/search?q=invoice&by=words", nil, http.StatusOK, nil)
	}

	refused := func(wantRetry string) {
		t.Helper()
		res, err := f.ts.Client().Do(f.request(t.Context(), "POST", route, body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		var e struct{ Error, Code string }
		_ = json.Unmarshal(b, &e)
		if res.StatusCode != http.StatusTooManyRequests || e.Code != "rate_limited" {
			t.Fatalf("the third request in a minute: %d %s, want 429 rate_limited", res.StatusCode, b)
		}
		if got := res.Header.Get("Retry-After"); got != wantRetry {
			t.Errorf("Retry-After is %q, want %q", got, wantRetry)
		}
		for _, want := range []string{"2 model-calling requests a minute", "Settings → Usage", "docent usage limit --per-minute"} {
			if !strings.Contains(e.Error, want) {
				t.Errorf("the message %q does not say %q", e.Error, want)
			}
		}
	}
	refused("60")
	clock.add(45 * time.Second)
	refused("15")
	if n := len(f.model.Requests()); n != 2 {
		t.Errorf("%d requests reached the model, want the 2 under the limit", n)
	}
	// Through MCP, a tool that calls a model is a tool error; one that
	// calls none runs.
	cs, err := f.connectMCP(t, testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "search_docs", Arguments: map[string]any{"query": "invoice"}})
	if err != nil || !res.IsError || !strings.Contains(toolText(res), "docent usage limit --per-minute") {
		t.Errorf("search_docs over MCP at the limit: %v %s", err, toolText(res))
	}
	res, err = cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "list_documents", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Errorf("list_documents over MCP at the limit: %v %s", err, toolText(res))
	}

	clock.add(15 * time.Second)
	f.model.Enqueue(modeltest.Reply{Text: `{"invoice_number": "A-1", "total": 12.5}`})
	f.call("POST", route, body, http.StatusCreated, nil)

	f.wantError("PUT", "/api/usage/limits", map[string]any{"per_minute": -1, "unit": "tokens"}, http.StatusBadRequest, "invalid")
	st = storage.UsageStatus{}
	f.call("DELETE", "/api/usage/limits", nil, http.StatusOK, &st)
	if st.Limits.PerMinute != 0 {
		t.Errorf("after DELETE the per-minute limit is %d", st.Limits.PerMinute)
	}
	for range 3 {
		f.model.Enqueue(modeltest.Reply{Text: `{"invoice_number": "A-1", "total": 12.5}`})
		f.call("POST", route, body, http.StatusCreated, nil)
	}
}

// modelPrices is GET /api/usage/prices.
type modelPrices struct {
	ListSource string `json:"list_source"`
	ListDate   string `json:"list_date"`
	Models     []struct {
		Model  string   `json:"model"`
		Source string   `json:"source"`
		Input  *float64 `json:"input"`
		Output *float64 `json:"output"`
		Cached *float64 `json:"cached"`
	} `json:"models"`
}

func (p modelPrices) source(model string) string {
	for _, m := range p.Models {
		if m.Model == model {
			return m.Source
		}
	}
	return ""
}

// TestPriceOverrides: GET /api/usage/prices lists the ledger's models,
// the default model and the overrides, each with its price and where it
// comes from; PUT replaces the overrides, refuses a bad one naming the
// model and field (storing nothing), and the next model call is priced
// with them.
func TestPriceOverrides(t *testing.T) {
	f := newFixture(t, pricedMeter)
	for _, r := range []storage.UsageCall{
		{Edge: "cli", Provider: "openai", Model: "gpt-4o-mini", Kind: "chat", InputTokens: 10, OutputTokens: 1},
		{Edge: "cli", Provider: "openai", Model: "mystery-1", Kind: "chat", InputTokens: 10, OutputTokens: 1},
	} {
		if err := f.db.RecordUsage(t.Context(), 0, r); err != nil {
			t.Fatal(err)
		}
	}
	list, err := prices.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var got modelPrices
	f.call("GET", "/api/usage/prices", nil, http.StatusOK, &got)
	if got.ListSource != list.Source() || got.ListDate != list.Date() {
		t.Errorf("the list is %q of %q, want %q of %q", got.ListSource, got.ListDate, list.Source(), list.Date())
	}
	for model, want := range map[string]string{"openai/gpt-4o-mini": "list", "openai/mystery-1": "unknown", testModel: "local"} {
		if s := got.source(model); s != want {
			t.Errorf("%s: source %q, want %q (%+v)", model, s, want, got.Models)
		}
	}
	listed, _ := list.Lookup("openai", "gpt-4o-mini")
	for _, m := range got.Models {
		switch m.Model {
		case "openai/gpt-4o-mini":
			if m.Input == nil || *m.Input != listed.Input || m.Output == nil || *m.Output != listed.Output {
				t.Errorf("gpt-4o-mini's price is %+v, the list's %+v", m, listed)
			}
		case "openai/mystery-1":
			if m.Input != nil || m.Output != nil {
				t.Errorf("a model of unknown price has a figure: %+v", m)
			}
		}
	}
	saved := string(f.call("GET", "/api/usage/prices", nil, http.StatusOK, nil))

	for _, bad := range []struct {
		body any
		msg  []string
	}{
		{map[string]any{"overrides": map[string]any{"openai/x": map[string]any{"input": -1, "output": 1}}}, []string{"openai/x", "input"}},
		{map[string]any{"overrides": map[string]any{"openai/x": map[string]any{"input": 1, "output": 1, "cached": -0.5}}}, []string{"openai/x", "cached"}},
		{map[string]any{"overrides": map[string]any{"openai/x": map[string]any{"input": 1}}}, []string{"openai/x", "output"}},
		{map[string]any{"overrides": map[string]any{"gpt-4o": map[string]any{"input": 1, "output": 1}}}, []string{"gpt-4o", "provider/model"}},
		{map[string]any{"overrides": map[string]any{testModel: map[string]any{"input": 1, "output": 1}}}, []string{testModel, "costs 0"}},
		{map[string]any{"overrides": map[string]any{"openai/x": map[string]any{"input": 1, "output": 1, "extra": 2}}}, nil},
	} {
		msg := f.wantError("PUT", "/api/usage/prices", bad.body, http.StatusBadRequest, "invalid")
		for _, want := range bad.msg {
			if !strings.Contains(msg, want) {
				t.Errorf("PUT %v: the message %q does not name %q", bad.body, msg, want)
			}
		}
		if now := string(f.call("GET", "/api/usage/prices", nil, http.StatusOK, nil)); now != saved {
			t.Errorf("after the refused PUT %v the prices are\n%s\nwant\n%s", bad.body, now, saved)
		}
	}

	// An override of a model the list does not price: the next call of it
	// is priced with it, without a restart.
	f.model.SetModels(modeltest.DefaultModel, modeltest.Model{Name: "mystery-1", ContextLength: 40960, Capabilities: []string{"completion", "tools"}})
	route, body := extractionRoute(t, f)
	body["model"] = "openai/mystery-1"
	f.model.Enqueue(modeltest.Reply{Text: `{"invoice_number": "A-1", "total": 12.5}`, PromptTokens: 1000, CompletionTokens: 100})
	f.call("POST", route, body, http.StatusCreated, nil)
	f.call("PUT", "/api/usage/prices", map[string]any{"overrides": map[string]any{
		"openai/custom-2":  map[string]any{"input": 3, "output": 4},
		"openai/mystery-1": map[string]any{"input": 1, "output": 2, "cached": 0.5},
	}}, http.StatusOK, &got)
	for model, want := range map[string]string{"openai/custom-2": "override", "openai/mystery-1": "override", "openai/gpt-4o-mini": "list", testModel: "local"} {
		if s := got.source(model); s != want {
			t.Errorf("after PUT %s: source %q, want %q", model, s, want)
		}
	}
	for _, m := range got.Models {
		if m.Model == "openai/custom-2" && (m.Cached == nil || *m.Cached != 3) {
			t.Errorf("an override without a cached price: %+v, want the input price for cached tokens", m)
		}
	}
	f.model.Enqueue(modeltest.Reply{Text: `{"invoice_number": "A-1", "total": 12.5}`, PromptTokens: 1000, CompletionTokens: 100})
	f.call("POST", route, body, http.StatusCreated, nil)
	calls, err := f.db.UsageCalls(t.Context(), time.Time{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if c := calls[1]; c.Model != "mystery-1" || c.CostUSD != nil {
		t.Errorf("the call before the override is %+v, want of unknown price", c)
	}
	if c := calls[0]; c.Model != "mystery-1" || c.CostUSD == nil || *c.CostUSD != (1000*1.0+100*2.0)/1e6 {
		t.Errorf("the call after the override is %+v, want priced by it at $0.0012", c)
	}

	f.call("PUT", "/api/usage/prices", map[string]any{"overrides": map[string]any{}}, http.StatusOK, &got)
	if s := got.source("openai/mystery-1"); s != "unknown" {
		t.Errorf("after the overrides were removed mystery-1 is %q", s)
	}
}

// estimate is POST /api/auto-create/estimate's answer.
type estimate struct {
	Documents      int      `json:"documents"`
	Calls          int      `json:"calls"`
	InputTokens    int      `json:"input_tokens"`
	OutputTokens   int      `json:"output_tokens"`
	CostUSD        *float64 `json:"cost_usd"`
	Priced         bool     `json:"priced"`
	Model          string   `json:"model"`
	ConfirmOverUSD float64  `json:"confirm_over_usd"`
}

// TestAutoCreateEstimate: the estimate of a batch grows with its
// documents' text, is priced from the list (a local model at 0, a model
// of unknown price without a figure), carries the confirmation threshold
// of the limits, and refuses bad input.
func TestAutoCreateEstimate(t *testing.T) {
	f := newFixture(t)
	long, err := f.db.CreateDocument(t.Context(), storage.NewDocument{Name: "long.txt", MediaType: "text/plain", Data: []byte("long"),
		Pages: []string{strings.Repeat("Widgets 10.00, delivered on time. ", 400)}})
	if err != nil {
		t.Fatal(err)
	}
	var one, two, hosted, unknown estimate
	f.call("POST", "/api/auto-create/estimate", map[string]any{"document_ids": []string{f.doc.ID}}, http.StatusOK, &one)
	if one.Documents != 1 || one.Model != testModel || !one.Priced || one.CostUSD == nil || *one.CostUSD != 0 || one.ConfirmOverUSD != 1 {
		t.Errorf("one document on the local model: %+v, want 1 document at $0, priced, confirm over $1", one)
	}
	if one.Calls < 2 || one.InputTokens <= 0 || one.OutputTokens <= 0 {
		t.Errorf("one document: %+v, want calls and tokens", one)
	}
	f.call("POST", "/api/auto-create/estimate", map[string]any{"document_ids": []string{f.doc.ID, long.ID}}, http.StatusOK, &two)
	// The long document's text (about 3,500 tokens) is in each call's prompt.
	if two.Documents != 2 || two.Calls != 2*one.Calls || two.InputTokens < one.InputTokens*2+one.Calls*3000 {
		t.Errorf("two documents, one long: %+v; one short: %+v", two, one)
	}
	f.call("POST", "/api/auto-create/estimate", map[string]any{"document_ids": []string{long.ID}, "model": "openai/gpt-4o-mini"}, http.StatusOK, &hosted)
	list, _ := prices.Snapshot()
	want, _ := list.Cost("openai", "gpt-4o-mini", hosted.InputTokens, hosted.OutputTokens, 0)
	if !hosted.Priced || hosted.CostUSD == nil || math.Abs(*hosted.CostUSD-want) > want*1e-9 || want <= 0 || hosted.Model != "openai/gpt-4o-mini" {
		t.Errorf("on gpt-4o-mini: %+v, want priced at $%v", hosted, want)
	}
	b := f.call("POST", "/api/auto-create/estimate", map[string]any{"document_ids": []string{long.ID}, "model": "openai/mystery-1"}, http.StatusOK, &unknown)
	if unknown.Priced || unknown.CostUSD != nil || strings.Contains(string(b), "cost_usd") || unknown.InputTokens != hosted.InputTokens {
		t.Errorf("on a model of unknown price: %s", b)
	}

	f.call("PUT", "/api/usage/limits", map[string]any{"confirm_over_usd": 5, "unit": "usd"}, http.StatusOK, nil)
	f.call("POST", "/api/auto-create/estimate", map[string]any{"document_ids": []string{f.doc.ID}}, http.StatusOK, &one)
	if one.ConfirmOverUSD != 5 {
		t.Errorf("confirm_over_usd after PUT 5: %v", one.ConfirmOverUSD)
	}
	f.wantError("PUT", "/api/usage/limits", map[string]any{"confirm_over_usd": -1, "unit": "usd"}, http.StatusBadRequest, "invalid")

	f.wantError("POST", "/api/auto-create/estimate", map[string]any{"document_ids": []string{}}, http.StatusBadRequest, "invalid")
	f.wantError("POST", "/api/auto-create/estimate", map[string]any{"document_ids": []string{"doc_nope"}}, http.StatusNotFound, "not_found")
	f.wantError("POST", "/api/auto-create/estimate", map[string]any{"document_ids": []string{f.doc.ID}, "model": "nope"}, http.StatusBadRequest, "invalid")
}
