package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/agent/textfmt"
)

// ResultWords says in a few words what a successful call of tool returned,
// for the tools whose preview does not say enough: `page 2 of 3, 1,234
// characters`, `valid, with warnings: …`; "" for the others.
func ResultWords(tool string, raw json.RawMessage) string {
	v, err := schema.ParseOrdered(raw)
	if err != nil {
		return ""
	}
	r, ok := schema.AsObject(v)
	if !ok {
		return ""
	}
	t, known := ToolByName(tool)
	if !known || t.Summarize.outcome == nil {
		return ""
	}
	return t.Summarize.outcome(r)
}

func num(o args, k string) int { n, _ := intArg(o.Val(k)); return n }

func text(o args, k string) string { s, _ := o.Val(k).(string); return s }

// listOutcome is how many items of key a page holds, of how many.
func listOutcome(key, one string) func(r args) string {
	return func(r args) string {
		items, ok := r.Val(key).([]any)
		if !ok {
			return ""
		}
		if total := num(r, "total"); total > len(items) {
			return fmt.Sprintf("%d of %s", len(items), textfmt.Count(total, one))
		}
		return textfmt.Count(len(items), one)
	}
}

// characters counts a text's characters, saying when a cap cut it.
func characters(s string) string {
	shown, cut := s, ""
	if i := strings.Index(s, "\n[truncated: "); i >= 0 {
		shown, cut = s[:i], ", cut"
	}
	return textfmt.Thousands(utf8.RuneCountInString(shown)) + " characters" + cut
}

// problemWords is the first of a list of {path, message} problems, and
// how many more there are.
func problemWords(v any) string {
	items, _ := v.([]any)
	if len(items) == 0 {
		return ""
	}
	first, _ := schema.AsObject(items[0])
	msg, _ := first.Val("message").(string)
	if path, _ := first.Val("path").(string); path != "" {
		msg = path + ": " + msg
	}
	msg = textfmt.Shorten(msg, 160)
	if len(items) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(items)-1)
	}
	return msg
}
