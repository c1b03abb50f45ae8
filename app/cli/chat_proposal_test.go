package cli

import (
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/teststore"
)

// On a store of 60 prompts, the question about deleting a schema names the
// prompt that uses it, the 60th.
func TestChatOnTerminalNamesThePromptThatUsesASchemaAmongSixty(t *testing.T) {
	c := newInteractiveChat(t)
	teststore.SixtyPrompts(t, c.db(), invoiceSchemaJSON)
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
