package agent

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/agent/textfmt"
)

// Words shared by the tools' summaries (each tool's own are beside its
// definition, in its family's tools_*.go): names, quoted and versioned,
// for call lines, the words of listings, and tag and name changes.

type args = *schema.Object

// orUnnamed is a name argument, or "(unnamed)".
func orUnnamed(a args, k string) string { return cmp.Or(argString(a, k), "(unnamed)") }

// qname quotes a name for a call line: "Invoice".
func qname(s string) string { return strconv.Quote(textfmt.Shorten(s, 60)) }

// refWords names a schema or prompt for a call line: "Invoice" v2.
func refWords(n string, version int) string {
	if version == 0 {
		return qname(n)
	}
	return fmt.Sprintf("%s v%d", qname(n), version)
}

func (n names) schemaWords(ref string, version int) string {
	if r, ok := n.Schema(ref); ok {
		return refWords(r.Name, version)
	}
	return refWords(ref, version)
}

// schemaRevWords names the revision a schema reference names, with its
// version.
func (n names) schemaRevWords(ref string) string {
	r, _ := n.Schema(ref)
	return n.schemaWords(ref, r.Version)
}

func (n names) promptWords(ref string, withVersion bool) string {
	if r, ok := n.Prompt(ref); ok && ref != "" { // "" is the conversation's prompt
		if withVersion {
			return refWords(r.Name, r.Version)
		}
		return qname(r.Name)
	}
	return qname(ref)
}

func (n names) tagWords(ref string) string { return qname(n.tagName(ref)) }

func (n names) tagList(v any) string {
	var out []string
	for _, r := range stringItems(v) {
		out = append(out, n.tagWords(r))
	}
	if len(out) == 0 {
		return "no tags"
	}
	return "tags " + strings.Join(out, ", ")
}

func paren(head string, parts []string) string {
	if len(parts) == 0 {
		return head
	}
	return head + " (" + strings.Join(parts, ", ") + ")"
}

// fieldCount is "3 fields" for a response_format whose fields can be read.
func fieldCount(v any) []string {
	if f, err := schema.TopFields(v); err == nil {
		return []string{textfmt.Count(len(f), "field")}
	}
	return nil
}

// listingWords are the words of the list_* tools' filters and paging.
func listingWords(a args, n names) string {
	var parts []string
	if q := argString(a, "name_search"); q != "" {
		parts = append(parts, "matching "+qname(q))
	}
	if len(stringItems(a.Val("tag_ids"))) > 0 {
		parts = append(parts, "with "+n.tagList(a.Val("tag_ids")))
	}
	if d := argString(a, "document_id"); d != "" {
		if doc, ok := n.Document(d); ok {
			d = doc.Name
		}
		parts = append(parts, "sharing a tag with "+qname(d))
	}
	if v, ok := intArg(a.Val("skip")); ok && v > 0 {
		parts = append(parts, fmt.Sprintf("from %d", v))
	}
	if v, ok := intArg(a.Val("limit")); ok {
		parts = append(parts, fmt.Sprintf("%d at most", v))
	}
	return strings.Join(parts, ", ")
}

func listWords(a args, n names) string { return listingWords(a, n) }

func noWords(args, names) string { return "" }

// titled is a summary that is a title only.
func titled(title string) Summary { return Summary{Title: title} }

// titleOr is "base quoted(arg)" when the argument is given, else other.
func listSummary(base string) func(a args, n names) Summary {
	return func(a args, n names) Summary {
		if q, ok := str(a.Val("name_search")); ok {
			return titled(base + " matching " + quoted(q))
		}
		return titled(base)
	}
}

func fixedSummary(title string) func(args, names) Summary {
	return func(args, names) Summary { return titled(title) }
}

func (n names) chip(ref, change string) SummaryChip {
	return SummaryChip{Name: n.tagName(ref), Color: n.tagColor(ref), Change: change}
}

// tagChanges are the tags after, each added or kept against before (when
// known), and those of before removed.
func (n names) tagChanges(before []string, known bool, after any) []SummaryChip {
	next := stringItems(after)
	var out []SummaryChip
	if !known {
		for _, r := range next {
			out = append(out, n.chip(r, "same"))
		}
		return out
	}
	nextNames, beforeNames := map[string]bool{}, map[string]bool{}
	for _, r := range next {
		nextNames[n.tagName(r)] = true
	}
	for _, r := range before {
		beforeNames[n.tagName(r)] = true
	}
	for _, r := range next {
		out = append(out, n.chip(r, map[bool]string{true: "same", false: "added"}[beforeNames[n.tagName(r)]]))
	}
	for _, r := range before {
		if !nextNames[n.tagName(r)] {
			out = append(out, n.chip(r, "removed"))
		}
	}
	return out
}

// rename adds the Name property of a call that renames what it updates
// (cur, when known): it returns the new name, whether the call gives one
// and whether it is another.
func (s *Summary) rename(a args, known bool, cur string) (name string, given, renamed bool) {
	name, given = str(a.Val("name"))
	if !given || (known && name == cur) {
		return name, given, false
	}
	var from *string
	if known {
		from = new(quoted(cur))
	}
	s.Props = append(s.Props, change("Name", from, quoted(name)))
	return name, given, true
}
