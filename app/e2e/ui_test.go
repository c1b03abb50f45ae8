package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/artifacts"
	"github.com/docent/docent/app/internal/testcorpus"
)

// uiField is one field of the long schema the scripted agent proposes.
type uiField struct{ name, typ, desc string }

// longFields are thirty fields: a schema whose card is taller than the
// conversation, so that Approve must stay in view by itself.
var longFields = []uiField{
	{"invoice_number", "string", "The invoice's number, as printed"},
	{"invoice_date", "string", "Date of issue, YYYY-MM-DD"},
	{"due_date", "string", ""},
	{"billing_period_start", "string", ""},
	{"billing_period_end", "string", ""},
	{"account_number", "string", "The customer's account number"},
	{"currency", "string", "ISO 4217 code"},
	{"seller_name", "string", ""},
	{"seller_address", "string", ""},
	{"seller_vat_id", "string", ""},
	{"seller_email", "string", ""},
	{"buyer_name", "string", ""},
	{"buyer_address", "string", ""},
	{"buyer_vat_id", "string", ""},
	{"purchase_order", "string", ""},
	{"payment_terms", "string", ""},
	{"payment_method", "string", ""},
	{"iban", "string", ""},
	{"bic", "string", ""},
	{"subtotal", "number", ""},
	{"tax_rate", "number", ""},
	{"tax_amount", "number", ""},
	{"discount", "number", ""},
	{"shipping", "number", ""},
	{"total", "number", "The total to pay, tax included"},
	{"amount_paid", "number", ""},
	{"amount_due", "number", ""},
	{"notes", "string", ""},
	{"reference", "string", ""},
	{"page_count", "integer", ""},
}

// longSchema is the JSON Schema of longFields, in their order, all required.
func longSchema() string {
	var props, req []string
	for _, f := range longFields {
		p := fmt.Sprintf(`%q:{"type":%q`, f.name, f.typ)
		if f.desc != "" {
			p += fmt.Sprintf(`,"description":%q`, f.desc)
		}
		props = append(props, p+"}")
		req = append(req, fmt.Sprintf("%q", f.name))
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `],"additionalProperties":false}`
}

// longValue is what the scripted model extracts with the schema whose
// field total was renamed to newTotal.
func longValue(newTotal string) string {
	v := map[string]any{}
	for _, f := range longFields {
		name := f.name
		if name == "total" {
			name = newTotal
		}
		switch f.typ {
		case "number":
			v[name] = 0.0
		case "integer":
			v[name] = 1
		default:
			v[name] = ""
		}
	}
	for k, s := range map[string]string{
		"invoice_number": "42183017", "invoice_date": "2014-08-03", "due_date": "2014-08-03", "account_number": "296664039561",
		"billing_period_start": "2014-07-01", "billing_period_end": "2014-07-31", "currency": "USD",
		"seller_name": "Amazon Web Services", "buyer_name": "iViveLabs Limited", "buyer_address": "93B Sai Yu Chung, Yuen Long, N.T., HK",
	} {
		v[k] = s
	}
	v[newTotal], v["subtotal"], v["amount_due"] = 4.11, 4.11, 4.11
	b, _ := json.Marshal(v)
	return string(b)
}

// schemaFields are the property names of a stored response_format (a
// bare JSON Schema or one inside json_schema.schema).
func schemaFields(rf json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		JSONSchema *struct {
			Schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schema"`
		} `json:"json_schema"`
	}
	_ = json.Unmarshal(rf, &s)
	props := s.Properties
	if s.JSONSchema != nil {
		props = s.JSONSchema.Schema.Properties
	}
	var names []string
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// TestBrowserUI checks what a person does in the UI, in one session of one server
// and one browser, step by step (each step a subtest; a step that cannot
// finish skips the ones after it, whose state it makes):
//
//   - a proposal: the scripted agent proposes a schema of thirty fields;
//     its card shows them as a table, Approve stays inside the window (also
//     with the card's top scrolled to the top), and on a phone the composer
//     and Approve are in the window too;
//   - an edited proposal: the field table form renames a field, approval
//     runs the edit (the stored schema has the new name), then a prompt is
//     approved, a tag rejected (two clicks in a row on two cards), and the
//     extraction approved and answered;
//   - no raw ids in the visible text of the extraction panel, the tool
//     cards and the prompt page;
//   - every page (documents, document with a card, data view, schemas,
//     prompts, settings; and the proposal's edit form and the extraction
//     tab) screenshotted in light and dark, each checked by axe-core in
//     both (serious and critical violations fail; without axe-core these
//     checks skip, or fail when CI=true);
//   - a failed extraction, the model server gone: the error names the
//     model server and offers Settings.
func TestBrowserUI(t *testing.T) {
	pdf := filepath.Join(testcorpus.Dir(t), "invoice2data", invoicePDF)
	// Neither docent nor Chromium (both take this process's environment)
	// writes to the real home folder.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	model := modeltest.New(t)
	srv := startServe(t, t.TempDir(), "OLLAMA_HOST="+model.OllamaURL(), "DOCENT_MODEL=ollama/qwen3:8b")
	ctx := newBrowser(t)
	shots := &shooter{t: t, dir: artifacts.Dir(t)}

	// Each step is a subtest; one that stops half way leaves no state for
	// the next, which then skip.
	broken := ""
	step := func(name string, f func(t *testing.T)) {
		t.Helper()
		t.Run(name, func(st *testing.T) {
			if broken != "" {
				st.Skipf("step %q stopped before its end", broken)
			}
			shots.t = st
			finished := false
			defer func() {
				shots.t = t
				if !finished {
					broken = name
				}
			}()
			f(st)
			finished = true
		})
	}

	// The state the steps share.
	var docID, schemaID, promptID, promptRevID string
	goTo := func(t *testing.T, hash string, ready chromedp.Action[chromedp.Void]) {
		t.Helper()
		do(t, ctx, srv, "go to "+hash, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = %q`, hash)), ready)
	}

	step("open and upload", func(t *testing.T) {
		do(t, ctx, srv, "open the printed URL", chromedp.Navigate(srv.URL), chromedp.WaitVisible(tid("auto-create")))
		do(t, ctx, srv, "upload the invoice", chromedp.SetUploadFiles(tid("upload-input"), []string{pdf}))
		waitCount(t, ctx, srv, "the invoice listed", `[data-testid="doc-row"]`, 1)
		docs := apiGet[struct {
			Documents []struct {
				ID string `json:"id"`
			} `json:"documents"`
		}](t, srv, "/api/documents")
		if len(docs.Documents) != 1 {
			t.Fatalf("documents after the upload: %+v", docs.Documents)
		}
		docID = docs.Documents[0].ID
		goTo(t, "#/documents/"+docID, chromedp.WaitVisible(tid("page-indicator")))
		waitText(t, ctx, srv, "the document is ready", tid("doc-status"), "ready")
	})

	c1 := string(card("c1", ""))
	step("readable proposal", func(t *testing.T) {
		model.Enqueue(modeltest.Reply{
			Text:      "Here is a schema with every field an AWS invoice has.",
			ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "create_schema", Arguments: `{"name":"Invoice","response_format":` + longSchema() + `}`}},
		})
		do(t, ctx, srv, "ask the agent",
			chromedp.Click(tid("tab-agent")),
			chromedp.WaitVisible(tid("chat-input")),
			chromedp.SendKeys(tid("chat-input"), "Create a schema for this invoice and extract it"),
			chromedp.Click(tid("send-button")),
			chromedp.WaitVisible(card("c1", "approve-button")),
			chromedp.WaitVisible(card("c1", "proposal-summary")),
		)
		// The fields, as a table, in the schema's order.
		var want []string
		for _, f := range longFields {
			want = append(want, f.name)
		}
		waitFor(t, ctx, srv, "the fields as a table", chromedp.Evaluate[[]string](fmt.Sprintf(
			`[...document.querySelectorAll('%s [data-testid="proposal-summary"] [data-testid="proposal-field-row"]')].map(r => r.dataset.field)`, c1)),
			func(got []string) bool { return slices.Equal(got, want) },
			func(got []string) string {
				return fmt.Sprintf("the card's field rows are %q, want the %d fields %q", got, len(want), want)
			})
		row := get(t, ctx, srv, "read the total's row", chromedp.Text(chromedp.CSS(c1+` [data-testid="proposal-field-row"][data-field="total"]`)))
		for _, w := range []string{"total", "number", "required", "The total to pay, tax included"} {
			if !strings.Contains(row, w) {
				t.Errorf("the total's row reads %q, want it to show %q", row, w)
			}
		}

		// Approve is in the window as the card arrives, and still when the
		// card's top is scrolled to the top of the conversation.
		approve := c1 + ` [data-testid="approve-button"]`
		waitInViewport(t, ctx, srv, "Approve in view as the card arrives", approve)
		tall := get(t, ctx, srv, "scroll to the card's top", chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => {
			const c = document.querySelector(%q), s = c.closest('.agent-scroll');
			c.scrollIntoView({block: 'start'});
			return [c.getBoundingClientRect().height, s ? s.clientHeight : innerHeight];
		})()`, c1)))
		if tall[0] <= tall[1] {
			t.Errorf("the card of thirty fields is %.0fpx tall, no taller than the conversation (%.0fpx): Approve in view proves nothing", tall[0], tall[1])
		}
		waitInViewport(t, ctx, srv, "Approve in view with the card's top at the top", approve)
		shots.shot(ctx, "proposal-top")

		// The document page with the card waiting: light and dark, axe in both.
		auditPage(t, ctx, srv, shots, "document-with-card", func(t *testing.T) {
			do(t, ctx, srv, "the card waits", chromedp.WaitVisible(approve))
		})
	})

	step("phone", func(t *testing.T) {
		do(t, ctx, srv, "a phone's window (390×844)", chromedp.EmulateViewport(390, 844, chromedp.EmulatePortrait, chromedp.EmulateMobile))
		defer func() {
			do(t, ctx, srv, "back to the desktop window", clearViewport())
			waitFor(t, ctx, srv, "a wide window again", chromedp.Evaluate[int](`innerWidth`), func(w int) bool { return w > 820 },
				func(w int) string { return fmt.Sprintf("the window is %dpx wide", w) })
		}()
		waitFor(t, ctx, srv, "the phone's width", chromedp.Evaluate[int](`innerWidth`), func(w int) bool { return w == 390 },
			func(w int) string { return fmt.Sprintf("the window is %dpx wide, want 390", w) })
		do(t, ctx, srv, "the agent shows", chromedp.WaitVisible(tid("chat-input")))
		waitInViewport(t, ctx, srv, "the composer in the window", ".composer")
		waitInViewport(t, ctx, srv, "the message box in the window", `[data-testid="chat-input"]`)
		waitInViewport(t, ctx, srv, "Approve in the window", c1+` [data-testid="approve-button"]`)
		shots.shot(ctx, "phone-document")
	})

	step("edited proposal runs", func(t *testing.T) {
		do(t, ctx, srv, "open the form", chromedp.Click(card("c1", "edit-args-button")), chromedp.WaitVisible(card("c1", "proposal-editor")))
		name := c1 + ` [data-testid="field-edit-row"][data-field="total"] [data-testid="field-name"]`
		do(t, ctx, srv, "rename total",
			chromedp.WaitVisible(chromedp.CSS(name)),
			chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.focus(); e.select(); })()`, name)),
			chromedp.KeyEvent("total_amount"),
		)
		waitCount(t, ctx, srv, "the renamed row", c1+` [data-testid="field-edit-row"][data-field="total_amount"]`, 1)
		edited := c1 + ` [data-testid="approve-edited-button"]`
		waitFor(t, ctx, srv, "the edit can be approved", chromedp.Evaluate[string](fmt.Sprintf(`(() => {
			const p = document.querySelector('%s [data-testid="edit-problems"]'), b = document.querySelector(%q);
			return p ? 'problems: ' + p.innerText : !b ? 'no approve-edited button' : b.disabled ? 'the button is disabled' : '';
		})()`, c1, edited)), func(s string) bool { return s == "" }, func(s string) string { return s })
		// The form too: light and dark, axe in both.
		auditPage(t, ctx, srv, shots, "proposal-editor", func(t *testing.T) {
			do(t, ctx, srv, "the form", chromedp.WaitVisible(chromedp.CSS(edited)))
		})

		// Round 2 proposes a prompt and a tag; the prompt is approved, the tag rejected.
		model.Enqueue(modeltest.Reply{
			Text: "The schema is saved. Next, a prompt for it, and a tag for AWS invoices.",
			ToolCalls: []modeltest.ToolCall{
				{ID: "c2", Name: "create_prompt", Arguments: `{"name":"Invoice prompt","content":"Extract every field of the invoice; amounts as numbers.","schema_id":"Invoice"}`},
				{ID: "c3", Name: "create_tag", Arguments: `{"name":"aws","color":"#ff9900","description":"Invoices from Amazon Web Services"}`},
			},
		})
		clickStill(t, ctx, srv, "approve the edited schema", edited)
		do(t, ctx, srv, "the next proposals", chromedp.WaitVisible(card("c2", "approve-button")), chromedp.WaitVisible(card("c3", "reject-button")))
		waitAttr(t, ctx, srv, "the schema ran", card("c1", ""), "data-status", "success")

		// What ran is the edit: the stored schema has the new name.
		schemas := apiGet[struct {
			Schemas []struct {
				SchemaID       string          `json:"schema_id"`
				Name           string          `json:"name"`
				ResponseFormat json.RawMessage `json:"response_format"`
			} `json:"schemas"`
		}](t, srv, "/api/schemas")
		if len(schemas.Schemas) != 1 {
			t.Fatalf("schemas after the approval: %+v", schemas.Schemas)
		}
		fields := schemaFields(schemas.Schemas[0].ResponseFormat)
		if !slices.Contains(fields, "total_amount") || slices.Contains(fields, "total") || len(fields) != len(longFields) {
			t.Errorf("the stored schema's fields are %q: want the edit (total renamed total_amount) and %d fields\n%s", fields, len(longFields), schemas.Schemas[0].ResponseFormat)
		}
		schemaID = schemas.Schemas[0].SchemaID

		model.Enqueue(modeltest.Reply{ToolCalls: []modeltest.ToolCall{{ID: "c4", Name: "run_extraction", Arguments: `{"prompt_revid":"Invoice prompt"}`}}})
		clickStill(t, ctx, srv, "approve the prompt", string(card("c2", "approve-button")))
		clickStill(t, ctx, srv, "reject the tag", string(card("c3", "reject-button")))
		do(t, ctx, srv, "the extraction proposed", chromedp.WaitVisible(card("c4", "approve-button")))
		waitAttr(t, ctx, srv, "the tag rejected", card("c3", ""), "data-status", "rejected")
		model.Enqueue(
			modeltest.Reply{Text: longValue("total_amount")}, // the extraction's own model call
			// Streamed at a local model's pace (the README's picture shows its speed).
			modeltest.Reply{Text: "Extracted: invoice **42183017**, total 4.11 USD. See [the schema](schema:Invoice).",
				TokenDelay: 30 * time.Millisecond},
		)
		clickStill(t, ctx, srv, "approve the extraction", string(card("c4", "approve-button")))
		waitText(t, ctx, srv, "the answer", tid("messages"), "Extracted: invoice 42183017, total 4.11 USD. See the schema.")
		do(t, ctx, srv, "the turn ends", chromedp.WaitNotPresent(tid("stop-button")), chromedp.WaitVisible(tid("send-button")))
		waitAttr(t, ctx, srv, "the extraction ran", card("c4", ""), "data-status", "success")
		// The schema's card folded, the whole turn in view: the README's picture.
		// (A click by script: a mouse's lands wherever the conversation,
		// still scrolling to the answer, has moved the card.)
		do(t, ctx, srv, "fold the schema's card", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector('%s .tool-head').click()`, c1)))
		waitAttr(t, ctx, srv, "the card folded", chromedp.CSS(c1+` .tool-head`), "aria-expanded", "false")
		do(t, ctx, srv, "the end of the conversation", chromedp.Evaluate[chromedp.Void](`(s => s.scrollTop = s.scrollHeight)(document.querySelector('.agent-scroll'))`))
		shots.shot(ctx, "document-answered")

		prompts := apiGet[struct {
			Prompts []struct {
				PromptID    string `json:"prompt_id"`
				PromptRevID string `json:"prompt_revid"`
			} `json:"prompts"`
		}](t, srv, "/api/prompts")
		if len(prompts.Prompts) != 1 {
			t.Fatalf("prompts after the approval: %+v", prompts.Prompts)
		}
		promptID, promptRevID = prompts.Prompts[0].PromptID, prompts.Prompts[0].PromptRevID
	})

	rawID := regexp.MustCompile(rawIDPattern)
	step("no raw ids", func(t *testing.T) {
		noIDs := func(what, sel string) {
			t.Helper()
			ids, text := rawIDsIn(t, ctx, srv, sel)
			if len(ids) > 0 || rawID.MatchString(text) {
				t.Errorf("%s shows raw ids %q in its text:\n%s", what, ids, clip(text, 2000))
			}
		}
		noIDs("the conversation (tool cards)", `[data-testid="messages"]`)
		do(t, ctx, srv, "open the extraction tab", chromedp.Click(tid("tab-extraction")), chromedp.WaitVisible(tid("extraction-panel")))
		waitText(t, ctx, srv, "the extraction", tid("extraction-panel"), "42183017")
		noIDs("the extraction panel", `[data-testid="extraction-panel"]`)
		auditPage(t, ctx, srv, shots, "document-extraction", func(t *testing.T) {
			do(t, ctx, srv, "the extraction", chromedp.WaitVisible(tid("extraction-value")))
		})

		goTo(t, "#/prompts/"+promptID, chromedp.WaitVisible(tid("prompt-detail")))
		waitText(t, ctx, srv, "the prompt's schema", tid("prompt-schema-link"), "Invoice")
		noIDs("the prompt page", `main`)
	})

	step("pages light and dark", func(t *testing.T) {
		auditPage(t, ctx, srv, shots, "prompts", func(t *testing.T) {
			do(t, ctx, srv, "the prompt", chromedp.WaitVisible(tid("prompt-detail")))
		})
		goTo(t, "#/documents", chromedp.WaitVisible(tid("doc-row")))
		auditPage(t, ctx, srv, shots, "documents", func(t *testing.T) {
			do(t, ctx, srv, "the list", chromedp.WaitVisible(tid("doc-row")))
		})
		goTo(t, "#/data/"+schemaID, chromedp.WaitVisible(tid("data-grid")))
		waitCount(t, ctx, srv, "the document's row", `[data-testid="data-row"]`, 1)
		auditPage(t, ctx, srv, shots, "data-view", func(t *testing.T) {
			do(t, ctx, srv, "the row", chromedp.WaitVisible(tid("data-row")))
		})
		goTo(t, "#/schemas/"+schemaID, chromedp.WaitVisible(tid("schema-detail")))
		auditPage(t, ctx, srv, shots, "schemas", func(t *testing.T) {
			do(t, ctx, srv, "the schema", chromedp.WaitVisible(tid("schema-detail")))
		})
		goTo(t, "#/settings", chromedp.WaitVisible(tid("settings-save")))
		auditPage(t, ctx, srv, shots, "settings", func(t *testing.T) {
			do(t, ctx, srv, "the settings", chromedp.WaitVisible(tid("settings-save")))
		})
	})

	step("extraction error", func(t *testing.T) {
		model.Close() // the model server is gone: nothing answers at its address
		goTo(t, "#/documents/"+docID, chromedp.WaitVisible(tid("pdf-canvas")))
		do(t, ctx, srv, "open the extraction tab", chromedp.Click(tid("tab-extraction")), chromedp.WaitVisible(tid("extraction-prompt-select")))
		setSelect(t, ctx, srv, tid("extraction-prompt-select"), promptRevID)
		do(t, ctx, srv, "run the prompt", chromedp.Click(tid("run-extraction-button")))
		box := `[data-testid="extraction-panel"] [data-testid="error-box"]`
		do(t, ctx, srv, "the error", chromedp.WaitVisible(chromedp.CSS(box)))
		type errorBox struct{ Text, Kind, Link, LinkText string }
		got := get(t, ctx, srv, "read the error", chromedp.Evaluate[errorBox](fmt.Sprintf(`(() => {
			const b = document.querySelector(%q), l = b.querySelector('[data-testid="error-link"]');
			return {Text: b.innerText, Kind: b.dataset.kind || '', Link: l ? l.getAttribute('href') : '', LinkText: l ? l.innerText : ''};
		})()`, box)))
		shots.shot(ctx, "extraction-error")
		text := strings.ToLower(got.Text)
		if !strings.Contains(text, "model server") {
			t.Errorf("the error (kind %q) reads %q: want it to name the cause, the model server", got.Kind, got.Text)
		}
		if !strings.Contains(text, "try again") && !strings.Contains(text, "start it") {
			t.Errorf("the error reads %q: want the next step (start the server, try again)", got.Text)
		}
		if got.Link != "#/settings" || !strings.Contains(got.LinkText, "Settings") {
			t.Errorf("the error offers the link %q (%q), want Settings (#/settings); it reads %q", got.Link, got.LinkText, got.Text)
		}
	})
}
