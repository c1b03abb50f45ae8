package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/docent/docent/storage"
)

// The transcript reads the metadata stored with each message (as threads
// in existing databases hold it): pauses, rejections, failures and edits.
func TestTranscriptReadsMessageData(t *testing.T) {
	for _, c := range []struct {
		msg  storage.ThreadMessage
		want string
	}{
		{storage.ThreadMessage{Role: storage.RoleAssistant, ToolCalls: json.RawMessage(`[{"id":"c1","name":"create_tag","arguments":{"name":"x"}}]`),
			Data: json.RawMessage(`{"needs_approval":["c1"],"round_index":0,"turn_id":"turn_1","usage":{"prompt_tokens":1,"completion_tokens":1}}`)},
			"→ create_tag \"x\"  [c1]\n  (paused for approval as turn turn_1)"},
		{storage.ThreadMessage{Role: storage.RoleTool, ToolName: "create_tag", Content: `{"error":"User rejected this action."}`,
			Data: json.RawMessage(`{"proposed_arguments":{},"rejected":true,"round_index":0,"success":false}`)}, "← create_tag rejected"},
		{storage.ThreadMessage{Role: storage.RoleTool, ToolName: "get_tag", Content: `{"error":"no tag"}`,
			Data: json.RawMessage(`{"arguments":{},"proposed_arguments":{},"round_index":0,"success":false}`)}, "← get_tag error"},
		{storage.ThreadMessage{Role: storage.RoleTool, ToolName: "create_tag", Content: `{"tag_id":"t1"}`,
			Data: json.RawMessage(`{"arguments":{"name":"y"},"edited":true,"proposed_arguments":{"name":"x"},"round_index":0,"success":true}`)},
			`← create_tag ok, ran with edited arguments {"name":"y"}`},
		{storage.ThreadMessage{Role: storage.RoleTool, ToolName: "list_tags", Content: `[]`}, "← list_tags error"}, // no data: nothing says it succeeded
		// A result is told in words where the tool's result allows.
		{storage.ThreadMessage{Role: storage.RoleTool, ToolName: "get_ocr_text", Content: `{"text":"abc","page":1,"pages":2}`,
			Data: json.RawMessage(`{"arguments":{"page_num":1},"round_index":0,"success":true}`)}, "← get_ocr_text ok: page 1 of 2, 3 characters\n"},
	} {
		var b bytes.Buffer
		printThreadMessage(t.Context(), &b, c.msg)
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("printed %q, want …%s…", b.String(), c.want)
		}
	}
}
