package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/artifacts"
	"github.com/docent/docent/app/internal/testcorpus"
)

const invoicePDF = "AmazonWebServices.pdf"

// invoiceSchema is the schema the scripted agent proposes.
const invoiceSchema = `{"type":"object","properties":{"invoice_number":{"type":"string"},"total":{"type":"number"}},"required":["invoice_number","total"],"additionalProperties":false}`

// TestBrowserAgentWorkflow is a new user's first session in the browser:
// open the printed link, upload a corpus invoice, read its pages, ask the
// agent for a schema and an extraction, approve one proposal and reject
// another, watch the extraction fill in, reload, and @-mention the schema.
func TestBrowserAgentWorkflow(t *testing.T) {
	corpus := testcorpus.Dir(t)
	model := modeltest.New(t)
	srv := startServe(t, t.TempDir(), "OLLAMA_HOST="+model.OllamaURL(), "DOCENT_MODEL=ollama/qwen3:8b")
	ctx := newBrowser(t)
	shots := &shooter{t: t, dir: artifacts.Dir(t)}

	// The printed link signs the browser in and lands on the documents.
	do(t, ctx, srv, "open the printed URL", chromedp.Navigate(srv.URL), chromedp.WaitVisible(tid("auto-create")))
	if u, _ := chromedp.Run(ctx, chromedp.Location()); strings.Contains(u, "token=") {
		t.Errorf("the token stayed in the address bar: %s", u)
	}
	shots.shot(ctx, "documents-empty")

	// Upload through the file picker.
	do(t, ctx, srv, "upload the invoice",
		chromedp.SetUploadFiles(tid("upload-input"), []string{filepath.Join(corpus, "invoice2data", invoicePDF)}),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="doc-row"]`)),
	)
	rowText := get(t, ctx, srv, "read the row", chromedp.Text(tid("doc-row")))
	if !strings.Contains(rowText, invoicePDF) {
		t.Errorf("the document row reads %q", rowText)
	}
	shots.shot(ctx, "documents-uploaded")

	// Open it: the PDF renders, page by page.
	do(t, ctx, srv, "open the document", chromedp.Click(tid("doc-row")), chromedp.WaitVisible(tid("pdf-canvas")), chromedp.WaitVisible(tid("page-indicator")))
	waitText(t, ctx, srv, "page indicator", tid("page-indicator"), "1")
	shots.shot(ctx, "document-page")

	// Ask the agent. Round 0 thinks, writes, and proposes two schemas.
	model.Enqueue(modeltest.Reply{
		Thinking:   "This is an AWS invoice; a schema needs the number and the total.",
		Text:       "I will create a schema for this invoice.",
		TokenDelay: 5 * time.Millisecond,
		ToolCalls: []modeltest.ToolCall{
			{ID: "c1", Name: "create_schema", Arguments: `{"name":"Invoice","response_format":` + invoiceSchema + `}`},
			{ID: "c2", Name: "create_schema", Arguments: `{"name":"Invoice copy","response_format":` + invoiceSchema + `}`},
		},
	})
	do(t, ctx, srv, "open the agent tab", chromedp.Click(tid("tab-agent")), chromedp.WaitVisible(tid("chat-input")))
	do(t, ctx, srv, "send a message",
		chromedp.SendKeys(tid("chat-input"), "Create a schema for this invoice and extract it"),
		chromedp.Click(tid("send-button")),
		chromedp.WaitVisible(tid("thinking-block")),
		chromedp.WaitVisible(tid("approve-button")),
	)
	waitText(t, ctx, srv, "streamed text", tid("messages"), "I will create a schema for this invoice.")
	shots.shot(ctx, "approval-cards")

	// A reload while the turn waits keeps the proposals decidable.
	do(t, ctx, srv, "reload while paused", chromedp.Reload(), chromedp.WaitVisible(tid("tab-agent")), chromedp.Click(tid("tab-agent")),
		chromedp.WaitVisible(card("c1", "approve-button")), chromedp.WaitVisible(card("c2", "reject-button")))

	// Approve the first card, reject the second; the turn goes on: a
	// prompt (approved), the extraction (approved), the answer.
	model.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "c3", Name: "create_prompt",
		Arguments: `{"name":"Invoice prompt","content":"Extract the invoice number and the total.","schema_id":"Invoice"}`}}})
	do(t, ctx, srv, "approve the first, reject the second",
		chromedp.Click(card("c1", "approve-button")),
		chromedp.Click(card("c2", "reject-button")),
		chromedp.WaitVisible(card("c3", "approve-button")),
	)
	waitAttr(t, ctx, srv, "first card ran", card("c1", ""), "data-status", "success")
	waitAttr(t, ctx, srv, "second card rejected", card("c2", ""), "data-status", "rejected")
	shots.shot(ctx, "prompt-proposed")

	model.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "c4", Name: "run_extraction", Arguments: `{"prompt_revid":"Invoice prompt"}`}}})
	do(t, ctx, srv, "approve the prompt", chromedp.Click(card("c3", "approve-button")), chromedp.WaitVisible(card("c4", "approve-button")))
	model.Enqueue(
		modeltest.Reply{Text: `{"invoice_number": "42183017", "total": 4.11}`}, // the extraction's own model call
		modeltest.Reply{Text: "Extracted: invoice **42183017**, total 4.11. See [the schema](schema:Invoice)."},
	)
	do(t, ctx, srv, "approve the extraction", chromedp.Click(card("c4", "approve-button")))
	waitText(t, ctx, srv, "final answer", tid("messages"), "Extracted: invoice 42183017, total 4.11.")
	shots.shot(ctx, "answered")
	do(t, ctx, srv, "open the extraction tab", chromedp.Click(tid("tab-extraction")), chromedp.WaitVisible(tid("extraction-panel")))
	waitText(t, ctx, srv, "extraction panel", tid("extraction-panel"), "42183017")
	shots.shot(ctx, "extracted")

	// Only the approved schema exists.
	schemas := apiGet[struct {
		Schemas []struct{ Name string } `json:"schemas"`
	}](t, srv, "/api/schemas")
	if len(schemas.Schemas) != 1 || schemas.Schemas[0].Name != "Invoice" {
		t.Errorf("schemas after the decisions: %+v", schemas.Schemas)
	}

	// A reload shows the same conversation.
	do(t, ctx, srv, "reload", chromedp.Reload(), chromedp.WaitVisible(tid("tab-agent")), chromedp.Click(tid("tab-agent")))
	waitText(t, ctx, srv, "thread after reload", tid("messages"), "Create a schema for this invoice and extract it")
	waitText(t, ctx, srv, "answer after reload", tid("messages"), "Extracted: invoice 42183017")
	shots.shot(ctx, "reloaded")

	// An @-mention picks the schema and reaches the model as a mention.
	model.Enqueue(modeltest.Reply{Text: "The schema has two fields."})
	do(t, ctx, srv, "mention the schema",
		chromedp.SendKeys(tid("chat-input"), "What fields does @Inv"),
		chromedp.WaitVisible(tid("mention-menu")),
	)
	shots.shot(ctx, "mention-menu")
	do(t, ctx, srv, "pick and send",
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(tid("mention-chips")),
		chromedp.SendKeys(tid("chat-input"), " have?"),
		chromedp.Click(tid("send-button")),
	)
	waitText(t, ctx, srv, "mention answer", tid("messages"), "The schema has two fields.")
	reqs := model.Requests()
	sys := reqs[len(reqs)-1].Messages[0]
	if !strings.Contains(string(sys), "Mentioned by the user") || !strings.Contains(string(sys), `Schema \"Invoice\"`) {
		t.Errorf("the last model call's system message has no resolved mention:\n%s", clip(string(sys), 400))
	}
	shots.shot(ctx, "mention-answered")
}

// card selects a tool card by call id, or an element inside it by testid.
func card(callID, inner string) chromedp.CSS {
	sel := fmt.Sprintf(`[data-testid="tool-card"][data-call-id=%q]`, callID)
	if inner != "" {
		sel += fmt.Sprintf(` [data-testid=%q]`, inner)
	}
	return chromedp.CSS(sel)
}

// waitAttr waits until the element's attribute has the value want.
func waitAttr(t *testing.T, ctx context.Context, srv *serveProcess, step string, sel chromedp.CSS, name, want string) {
	t.Helper()
	waitFor(t, ctx, srv, step, chromedp.AttributeValue(sel, name), func(got chromedp.AttributeResult) bool { return got.Value == want },
		func(got chromedp.AttributeResult) string {
			return fmt.Sprintf("%s %s = %q, want %q", sel, name, got.Value, want)
		})
}

// waitText waits until the element's text contains want.
func waitText(t *testing.T, ctx context.Context, srv *serveProcess, step string, sel chromedp.CSS, want string) {
	t.Helper()
	waitFor(t, ctx, srv, step, chromedp.Text(sel), func(got string) bool { return strings.Contains(got, want) },
		func(got string) string {
			return fmt.Sprintf("%s reads %q, want it to contain %q", sel, clip(got, 500), want)
		})
}

// waitFor polls action until ok holds of its value, failing the step with
// describe's account of the last value after stepTimeout. Each poll has a
// short deadline of its own, as an element that is not there yet would
// otherwise block it.
func waitFor[T any](t *testing.T, ctx context.Context, srv *serveProcess, step string, action chromedp.Action[T], ok func(T) bool, describe func(T) string) {
	t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		actx, cancel := context.WithTimeout(ctx, 2*time.Second)
		got, err := chromedp.Run(actx, action)
		cancel()
		if err == nil && ok(got) {
			return
		}
		if time.Now().After(deadline) {
			failStep(t, ctx, srv, step, fmt.Errorf("%s (%v)", describe(got), err))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// apiGet reads an API route with the access token.
func apiGet[T any](t *testing.T, srv *serveProcess, path string) T {
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
	var v T
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return v
}

// TestBrowserAutoCreateReview uploads a document with auto-create on, waits
// for the agent's proposal, opens the run's conversation, and accepts.
func TestBrowserAutoCreateReview(t *testing.T) {
	corpus := testcorpus.Dir(t)
	model := modeltest.New(t)
	srv := startServe(t, t.TempDir(), "OLLAMA_HOST="+model.OllamaURL(), "DOCENT_MODEL=ollama/qwen3:8b")
	ctx := newBrowser(t)
	shots := &shooter{t: t, dir: artifacts.Dir(t)}
	model.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "a1", Name: "create_schema", Arguments: `{"name":"Invoice","response_format":` + invoiceSchema + `}`}}},
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "a2", Name: "create_prompt", Arguments: `{"name":"Invoice prompt","content":"Extract the invoice number and the total.","schema_id":"Invoice"}`}}},
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "a3", Name: "run_extraction", Arguments: `{"prompt_revid":"Invoice prompt"}`}}},
		modeltest.Reply{Text: `{"invoice_number": "42183017", "total": 4.11}`},
		modeltest.Reply{Text: "I proposed a schema, a prompt and an extraction."},
	)

	do(t, ctx, srv, "open the printed URL", chromedp.Navigate(srv.URL), chromedp.WaitVisible(tid("auto-create")))
	do(t, ctx, srv, "upload with auto-create",
		chromedp.Click(tid("auto-create")),
		chromedp.SetUploadFiles(tid("upload-input"), []string{filepath.Join(corpus, "invoice2data", invoicePDF)}),
		chromedp.WaitVisible(tid("doc-row")),
		chromedp.Click(tid("doc-row")),
	)
	waitAttr(t, ctx, srv, "the proposal", tid("auto-create-status"), "data-status", "proposed")
	shots.shot(ctx, "proposed")

	do(t, ctx, srv, "refine in chat", chromedp.Click(tid("auto-create-refine")))
	waitText(t, ctx, srv, "the run's conversation", tid("messages"), "Analyze this document.")
	waitText(t, ctx, srv, "the run's answer", tid("messages"), "I proposed a schema, a prompt and an extraction.")
	do(t, ctx, srv, "the proposed extraction", chromedp.Click(tid("tab-extraction")), chromedp.WaitVisible(tid("export-csv")))
	waitText(t, ctx, srv, "extraction value", tid("extraction-panel"), "42183017")
	shots.shot(ctx, "proposal-extraction")

	do(t, ctx, srv, "accept", chromedp.Click(tid("auto-create-accept")), chromedp.WaitNotPresent(tid("auto-create-status")))
	type documentList struct {
		Documents []struct {
			AutoCreateStatus string `json:"auto_create_status"`
		} `json:"documents"`
	}
	docs := apiGet[documentList](t, srv, "/api/documents")
	if len(docs.Documents) != 1 || docs.Documents[0].AutoCreateStatus != "accepted" {
		t.Errorf("documents after accept: %+v", docs.Documents)
	}
	shots.shot(ctx, "accepted")
}
