package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/docent/docent/agent/modeltest"
)

// TestBrowserSchemaAndPromptPages walks the two pages of versioned
// artifacts as a person would: a schema made through the API is listed and
// shown; a prompt is created with the form, linked to it, edited into a
// second version whose first stays readable on its own page, named on the
// schema's page as its user, and deleted.
func TestBrowserSchemaAndPromptPages(t *testing.T) {
	model := modeltest.New(t)
	srv := startServe(t, t.TempDir(), "OLLAMA_HOST="+model.OllamaURL(), "DOCENT_MODEL=ollama/qwen3:8b")
	ctx := newBrowser(t)
	var schema struct {
		SchemaID string `json:"schema_id"`
	}
	apiSend(t, srv, http.MethodPost, "/api/schemas", map[string]any{"name": "Invoice", "response_format": json.RawMessage(dataSchema)}, &schema)
	goTo := func(hash string, ready chromedp.Action[chromedp.Void]) {
		t.Helper()
		do(t, ctx, srv, "go to "+hash, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = %q`, hash)), ready)
	}

	do(t, ctx, srv, "open the printed URL", chromedp.Navigate(srv.URL), chromedp.WaitVisible(tid("auto-create")))
	goTo("#/schemas", chromedp.WaitVisible(tid("schema-row")))
	waitText(t, ctx, srv, "the schema's row", tid("schema-row"), "Invoice v1")
	do(t, ctx, srv, "open the schema", chromedp.Click(tid("schema-row")), chromedp.WaitVisible(tid("schema-detail")))
	waitText(t, ctx, srv, "the schema's version", tid("schema-detail"), "Version 1")
	waitCount(t, ctx, srv, "the schema's one version", `[data-testid="schema-detail"] .revisions li`, 1)

	goTo("#/prompts", chromedp.WaitVisible(chromedp.CSS(`.artifact-list`)))
	waitText(t, ctx, srv, "no prompts", chromedp.CSS(`.artifact-list`), "No prompts yet.")
	do(t, ctx, srv, "open the form", chromedp.Click(tid("artifact-new")), chromedp.WaitVisible(tid("prompt-form")))
	do(t, ctx, srv, "fill the form",
		setInput(`[data-testid="prompt-name"]`, "Invoice prompt"),
		setInput(`[data-testid="prompt-content"]`, "Extract the invoice's number, seller, lines and total."))
	waitCount(t, ctx, srv, "the schema to choose", `[data-testid="prompt-schema"] option`, 2)
	setSelect(t, ctx, srv, tid("prompt-schema"), schema.SchemaID)
	do(t, ctx, srv, "create the prompt", chromedp.Click(tid("prompt-save")), chromedp.WaitVisible(tid("prompt-detail")))
	waitText(t, ctx, srv, "the prompt's schema", tid("prompt-schema-link"), "Invoice")
	waitText(t, ctx, srv, "the prompt's row", tid("prompt-row"), "Invoice prompt v1")

	do(t, ctx, srv, "edit the prompt", chromedp.Click(tid("prompt-edit")), chromedp.WaitVisible(tid("prompt-form")))
	do(t, ctx, srv, "rename it", setInput(`[data-testid="prompt-name"]`, "Invoice prompt, renamed"))
	do(t, ctx, srv, "save a new version", chromedp.Click(tid("prompt-save")), chromedp.WaitVisible(tid("prompt-detail")))
	waitText(t, ctx, srv, "the new version", tid("prompt-detail"), "Version 2")
	waitText(t, ctx, srv, "the renamed row", tid("prompt-row"), "Invoice prompt, renamed v2")
	waitCount(t, ctx, srv, "both versions listed", `[data-testid="prompt-detail"] .revisions li`, 2)

	do(t, ctx, srv, "open the first version", chromedp.Click(chromedp.CSS(`[data-testid="prompt-detail"] .revisions li:last-child a`)),
		chromedp.WaitVisible(tid("prompt-revision")))
	waitText(t, ctx, srv, "the first version's name", tid("prompt-revision"), "Invoice prompt")
	waitText(t, ctx, srv, "the first version's number", tid("prompt-revision"), "Version 1")
	waitText(t, ctx, srv, "the link to the latest", tid("prompt-revision"), "Latest version")

	goTo("#/schemas/"+schema.SchemaID, chromedp.WaitVisible(tid("schema-detail")))
	waitText(t, ctx, srv, "the schema's user", tid("schema-used-by"), "Invoice prompt, renamed")

	prompts := apiGet[struct {
		Prompts []struct {
			PromptID string `json:"prompt_id"`
		} `json:"prompts"`
	}](t, srv, "/api/prompts")
	if len(prompts.Prompts) != 1 {
		t.Fatalf("prompts after the form: %+v", prompts.Prompts)
	}
	goTo("#/prompts/"+prompts.Prompts[0].PromptID, chromedp.WaitVisible(tid("prompt-detail")))
	do(t, ctx, srv, "delete the prompt", chromedp.Click(chromedp.CSS(`[data-testid="prompt-detail"] .btn.danger`)))
	waitCount(t, ctx, srv, "no prompt rows", `[data-testid="prompt-row"]`, 0)
	waitText(t, ctx, srv, "no prompts again", chromedp.CSS(`.artifact-list`), "No prompts yet.")
	if left := apiGet[struct {
		Total int `json:"total"`
	}](t, srv, "/api/prompts"); left.Total != 0 {
		t.Errorf("prompts after the delete: %d, want 0", left.Total)
	}
}
