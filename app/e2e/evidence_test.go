package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/artifacts"
	"github.com/docent/docent/app/internal/testcorpus"
)

// awsSchema fits the corpus's two-page AWS invoice.
const awsSchema = `{"type":"object","properties":{
	"invoice_number":{"type":"string"},
	"account_number":{"type":"string"},
	"total":{"type":"number"},
	"lines":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"amount":{"type":"number"}},"required":["name","amount"],"additionalProperties":false}}
},"required":["invoice_number","account_number","total","lines"],"additionalProperties":false}`

// TestBrowserEvidenceHighlight extracts a real PDF invoice (the scripted
// model answers its true values and one invented account number), and in
// the document page: the invented value is listed first for review and
// says it was not found; clicking the total goes to its page and draws
// the highlight exactly over the stored box of the page as rendered.
func TestBrowserEvidenceHighlight(t *testing.T) {
	pdf := filepath.Join(testcorpus.Dir(t), "invoice2data", "AmazonWebServices.pdf")
	model := modeltest.New(t)
	srv := startServe(t, t.TempDir(), "OLLAMA_HOST="+model.OllamaURL(), "DOCENT_MODEL=ollama/qwen3:8b")
	ctx := newBrowser(t)
	shots := &shooter{t: t, dir: artifacts.Dir(t)}

	var schema struct {
		SchemaID string `json:"schema_id"`
	}
	apiSend(t, srv, http.MethodPost, "/api/schemas", map[string]any{"name": "AWS invoice", "response_format": json.RawMessage(awsSchema)}, &schema)
	apiSend(t, srv, http.MethodPost, "/api/prompts", map[string]any{
		"name": "AWS prompt", "content": "Extract the invoice number, account number, lines and total.", "schema_id": schema.SchemaID,
	}, nil)

	do(t, ctx, srv, "open the printed URL", chromedp.Navigate(srv.URL), chromedp.WaitVisible(tid("auto-create")))
	do(t, ctx, srv, "upload the invoice", chromedp.SetUploadFiles(tid("upload-input"), []string{pdf}))
	waitCount(t, ctx, srv, "the invoice listed", `[data-testid="doc-row"]`, 1)
	docs := apiGet[struct {
		Documents []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"documents"`
	}](t, srv, "/api/documents")
	docID := docs.Documents[0].ID

	model.Enqueue(modeltest.Reply{Text: `{"invoice_number":"42183017","account_number":"9999-0000-1111",` +
		`"total":4.11,"lines":[{"name":"AWS Data Transfer","amount":0.01},{"name":"Amazon Glacier","amount":2.22}]}`})
	var changed struct {
		Extraction *struct {
			Evidence map[string]struct {
				Page   int       `json:"page"`
				Quote  string    `json:"quote"`
				BBox   []float64 `json:"bbox"`
				Status string    `json:"status"`
			} `json:"evidence"`
		} `json:"extraction"`
		ExtractionError string `json:"extraction_error"`
	}
	apiSend(t, srv, http.MethodPut, "/api/documents/"+docID+"/kind", map[string]any{"schema_id": schema.SchemaID}, &changed)
	if changed.Extraction == nil {
		t.Fatalf("no extraction: %q", changed.ExtractionError)
	}
	ev := changed.Extraction.Evidence
	total := ev["total"]
	if total.Status != "grounded" || len(total.BBox) != 4 || total.Page != 1 || total.Quote != "$4.11" {
		t.Fatalf("the total's evidence is %+v (all: %+v): want grounded on page 1 as $4.11 with a box", total, ev)
	}
	if ev["account_number"].Status != "ungrounded" {
		t.Fatalf("the invented account number's evidence is %+v, want ungrounded", ev["account_number"])
	}

	do(t, ctx, srv, "open the document", chromedp.Navigate(srv.URL+"#/documents/"+docID), chromedp.WaitVisible(tid("tab-extraction")))
	do(t, ctx, srv, "open the extraction tab", chromedp.Click(tid("tab-extraction")), chromedp.WaitVisible(tid("evidence-review")))
	first := get(t, ctx, srv, "read the review list", chromedp.Evaluate[string](
		`document.querySelector('[data-testid="evidence-review-item"]')?.dataset.path ?? ''`))
	if first != "account_number" {
		t.Errorf("the first field to review is %q, want the invented account_number", first)
	}
	shots.shot(ctx, "review-list")

	// The total: its page, and a highlight over its box.
	do(t, ctx, srv, "click the total", chromedp.Click(chromedp.CSS(`[data-testid="evidence-field"][data-path="total"]`)))
	waitAttr(t, ctx, srv, "the viewer goes to the total's page", tid("page-indicator"), "data-page", fmt.Sprint(total.Page))
	type rects struct {
		Surface, Highlight [4]float64
		Page               string
	}
	js := `(() => {
		const r = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; };
		const s = document.querySelector('[data-testid="page-surface"]'), h = document.querySelector('[data-testid="evidence-highlight"]');
		return s && h && s.getBoundingClientRect().width > 0 ? {Surface: r(s), Highlight: r(h), Page: h.dataset.page} : null;
	})()`
	var got *rects
	waitFor(t, ctx, srv, "the highlight drawn over the page", chromedp.Evaluate[*rects](js),
		func(r *rects) bool { got = r; return r != nil },
		func(r *rects) string { return "no page surface with a highlight yet" })
	s, h, b := got.Surface, got.Highlight, total.BBox
	want := [4]float64{s[0] + b[0]*s[2], s[1] + b[1]*s[3], (b[2] - b[0]) * s[2], (b[3] - b[1]) * s[3]}
	for i := range want {
		if math.Abs(h[i]-want[i]) > 1 {
			t.Fatalf("highlight at %v, want %v (page surface %v, stored box %v)", h, want, s, b)
		}
	}
	if got.Page != fmt.Sprint(total.Page) {
		t.Errorf("highlight on page %s, want %d", got.Page, total.Page)
	}
	// The page changes size (pdf.js sizing its canvas, a zoom): the box is
	// over the value in the same layout, not one frame later. Measured in
	// one script, before the browser could run a resize observer.
	resized := get(t, ctx, srv, "resize the page and measure again", chromedp.Evaluate[*rects](`(() => {
		const r = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; };
		const c = document.querySelector('[data-testid="pdf-canvas"]');
		const w = c.style.width, h = c.style.height;
		c.style.width = '300px'; c.style.height = '150px';
		const s = document.querySelector('[data-testid="page-surface"]'), hl = document.querySelector('[data-testid="evidence-highlight"]');
		const out = {Surface: r(s), Highlight: r(hl), Page: hl.dataset.page};
		c.style.width = w; c.style.height = h;
		return out;
	})()`))
	s, h = resized.Surface, resized.Highlight
	want = [4]float64{s[0] + b[0]*s[2], s[1] + b[1]*s[3], (b[2] - b[0]) * s[2], (b[3] - b[1]) * s[3]}
	for i := range want {
		if math.Abs(h[i]-want[i]) > 1 {
			t.Fatalf("after the page was resized the highlight is at %v, want %v (page surface %v, stored box %v)", h, want, s, b)
		}
	}
	shots.shot(ctx, "total-highlighted")

	// The invented value: marked, and no highlight.
	do(t, ctx, srv, "click the invented account number", chromedp.Click(chromedp.CSS(`[data-testid="evidence-field"][data-path="account_number"]`)))
	waitAttr(t, ctx, srv, "it says it was not found", tid("evidence-detail"), "data-status", "ungrounded")
	waitCount(t, ctx, srv, "no highlight for a value not in the document", `[data-testid="evidence-highlight"]`, 0)
}
