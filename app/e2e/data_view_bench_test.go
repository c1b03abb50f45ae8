package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/docent/docent/storage"
)

// firstRowsProbe runs in the page before its own scripts: it notes when
// the data view's first rows are in the DOM and, a frame later, painted;
// how many rows the DOM then holds; and how long the rows request took.
const firstRowsProbe = `(() => {
  const rows = () => document.querySelectorAll('[data-testid="data-row"]').length;
  const mark = () => {
    if (!rows()) return false;
    const dom = performance.now();
    requestAnimationFrame(() => setTimeout(() => {
      const req = performance.getEntriesByType('resource').find(e => e.name.includes('/rows?'));
      window.__firstRows = { dom, painted: performance.now(), rows: rows(),
        request: req ? req.duration : -1, bytes: req ? req.encodedBodySize : -1 };
    }, 0));
    return true;
  };
  new MutationObserver((_, obs) => { if (mark()) obs.disconnect(); }).observe(document, { childList: true, subtree: true });
})();`

type firstRows struct {
	DOM     float64 `json:"dom"`
	Painted float64 `json:"painted"`
	Rows    int     `json:"rows"`
	Request float64 `json:"request"`
	Bytes   float64 `json:"bytes"`
}

// BenchmarkDataViewFirstRows opens the data view of a schema with 10,000
// extracted documents, against `docent --serve` on loopback with the
// browser's cache off, and measures the time from navigation to the first
// rows painted (ms/first-rows), the rows request within it (ms/rows-request,
// the server's query of the first page of 100 and its JSON), how many rows
// the page renders (rendered-rows: a window, not 10,000), and the time from
// scrolling to the middle of the table to row 5,000 being rendered
// (ms/scroll-5000: a new page of rows fetched and drawn).
func BenchmarkDataViewFirstRows(b *testing.B) {
	dataDir := b.TempDir()
	schemaID := seedExtractions(b, filepath.Join(dataDir, "docent.db"), 10_000)
	srv := startServe(b, dataDir)
	ctx := newBrowser(b)
	setup := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: firstRowsProbe})
		return err
	})
	base, _, _ := strings.Cut(srv.URL, "/?token=")
	dataURL := base + "/#/data/" + schemaID
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL), chromedp.WaitVisible(tid("auto-create")), setup); err != nil {
		b.Fatal(err)
	}
	var sum firstRows
	var scroll float64
	b.ResetTimer()
	for b.Loop() {
		if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(dataURL)); err != nil {
			b.Fatal(err)
		}
		got, err := pollFirstRows(ctx)
		if err != nil {
			b.Fatal(err)
		}
		sum.Painted += got.Painted
		sum.Request += got.Request
		sum.Rows = max(sum.Rows, got.Rows)
		sum.Bytes = got.Bytes
		// Scroll to the middle: row 5,000's page comes and is drawn.
		ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise((resolve) => {
			const g = document.querySelector('[data-testid="data-grid"]');
			const t0 = performance.now();
			g.scrollTop = 5000 * 32;
			const tick = () => document.querySelector('[data-testid="data-row"][data-index="5000"]')
				? requestAnimationFrame(() => resolve(performance.now() - t0)) : setTimeout(tick, 5);
			tick();
		})`, chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		scroll += ms
	}
	n := float64(b.N)
	b.ReportMetric(sum.Painted/n, "ms/first-rows")
	b.ReportMetric(sum.Request/n, "ms/rows-request")
	b.ReportMetric(scroll/n, "ms/scroll-5000")
	b.ReportMetric(float64(sum.Rows), "rendered-rows")
	b.ReportMetric(sum.Bytes/1024, "KiB/rows-page")
}

// pollFirstRows waits for the probe's figures; a poll that starts while
// the new page's script context is still being made is tried again.
func pollFirstRows(ctx context.Context) (firstRows, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := chromedp.Run(ctx, chromedp.Poll[firstRows](`window.__firstRows`, chromedp.WithPollingTimeout(30*time.Second)))
		if err == nil || !strings.Contains(err.Error(), "context") || time.Now().After(deadline) {
			return got, err
		}
	}
}

// seedExtractions stores a schema, its prompt and n text invoices, each
// with an extraction by that prompt (one in ten invalid, one in three with
// a proposal), straight into the store at path, as a data directory for
// `docent --serve`. It returns the schema's id.
func seedExtractions(b *testing.B, path string, n int) string {
	b.Helper()
	ctx := context.Background()
	start := time.Now()
	db, err := storage.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	sch, err := db.CreateSchema(ctx, "Invoice", json.RawMessage(`{"type":"json_schema","json_schema":{"name":"invoice","strict":true,"schema":`+dataSchema+`}}`))
	if err != nil {
		b.Fatal(err)
	}
	prompt, err := db.CreatePrompt(ctx, storage.NewPrompt{Name: "Invoice prompt", Content: "Extract the invoice.", SchemaID: sch.SchemaID})
	if err != nil {
		b.Fatal(err)
	}
	sellers := []string{"ACME GmbH", "Globex Ltd", "Initech AG", "Umbrella SARL", "Stark Industries"}
	for i := range n {
		d := dataInvoice{file: fmt.Sprintf("invoice-%05d.txt", i), number: fmt.Sprintf("INV-%05d", i), seller: sellers[i%len(sellers)],
			total: float64((i*7919)%100000) / 100, lines: 1 + i%4}
		text := d.text()
		doc, err := db.CreateDocument(ctx, storage.NewDocument{Name: d.file, MediaType: "text/plain", Data: []byte(text), Pages: []string{text}})
		if err != nil {
			b.Fatal(err)
		}
		status, problems := storage.ValidationValid, json.RawMessage(`[]`)
		if i%10 == 9 {
			status, problems = storage.ValidationInvalid, json.RawMessage(`[{"path":"/total","message":"must be at least 0"}]`)
		}
		if _, err := db.CreateExtraction(ctx, storage.NewExtraction{
			DocumentID: doc.ID, PromptRevID: prompt.PromptRevID, Model: "ollama/qwen3:8b", RawOutput: d.extraction(),
			Value: json.RawMessage(d.extraction()), ValidationStatus: status, ValidationErrors: problems,
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded %d documents with extractions in %v", n, time.Since(start).Round(time.Millisecond))
	return sch.SchemaID
}
