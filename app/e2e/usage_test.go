package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/artifacts"
	"github.com/docent/docent/app/internal/testcorpus"
)

// usageTotals are a group's sums as GET /api/usage answers them.
type usageTotals struct {
	Calls         int64   `json:"calls"`
	InputTokens   int64   `json:"input_tokens"`
	OutputTokens  int64   `json:"output_tokens"`
	CostUSD       float64 `json:"cost_usd"`
	UnpricedCalls int64   `json:"unpriced_calls"`
}

// TestBrowserUsage extracts a corpus invoice three times with the scripted
// model reporting known token counts: twice with a local model (1,000 in,
// 100 out; it costs 0) and once with a hosted one whose price is unknown
// (2,000 in, 200 out). The Usage page, reached from the navigation and
// from Settings, draws a bar a model in the tokens chart and a mark for
// the unpriced call in the cost chart; the figures it shows are the
// ledger's sums, the hosted model's cost reads "price unknown", and the
// page shows no raw ids. A limit set through its form is stored
// (GET /api/usage/limits), and one it refuses changes nothing. Axe finds
// nothing in light and dark.
func TestBrowserUsage(t *testing.T) {
	model := modeltest.New(t)
	srv := startServe(t, t.TempDir(), "OLLAMA_HOST="+model.OllamaURL(), "OPENAI_BASE_URL="+model.OpenAIURL(), "OPENAI_API_KEY=test-key",
		"DOCENT_MODEL=ollama/qwen3:8b", "DOCENT_EMBED_MODEL=")
	ctx := newBrowser(t)
	shots := &shooter{t: t, dir: artifacts.Dir(t)}

	var schema struct {
		SchemaID string `json:"schema_id"`
	}
	apiSend(t, srv, http.MethodPost, "/api/schemas", map[string]any{"name": "Invoice", "response_format": json.RawMessage(askSchema)}, &schema)
	var prompt struct {
		PromptRevID string `json:"prompt_revid"`
	}
	apiSend(t, srv, http.MethodPost, "/api/prompts", map[string]any{
		"name": "Invoice prompt", "content": "Extract the invoice number and the total.", "schema_id": schema.SchemaID,
	}, &prompt)
	docID := apiUpload(t, srv, filepath.Join(testcorpus.Dir(t), "invoice2data", "AmazonWebServices.pdf"))

	calls := []struct {
		model   string
		in, out int
	}{{"ollama/qwen3:8b", 1000, 100}, {"ollama/qwen3:8b", 1000, 100}, {"openai/qwen3:8b", 2000, 200}}
	wantTokens := int64(0)
	for _, c := range calls {
		model.Enqueue(modeltest.Reply{Text: `{"invoice_number":"42183017","total":4.11}`, PromptTokens: c.in, CompletionTokens: c.out})
		apiSend(t, srv, http.MethodPost, "/api/documents/"+docID+"/extractions", map[string]any{"prompt_revid": prompt.PromptRevID, "model": c.model}, nil)
		wantTokens += int64(c.in + c.out)
	}
	if n := len(model.Requests()); n != len(calls) {
		t.Fatalf("the extractions made %d model calls, want %d", n, len(calls))
	}
	ledger := apiGet[struct {
		Groups []struct {
			Model string `json:"model"`
			usageTotals
		} `json:"groups"`
		Total usageTotals `json:"total"`
	}](t, srv, "/api/usage?by=model")
	if tot := ledger.Total; tot.Calls != 3 || tot.InputTokens+tot.OutputTokens != wantTokens || tot.CostUSD != 0 || tot.UnpricedCalls != 1 {
		t.Fatalf("the ledger's total is %+v: want 3 calls, %d tokens, $0 and one call of unknown price", tot, wantTokens)
	}

	// The Usage page, from the navigation.
	do(t, ctx, srv, "open the printed URL", chromedp.Navigate(srv.URL), chromedp.WaitVisible(tid("nav-usage")))
	do(t, ctx, srv, "open Usage", chromedp.Click(tid("nav-usage")), chromedp.WaitVisible(tid("usage-chart-tokens")))
	tokenBars := `[data-testid="usage-chart-tokens"] [data-testid="usage-bar"]`
	waitCount(t, ctx, srv, "a token bar for each model of the day", tokenBars, 2)
	type bar struct{ Model, Value string }
	bars := get(t, ctx, srv, "read the token bars", chromedp.Evaluate[[]bar](fmt.Sprintf(
		`[...document.querySelectorAll(%q)].map(b => ({Model: b.dataset.model, Value: b.dataset.value}))`, tokenBars)))
	got := map[string]string{}
	for _, b := range bars {
		got[b.Model] = b.Value
	}
	if got["ollama/qwen3:8b"] != "2200" || got["openai/qwen3:8b"] != "2200" {
		t.Errorf("the token bars are %v: want 2,200 tokens for each model", bars)
	}
	chartTotal := get(t, ctx, srv, "read the tokens chart's total", chromedp.Evaluate[string](`document.querySelector('[data-testid="usage-chart-tokens"]').dataset.total`))
	if chartTotal != fmt.Sprint(wantTokens) {
		t.Errorf("the tokens chart sums %s tokens, the ledger %d", chartTotal, wantTokens)
	}
	// The local model's calls cost 0 (no bar); the hosted one's price is unknown (a mark, no figure).
	waitCount(t, ctx, srv, "no cost bar", `[data-testid="usage-chart-cost"] [data-testid="usage-bar"]`, 0)
	waitCount(t, ctx, srv, "the unpriced call's mark", `[data-testid="usage-chart-cost"] [data-testid="usage-bar-unpriced"][data-model="openai/qwen3:8b"]`, 1)
	waitText(t, ctx, srv, "the total", tid("usage-total"), "3 calls, 4,400 tokens, $0.00 + 1 call of unknown price")
	waitText(t, ctx, srv, "the chart's summary", tid("usage-chart-summary-cost"), "1 call of unknown price is not in it")
	byModel := get(t, ctx, srv, "read the table by model", chromedp.Evaluate[[][]string](
		`[...document.querySelectorAll('[data-testid="usage-by-model-row"]')].map(r => [...r.children].map(c => c.textContent.trim()))`))
	wantRows := [][]string{{"qwen3:8b (local)", "2", "2,000", "200", "0", "$0.00"}, {"openai/qwen3:8b", "1", "2,000", "200", "0", "price unknown"}}
	if mustJSON(t, byModel) != mustJSON(t, wantRows) {
		t.Errorf("the table by model reads %q, want %q", byModel, wantRows)
	}
	waitText(t, ctx, srv, "the table by edge", tid("usage-by-edge"), "You, in Docent")
	noRawIDs(t, ctx, srv, "the Usage page")
	auditPage(t, ctx, srv, shots, "usage", func(t *testing.T) {
		do(t, ctx, srv, "the charts", chromedp.WaitVisible(tid("usage-chart-cost")), chromedp.WaitVisible(tid("usage-limits")))
	})

	// On a phone the page fits the window: the charts stack, nothing scrolls sideways but inside a table's box.
	do(t, ctx, srv, "a phone's window (390×844)", chromedp.EmulateViewport(390, 844, chromedp.EmulatePortrait, chromedp.EmulateMobile))
	waitFor(t, ctx, srv, "the page fits the phone's width", chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, innerWidth, document.querySelector('[data-testid="usage-chart-tokens"] svg').getBoundingClientRect().right]`),
		func(got []int) bool { return len(got) == 3 && got[0] <= got[1] && got[2] <= got[1] },
		func(got []int) string {
			return fmt.Sprintf("page width, window width, the chart's right edge: %v", got)
		})
	shots.shot(ctx, "usage-phone")
	do(t, ctx, srv, "back to the desktop window", clearViewport())

	// Settings leads there too.
	do(t, ctx, srv, "open Settings", chromedp.Click(tid("nav-settings")), chromedp.WaitVisible(tid("settings-usage-link")))
	do(t, ctx, srv, "follow Settings to Usage", chromedp.Click(tid("settings-usage-link")), chromedp.WaitVisible(tid("usage-limit-save")))
	waitText(t, ctx, srv, "no limits yet", tid("usage-limits-text"), "No spending limits.")

	// A limit set through the form is stored.
	do(t, ctx, srv, "type a daily limit", chromedp.SendKeys(tid("usage-limit-daily"), "6600"), chromedp.Click(tid("usage-limit-all-models")))
	do(t, ctx, srv, "save it", chromedp.Click(tid("usage-limit-save")))
	waitText(t, ctx, srv, "saved", tid("usage-limit-saved"), "Saved.")
	waitText(t, ctx, srv, "the limit and what was spent", tid("usage-limits-text"), "Limits on all models: 6,600 tokens a day (4,400 tokens spent today).")
	type limits struct {
		Limits struct {
			Daily     *float64 `json:"daily"`
			Monthly   *float64 `json:"monthly"`
			Unit      string   `json:"unit"`
			AllModels bool     `json:"all_models"`
		} `json:"limits"`
		Today float64 `json:"today"`
	}
	stored := apiGet[limits](t, srv, "/api/usage/limits")
	if l := stored.Limits; l.Daily == nil || *l.Daily != 6600 || l.Monthly != nil || l.Unit != "tokens" || !l.AllModels || stored.Today != float64(wantTokens) {
		t.Errorf("GET /api/usage/limits after the form: %+v (daily %v)", stored, stored.Limits.Daily)
	}
	auditPage(t, ctx, srv, shots, "usage-limit", func(t *testing.T) { do(t, ctx, srv, "the limits", chromedp.WaitVisible(tid("usage-limit-remove"))) })

	// A negative limit is refused with the server's message, and the stored one stays.
	do(t, ctx, srv, "type a negative monthly limit", setInput(`[data-testid="usage-limit-monthly"]`, "-5"), chromedp.Click(tid("usage-limit-save")))
	waitText(t, ctx, srv, "refused", tid("usage-limit-error"), "want a number of at least 0")
	if again := apiGet[limits](t, srv, "/api/usage/limits"); mustJSON(t, again.Limits) != mustJSON(t, stored.Limits) {
		t.Errorf("a refused limit changed the stored ones: %+v, were %+v", again.Limits, stored.Limits)
	}
	shots.shot(ctx, "usage-refused")

	// The per-minute limit on model requests and the threshold a batch asks above, through the same form; the daily limit stays.
	do(t, ctx, srv, "type a per-minute limit and a threshold",
		setInput(`[data-testid="usage-limit-monthly"]`, ""), chromedp.SendKeys(tid("usage-limit-per-minute"), "30"), setInput(`[data-testid="usage-limit-confirm"]`, "2.5"),
		chromedp.Click(tid("usage-limit-save")))
	waitText(t, ctx, srv, "the request limit in words", tid("usage-request-limits-text"), "At most 30 model requests a minute. Docent asks before an auto-create batch estimated over $2.50.")
	type requestLimits struct {
		Limits struct {
			Daily          *float64 `json:"daily"`
			PerMinute      int      `json:"per_minute"`
			ConfirmOverUSD *float64 `json:"confirm_over_usd"`
		} `json:"limits"`
	}
	if l := apiGet[requestLimits](t, srv, "/api/usage/limits").Limits; l.PerMinute != 30 || l.ConfirmOverUSD == nil || *l.ConfirmOverUSD != 2.5 || l.Daily == nil || *l.Daily != 6600 {
		t.Errorf("GET /api/usage/limits after the form: %+v, want per_minute 30, confirm_over_usd 2.5 and the daily 6,600 kept", l)
	}

	// Prices: the local model is free, the hosted one's price unknown until a person sets one.
	hostedRow := `[data-testid="usage-price-row"][data-model="openai/qwen3:8b"]`
	waitAttr(t, ctx, srv, "the hosted model's price", chromedp.CSS(hostedRow), "data-source", "unknown")
	waitAttr(t, ctx, srv, "the local model's price", `[data-testid="usage-price-row"][data-model="ollama/qwen3:8b"]`, "data-source", "local")
	waitText(t, ctx, srv, "no figure for an unknown price", chromedp.CSS(hostedRow), "price unknown")
	do(t, ctx, srv, "set its price", chromedp.Click(hostedRow+` [data-testid="usage-price-edit"]`), chromedp.WaitVisible(tid("usage-price-form")))
	if f := get(t, ctx, srv, "what has the focus", chromedp.Evaluate[string](`document.activeElement?.dataset.testid ?? ""`)); f != "usage-price-input" {
		t.Errorf("the price form opened with the focus on %q, want its first field (usage-price-input)", f)
	}
	auditPage(t, ctx, srv, shots, "usage-price-form", func(t *testing.T) { do(t, ctx, srv, "the form", chromedp.WaitVisible(tid("usage-price-form"))) })
	// Typed and sent with Enter; a negative price is refused as the server says it, and nothing changes.
	do(t, ctx, srv, "type a negative price", chromedp.SendKeys(tid("usage-price-input"), "-2"), chromedp.SendKeys(tid("usage-price-output"), "8"), chromedp.SendKeys(tid("usage-price-output"), kb.Enter))
	waitText(t, ctx, srv, "refused", tid("usage-price-error"), "openai/qwen3:8b")
	type priceList struct {
		Models []struct {
			Model  string   `json:"model"`
			Source string   `json:"source"`
			Input  *float64 `json:"input"`
			Output *float64 `json:"output"`
		} `json:"models"`
	}
	priceOf := func() (source string, in, out float64) {
		for _, m := range apiGet[priceList](t, srv, "/api/usage/prices").Models {
			if m.Model == "openai/qwen3:8b" {
				if m.Input != nil && m.Output != nil {
					in, out = *m.Input, *m.Output
				}
				return m.Source, in, out
			}
		}
		return "", 0, 0
	}
	if src, _, _ := priceOf(); src != "unknown" {
		t.Errorf("a refused price changed the model's price: its source is %q, want unknown", src)
	}
	do(t, ctx, srv, "correct it", setInput(`[data-testid="usage-price-input"]`, "2"), chromedp.SendKeys(tid("usage-price-output"), kb.Enter))
	waitText(t, ctx, srv, "saved", tid("usage-price-saved"), "Saved your price of openai/qwen3:8b.")
	waitAttr(t, ctx, srv, "the price is the person's", chromedp.CSS(hostedRow), "data-source", "override")
	waitText(t, ctx, srv, "the price shown", chromedp.CSS(hostedRow), "$8.00")
	if src, in, out := priceOf(); src != "override" || in != 2 || out != 8 {
		t.Errorf("GET /api/usage/prices after the form: %s $%v in, $%v out, want override $2 and $8", src, in, out)
	}
	if f := get(t, ctx, srv, "what has the focus", chromedp.Evaluate[string](`document.activeElement?.dataset.testid ?? ""`)); f != "usage-price-edit" {
		t.Errorf("after saving, the focus is on %q, want back on the button that opened the form", f)
	}
	do(t, ctx, srv, "remove it", chromedp.Click(hostedRow+` [data-testid="usage-price-remove"]`))
	waitAttr(t, ctx, srv, "unknown again", chromedp.CSS(hostedRow), "data-source", "unknown")
	if src, _, _ := priceOf(); src != "unknown" {
		t.Errorf("after removing the price, its source is %q, want unknown", src)
	}

	// A spending limit reached: the extraction run where the person asked for it says so, as the server words it.
	apiSend(t, srv, http.MethodPut, "/api/usage/limits", map[string]any{"unit": "tokens", "daily": 0, "all_models": true}, nil)
	do(t, ctx, srv, "open the document", chromedp.Navigate(srv.URL+"#/documents/"+docID), chromedp.WaitVisible(tid("tab-extraction")))
	do(t, ctx, srv, "open the extraction tab", chromedp.Click(tid("tab-extraction")), chromedp.WaitVisible(tid("extraction-prompt-select")))
	setSelect(t, ctx, srv, tid("extraction-prompt-select"), prompt.PromptRevID)
	do(t, ctx, srv, "run the prompt", chromedp.Click(tid("run-extraction-button")))
	box := tid("extraction-panel") + ` [data-testid="error-box"]`
	waitAttr(t, ctx, srv, "the limit's error", chromedp.CSS(box), "data-kind", "spending_limit")
	waitText(t, ctx, srv, "the server's message", chromedp.CSS(box), "limit")
	shots.shot(ctx, "usage-spending-limit")
}

// apiUpload uploads a file through POST /api/documents, without
// auto-create (which would make model calls of its own), and returns its
// document's id.
func apiUpload(t *testing.T, srv *serveProcess, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(data)
	mw.WriteField("auto_create", "false")
	mw.Close()
	base, _, _ := strings.Cut(srv.URL, "/?token=")
	req, err := http.NewRequest(http.MethodPost, base+"/api/documents", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+srv.Token)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	var up struct {
		Documents []struct {
			ID string `json:"id"`
		} `json:"documents"`
	}
	if err := json.Unmarshal(answer, &up); err != nil || resp.StatusCode != http.StatusOK || len(up.Documents) != 1 {
		t.Fatalf("upload %s: %s %s", path, resp.Status, answer)
	}
	return up.Documents[0].ID
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
