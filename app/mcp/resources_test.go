package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docent/docent/storage"
)

func (f *fixture) read(t *testing.T, uri string) (string, error) {
	t.Helper()
	res, err := f.client.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	if len(res.Contents) != 1 {
		t.Fatalf("%s: %d contents", uri, len(res.Contents))
	}
	return res.Contents[0].Text, nil
}

// badResourceURIs are URIs whose "not found" answer once was no JSON: the
// SDK quoted the URI with Go's %q, which writes \x00, \x7f and \U0010ffff.
// Some match no template (the SDK answers), some match one whose handler
// finds nothing (Docent answers).
var badResourceURIs = []string{
	"docent://extractions/\u0000",
	"docent://extractions/\x7f",
	"docent://schemas/\U0010ffff",
	"docent://documents/\x01?page=1",
	"nope://\u0000",
}

func TestDocumentTextIsAPagedResource(t *testing.T) {
	f := newFixture(t, false)
	pages := make([]string, 25)
	for i := range pages {
		pages[i] = fmt.Sprintf("text of page %d", i+1)
	}
	doc, err := f.db.CreateDocument(context.Background(), storage.NewDocument{Name: "long.txt", MediaType: "text/plain", Data: []byte("x"), Pages: pages})
	if err != nil {
		t.Fatal(err)
	}
	uri := "docent://documents/" + doc.ID
	first, err := f.read(t, uri)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(first, "--- page 20 ---\ntext of page 20") || strings.Contains(first, "page 21") ||
		!strings.Contains(first, "docent://documents/"+doc.ID+"?page=21") {
		t.Errorf("first read:\n%s", first)
	}
	rest, err := f.read(t, uri+"?page=21")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rest, "--- page 21 ---") || !strings.Contains(rest, "text of page 25") || strings.Contains(rest, "page 20\n") || strings.Contains(rest, "?page=") {
		t.Errorf("second read:\n%s", rest)
	}
	for _, bad := range []string{uri + "?page=26", uri + "?page=x", "docent://documents/doc_nope"} {
		if text, err := f.read(t, bad); err == nil {
			t.Errorf("%s read as %.100q", bad, text)
		}
	}
	// The server is still there.
	if _, err := f.read(t, "docent://documents"); err != nil {
		t.Error(err)
	}
}

func TestSchemasAndPromptsAreResources(t *testing.T) {
	f := newFixture(t, false)
	f.ok(t, "create_schema", map[string]any{"name": "invoice", "response_format": json.RawMessage(`{"type":"object","properties":{"total":{"type":"number"}},"required":["total"],"additionalProperties":false}`)}, nil)
	f.ok(t, "create_prompt", map[string]any{"name": "totals", "content": "Extract the total.", "schema_id": "invoice"}, nil)
	schema, err := f.read(t, "docent://schemas/invoice")
	if err != nil || !strings.Contains(schema, `"response_format"`) || !strings.Contains(schema, `"total"`) {
		t.Errorf("schema resource %s, %v", schema, err)
	}
	prompt, err := f.read(t, "docent://prompts/totals")
	if err != nil || !strings.Contains(prompt, "Extract the total.") {
		t.Errorf("prompt resource %s, %v", prompt, err)
	}
	list, err := f.read(t, "docent://prompts")
	if err != nil || !strings.Contains(list, `"totals"`) {
		t.Errorf("prompt list %s, %v", list, err)
	}
	if _, err := f.read(t, "docent://schemas/nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("an unknown schema: %v", err)
	}
	var n int
	for _, err := range f.client.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 3 {
		t.Errorf("%d resources listed, want the 3 lists", n)
	}
}

func TestPromptsForTheThreeJobs(t *testing.T) {
	f := newFixture(t, false)
	var names []string
	for p, err := range f.client.Prompts(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "extract_document,find_documents,propose_schema" {
		t.Errorf("prompts %v", names)
	}
	res, err := f.client.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: "propose_schema", Arguments: map[string]string{"document_id": f.doc.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 2 {
		t.Fatalf("propose_schema: %d messages", len(res.Messages))
	}
	if tc, ok := res.Messages[0].Content.(*sdk.TextContent); !ok || !strings.Contains(tc.Text, f.doc.ID) || !strings.Contains(tc.Text, "validate_schema") {
		t.Errorf("propose_schema asks %+v", res.Messages[0].Content)
	}
	if er, ok := res.Messages[1].Content.(*sdk.EmbeddedResource); !ok || !strings.Contains(er.Resource.Text, "Invoice A-1") {
		t.Errorf("propose_schema attaches %+v", res.Messages[1].Content)
	}
	res, err = f.client.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: "extract_document", Arguments: map[string]string{"document_id": f.doc.ID, "prompt": "totals"}})
	if err != nil || !strings.Contains(res.Messages[0].Content.(*sdk.TextContent).Text, "run_extraction") {
		t.Errorf("extract_document: %v", err)
	}
	if _, err := f.client.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: "find_documents"}); err == nil {
		t.Error("find_documents without its argument")
	}
	if _, err := f.client.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: "propose_schema", Arguments: map[string]string{"document_id": "doc_nope"}}); err == nil {
		t.Error("propose_schema of an unknown document")
	}
}
