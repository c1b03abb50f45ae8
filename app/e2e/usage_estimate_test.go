package e2e

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/artifacts"
	"github.com/docent/docent/app/internal/testcorpus"
)

// TestBrowserAutoCreateEstimate uploads two corpus invoices with
// auto-create on a hosted model. Its price unknown, the app asks before
// the batch, in a modal that says "price unknown" and no figure; Escape
// leaves the documents as they were, and no model was called. With a
// price set (the batch is then over the $1.00 the app asks above) the
// same upload asks again with the estimate in dollars; started, it meets
// a per-minute limit of 1 model-calling request, and the upload list says
// one document started and why the other did not, as the server words it.
// Axe finds nothing with the dialog open, nor in the list after.
func TestBrowserAutoCreateEstimate(t *testing.T) {
	model := modeltest.New(t)
	// A run that starts ends without a proposal: what it does is not the point here.
	model.Handle(func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Text: "No proposal."} })
	srv := startServe(t, t.TempDir(), "OLLAMA_HOST="+model.OllamaURL(), "OPENAI_BASE_URL="+model.OpenAIURL(), "OPENAI_API_KEY=test-key",
		"DOCENT_MODEL=openai/qwen3:8b", "DOCENT_EMBED_MODEL=")
	ctx := newBrowser(t)
	shots := &shooter{t: t, dir: artifacts.Dir(t)}
	corpus := testcorpus.Dir(t)
	files := []string{filepath.Join(corpus, "invoice2data", "AmazonWebServices.pdf"), filepath.Join(corpus, "invoice2data", "AzureInterior.pdf")}
	type documentList struct {
		Documents []struct {
			Name             string `json:"name"`
			AutoCreateStatus string `json:"auto_create_status"`
		} `json:"documents"`
	}
	statuses := func() map[string]string {
		out := map[string]string{}
		for _, d := range apiGet[documentList](t, srv, "/api/documents").Documents {
			out[d.Name] = d.AutoCreateStatus
		}
		return out
	}

	do(t, ctx, srv, "open the printed URL", chromedp.Navigate(srv.URL), chromedp.WaitVisible(tid("auto-create")))
	do(t, ctx, srv, "upload two invoices with auto-create",
		chromedp.Click(tid("auto-create")),
		chromedp.SetUploadFiles(tid("upload-input"), files),
		chromedp.WaitVisible(tid("auto-create-confirm")))
	waitText(t, ctx, srv, "the estimate", tid("auto-create-estimate-text"), "2 documents with openai/qwen3:8b: about ")
	estimate := get(t, ctx, srv, "read the estimate", chromedp.Evaluate[string](`document.querySelector('[data-testid="auto-create-confirm"]').innerText`))
	if !strings.Contains(estimate, "price unknown") || strings.Contains(estimate, "$") {
		t.Errorf("the dialog of a model without a price reads %q: want \"price unknown\" and no figure", estimate)
	}
	focused := get(t, ctx, srv, "what has the focus", chromedp.Evaluate[string](`document.activeElement?.dataset.testid ?? ""`))
	if focused != "auto-create-confirm-cancel" {
		t.Errorf("the dialog opened with the focus on %q, want the safe choice (auto-create-confirm-cancel)", focused)
	}
	modal := get(t, ctx, srv, "is the dialog modal", chromedp.Evaluate[bool](`document.querySelector('[data-testid="auto-create-confirm"]').matches(':modal')`))
	if !modal {
		t.Error("the confirm dialog is not modal")
	}
	auditPage(t, ctx, srv, shots, "auto-create-confirm", func(t *testing.T) {
		do(t, ctx, srv, "the dialog", chromedp.WaitVisible(tid("auto-create-confirm")))
	})

	do(t, ctx, srv, "Escape declines", chromedp.KeyEvent(kb.Escape), chromedp.WaitNotPresent(tid("auto-create-confirm")))
	waitAttr(t, ctx, srv, "the batch declined", tid("auto-create-batch"), "data-status", "declined")
	waitText(t, ctx, srv, "the batch says so", tid("auto-create-batch-text"), "Auto-create not started, as you chose")
	if st := statuses(); len(st) != 2 || st["AmazonWebServices.pdf"] != "none" || st["AzureInterior.pdf"] != "none" {
		t.Errorf("after declining, the documents' auto-create statuses are %v: want both none", st)
	}
	if n := len(model.Requests()); n != 0 {
		t.Errorf("declining the batch still made %d model calls", n)
	}

	// A price makes the batch cost dollars, over the $1.00 the app asks above; a per-minute limit of 1 lets one document start.
	apiSend(t, srv, http.MethodPut, "/api/usage/prices", map[string]any{"overrides": map[string]any{"openai/qwen3:8b": map[string]any{"input": 500, "output": 500}}}, nil)
	apiSend(t, srv, http.MethodPut, "/api/usage/limits", map[string]any{"unit": "tokens", "per_minute": 1}, nil)
	do(t, ctx, srv, "clear the list", chromedp.Click(`.upload-list .btn.link`), chromedp.WaitNotPresent(tid("auto-create-batch")))
	do(t, ctx, srv, "upload them again with auto-create", chromedp.SetUploadFiles(tid("upload-input"), files), chromedp.WaitVisible(tid("auto-create-confirm")))
	waitText(t, ctx, srv, "the estimate in dollars", tid("auto-create-confirm"), "over $1.00, the amount above which Docent asks")
	estimate = get(t, ctx, srv, "read the estimate", chromedp.Evaluate[string](`document.querySelector('[data-testid="auto-create-estimate-text"]').textContent`))
	if !strings.Contains(estimate, ", about $") {
		t.Errorf("the estimate of a priced batch reads %q: want its cost in dollars", estimate)
	}
	do(t, ctx, srv, "start it", chromedp.Click(tid("auto-create-confirm-start")), chromedp.WaitNotPresent(tid("auto-create-confirm")))
	waitText(t, ctx, srv, "one started", tid("auto-create-batch-text"), "Auto-create started for 1 of 2 documents")
	waitAttr(t, ctx, srv, "the other refused by Docent's request limit", tid("auto-create-batch-error"), "data-kind", "request_limit")
	waitText(t, ctx, srv, "the server's words", tid("auto-create-batch-error"), "model-calling requests a minute")
	do(t, ctx, srv, "it can be started again", chromedp.WaitVisible(tid("auto-create-batch-retry")))
	queued := 0
	for _, s := range statuses() {
		if s != "none" {
			queued++
		}
	}
	if queued != 1 {
		t.Errorf("after a batch of 2 met a limit of 1 request a minute, %d documents were queued, want 1 (%v)", queued, statuses())
	}
	auditPage(t, ctx, srv, shots, "auto-create-limited", func(t *testing.T) {
		do(t, ctx, srv, "the batch", chromedp.WaitVisible(tid("auto-create-batch-error")))
	})
}
