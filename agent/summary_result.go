package agent

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
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

func ocrTextOutcome(r args) string {
	if p := num(r, "page"); p > 0 {
		return fmt.Sprintf("page %d of %d, %s", p, num(r, "pages"), characters(text(r, "text")))
	}
	return fmt.Sprintf("%s, %s", textfmt.Count(num(r, "pages"), "page"), characters(text(r, "text")))
}

func documentOutcome(r args) string {
	return fmt.Sprintf("%s, %s, %s", qname(text(r, "name")), textfmt.Count(num(r, "pages"), "page"), cmp.Or(text(r, "status"), "ready"))
}

func schemaOutcome(r args) string {
	words := refWords(text(r, "name"), num(r, "version"))
	if f := fieldCount(r.Val("response_format")); f != nil {
		words += ", " + f[0]
	}
	return words
}

func promptOutcome(r args) string {
	return fmt.Sprintf("%s, %s", refWords(text(r, "name"), num(r, "version")), textfmt.Count(len(strings.Split(text(r, "content"), "\n")), "line"))
}

func tagOutcome(r args) string { return qname(text(r, "name")) }

func citationOutcome(r args) string {
	return fmt.Sprintf("page %d, %s", num(r, "page"), characters(text(r, "text")))
}

func extractionOutcome(r args) string {
	x, ok := schema.AsObject(r.Val("extraction"))
	if !ok {
		return ""
	}
	return extractionWords(x)
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

func validityOutcome(r args) string {
	if valid, _ := r.Val("valid").(bool); !valid {
		if p := problemWords(r.Val("errors")); p != "" {
			return "invalid: " + p
		}
		return "invalid"
	}
	if p := problemWords(r.Val("warnings")); p != "" {
		return "valid, with warnings: " + p
	}
	return "valid"
}

// extractionWords says how an extraction went: its validation, and the
// values the document does not show.
func extractionWords(x args) string {
	status, _ := x.Val("validation_status").(string)
	words := cmp.Or(status, "not validated")
	if status == storage.ValidationInvalid {
		if p := problemWords(x.Val("validation_errors")); p != "" {
			words += " (" + p + ")"
		}
	}
	if x.Val("value") == nil {
		words += ", the model's output is not JSON"
	}
	if edited, _ := x.Val("edited").(bool); edited {
		words += ", edited"
	}
	paths := func(k string) (int, string) {
		items := stringItems(x.Val(k))
		shown := items
		if len(shown) > 5 {
			shown = append(shown[:5:5], "…")
		}
		return len(items), strings.Join(shown, ", ")
	}
	if n, list := paths("ungrounded"); n > 0 {
		words += fmt.Sprintf(", %s not found in the document (%s)", textfmt.Count(n, "value"), list)
	}
	if n, list := paths("ambiguous"); n > 0 {
		words += fmt.Sprintf(", %s found in several places (%s)", textfmt.Count(n, "value"), list)
	}
	return words
}
