package agent

import (
	"errors"
	"testing"
)

func TestParseTextReply(t *testing.T) {
	for _, tc := range []struct {
		name, in, text string
		calls          []string // name:args
		err            bool
	}{
		{name: "final object", in: `FINAL {"answer": "Done."}`, text: "Done."},
		{name: "final plain", in: "Thinking aloud\nFINAL Done, it is 12.50.", text: "Done, it is 12.50."},
		{name: "final string", in: `FINAL "Done."`, text: "Done."},
		{name: "one call", in: `TOOL_CALL {"tool": "list_tags", "input": {}}`, calls: []string{`list_tags:{}`}},
		{name: "prose and two calls", in: "I will look.\nTOOL_CALL {\"tool\":\"get_ocr_text\",\"input\":{\"page_num\":1}}\nTOOL_CALL {\"tool\":\"list_tags\"}", text: "I will look.",
			calls: []string{`get_ocr_text:{"page_num":1}`, `list_tags:{}`}},
		{name: "fenced multi-line", in: "```json\nTOOL_CALL {\"tool\": \"get_tag\",\n \"input\": {\"tag_id\": \"t1\"}}\n```", calls: []string{`get_tag:{"tag_id": "t1"}`}},
		{name: "no protocol", in: "The total is 12.50", err: true},
		{name: "broken json", in: `TOOL_CALL {"tool": "x", "input": {`, err: true},
		{name: "no tool name", in: `TOOL_CALL {"input": {}}`, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := parseTextReply(tc.in)
			if tc.err {
				if err == nil {
					t.Fatalf("want an error, got %+v", r)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Text != tc.text {
				t.Errorf("text = %q, want %q", r.Text, tc.text)
			}
			var got []string
			for _, c := range r.Calls {
				got = append(got, c.Name+":"+string(c.Arguments))
			}
			if len(got) != len(tc.calls) {
				t.Fatalf("calls = %q, want %q", got, tc.calls)
			}
			for i := range got {
				if got[i] != tc.calls[i] {
					t.Errorf("call %d = %q, want %q", i, got[i], tc.calls[i])
				}
			}
		})
	}
	if _, err := parseTextReply("plain"); !errors.Is(err, errNotProtocol) {
		t.Errorf("plain text: err = %v", err)
	}
}
