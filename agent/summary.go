package agent

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/agent/textfmt"
)

// What a tool call will do, for people: a title, the properties it sets
// (old → new), the tags it adds and removes, a schema's fields (as a diff
// against the version an update replaces), a prompt's text (as a line
// diff), and notes on what it changes now, with names resolved through the
// store. Each tool's Summarize makes it, beside the tool's definition in
// its family's tools_*.go; the turn sends it with tool_calls and a paused
// done, and stores it with the messages, and every edge shows it as it
// is: the terminal its Lines, the web UI and the desktop its parts. Wording: names are quoted “like this”, a
// version is `Name vN`; see the tests for every tool's words.

// Summary is what a call will do.
type Summary struct {
	// Title is the call in one sentence: "Create schema “Invoice” with 3
	// fields".
	Title string `json:"title"`
	// Call is the arguments in a few words, for a line after the tool's
	// name: `"Invoice" (3 fields)`; "" when there is nothing to say.
	Call string `json:"call,omitempty"`
	// Danger is set on deletes: the tool's Ops include delete.
	Danger bool `json:"danger,omitempty"`
	// Writes, Destructive and Ops are what the registry declares of the
	// call's tool, so that edges never read meaning into its name: Writes,
	// that it is read-write (it changes what is stored and needs approval
	// unless auto-approved); Destructive, that it deletes or overwrites
	// without keeping a version (Tool.Destructive); Ops, the operations its
	// changes may be. A tool this build does not know declares none.
	Writes      bool     `json:"writes,omitempty"`
	Destructive bool     `json:"destructive,omitempty"`
	Ops         []string `json:"ops,omitempty" ts:"Array<'create' | 'update' | 'delete' | 'link'>"`
	// Props are `Label: VALUE` or, for a change, `Label: OLD → NEW`.
	Props []SummaryProp `json:"props,omitempty"`
	// Chips are the tags the call sets, each added, removed or kept.
	Chips *SummaryChips `json:"chips,omitempty"`
	// Fields is a schema's fields, or their diff.
	Fields *SummaryFields `json:"fields,omitempty"`
	// Text is a prompt's text, or its line diff.
	Text *SummaryText `json:"text,omitempty"`
	// Notes say what else the call changes, or that it changes nothing.
	Notes []string `json:"notes,omitempty"`
	// Lines are the body (not the title) as plain text, as the terminal
	// prints it.
	Lines []string `json:"lines"`
	// Now is what the call changes as it is now, for a form that edits the
	// call's arguments.
	Now *SummaryNow `json:"now,omitempty"`
	// Form is the form that edits the call's arguments: a schema's name
	// and fields, a prompt's name and text, or the value of an
	// extraction's field; "" edits them as JSON.
	Form string `json:"form,omitempty" ts:"'schema' | 'prompt' | 'value'"`
}

// SummaryProp is one property a call sets.
type SummaryProp struct {
	Label string `json:"label"`
	Value string `json:"value"`
	// From is the value before, for a change.
	From *string `json:"from,omitempty"`
	// Mono is set when the label is a field path.
	Mono bool `json:"mono,omitempty"`
}

// SummaryChips are the tags a call sets.
type SummaryChips struct {
	Label string        `json:"label"`
	Chips []SummaryChip `json:"chips"`
}

// SummaryChip is one tag.
type SummaryChip struct {
	Name  string `json:"name"`
	Color string `json:"color,omitempty"`
	// Change is added, removed or same.
	Change string `json:"change" ts:"'added' | 'removed' | 'same'"`
}

// SummaryFields is a table of a schema's fields.
type SummaryFields struct {
	Label string `json:"label"`
	// Rows are the fields depth first; in a diff each says how it changed.
	Rows []FieldRow `json:"rows"`
	Diff bool       `json:"diff"`
	// Error says why the fields cannot be shown.
	Error string `json:"error,omitempty"`
}

// FieldRow is one field of a table of fields.
type FieldRow struct {
	// Path is dotted, arrays as []: line_items[].amount.
	Path  string `json:"path"`
	Name  string `json:"name"`
	Depth int    `json:"depth"`
	// Type is in words: "string", "array of objects", "number or null".
	Type        string `json:"type"`
	Required    bool   `json:"required"`
	Description string `json:"description"`
	// More is the keywords the table does not show, as compact JSON.
	More string `json:"more"`
	// Change is, in a diff, added, removed, changed or same.
	Change string `json:"change,omitempty" ts:"'added' | 'removed' | 'changed' | 'same'"`
	// Changes say what changed in a changed field: "type number → string".
	Changes []string `json:"changes,omitempty"`
}

// SummaryText is a text a call writes.
type SummaryText struct {
	Label string     `json:"label"`
	Lines []DiffLine `json:"lines"`
	Diff  bool       `json:"diff"`
}

// DiffLine is one line of a text or of its diff.
type DiffLine struct {
	// Op is same, add, del, or fold (unchanged lines left out; Text says
	// how many).
	Op   string `json:"op" ts:"'same' | 'add' | 'del' | 'fold'"`
	Text string `json:"text"`
}

// SummaryNow is what a call changes, as it is now.
type SummaryNow struct {
	// Name is the schema's, prompt's or tag's name.
	Name string `json:"name,omitempty"`
	// ResponseFormat is the schema's latest version.
	ResponseFormat json.RawMessage `json:"response_format,omitempty"`
	// Content is the prompt's text.
	Content *string `json:"content,omitempty"`
	// Found is set when update_extraction_field's path has a value, Value.
	Found bool            `json:"found,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}

// String is the line as the terminal prints it.
func (l DiffLine) String() string {
	switch l.Op {
	case "add":
		return "+ " + l.Text
	case "del":
		return "- " + l.Text
	}
	return "  " + l.Text
}

// Summarizer puts a tool's calls in words: the summary proper, the few
// words of a call line, and (for some) what a successful call returned
// (ResultWords).
type Summarizer struct {
	summary func(a *schema.Object, n names) Summary
	words   func(a *schema.Object, n names) string
	outcome func(result *schema.Object) string
}

func summarizer(summary func(a *schema.Object, n names) Summary, words func(a *schema.Object, n names) string, outcome ...func(*schema.Object) string) Summarizer {
	s := Summarizer{summary: summary, words: words}
	if len(outcome) > 0 {
		s.outcome = outcome[0]
	}
	return s
}

// Summarize is what a call of tool name with these arguments (a JSON
// object, or a JSON string holding one) will do, with what it changes as
// it is now in env's store, for env's document and working state. A nil
// env knows nothing: references are named as the model gave them.
func Summarize(ctx context.Context, env *ToolEnv, name string, args json.RawMessage) Summary {
	var lk lookup = noLookup{}
	if env != nil && env.DB != nil {
		lk = &storeLookup{ctx: ctx, env: env}
	}
	return summarize(name, args, lk)
}

func summarize(name string, args json.RawMessage, lk lookup) Summary {
	a := argsObject(args)
	n := names{lk}
	t, known := ToolByName(name)
	var s Summary
	if known && t.Summarize.summary != nil {
		s = t.Summarize.summary(a, n)
		s.Call = t.Summarize.words(a, n)
		s.declare(t)
	} else {
		s = Summary{Title: humanName(name), Call: textfmt.Shorten(oneLineArgs(args), 120)}
	}
	if raw := bytes.TrimSpace(args); len(raw) > 0 {
		if v, err := schema.ParseOrdered(raw); err != nil {
			s.Call = oneLineArgs(args) // not JSON: as the model sent it
		} else if _, isString := v.(string); !isString {
			if _, ok := schema.AsObject(v); !ok {
				s.Call = oneLineArgs(args)
			}
		}
	}
	s.Lines = s.lines()
	return s
}

// declare sets what the registry declares of the call's tool t.
func (s *Summary) declare(t Tool) {
	s.Writes = t.Access == ReadWrite
	s.Destructive = t.Destructive()
	s.Ops = t.Ops
	s.Danger = slices.Contains(t.Ops, OpDelete)
}

// humanName is a tool's name as a title: "Some new tool".
func humanName(tool string) string {
	t := strings.ReplaceAll(tool, "_", " ")
	if r, size := utf8.DecodeRuneInString(t); size > 0 {
		t = string(unicode.ToUpper(r)) + t[size:]
	}
	return t
}

// oneLineArgs is a call's arguments on one line, shortened.
func oneLineArgs(raw json.RawMessage) string {
	return textfmt.Shorten(cmp.Or(strings.Join(strings.Fields(string(raw)), " "), "{}"), 200)
}

// argsObject is a call's arguments as an object: a JSON string holding an
// object is read too; anything else is {}.
func argsObject(raw []byte) *schema.Object {
	v, err := schema.ParseOrdered(raw)
	if err != nil {
		return emptyObject()
	}
	return asObject(v)
}

func emptyObject() *schema.Object {
	o, _ := schema.ParseOrdered([]byte("{}"))
	return o.(*schema.Object)
}

func asObject(v any) *schema.Object {
	if s, ok := v.(string); ok {
		if p, err := schema.ParseOrdered([]byte(s)); err == nil {
			v = p
		}
	}
	if o, ok := schema.AsObject(v); ok {
		return o
	}
	return emptyObject()
}

// str is a non-blank string argument, trimmed.
func str(v any) (string, bool) {
	s, ok := v.(string)
	if !ok || strings.TrimSpace(s) == "" {
		return "", false
	}
	return strings.TrimSpace(s), true
}

// argString is a string argument, trimmed ("" when absent).
func argString(a *schema.Object, k string) string {
	s, _ := str(a.Val(k))
	return s
}

// intArg is a number argument, as an integer.
func intArg(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	if err != nil {
		return 0, false
	}
	return int(f), true
}

func stringItems(v any) []string {
	a, _ := v.([]any)
	var out []string
	for _, x := range a {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// ---- wording

// quoted is a name as the summaries quote it: “name”.
func quoted(s string) string { return "“" + s + "”" }

// formatValue is a JSON value for people: a string in quotes, a number or
// boolean as JSON, null as "empty (null)", an absent value as "(not set)",
// objects and arrays as compact JSON; each cut to 80 characters.
func formatValue(v any, present bool) string {
	if !present {
		return "(not set)"
	}
	switch x := v.(type) {
	case nil:
		return "empty (null)"
	case string:
		return quoted(textfmt.Shorten(x, 80))
	}
	return textfmt.Shorten(schema.Compact(v), 80)
}

func lowerFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToLower(r)) + s[size:]
}

// label is "Name vN", or the name alone without a version.
func label(name string, v int) string {
	if v == 0 {
		return name
	}
	return fmt.Sprintf("%s v%d", name, v)
}

// promptsNamed is `prompt “A”` or `prompts “A”, “B”`: the prompts that use
// what a call would delete.
func promptsNamed(names []string) string {
	if len(names) == 1 {
		return "prompt " + quoted(names[0])
	}
	return "prompts " + quoteAll(names)
}

func quoteAll(names []string) string {
	out := make([]string, len(names))
	for i, s := range names {
		out[i] = quoted(s)
	}
	return strings.Join(out, ", ")
}

func change(lbl string, before *string, after string) SummaryProp {
	return SummaryProp{Label: lbl, Value: after, From: before}
}

// lines writes the body as plain text.
func (s Summary) lines() []string {
	out := []string{}
	for _, p := range s.Props {
		if p.From != nil {
			out = append(out, fmt.Sprintf("%s: %s → %s", p.Label, *p.From, p.Value))
		} else {
			out = append(out, fmt.Sprintf("%s: %s", p.Label, p.Value))
		}
	}
	if s.Chips != nil && len(s.Chips.Chips) > 0 {
		names := make([]string, len(s.Chips.Chips))
		for i, c := range s.Chips.Chips {
			switch c.Change {
			case "added":
				names[i] = "+" + c.Name
			case "removed":
				names[i] = "-" + c.Name
			default:
				names[i] = c.Name
			}
		}
		out = append(out, s.Chips.Label+": "+strings.Join(names, ", "))
	}
	if f := s.Fields; f != nil {
		if f.Error != "" {
			out = append(out, fmt.Sprintf("%s: cannot be shown: %s", f.Label, f.Error))
		} else {
			out = append(out, f.Label+":")
			for _, r := range f.Rows {
				out = append(out, "  "+r.line(f.Diff))
			}
		}
	}
	if t := s.Text; t != nil {
		out = append(out, t.Label+":")
		for _, l := range t.Lines {
			if t.Diff {
				out = append(out, "  "+l.String())
			} else {
				out = append(out, "  | "+l.Text)
			}
		}
	}
	return append(out, s.Notes...)
}
