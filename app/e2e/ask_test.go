package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/artifacts"
	"github.com/docent/docent/app/internal/testcorpus"
)

// askSchema is the Ask test's invoice: its number and total.
const askSchema = `{"type":"object","properties":{
	"invoice_number":{"type":"string"},
	"total":{"type":"number"}
},"required":["invoice_number","total"],"additionalProperties":false}`

// askInvoices are corpus invoices with their true number and total
// (invoice2data's verified expectations).
var askInvoices = []struct {
	file, number string
	total        float64
}{
	{"AmazonWebServices.pdf", "42183017", 4.11},
	{"QualityHosting.pdf", "30064443", 34.73},
}

// askEvidence is a value's evidence as an extraction stores it.
type askEvidence struct {
	Page   int       `json:"page"`
	Quote  string    `json:"quote"`
	BBox   []float64 `json:"bbox"`
	Status string    `json:"status"`
}

// TestBrowserAsk imports real invoices, extracts them with known values,
// and asks Docent on its page: "how much did I spend in total?" is
// answered by query_data with the sum and a chip [1]; the chip opens the
// query with the rows it read, and a row opens its document with the box
// of its total drawn; back on the answer (reopened from the server) its
// chip is still there, and on a phone in the window with the question
// box; a question answered from a search hit cites the
// passage, whose chip opens the document at its page with its box. The
// page is audited by axe in light and dark, and shows no raw ids.
func TestBrowserAsk(t *testing.T) {
	model := modeltest.New(t)
	srv := startServe(t, t.TempDir(), "OLLAMA_HOST="+model.OllamaURL(), "DOCENT_MODEL=ollama/qwen3:8b", "DOCENT_EMBED_MODEL=")
	ctx := newBrowser(t)
	shots := &shooter{t: t, dir: artifacts.Dir(t)}

	var schema struct {
		SchemaID string `json:"schema_id"`
	}
	apiSend(t, srv, http.MethodPost, "/api/schemas", map[string]any{"name": "Invoice", "response_format": json.RawMessage(askSchema)}, &schema)
	apiSend(t, srv, http.MethodPost, "/api/prompts", map[string]any{
		"name": "Invoice prompt", "content": "Extract the invoice number and the total.", "schema_id": schema.SchemaID,
	}, nil)

	var files []string
	for _, inv := range askInvoices {
		files = append(files, filepath.Join(testcorpus.Dir(t), "invoice2data", inv.file))
	}
	do(t, ctx, srv, "open the printed URL", chromedp.Navigate(srv.URL), chromedp.WaitVisible(tid("auto-create")))
	do(t, ctx, srv, "upload the invoices", chromedp.SetUploadFiles(tid("upload-input"), files))
	waitCount(t, ctx, srv, "the invoices listed", `[data-testid="doc-row"]`, len(askInvoices))
	docs := apiGet[struct {
		Documents []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"documents"`
	}](t, srv, "/api/documents")
	docID := map[string]string{}
	for _, d := range docs.Documents {
		docID[d.Name] = d.ID
	}
	// Each is made an invoice, and the scripted model extracts its true values.
	totals := map[string]askEvidence{}
	for _, inv := range askInvoices {
		model.Enqueue(modeltest.Reply{Text: fmt.Sprintf(`{"invoice_number":%q,"total":%v}`, inv.number, inv.total)})
		var changed struct {
			Extraction *struct {
				Evidence map[string]askEvidence `json:"evidence"`
			} `json:"extraction"`
			ExtractionError string `json:"extraction_error"`
		}
		apiSend(t, srv, http.MethodPut, "/api/documents/"+docID[inv.file]+"/kind", map[string]any{"schema_id": schema.SchemaID}, &changed)
		if changed.Extraction == nil {
			t.Fatalf("%s: no extraction: %q", inv.file, changed.ExtractionError)
		}
		totals[inv.file] = changed.Extraction.Evidence["total"]
	}
	aws := totals["AmazonWebServices.pdf"]
	if aws.Status != "grounded" || aws.Page < 1 || len(aws.BBox) != 4 {
		t.Fatalf("the AWS total's evidence is %+v: want it grounded on a page, with a box", aws)
	}

	// Ask Docent from the home page, where it stands beside the documents.
	do(t, ctx, srv, "the home page offers Ask Docent", chromedp.Navigate(srv.URL+"#/documents"), chromedp.WaitVisible(tid("home-ask")), chromedp.WaitVisible(tid("nav-ask")))
	shots.shot(ctx, "home")
	do(t, ctx, srv, "open Ask Docent", chromedp.Click(tid("home-ask")), chromedp.WaitVisible(tid("ask-empty")))
	auditPage(t, ctx, srv, shots, "ask-new", func(t *testing.T) { do(t, ctx, srv, "the new question", chromedp.WaitVisible(tid("ask-empty"))) })

	// An empty question cannot be sent, nor one over 100,000 characters, which says why.
	sendDisabled := chromedp.Evaluate[bool](`document.querySelector('[data-testid="send-button"]').disabled`)
	if !get(t, ctx, srv, "is send disabled while empty", sendDisabled) {
		t.Error("the send button is enabled with no question")
	}
	do(t, ctx, srv, "type 100,001 characters", setInput(`[data-testid="chat-input"]`, strings.Repeat("x", 100_001)))
	waitText(t, ctx, srv, "the question is too long", tid("composer-too-long"), "100,001 characters; at most 100,000")
	if !get(t, ctx, srv, "is send disabled while too long", sendDisabled) {
		t.Error("the send button is enabled with a question over 100,000 characters")
	}
	do(t, ctx, srv, "clear the question", setInput(`[data-testid="chat-input"]`, ""))
	waitCount(t, ctx, srv, "no length warning", `[data-testid="composer-too-long"]`, 0)

	// The total: the model queries the data and cites the query.
	requestsBefore := len(model.Requests())
	model.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "q1", Name: "query_data", Arguments: `{"sql":"SELECT sum(total) AS spent FROM invoice"}`}}},
		modeltest.Reply{Text: "You spent **38.84** in total [1]."},
	)
	do(t, ctx, srv, "ask how much", chromedp.SendKeys(tid("chat-input"), "how much did I spend in total?"), chromedp.Click(tid("send-button")))
	queryChip := `[data-testid="cite-chip"][data-n="1"][data-kind="query"]`
	waitCount(t, ctx, srv, "the answer's chip", queryChip, 1)
	waitText(t, ctx, srv, "the answer's sum", tid("assistant-message"), "You spent 38.84 in total")
	label := get(t, ctx, srv, "read the chip's name", chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).getAttribute('aria-label')`, queryChip)))
	if label != "Source 1: a query of invoice, 2 rows read" {
		t.Errorf("the query chip is named %q", label)
	}
	if got := model.Requests()[requestsBefore:]; len(got) != 2 {
		t.Errorf("the turn made %d model calls, want 2 (the query, the answer)", len(got))
	}
	hash := get(t, ctx, srv, "read the address", chromedp.Evaluate[string](`location.hash`))
	threadID, ok := strings.CutPrefix(hash, "#/ask/")
	if !ok || threadID == "" {
		t.Fatalf("after the first answer the address is %q, want the thread's #/ask/…", hash)
	}

	// The chip opens the query: its SQL, SQLite's sum, and every row it read.
	clickStill(t, ctx, srv, "open the query", queryChip)
	do(t, ctx, srv, "the query panel", chromedp.WaitVisible(tid("query-panel")))
	waitText(t, ctx, srv, "the SQL", tid("query-sql"), "SELECT sum(total) AS spent FROM invoice")
	waitText(t, ctx, srv, "SQLite's sum", tid("query-result"), "38.84")
	names := get(t, ctx, srv, "read the rows read", chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="query-source-link"]')].map(a => a.textContent).sort()`))
	if want := []string{"AmazonWebServices.pdf", "QualityHosting.pdf"}; !slices.Equal(names, want) {
		t.Errorf("the query read the rows of %q, want %q", names, want)
	}
	auditPage(t, ctx, srv, shots, "ask-query", func(t *testing.T) { do(t, ctx, srv, "the query panel", chromedp.WaitVisible(tid("query-panel"))) })
	noRawIDs(t, ctx, srv, "the query panel")

	// A row opens its document at the box of the value the query used.
	do(t, ctx, srv, "open the AWS row", chromedp.Evaluate[chromedp.Void](
		`[...document.querySelectorAll('[data-testid="query-source-link"]')].find(a => a.textContent === 'AmazonWebServices.pdf').click()`))
	waitAttr(t, ctx, srv, "the AWS invoice at its total's page", tid("page-indicator"), "data-page", fmt.Sprint(aws.Page))
	checkHighlight(t, ctx, srv, "the AWS total highlighted", aws.Page, aws.BBox)
	shots.shot(ctx, "ask-row-opened")

	// Back: the answer, reopened from the server, keeps its chip.
	do(t, ctx, srv, "back to the answer", chromedp.Evaluate[chromedp.Void](`history.back()`))
	waitCount(t, ctx, srv, "the reopened answer's chip", queryChip, 1)
	waitText(t, ctx, srv, "the reopened answer", tid("assistant-message"), "You spent 38.84 in total")
	waitCount(t, ctx, srv, "the thread in the past questions", `[data-testid="ask-thread"][aria-current="page"]`, 1)
	auditPage(t, ctx, srv, shots, "ask-answer", func(t *testing.T) { waitCount(t, ctx, srv, "the chip", queryChip, 1) })
	noRawIDs(t, ctx, srv, "the answer")

	// On a phone, the answer's chip and the question box are in the window.
	do(t, ctx, srv, "a phone's window (390×844)", chromedp.EmulateViewport(390, 844, chromedp.EmulatePortrait, chromedp.EmulateMobile))
	waitFor(t, ctx, srv, "the phone's width", chromedp.Evaluate[int](`innerWidth`), func(w int) bool { return w == 390 },
		func(w int) string { return fmt.Sprintf("the window is %dpx wide, want 390", w) })
	waitInViewport(t, ctx, srv, "the question box in the window", `[data-testid="chat-input"]`)
	waitInViewport(t, ctx, srv, "the chip in the window", queryChip)
	shots.shot(ctx, "ask-phone")
	do(t, ctx, srv, "back to the desktop window", clearViewport())
	waitFor(t, ctx, srv, "a wide window again", chromedp.Evaluate[int](`innerWidth`), func(w int) bool { return w > 820 },
		func(w int) string { return fmt.Sprintf("the window is %dpx wide", w) })

	// A passage: the model searches, and cites the AWS hit by its number.
	model.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "s1", Name: "search_docs", Arguments: `{"query":"42183017"}`}}})
	model.Handle(func(req modeltest.Request) modeltest.Reply {
		n := citeOf(req.Messages, "AmazonWebServices.pdf")
		if n == 0 {
			return modeltest.Reply{Fault: modeltest.Fault{Status: http.StatusInternalServerError, Message: "no cited hit of the AWS invoice in the request"}}
		}
		return modeltest.Reply{Text: fmt.Sprintf("The AWS invoice is number 42183017 [%d].", n)}
	})
	do(t, ctx, srv, "ask for the number", chromedp.SendKeys(tid("chat-input"), "what is the number of the AWS invoice?"), chromedp.Click(tid("send-button")))
	passageChip := `[data-testid="cite-chip"][data-kind="passage"]`
	waitCount(t, ctx, srv, "the passage chip", passageChip, 1)
	thread := apiGet[struct {
		Messages []struct {
			Role string `json:"role"`
			Data struct {
				Citations []struct {
					N        int       `json:"n"`
					Kind     string    `json:"kind"`
					Document string    `json:"document"`
					Page     int       `json:"page"`
					BBox     []float64 `json:"bbox"`
				} `json:"citations"`
			} `json:"data"`
		} `json:"messages"`
	}](t, srv, "/api/ask/threads/"+threadID)
	last := thread.Messages[len(thread.Messages)-1]
	if last.Role != "assistant" || len(last.Data.Citations) != 1 || last.Data.Citations[0].Kind != "passage" {
		t.Fatalf("the stored answer cites %+v, want one passage", last.Data.Citations)
	}
	cited := last.Data.Citations[0]
	if cited.Document != "AmazonWebServices.pdf" || cited.Page < 1 || len(cited.BBox) != 4 {
		t.Fatalf("the passage cited is %+v: want the AWS invoice, a page and a box", cited)
	}
	label = get(t, ctx, srv, "read the passage chip's name", chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).getAttribute('aria-label')`, passageChip)))
	if want := fmt.Sprintf("Source %d: AmazonWebServices.pdf, page %d", cited.N, cited.Page); label != want {
		t.Errorf("the passage chip is named %q, want %q", label, want)
	}
	noRawIDs(t, ctx, srv, "the answers")
	clickStill(t, ctx, srv, "open the passage", passageChip)
	waitAttr(t, ctx, srv, "the AWS invoice at the passage's page", tid("page-indicator"), "data-page", fmt.Sprint(cited.Page))
	checkHighlight(t, ctx, srv, "the passage highlighted", cited.Page, cited.BBox)
	do(t, ctx, srv, "the cited place is named", chromedp.WaitVisible(tid("cited-note")))
	shots.shot(ctx, "ask-passage-opened")
}

// TestBrowserAskRefused: without a model the question cannot be sent and
// the page says why; with one, an answer citing a number the thread never
// produced shows it as citing nothing (no button; axe in light and dark);
// the thread is renamed on the page; a turn the server refuses (its
// thread deleted meanwhile) says so, and so does a thread that is not
// there, without their ids; a thread deleted on the page leaves a new
// question.
func TestBrowserAskRefused(t *testing.T) {
	t.Run("no model", func(t *testing.T) {
		srv := startServe(t, t.TempDir(), "OLLAMA_HOST=http://127.0.0.1:1", "DOCENT_MODEL=")
		ctx := newBrowser(t)
		do(t, ctx, srv, "open Ask", chromedp.Navigate(srv.URL), chromedp.WaitVisible(tid("nav-ask")), chromedp.Click(tid("nav-ask")), chromedp.WaitVisible(tid("ask-empty")))
		waitText(t, ctx, srv, "it says there is no model", chromedp.CSS("#composer-disabled-reason"), "No model yet")
		if !get(t, ctx, srv, "is the input disabled", chromedp.Evaluate[bool](`document.querySelector('[data-testid="chat-input"]').disabled`)) {
			t.Error("the question can be typed with no model set")
		}
	})
	t.Run("refused turn", func(t *testing.T) {
		model := modeltest.New(t)
		srv := startServe(t, t.TempDir(), "OLLAMA_HOST="+model.OllamaURL(), "DOCENT_MODEL=ollama/qwen3:8b")
		ctx := newBrowser(t)
		shots := &shooter{t: t, dir: artifacts.Dir(t)}
		model.Enqueue(modeltest.Reply{Text: "You paid 12.00 [7]."})
		do(t, ctx, srv, "open Ask", chromedp.Navigate(srv.URL+"#/ask"), chromedp.WaitVisible(tid("ask-empty")))
		do(t, ctx, srv, "ask", chromedp.SendKeys(tid("chat-input"), "hello"), chromedp.Click(tid("send-button")))
		unknown := `[data-testid="cite-unknown"][data-n="7"]`
		waitCount(t, ctx, srv, "the marker citing nothing", unknown, 1)
		waitText(t, ctx, srv, "the sources say so", chromedp.CSS(`[data-testid="cite-source"][data-kind="unknown"]`), "[7] cites nothing")
		if n := get(t, ctx, srv, "count the chips", chromedp.Evaluate[int](`document.querySelectorAll('button[data-testid="cite-chip"], a [data-testid="cite-unknown"]').length`)); n != 0 {
			t.Errorf("%d citation buttons or links for an answer citing nothing", n)
		}
		auditPage(t, ctx, srv, shots, "ask-unknown", func(t *testing.T) { waitCount(t, ctx, srv, "the marker", unknown, 1) })
		waitFor(t, ctx, srv, "the thread's address", chromedp.Evaluate[string](`location.hash`),
			func(h string) bool { return strings.HasPrefix(h, "#/ask/") && len(h) > len("#/ask/") },
			func(h string) string { return "the address is " + h })
		threadID := strings.TrimPrefix(get(t, ctx, srv, "read the address", chromedp.Evaluate[string](`location.hash`)), "#/ask/")

		// Renamed on the page, it is listed by its new title.
		do(t, ctx, srv, "rename the thread", chromedp.Click(tid("thread-rename")), chromedp.WaitVisible(tid("thread-title-input")),
			setInput(`[data-testid="thread-title-input"]`, "What I paid"), chromedp.Click(chromedp.CSS(`.thread-picker button[type="submit"]`)))
		waitText(t, ctx, srv, "the new title in the list", chromedp.CSS(`[data-testid="ask-thread"][aria-current="page"]`), "What I paid")

		// Deleted meanwhile (another window), the thread refuses the next turn.
		apiSend(t, srv, http.MethodDelete, "/api/ask/threads/"+threadID, nil, nil)
		do(t, ctx, srv, "ask again", chromedp.SendKeys(tid("chat-input"), "and now?"), chromedp.Click(tid("send-button")))
		waitText(t, ctx, srv, "the refusal", tid("turn-error"), "may have been deleted")
		noRawIDs(t, ctx, srv, "the refusal")

		do(t, ctx, srv, "open the deleted thread", chromedp.Navigate(srv.URL+"#/ask/"+threadID), chromedp.Reload())
		waitText(t, ctx, srv, "it cannot be opened", chromedp.CSS(".ask-scroll"), "This conversation cannot be opened")
		noRawIDs(t, ctx, srv, "the deleted thread")

		// Deleted on the page: a new question, and the list without it.
		model.Enqueue(modeltest.Reply{Text: "A second answer."})
		do(t, ctx, srv, "a new question", chromedp.Click(tid("ask-new")), chromedp.WaitVisible(tid("ask-empty")),
			chromedp.SendKeys(tid("chat-input"), "again"), chromedp.Click(tid("send-button")))
		waitText(t, ctx, srv, "the second answer", tid("assistant-message"), "A second answer.")
		waitCount(t, ctx, srv, "the second thread listed", `[data-testid="ask-thread"]`, 1)
		do(t, ctx, srv, "delete it", chromedp.Click(tid("thread-delete")), chromedp.Click(tid("thread-delete-confirm")), chromedp.WaitVisible(tid("ask-empty")))
		waitCount(t, ctx, srv, "no thread listed", `[data-testid="ask-thread"]`, 0)
		if h := get(t, ctx, srv, "read the address", chromedp.Evaluate[string](`location.hash`)); h != "#/ask" {
			t.Errorf("after the delete the address is %q, want #/ask", h)
		}
	})
}

// setInput sets a React-controlled input's value as typing would (the
// native setter, then an input event), for texts too long to type.
func setInput(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const e = document.querySelector(%q);
		const set = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(e), 'value').set;
		set.call(e, %q);
		e.dispatchEvent(new Event('input', {bubbles: true}));
	})()`, sel, value))
}

// noRawIDs fails t when the page's visible text holds a raw id.
func noRawIDs(t *testing.T, ctx context.Context, srv *serveProcess, where string) {
	t.Helper()
	if ids, text := rawIDsIn(t, ctx, srv, "body"); len(ids) > 0 {
		t.Errorf("raw ids in the text of %s: %v\n%s", where, ids, clip(text, 2000))
	}
}

// checkHighlight waits for the evidence highlight on page and checks that
// it stands over box on the page as rendered (within a pixel).
func checkHighlight(t *testing.T, ctx context.Context, srv *serveProcess, step string, page int, box []float64) {
	t.Helper()
	type rects struct {
		Surface, Highlight [4]float64
		Page               string
	}
	js := `(() => {
		const r = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; };
		const h = document.querySelector('[data-testid="evidence-highlight"]');
		const s = h && h.closest('[data-testid="page-surface"]');
		return s && s.getBoundingClientRect().width > 0 ? {Surface: r(s), Highlight: r(h), Page: h.dataset.page} : null;
	})()`
	var got *rects
	waitFor(t, ctx, srv, step, chromedp.Evaluate[*rects](js),
		func(r *rects) bool { got = r; return r != nil },
		func(*rects) string { return "no page surface with a highlight" })
	s, h := got.Surface, got.Highlight
	want := [4]float64{s[0] + box[0]*s[2], s[1] + box[1]*s[3], (box[2] - box[0]) * s[2], (box[3] - box[1]) * s[3]}
	for i := range want {
		if math.Abs(h[i]-want[i]) > 1 {
			t.Fatalf("%s: highlight at %v, want %v (page surface %v, box %v)", step, h, want, s, box)
		}
	}
	if got.Page != fmt.Sprint(page) {
		t.Errorf("%s: highlight on page %s, want %d", step, got.Page, page)
	}
}

// citeOf finds, in the tool results among messages, the number (`cite`)
// of the first citable result of the document named name; 0 when none.
func citeOf(messages []json.RawMessage, name string) int {
	for i := len(messages) - 1; i >= 0; i-- {
		var m struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}
		if json.Unmarshal(messages[i], &m) != nil || m.Role != "tool" {
			continue
		}
		var body any
		if json.Unmarshal([]byte(m.Content), &body) != nil {
			continue
		}
		if n := findCite(body, name); n > 0 {
			return n
		}
	}
	return 0
}

func findCite(v any, name string) int {
	switch x := v.(type) {
	case map[string]any:
		if n, ok := x["cite"].(float64); ok {
			// A search hit names its document document_name, a citation document.
			for _, key := range []string{"document", "document_name"} {
				if doc, _ := x[key].(string); doc == name {
					return int(n)
				}
			}
		}
		for _, c := range x {
			if n := findCite(c, name); n > 0 {
				return n
			}
		}
	case []any:
		for _, c := range x {
			if n := findCite(c, name); n > 0 {
				return n
			}
		}
	}
	return 0
}
