package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/artifacts"
)

// dataSchema is the schema of the data view test: a nested field and an
// array, so that the table has dotted columns and an item count.
const dataSchema = `{"type":"object","properties":{
	"invoice_number":{"type":"string"},
	"total":{"type":"number"},
	"seller":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false},
	"lines":{"type":"array","items":{"type":"object","properties":{"description":{"type":"string"},"amount":{"type":"number"}},"required":["description","amount"],"additionalProperties":false}}
},"required":["invoice_number","total","seller","lines"],"additionalProperties":false}`

// dataInvoice is one text invoice of the test and what the scripted model
// extracts from it.
type dataInvoice struct {
	file, number, seller string
	total                float64
	lines                int
}

var dataInvoices = []dataInvoice{
	{"invoice-a.txt", "A-100", "ACME GmbH", 250, 2},
	{"invoice-b.txt", "B-200", "Globex Ltd", 75.5, 1},
	{"invoice-c.txt", "C-300", "Acme Supplies", 1200, 3},
}

func (d dataInvoice) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "INVOICE %s\nSeller: %s\n\n", d.number, d.seller)
	for i := range d.lines {
		fmt.Fprintf(&b, "Item %d  %.2f\n", i+1, d.total/float64(d.lines))
	}
	fmt.Fprintf(&b, "\nTotal: %.2f EUR\n", d.total)
	return b.String()
}

func (d dataInvoice) extraction() string {
	lines := make([]map[string]any, d.lines)
	for i := range lines {
		lines[i] = map[string]any{"description": fmt.Sprintf("Item %d", i+1), "amount": d.total / float64(d.lines)}
	}
	b, _ := json.Marshal(map[string]any{"invoice_number": d.number, "total": d.total, "seller": map[string]any{"name": d.seller}, "lines": lines})
	return string(b)
}

// TestBrowserDataView imports three text invoices, makes them of one kind
// (the server extracts each with the schema's prompt; the scripted model
// answers), checks the documents list (kind, extraction status, sort) and a
// document page (no auto-create banner), and works in the schema's data
// view: an array summarised and expanded, sort by a column, filter by
// another (the export link gives the same rows), edit a cell (a number is
// saved and marked edited), the status filter, select rows and re-run them
// (their extractions are replaced, the other row's is not), open a document
// from its row, and last, text in a number column: refused with the
// schema's message, and nothing changes.
func TestBrowserDataView(t *testing.T) {
	model := modeltest.New(t)
	srv := startServe(t, t.TempDir(), "OLLAMA_HOST="+model.OllamaURL(), "DOCENT_MODEL=ollama/qwen3:8b")
	ctx := newBrowser(t)
	shots := &shooter{t: t, dir: artifacts.Dir(t)}

	// One schema and its prompt.
	var schema struct {
		SchemaID string `json:"schema_id"`
	}
	apiSend(t, srv, http.MethodPost, "/api/schemas", map[string]any{"name": "Invoice", "response_format": json.RawMessage(dataSchema)}, &schema)
	var prompt struct {
		PromptRevID string `json:"prompt_revid"`
	}
	apiSend(t, srv, http.MethodPost, "/api/prompts", map[string]any{
		"name": "Invoice prompt", "content": "Extract the invoice's number, seller, lines and total.", "schema_id": schema.SchemaID,
	}, &prompt)

	// Import the invoices through the page's file picker.
	dir := t.TempDir()
	var files []string
	for _, d := range dataInvoices {
		p := filepath.Join(dir, d.file)
		if err := os.WriteFile(p, []byte(d.text()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	do(t, ctx, srv, "open the printed URL", chromedp.Navigate(srv.URL), chromedp.WaitVisible(tid("auto-create")))
	do(t, ctx, srv, "upload three invoices", chromedp.SetUploadFiles(tid("upload-input"), files))
	waitCount(t, ctx, srv, "three documents listed", `[data-testid="doc-row"]`, 3)

	// Make each an invoice (the document's kind): the server extracts it
	// with the schema's prompt, and the scripted model answers each run.
	docs := apiGet[struct {
		Documents []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"documents"`
	}](t, srv, "/api/documents")
	docID := map[string]string{} // file name → document id
	for _, d := range docs.Documents {
		docID[d.Name] = d.ID
	}
	for _, d := range dataInvoices {
		model.Enqueue(modeltest.Reply{Text: d.extraction()})
		var changed struct {
			Extraction *struct {
				PromptRevID string `json:"prompt_revid"`
			} `json:"extraction"`
			ExtractionError string `json:"extraction_error"`
		}
		apiSend(t, srv, http.MethodPut, "/api/documents/"+docID[d.file]+"/kind", map[string]any{"schema_id": schema.SchemaID}, &changed)
		if changed.Extraction == nil || changed.Extraction.PromptRevID != prompt.PromptRevID {
			t.Fatalf("%s: no extraction with the invoice prompt (%q)", d.file, changed.ExtractionError)
		}
	}

	// The documents list shows each one's kind and where its extraction
	// stands, and sorts by name.
	do(t, ctx, srv, "reload the documents", chromedp.Reload(), chromedp.WaitVisible(tid("doc-list-head")))
	waitFor(t, ctx, srv, "kinds and statuses in the list", chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="doc-row"]')].map(r =>
			(r.querySelector('[data-testid="doc-kind"]')?.textContent ?? '-') + ' ' + r.querySelector('[data-testid="doc-extraction"]').dataset.status)`),
		func(got []string) bool {
			return slices.Equal(got, []string{"Invoice valid", "Invoice valid", "Invoice valid"})
		},
		func(got []string) string { return fmt.Sprintf("kind and extraction status per row: %q", got) })
	if h := get(t, ctx, srv, "the kind's link", chromedp.AttributeValue(tid("doc-kind"), "href")).Value; h != "#/data/"+schema.SchemaID {
		t.Errorf("the kind links to %q, want the schema's data view", h)
	}
	do(t, ctx, srv, "sort the list by name", chromedp.Click(`[data-testid="doc-sort"][data-sort="name"]`))
	waitFor(t, ctx, srv, "the list by name", chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="doc-row"] .doc-name')].map(e => e.textContent)`),
		func(got []string) bool {
			return slices.Equal(got, []string{"invoice-a.txt", "invoice-b.txt", "invoice-c.txt"})
		},
		func(got []string) string { return fmt.Sprintf("rows %v, want a, b, c", got) })
	do(t, ctx, srv, "sort the list by name, down", chromedp.Click(`[data-testid="doc-sort"][data-sort="name"]`))
	waitFor(t, ctx, srv, "the list by name, down", chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="doc-row"] .doc-name')].map(e => e.textContent)`),
		func(got []string) bool {
			return slices.Equal(got, []string{"invoice-c.txt", "invoice-b.txt", "invoice-a.txt"})
		},
		func(got []string) string { return fmt.Sprintf("rows %v, want c, b, a", got) })
	shots.shot(ctx, "documents-with-kinds")

	// A document of a kind offers no auto-create: there is nothing to do.
	do(t, ctx, srv, "open a document", chromedp.Click(`[data-testid="doc-row"] .doc-link`), chromedp.WaitVisible(tid("page-indicator")), chromedp.WaitVisible(tid("doc-kind")))
	if n := get(t, ctx, srv, "count banners", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="auto-create-status"]').length`)); n != 0 {
		t.Errorf("a document with a kind shows %d auto-create banners", n)
	}
	shots.shot(ctx, "document-with-kind")

	// The data view, from the Schemas page.
	do(t, ctx, srv, "open the schema", chromedp.Click(tid("nav-schemas")), chromedp.Click(tid("schema-row")), chromedp.WaitVisible(tid("schema-data")))
	do(t, ctx, srv, "open its data", chromedp.Click(tid("schema-data")), chromedp.WaitVisible(tid("data-grid")))
	waitCount(t, ctx, srv, "a row per document", `[data-testid="data-row"]`, 3)
	headers := get(t, ctx, srv, "read the columns", chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="col-sort"]')].map(e => e.dataset.path)`))
	for _, want := range []string{"document_name", "invoice_number", "total", "seller.name", "lines"} {
		if !slices.Contains(headers, want) {
			t.Errorf("columns %v lack %s", headers, want)
		}
	}
	waitText(t, ctx, srv, "arrays are summarised", cellSel(docID["invoice-c.txt"], "lines"), "3 items")
	do(t, ctx, srv, "expand an array", chromedp.Click(cellSel(docID["invoice-c.txt"], "lines")+` [data-testid="cell-items-toggle"]`), chromedp.WaitVisible(tid("cell-items")))
	waitText(t, ctx, srv, "the items", tid("cell-items"), "Item 3")
	shots.shot(ctx, "data-view")
	do(t, ctx, srv, "collapse it", chromedp.Click(cellSel(docID["invoice-c.txt"], "lines")+` [data-testid="cell-items-toggle"]`), chromedp.WaitNotPresent(tid("cell-items")))

	// Sort by total, up then down.
	do(t, ctx, srv, "sort by total", chromedp.Click(`[data-testid="col-sort"][data-path="total"]`))
	waitColumn(t, ctx, srv, "ascending totals", "total", []string{"75.5", "250", "1200"})
	do(t, ctx, srv, "sort by total again", chromedp.Click(`[data-testid="col-sort"][data-path="total"]`))
	waitColumn(t, ctx, srv, "descending totals", "total", []string{"1200", "250", "75.5"})
	shots.shot(ctx, "sorted")

	// Filter by seller, then clear the filter.
	do(t, ctx, srv, "filter by seller", chromedp.SendKeys(`[data-testid="col-filter"][data-path="seller.name"]`, "acme"))
	waitColumn(t, ctx, srv, "the Acme rows", "seller.name", []string{"Acme Supplies", "ACME GmbH"})
	waitText(t, ctx, srv, "the count says so", tid("data-total"), "2 documents match")
	shots.shot(ctx, "filtered")
	// The export is what is shown: the two rows, sorted as they are.
	exportURL := get(t, ctx, srv, "the CSV link", chromedp.AttributeValue(tid("data-export-csv"), "href")).Value
	csv := strings.Split(strings.TrimSpace(apiText(t, srv, exportURL)), "\n")
	if len(csv) != 3 || !strings.Contains(csv[1], "C-300") || !strings.Contains(csv[2], "A-100") {
		t.Errorf("the export of the filtered, sorted view (%s):\n%s", exportURL, strings.Join(csv, "\n"))
	}
	do(t, ctx, srv, "clear the filter",
		chromedp.Evaluate[chromedp.Void](`(() => { const e = document.querySelector('[data-testid="col-filter"][data-path="seller.name"]'); e.focus(); e.select(); })()`),
		chromedp.KeyEvent(kb.Backspace))
	waitCount(t, ctx, srv, "every row again", `[data-testid="data-row"]`, 3)

	// Edit a total: Enter saves through the field patch, the cell is marked edited.
	b := docID["invoice-b.txt"]
	editCell(t, ctx, srv, b, "total", "80.25")
	waitText(t, ctx, srv, "the new total", cellSel(b, "total"), "80.25")
	waitAttr(t, ctx, srv, "the edited marker", cellSel(b, "total"), "data-edited", "true")
	if got := latestValue(t, srv, b)["total"]; got != 80.25 {
		t.Errorf("stored total after the edit: %v, want 80.25", got)
	}
	shots.shot(ctx, "edited")

	// The status filter finds the edited row.
	setSelect(t, ctx, srv, tid("status-filter"), "edited")
	waitColumn(t, ctx, srv, "only the edited row", "invoice_number", []string{"B-200"})
	setSelect(t, ctx, srv, tid("status-filter"), "")
	waitCount(t, ctx, srv, "every row again", `[data-testid="data-row"]`, 3)

	// Select two rows and re-run them: their extractions are replaced.
	a, c := docID["invoice-a.txt"], docID["invoice-c.txt"]
	before := map[string]string{}
	for _, id := range []string{a, b, c} {
		before[id] = get(t, ctx, srv, "read an extraction id", chromedp.AttributeValue(rowSel(id), "data-extraction-id")).Value
	}
	do(t, ctx, srv, "select all shown", chromedp.Click(tid("select-all")))
	waitText(t, ctx, srv, "three selected", tid("selected-count"), "3 selected")
	do(t, ctx, srv, "unselect one", chromedp.Click(rowSel(b)+` [data-testid="row-select"]`))
	waitText(t, ctx, srv, "two selected", tid("selected-count"), "2 selected")
	shots.shot(ctx, "selected")
	// The runs go side by side: each answer follows the invoice in its request.
	model.Handle(func(req modeltest.Request) modeltest.Reply {
		for _, d := range dataInvoices {
			if strings.Contains(string(req.Body), "INVOICE "+d.number) {
				return modeltest.Reply{Text: d.extraction()}
			}
		}
		return modeltest.Reply{Fault: modeltest.Fault{Status: http.StatusInternalServerError, Message: "no invoice in the request"}}
	})
	do(t, ctx, srv, "re-run the selection", chromedp.Click(tid("bulk-rerun")))
	for _, id := range []string{a, c} {
		waitFor(t, ctx, srv, "a new extraction", chromedp.AttributeValue(rowSel(id), "data-extraction-id"),
			func(got chromedp.AttributeResult) bool { return got.Value != "" && got.Value != before[id] },
			func(got chromedp.AttributeResult) string {
				return fmt.Sprintf("row %s shows extraction %q, the one it had before the re-run", id, got.Value)
			})
	}
	if got := get(t, ctx, srv, "the unselected row", chromedp.AttributeValue(rowSel(b), "data-extraction-id")).Value; got != before[b] {
		t.Errorf("the row not selected has extraction %s, had %s", got, before[b])
	}
	for _, id := range []string{a, c} {
		xs := apiGet[struct {
			Extractions []struct {
				ID string `json:"extraction_id"`
			} `json:"extractions"`
		}](t, srv, "/api/documents/"+id+"/extractions")
		if len(xs.Extractions) < 2 {
			t.Errorf("document %s has %d extractions after the re-run, want a second", id, len(xs.Extractions))
		}
	}
	// Each re-run row holds its own invoice; the sort still stands.
	waitColumn(t, ctx, srv, "the re-run rows", "invoice_number", []string{"C-300", "A-100", "B-200"})
	shots.shot(ctx, "rerun")

	// A row opens its document.
	do(t, ctx, srv, "open a document from its row", chromedp.Click(rowSel(a)+` [data-testid="open-doc"]`), chromedp.WaitVisible(tid("page-indicator")))
	if u, _ := chromedp.Run(ctx, chromedp.Location()); !strings.Contains(u, "#/documents/"+a) {
		t.Errorf("the row opened %s", u)
	}
	do(t, ctx, srv, "back to the data", chromedp.NavigateBack(), chromedp.WaitVisible(rowSel(b)))
	waitText(t, ctx, srv, "the edited total", cellSel(b, "total"), "80.25")

	// Text in a number column: the schema's message, and nothing changes.
	editCell(t, ctx, srv, b, "total", "eighty")
	var outcome string
	waitFor(t, ctx, srv, "the answer to an invalid value", chromedp.Evaluate[string](`document.querySelector('[data-testid="cell-error"]') ? 'refused'
			: document.querySelector('[data-testid="cell-editor"]') ? '' : 'saved'`),
		func(got string) bool { outcome = got; return got != "" },
		func(got string) string { return "the editor is still waiting for the server" })
	if outcome != "refused" {
		t.Fatalf("the server saved %q in a number field (total is now %v): PATCH of an invalid value should answer 400 with the schema's message and change nothing",
			"eighty", latestValue(t, srv, b)["total"])
	}
	msg := get(t, ctx, srv, "read the refusal", chromedp.Text(tid("cell-error")))
	if !strings.Contains(strings.ToLower(msg), "number") {
		t.Errorf("the refusal reads %q, want the schema's message about a number", msg)
	}
	shots.shot(ctx, "invalid-edit")
	if got := latestValue(t, srv, b)["total"]; got != 80.25 {
		t.Errorf("stored total after the refused edit: %v, want 80.25", got)
	}
	do(t, ctx, srv, "give up the edit", chromedp.KeyEvent(kb.Escape), chromedp.WaitNotPresent(tid("cell-editor")))
	waitText(t, ctx, srv, "the old value stays", cellSel(b, "total"), "80.25")
}

// cellSel selects the cell of a column in a document's row of the data view.
func cellSel(docID, path string) chromedp.CSS {
	return chromedp.CSS(fmt.Sprintf(`%s [data-testid="data-cell"][data-path=%q]`, rowSel(docID), path))
}

func rowSel(docID string) chromedp.CSS {
	return chromedp.CSS(fmt.Sprintf(`[data-testid="data-row"][data-doc-id=%q]`, docID))
}

// editCell opens a cell's editor (double click), replaces its text and presses Enter.
func editCell(t *testing.T, ctx context.Context, srv *serveProcess, docID, path, text string) {
	t.Helper()
	do(t, ctx, srv, "edit "+path,
		chromedp.DoubleClick(cellSel(docID, path)),
		chromedp.WaitVisible(tid("cell-editor")),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="cell-editor"]').select()`),
		chromedp.KeyEvent(text+"\r"),
	)
}

// setSelect picks an option of a select as a person would (React hears the change).
func setSelect(t *testing.T, ctx context.Context, srv *serveProcess, sel chromedp.CSS, value string) {
	t.Helper()
	js := fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = %q; e.dispatchEvent(new Event('change', {bubbles: true})); })()`, string(sel), value)
	do(t, ctx, srv, "choose "+value, chromedp.WaitVisible(sel), chromedp.Evaluate[chromedp.Void](js))
}

// waitCount waits until exactly n elements match the selector.
func waitCount(t *testing.T, ctx context.Context, srv *serveProcess, step, sel string, n int) {
	t.Helper()
	waitFor(t, ctx, srv, step, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)),
		func(got int) bool { return got == n },
		func(got int) string { return fmt.Sprintf("%d elements match %s, want %d", got, sel, n) })
}

// waitColumn waits until the data view's rows read want in a column, top to bottom.
func waitColumn(t *testing.T, ctx context.Context, srv *serveProcess, step, path string, want []string) {
	t.Helper()
	js := fmt.Sprintf(`[...document.querySelectorAll('[data-testid="data-row"]')].map(r => r.querySelector('[data-testid="data-cell"][data-path=%q]').textContent.trim())`, path)
	waitFor(t, ctx, srv, step, chromedp.Evaluate[[]string](js),
		func(got []string) bool { return slices.Equal(got, want) },
		func(got []string) string { return fmt.Sprintf("column %s reads %q, want %q", path, got, want) })
}

// latestValue is the value of a document's newest extraction, from the API.
func latestValue(t *testing.T, srv *serveProcess, docID string) map[string]any {
	t.Helper()
	xs := apiGet[struct {
		Extractions []struct {
			Value     map[string]any `json:"value"`
			CreatedAt string         `json:"created_at"`
		} `json:"extractions"`
	}](t, srv, "/api/documents/"+docID+"/extractions")
	if len(xs.Extractions) == 0 {
		t.Fatalf("document %s has no extraction", docID)
	}
	latest := xs.Extractions[0]
	for _, x := range xs.Extractions[1:] {
		if x.CreatedAt > latest.CreatedAt {
			latest = x
		}
	}
	return latest.Value
}

// apiText reads a route (a path with its query) with the access token, as text.
func apiText(t *testing.T, srv *serveProcess, path string) string {
	t.Helper()
	base, _, _ := strings.Cut(srv.URL, "/?token=")
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+srv.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", path, resp.Status, body)
	}
	return string(body)
}

// apiSend sends a JSON request with the access token and decodes a 2xx
// answer into out (when not nil); any other status fails the test.
func apiSend(t *testing.T, srv *serveProcess, method, path string, body, out any) {
	t.Helper()
	base, _, _ := strings.Cut(srv.URL, "/?token=")
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, base+path, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+srv.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s\n%s\nserver log:\n%s", method, path, resp.Status, answer, clip(srv.Log(), 3000))
	}
	if out != nil {
		if err := json.Unmarshal(answer, out); err != nil {
			t.Fatalf("%s %s: %v\n%s", method, path, err, answer)
		}
	}
}
