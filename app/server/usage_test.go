package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/cli"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage"
)

// metered makes every model call of the fixture's agent go through the
// app's usage meter: a row of the ledger, held to the limits.
func metered(cfg *server.Config) {
	m := &agent.UsageMeter{DB: cfg.DB}
	reg := cfg.Agent.Providers.Metered(m)
	cfg.Agent.Providers, cfg.Agent.Extractor.Providers = reg, reg
}

// usageCLI is `docent usage --json` and its arguments over the fixture's
// data directory, as the CLI prints it.
func usageCLI(t *testing.T, f *fixture, args ...string) []byte {
	t.Helper()
	var out, errOut bytes.Buffer
	argv := append([]string{"--data-dir", filepath.Dir(f.path), "usage", "--json"}, args...)
	if code := cli.Run(context.Background(), argv, &cli.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != 0 {
		t.Fatalf("docent %s: exit %d: %s", strings.Join(argv, " "), code, errOut.String())
	}
	return out.Bytes()
}

// TestUsageRoutes: a real extraction through the metered agent and calls
// of other models, edges and runs are the ledger; GET /api/usage is
// `docent usage --json` for every grouping, names its runs, and refuses a
// bad date or grouping.
func TestUsageRoutes(t *testing.T) {
	f := newFixture(t, metered)
	ctx := context.Background()

	var prm storage.PromptRevision
	var sch storage.SchemaRevision
	f.call("POST", "/api/schemas", map[string]any{"name": "Invoice", "response_format": json.RawMessage(invoiceSchema)}, http.StatusCreated, &sch)
	f.call("POST", "/api/prompts", map[string]any{"name": "Invoice prompt", "content": "Extract it.", "schema_id": sch.SchemaID}, http.StatusCreated, &prm)
	f.model.Enqueue(modeltest.Reply{Text: `{"invoice_number": "A-1", "total": 12.5}`, PromptTokens: 1000, CompletionTokens: 100})
	f.call("POST", "/api/documents/"+f.doc.ID+"/extractions", map[string]any{"prompt_revid": prm.PromptRevID}, http.StatusCreated, nil)

	// A hosted model with a price, one without, and an auto-create run
	// that changed the document.
	cost := 0.25
	rows := []storage.UsageCall{
		{Edge: "cli", Provider: "openai", Model: "gpt-4o-mini", Kind: "chat", InputTokens: 2000, OutputTokens: 300, CostUSD: &cost},
		{Edge: "mcp", Provider: "openai", Model: "mystery-1", Kind: "chat", InputTokens: 500, OutputTokens: 50},
		{Edge: "auto_create", RunID: "thr_RUN0000000001", Provider: "ollama", Model: "qwen3:8b", Kind: "chat", InputTokens: 700, OutputTokens: 70, CostUSD: new(float64)},
	}
	for _, r := range rows {
		if err := f.db.RecordUsage(ctx, 0, r); err != nil {
			t.Fatal(err)
		}
	}
	runCtx := storage.WithActor(ctx, storage.Actor{Edge: storage.EdgeAutoCreate, Name: "auto-create", RunID: "thr_RUN0000000001"})
	if _, err := f.db.UpdateDocument(runCtx, f.doc.ID, storage.DocumentPatch{Name: ptr("acme invoice.txt")}); err != nil {
		t.Fatal(err)
	}

	var sum struct {
		storage.UsageSummary
		Status   storage.UsageStatus `json:"status"`
		RunNames map[string]string   `json:"run_names"`
	}
	f.call("GET", "/api/usage?by=model", nil, http.StatusOK, &sum)
	if sum.Total.Calls != 4 || sum.Total.InputTokens != 4200 || sum.Total.OutputTokens != 520 || sum.Total.CostUSD != 0.25 || sum.Total.UnpricedCalls != 1 {
		t.Errorf("the total is %+v: want 4 calls (the extraction's 1,000+100 tokens among them), 4,200 in, 520 out, $0.25 and one call of unknown price", sum.Total)
	}
	models := map[string]storage.UsageTotals{}
	for _, g := range sum.Groups {
		models[g.Model] = g.UsageTotals
	}
	if m := models["ollama/qwen3:8b"]; m.Calls != 2 || m.CostUSD != 0 || m.UnpricedCalls != 0 {
		t.Errorf("the local model's calls are %+v: want 2, at 0 cost and every price known", m)
	}
	if m := models["openai/mystery-1"]; m.UnpricedCalls != 1 || m.CostUSD != 0 {
		t.Errorf("the model without a price is %+v: want its one call of unknown price", m)
	}

	for _, by := range []string{"day", "model", "edge", "run"} {
		_, b := f.do("GET", "/api/usage?by="+by, nil)
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		names := got["run_names"]
		delete(got, "run_names")
		var want map[string]any
		if err := json.Unmarshal(usageCLI(t, f, "--by", by), &want); err != nil {
			t.Fatal(err)
		}
		if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
			t.Errorf("GET /api/usage?by=%s is\n%s\nbut docent usage --json --by %s is\n%s", by, g, by, w)
		}
		if by == "run" {
			if n := mustJSON(t, names); n != `{"thr_RUN0000000001":"auto-create: acme invoice.txt"}` {
				t.Errorf("the run names are %s", n)
			}
		} else if names != nil {
			t.Errorf("by=%s names runs: %v", by, names)
		}
	}
	// The chart's grouping, each day's models, which the CLI does not offer.
	f.call("GET", "/api/usage?by=day_model", nil, http.StatusOK, &sum)
	if len(sum.Groups) != 3 || sum.Groups[0].Day == "" || sum.Groups[0].Model == "" || sum.Total.Calls != 4 {
		t.Errorf("by day_model: %+v", sum.UsageSummary)
	}
	f.call("GET", "/api/usage?since=2999-01-01", nil, http.StatusOK, &sum)
	if sum.Total.Calls != 0 || sum.Since != "2999-01-01" {
		t.Errorf("since a future day: %+v", sum.UsageSummary)
	}
	f.wantError("GET", "/api/usage?since=yesterday", nil, http.StatusBadRequest, "invalid")
	f.wantError("GET", "/api/usage?by=week", nil, http.StatusBadRequest, "invalid")
}

// TestUsageLimitRoutes: the limits are set, refused as `docent usage
// limit` refuses them (changing nothing), removed, and hold the next
// model call, which is answered 429 spending_limit.
func TestUsageLimitRoutes(t *testing.T) {
	f := newFixture(t, metered)
	var st storage.UsageStatus
	f.call("GET", "/api/usage/limits", nil, http.StatusOK, &st)
	if st.Limits.Any() {
		t.Fatalf("limits before any were set: %+v", st.Limits)
	}
	f.call("PUT", "/api/usage/limits", map[string]any{"daily": 6600, "unit": "tokens", "all_models": true}, http.StatusOK, &st)
	if st.Limits.Daily == nil || *st.Limits.Daily != 6600 || st.Limits.Monthly != nil || !st.Limits.AllModels || st.Limits.Unit != "tokens" {
		t.Errorf("after PUT: %+v", st.Limits)
	}
	saved := mustJSON(t, st.Limits)
	for _, bad := range []struct {
		body  any
		field string
		msg   string
	}{
		{map[string]any{"daily": 5, "unit": "euros"}, "unit", `unit "euros": want tokens or usd`},
		{map[string]any{"daily": -1, "unit": "usd"}, "daily", "want a number of at least 0"},
		{map[string]any{"monthly": 10.5, "unit": "tokens"}, "monthly", "tokens are whole numbers"},
		{map[string]any{"unit": "usd"}, "daily", "give daily or monthly"},
		{map[string]any{"daily": "ten", "unit": "usd"}, "", ""},
		{map[string]any{"daily": 1, "unit": "usd", "weekly": 3}, "", ""},
	} {
		status, b := f.do("PUT", "/api/usage/limits", bad.body)
		var e struct{ Error, Code, Field string }
		_ = json.Unmarshal(b, &e)
		if status != http.StatusBadRequest || e.Code != "invalid" || e.Field != bad.field || !strings.Contains(e.Error, bad.msg) {
			t.Errorf("PUT %v: %d %s, want 400 invalid on %q saying %q", bad.body, status, b, bad.field, bad.msg)
		}
		st = storage.UsageStatus{}
		f.call("GET", "/api/usage/limits", nil, http.StatusOK, &st)
		if got := mustJSON(t, st.Limits); got != saved {
			t.Errorf("after the refused PUT %v the limits are %s, want %s", bad.body, got, saved)
		}
	}

	// A limit of 0 tokens lets no call go out: the extraction is refused
	// with the limit's message, and no call reaches the model.
	f.call("PUT", "/api/usage/limits", map[string]any{"daily": 0, "unit": "tokens", "all_models": true}, http.StatusOK, nil)
	var prm storage.PromptRevision
	var sch storage.SchemaRevision
	f.call("POST", "/api/schemas", map[string]any{"name": "Invoice", "response_format": json.RawMessage(invoiceSchema)}, http.StatusCreated, &sch)
	f.call("POST", "/api/prompts", map[string]any{"name": "Invoice prompt", "content": "Extract it.", "schema_id": sch.SchemaID}, http.StatusCreated, &prm)
	msg := f.wantError("POST", "/api/documents/"+f.doc.ID+"/extractions", map[string]any{"prompt_revid": prm.PromptRevID}, http.StatusTooManyRequests, "spending_limit")
	if !strings.Contains(msg, "docent usage limit") {
		t.Errorf("the limit's message does not say where to raise it: %q", msg)
	}
	if n := len(f.model.Requests()); n != 0 {
		t.Errorf("%d calls reached the model over a limit of 0", n)
	}

	st = storage.UsageStatus{}
	f.call("DELETE", "/api/usage/limits", nil, http.StatusOK, &st)
	if st.Limits.Any() || st.Reached != "" {
		t.Errorf("after DELETE: %+v", st)
	}
	f.model.Enqueue(modeltest.Reply{Text: `{"invoice_number": "A-1", "total": 12.5}`})
	f.call("POST", "/api/documents/"+f.doc.ID+"/extractions", map[string]any{"prompt_revid": prm.PromptRevID}, http.StatusCreated, nil)
}

func ptr[T any](v T) *T { return &v }

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
