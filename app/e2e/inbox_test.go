package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/artifacts"
	"github.com/docent/docent/app/internal/testcorpus"
)

// inboxSettings is GET /api/settings/inbox's answer.
type inboxSettings struct {
	Folder           string   `json:"folder"`
	After            string   `json:"after"`
	TagSubfolders    bool     `json:"tag_subfolders"`
	Ignore           []string `json:"ignore"`
	StabilitySeconds float64  `json:"stability_seconds"`
	Poll             string   `json:"poll"`
	Source           string   `json:"source"`
}

// autoCreateScript answers the auto-create run of one invoice: the agent's
// turns propose a schema, a prompt and an extraction, and the extraction's
// own call (the one without tools) gives the values. The turn that would
// run the extraction waits for release, so a test can open the kind's data
// page before its row exists.
func autoCreateScript(release <-chan struct{}) func(modeltest.Request) modeltest.Reply {
	return func(req modeltest.Request) modeltest.Reply {
		if len(req.Tools) == 0 {
			return modeltest.Reply{Text: `{"invoice_number": "42183017", "total": 4.11}`}
		}
		results := 0
		for _, m := range req.Messages {
			var msg struct {
				Role string `json:"role"`
			}
			if json.Unmarshal(m, &msg) == nil && msg.Role == "tool" {
				results++
			}
		}
		switch results {
		case 0:
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "i1", Name: "create_schema", Arguments: `{"name":"Invoice","response_format":` + invoiceSchema + `}`}}}
		case 1:
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "i2", Name: "create_prompt", Arguments: `{"name":"Invoice prompt","content":"Extract the invoice number and the total.","schema_id":"Invoice"}`}}}
		case 2:
			<-release
			return modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "i3", Name: "run_extraction", Arguments: `{"prompt_revid":"Invoice prompt"}`}}}
		default:
			return modeltest.Reply{Text: "I proposed a schema, a prompt and an extraction."}
		}
	}
}

// waitAPI polls a condition on the server's API until it holds, failing
// with what was seen last after stepTimeout.
func waitAPI(t *testing.T, srv *serveProcess, step string, check func() (ok bool, seen string)) {
	t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		ok, seen := check()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: timed out after %s; last seen: %s\nserver log:\n%s", step, stepTimeout, seen, clip(srv.Log(), 3000))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestBrowserInbox sets the inbox folder in Settings (a folder that does
// not exist is refused on its field and nothing is stored), drops a corpus
// invoice into a subfolder of it, and follows the file on the Inbox page
// without a reload: it appears, gets its subfolder's tag, and its
// document goes through auto-create with the scripted model. The kind's
// data page, opened while the run waits for the model, shows the row when
// the extraction is stored, again without a reload. Axe finds nothing on
// the Settings card and the Inbox page, in light and dark.
func TestBrowserInbox(t *testing.T) {
	corpus := testcorpus.Dir(t)
	model := modeltest.New(t)
	release := make(chan struct{})
	var once sync.Once
	releaseRun := func() { once.Do(func() { close(release) }) }
	t.Cleanup(releaseRun) // a failed test must not leave the model's handler waiting
	model.Handle(autoCreateScript(release))
	srv := startServe(t, t.TempDir(), "OLLAMA_HOST="+model.OllamaURL(), "DOCENT_MODEL=ollama/qwen3:8b", "DOCENT_EMBED_MODEL=")
	ctx := newBrowser(t)
	shots := &shooter{t: t, dir: artifacts.Dir(t)}
	folder := t.TempDir()

	do(t, ctx, srv, "open the printed URL", chromedp.Navigate(srv.URL), chromedp.WaitVisible(tid("nav-settings")))
	do(t, ctx, srv, "open Settings", chromedp.Click(tid("nav-settings")), chromedp.WaitVisible(tid("inbox-folder")))

	// A folder that does not exist is refused, on the folder's field, and nothing is stored.
	missing := filepath.Join(folder, "missing")
	do(t, ctx, srv, "type a folder that does not exist", setInput(`[data-testid="inbox-folder"]`, missing), chromedp.Click(tid("inbox-save")))
	waitText(t, ctx, srv, "the refusal on the folder's field", tid("inbox-field-error"), "missing")
	waitAttr(t, ctx, srv, "the field marked invalid", tid("inbox-folder"), "aria-invalid", "true")
	if got := apiGet[inboxSettings](t, srv, "/api/settings/inbox"); got.Folder != "" {
		t.Errorf("a refused folder was stored: %+v", got)
	}

	// The real folder, with a stability delay of 1 s.
	do(t, ctx, srv, "type the folder and a delay",
		setInput(`[data-testid="inbox-folder"]`, folder),
		setInput(`[data-testid="inbox-stability"]`, "1"),
		chromedp.Click(tid("inbox-save")))
	waitText(t, ctx, srv, "saved", tid("inbox-saved"), "Saved.")
	stored := apiGet[inboxSettings](t, srv, "/api/settings/inbox")
	if stored.Folder != folder || stored.StabilitySeconds != 1 || stored.Source != "settings" || stored.After != "keep" || !stored.TagSubfolders {
		t.Errorf("GET /api/settings/inbox after the form: %+v", stored)
	}
	auditPage(t, ctx, srv, shots, "inbox-settings", func(t *testing.T) {
		do(t, ctx, srv, "the inbox card", chromedp.WaitVisible(tid("inbox-settings")))
	})

	// The Inbox page, from the navigation: the folder is watched, nothing came yet.
	do(t, ctx, srv, "open Inbox", chromedp.Click(tid("nav-inbox")), chromedp.WaitVisible(tid("inbox-folder-state")))
	waitText(t, ctx, srv, "the folder is watched", tid("inbox-folder-state"), folder)
	do(t, ctx, srv, "no files yet", chromedp.WaitVisible(tid("inbox-empty")))
	// A mark on the page: gone if anything reloads it.
	do(t, ctx, srv, "mark the page", chromedp.Evaluate[chromedp.Void](`window.__sameInboxPage = true`))

	// A corpus invoice arrives in a subfolder, written under a partial
	// download's name (ignored) and renamed once whole, as browsers do.
	if err := os.MkdirAll(filepath.Join(folder, "travel"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(corpus, "invoice2data", invoicePDF))
	if err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(folder, "travel", invoicePDF+".part")
	if err := os.WriteFile(part, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(part, filepath.Join(folder, "travel", invoicePDF)); err != nil {
		t.Fatal(err)
	}
	fileSel := fmt.Sprintf(`[data-testid="inbox-file"][data-rel=%q]`, "travel/"+invoicePDF)
	waitCount(t, ctx, srv, "the file on the Inbox page", fileSel, 1)
	waitText(t, ctx, srv, "its subfolder's tag", chromedp.CSS(fileSel), "tags travel")

	// Auto-create proposes the kind; its run waits for the model before it extracts.
	var schemaID string
	waitAPI(t, srv, "the proposed kind", func() (bool, string) {
		schemas := apiGet[struct {
			Schemas []struct {
				SchemaID string `json:"schema_id"`
				Name     string `json:"name"`
			} `json:"schemas"`
		}](t, srv, "/api/schemas")
		for _, s := range schemas.Schemas {
			if s.Name == "Invoice" {
				schemaID = s.SchemaID
				return true, ""
			}
		}
		return false, fmt.Sprintf("schemas %+v", schemas.Schemas)
	})
	var docID string
	waitFor(t, ctx, srv, "the file's document", chromedp.AttributeValue(chromedp.CSS(fileSel), "data-document-id"),
		func(got chromedp.AttributeResult) bool {
			docID = got.Value
			return strings.HasPrefix(got.Value, "doc_")
		},
		func(got chromedp.AttributeResult) string {
			return fmt.Sprintf("the file's row names document %q", got.Value)
		})
	if ok := get(t, ctx, srv, "the page was not reloaded", chromedp.Evaluate[bool](`window.__sameInboxPage === true`)); !ok {
		t.Error("the Inbox page was reloaded while the file arrived")
	}
	shots.shot(ctx, "inbox-file")
	auditPage(t, ctx, srv, shots, "inbox", func(t *testing.T) { do(t, ctx, srv, "the files", chromedp.WaitVisible(chromedp.CSS(fileSel))) })

	// The kind's data page, before its row exists.
	do(t, ctx, srv, "open the kind's data page", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = %q`, "#/data/"+schemaID)), chromedp.WaitVisible(tid("data-page")))
	waitAttr(t, ctx, srv, "no row yet", tid("data-total"), "data-total", "0")
	do(t, ctx, srv, "mark the data page", chromedp.Evaluate[chromedp.Void](`window.__sameDataPage = true`))
	releaseRun()
	waitCount(t, ctx, srv, "the row appears", string(rowSel(docID)), 1)
	waitText(t, ctx, srv, "its values", cellSel(docID, "invoice_number"), "42183017")
	if ok := get(t, ctx, srv, "the page was not reloaded", chromedp.Evaluate[bool](`window.__sameDataPage === true`)); !ok {
		t.Error("the data page was reloaded to show the row")
	}
	shots.shot(ctx, "data-row")

	// Back on the Inbox page the file links to its row.
	do(t, ctx, srv, "back to Inbox", chromedp.Click(tid("nav-inbox")), chromedp.WaitVisible(chromedp.CSS(fileSel)))
	do(t, ctx, srv, "the link to its row", chromedp.WaitVisible(chromedp.CSS(fileSel+` [data-testid="inbox-row-link"]`)))
	waitText(t, ctx, srv, "its kind", chromedp.CSS(fileSel+` [data-testid="inbox-kind"]`), "Invoice")
	href := get(t, ctx, srv, "the row link", chromedp.AttributeValue(chromedp.CSS(fileSel+` [data-testid="inbox-row-link"]`), "href")).Value
	if href != "#/data/"+schemaID {
		t.Errorf("the row link goes to %q, want #/data/%s", href, schemaID)
	}
	shots.shot(ctx, "inbox-done")
}
