package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/agent/textfmt"
)

// Tables of a schema's fields, their diff, and the line diff of a text,
// for summaries.

var pluralType = map[string]string{"string": "strings", "number": "numbers", "integer": "integers", "boolean": "booleans", "date": "dates", "object": "objects"}

// typeWords is the words for a field's type: "string", "array of
// objects", "number or null".
func typeWords(f schema.Field) string {
	s := f.Type
	if p, ok := pluralType[f.ItemType]; ok && f.Type == "array" {
		s = "array of " + p
	}
	if f.Nullable {
		s += " or null"
	}
	return s
}

var shownKeys = map[string]bool{"type": true, "description": true, "properties": true, "required": true, "items": true, "additionalProperties": true}

// moreOf is what a field's schema says that the table does not show.
func moreOf(f schema.Field) string {
	if f.Schema == nil {
		return ""
	}
	var parts []string
	for _, k := range f.Schema.Keys {
		v := f.Schema.Val(k)
		if k == "description" || (f.Type != "other" && shownKeys[k]) {
			continue
		}
		if s, _ := v.(string); k == "format" && s == "date" && f.Type == "date" {
			continue
		}
		parts = append(parts, k+": "+schema.Compact(v))
	}
	return textfmt.Shorten(strings.Join(parts, ", "), 160)
}

// fieldRows are the rows of a table of fields, depth first.
func fieldRows(fields []schema.Field, depth int, prefix string) []FieldRow {
	var out []FieldRow
	for _, f := range fields {
		r := rowOf(f, depth, prefix)
		out = append(out, r)
		out = append(out, fieldRows(f.Children(), depth+1, childPrefix(f, r.Path))...)
	}
	return out
}

func rowOf(f schema.Field, depth int, prefix string) FieldRow {
	path := f.Name
	if prefix != "" {
		path = prefix + "." + f.Name
	}
	return FieldRow{Path: path, Name: f.Name, Depth: depth, Type: typeWords(f), Required: f.Required, Description: f.Description, More: moreOf(f)}
}

func childPrefix(f schema.Field, path string) string {
	if f.Type == "array" {
		return path + "[]"
	}
	return path
}

func quoteOrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return quoted(s)
}

// diffFields is the difference between two tables of fields, row by row;
// fields match by name within their parent.
func diffFields(before, after []schema.Field, depth int, prefix string) []FieldRow {
	var out []FieldRow
	all := func(f schema.Field, change string) {
		for _, r := range fieldRows([]schema.Field{f}, depth, prefix) {
			r.Change = change
			out = append(out, r)
		}
	}
	seen := map[string]bool{}
	for _, nf := range after {
		i := slices.IndexFunc(before, func(f schema.Field) bool { return f.Name == nf.Name })
		if i < 0 {
			all(nf, "added")
			continue
		}
		of := before[i]
		seen[of.Name] = true
		oldRow, newRow := rowOf(of, depth, prefix), rowOf(nf, depth, prefix)
		var changes []string
		if oldRow.Type != newRow.Type {
			changes = append(changes, fmt.Sprintf("type %s → %s", oldRow.Type, newRow.Type))
		}
		if oldRow.Required != newRow.Required {
			changes = append(changes, map[bool]string{true: "optional → required", false: "required → optional"}[newRow.Required])
		}
		if oldRow.Description != newRow.Description {
			changes = append(changes, fmt.Sprintf("description %s → %s", quoteOrNone(oldRow.Description), quoteOrNone(newRow.Description)))
		}
		if oldRow.More != newRow.More {
			changes = append(changes, "other settings changed")
		}
		newRow.Change, newRow.Changes = "same", changes
		if len(changes) > 0 {
			newRow.Change = "changed"
		}
		out = append(out, newRow)
		if oc, nc := of.Children(), nf.Children(); oc != nil || nc != nil {
			out = append(out, diffFields(oc, nc, depth+1, childPrefix(nf, newRow.Path))...)
		}
	}
	for _, of := range before {
		if !seen[of.Name] {
			all(of, "removed")
		}
	}
	return out
}

// changeCounts counts the rows added, removed and changed, as a note:
// "1 field added, 2 fields changed."; "" when none changed.
func changeCounts(rows []FieldRow) string {
	counts := map[string]int{}
	for _, r := range rows {
		counts[r.Change]++
	}
	var parts []string
	for _, c := range []string{"added", "removed", "changed"} {
		if counts[c] > 0 {
			parts = append(parts, textfmt.Count(counts[c], "field")+" "+c)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", ") + "."
}

// line is the row as text: `NAME: TYPE[, required][ — DESCRIPTION]`
// indented by depth, marked in a diff.
func (r FieldRow) line(diff bool) string {
	indent := strings.Repeat("  ", r.Depth)
	mark := ""
	if diff {
		mark = map[string]string{"added": "+ ", "removed": "- ", "changed": "~ "}[r.Change]
		if mark == "" {
			mark = "  "
		}
	}
	if diff && r.Change == "changed" {
		return fmt.Sprintf("%s%s%s: %s", mark, indent, r.Name, strings.Join(r.Changes, "; "))
	}
	s := fmt.Sprintf("%s%s%s: %s", mark, indent, r.Name, r.Type)
	if r.Required {
		s += ", required"
	}
	if r.Description != "" {
		s += " — " + r.Description
	}
	return s
}

// ---- line diff

// maxDiffLines: beyond this many lines on either side, the changed middle
// is compared as blocks, to bound the work.
const maxDiffLines = 2000

func sameLines(lines []string) []DiffLine {
	out := make([]DiffLine, len(lines))
	for i, t := range lines {
		out[i] = DiffLine{"same", t}
	}
	return out
}

// lineDiff is the line diff of two texts: the longest common subsequence
// of lines, deletions before additions within a changed block.
func lineDiff(before, after string) []DiffLine {
	a := strings.Split(strings.ReplaceAll(before, "\r\n", "\n"), "\n")
	b := strings.Split(strings.ReplaceAll(after, "\r\n", "\n"), "\n")
	if before == after {
		return sameLines(a)
	}
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	am, bm := a[head:len(a)-tail], b[head:len(b)-tail]
	var mid []DiffLine
	if len(am) > maxDiffLines || len(bm) > maxDiffLines {
		for _, t := range am {
			mid = append(mid, DiffLine{"del", t})
		}
		for _, t := range bm {
			mid = append(mid, DiffLine{"add", t})
		}
	} else {
		mid = lcsDiff(am, bm)
	}
	out := sameLines(a[:head])
	out = append(out, mid...)
	return append(out, sameLines(a[len(a)-tail:])...)
}

// lcsDiff walks the longest common subsequence of am and bm, then puts the
// deletions of each changed block before its additions.
func lcsDiff(am, bm []string) []DiffLine {
	n, m := len(am), len(bm)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if am[i] == bm[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out, dels, adds []DiffLine
	flush := func() {
		out = append(append(out, dels...), adds...)
		dels, adds = nil, nil
	}
	for i, j := 0, 0; i < n || j < m; {
		switch {
		case i < n && j < m && am[i] == bm[j]:
			flush()
			out = append(out, DiffLine{"same", am[i]})
			i++
			j++
		case j < m && (i >= n || lcs[i][j+1] >= lcs[i+1][j]):
			adds = append(adds, DiffLine{"add", bm[j]})
			j++
		default:
			dels = append(dels, DiffLine{"del", am[i]})
			i++
		}
	}
	flush()
	return out
}

// foldDiff folds runs of unchanged lines more than context lines away
// from a change into one "fold" line that says how many.
func foldDiff(lines []DiffLine, context int) []DiffLine {
	near := make([]bool, len(lines))
	for i, l := range lines {
		if l.Op == "same" {
			continue
		}
		for k := max(0, i-context); k <= min(len(lines)-1, i+context); k++ {
			near[k] = true
		}
	}
	var out []DiffLine
	folded := 0
	fold := func() {
		if folded > 0 {
			out = append(out, DiffLine{"fold", "… " + textfmt.Count(folded, "unchanged line")})
		}
		folded = 0
	}
	for i, l := range lines {
		if l.Op == "same" && !near[i] {
			folded++
			continue
		}
		fold()
		out = append(out, l)
	}
	fold()
	return out
}
