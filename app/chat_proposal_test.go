package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
)

// withSixtyPrompts is a store of 60 prompts of which only the last by name
// ("zz invoice prompt", past any first page of 50) uses the schema invoice.
func withSixtyPrompts(t *testing.T, db *storage.DB) storage.SchemaRevision {
	t.Helper()
	ctx := context.Background()
	rf := `{"type":"json_schema","json_schema":{"name":"invoice","strict":true,"schema":` + invoiceSchemaJSON + `}}`
	s, err := db.CreateSchema(ctx, "invoice", json.RawMessage(rf))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 59 {
		if _, err := db.CreatePrompt(ctx, storage.NewPrompt{Name: fmt.Sprintf("prompt %02d", i), Content: "Read it."}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.CreatePrompt(ctx, storage.NewPrompt{Name: "zz invoice prompt", Content: "Extract the invoice.", SchemaID: s.SchemaID}); err != nil {
		t.Fatal(err)
	}
	return s
}

// On a store of 60 prompts, the question about deleting a schema names the
// prompt that uses it, the 60th.
func TestChatOnTerminalNamesThePromptThatUsesASchemaAmongSixty(t *testing.T) {
	c := newInteractiveChat(t)
	withSixtyPrompts(t, c.db())
	c.srv.Enqueue(
		modeltest.Reply{Text: "I will delete it.", ToolCalls: []modeltest.ToolCall{{ID: "d1", Name: "delete_schema", Arguments: `{"schema_id":"invoice"}`}}},
		modeltest.Reply{Text: "Kept."},
	)
	_, errOut := c.mustChat("r\n")
	want := "\nDelete schema “invoice” and its 1 version (delete_schema, call d1)\n" +
		"  Used by prompt “zz invoice prompt”: Docent refuses to delete a schema while a prompt uses it.\n"
	if !strings.Contains(errOut, want) {
		t.Errorf("the question lacks %q:\n%s", want, errOut)
	}
}
