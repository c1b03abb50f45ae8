package app

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docent/docent/storage"
)

// This file mirrors frontend/src/proposals/summary.ts (with
// frontend/src/schema/fields.ts, schema/diff.ts and proposals/diff.ts),
// whose header specifies the wording: what a tool call will do, for
// people, as a title and lines of plain text. The terminal asks for
// approval with it; the web UI shows the same words on its cards. A
// change of wording goes in both.

// callSummary is what a tool call will do: a title and the body as lines
// (the title is not among them).
type callSummary struct {
	Title string
	Lines []string
	// Danger is set on deletes.
	Danger bool
}

// summaryLookup tells a summary what a call changes, as it is now. Each
// method reports false when it does not know; a nil lookup knows nothing
// (the summary then names things by the references the model gave).
type summaryLookup interface {
	// Schema is the schema revision ref names: a schema_revid's own
	// revision, the latest revision of a schema_id or a name.
	Schema(ref string) (storage.SchemaRevision, bool)
	// Prompt is the prompt revision ref names, likewise; "" is the
	// conversation's prompt (its working state's).
	Prompt(ref string) (storage.PromptRevision, bool)
	// Tag is the tag with this id or name.
	Tag(ref string) (storage.Tag, bool)
	// Document is the document with this id; "" is the current document.
	Document(id string) (storage.Document, bool)
	// Extraction is the current extraction, whose fields
	// update_extraction_field changes: the conversation's, else the
	// current document's newest.
	Extraction() (storage.Extraction, bool)
	// Prompts are the latest revisions of every prompt (what uses a schema
	// or a tag).
	Prompts() ([]storage.PromptRevision, bool)
	// TaggedDocuments is how many documents carry the tag.
	TaggedDocuments(tagID string) (int, bool)
}

// noLookup knows nothing.
type noLookup struct{}

func (noLookup) Schema(string) (storage.SchemaRevision, bool) { return storage.SchemaRevision{}, false }
func (noLookup) Prompt(string) (storage.PromptRevision, bool) { return storage.PromptRevision{}, false }
func (noLookup) Tag(string) (storage.Tag, bool)               { return storage.Tag{}, false }
func (noLookup) Document(string) (storage.Document, bool)     { return storage.Document{}, false }
func (noLookup) Extraction() (storage.Extraction, bool)       { return storage.Extraction{}, false }
func (noLookup) Prompts() ([]storage.PromptRevision, bool)    { return nil, false }
func (noLookup) TaggedDocuments(string) (int, bool)           { return 0, false }

func lookupOrNone(lk summaryLookup) summaryLookup {
	if lk == nil {
		return noLookup{}
	}
	return lk
}

// ---- ordered JSON: arguments are read as JavaScript reads them, keys in
// their order, so that fields are listed as the schema lists them.

// jsonObject is a JSON object with its keys in order.
type jsonObject struct {
	keys []string
	vals map[string]any
}

func (o *jsonObject) get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.vals[k]
	return v, ok
}

// val is o[k], nil when absent.
func (o *jsonObject) val(k string) any {
	v, _ := o.get(k)
	return v
}

func (o *jsonObject) has(k string) bool {
	_, ok := o.get(k)
	return ok
}

// parseJSON reads one JSON value: nil, bool, json.Number, string, []any
// or *jsonObject. A repeated key keeps its first place and its last value,
// as JSON.parse does.
func parseJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := readJSON(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

func readJSON(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch d {
	case '{':
		o := &jsonObject{vals: map[string]any{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			v, err := readJSON(dec)
			if err != nil {
				return nil, err
			}
			if _, seen := o.vals[k]; !seen {
				o.keys = append(o.keys, k)
			}
			o.vals[k] = v
		}
		_, err := dec.Token()
		return o, err
	case '[':
		a := []any{}
		for dec.More() {
			v, err := readJSON(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return nil, fmt.Errorf("unexpected %v", d)
}

// compactJSON writes v as JSON.stringify does: compact, keys in order.
func compactJSON(v any) string {
	var b strings.Builder
	writeCompact(&b, v)
	return b.String()
}

func writeCompact(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		b.WriteString(jsNumber(x))
	case string:
		b.WriteString(jsonString(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCompact(b, e)
		}
		b.WriteByte(']')
	case *jsonObject:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsonString(k))
			b.WriteByte(':')
			writeCompact(b, x.vals[k])
		}
		b.WriteByte('}')
	}
}

func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

// jsNumber writes a number as JavaScript's String(n) does for the usual
// range (4.20 → 4.2); others stay as written.
func jsNumber(n json.Number) string {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return string(n)
	}
	if a := max(f, -f); a != 0 && (a >= 1e21 || a < 1e-6) {
		return string(n)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// argsObject is a call's arguments as an object: a JSON string holding an
// object is read too; anything else is {}.
func argsObject(raw []byte) *jsonObject {
	v, err := parseJSON(raw)
	if err != nil {
		return &jsonObject{vals: map[string]any{}}
	}
	return asObject(v)
}

func asObject(v any) *jsonObject {
	if s, ok := v.(string); ok {
		if p, err := parseJSON([]byte(s)); err == nil {
			v = p
		}
	}
	if o, ok := v.(*jsonObject); ok {
		return o
	}
	return &jsonObject{vals: map[string]any{}}
}

func isObj(v any) (*jsonObject, bool) {
	o, ok := v.(*jsonObject)
	return o, ok && o != nil
}

// truthy is JavaScript's truthiness of a JSON value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	}
	return true
}

// str is a non-blank string argument, trimmed.
func str(v any) (string, bool) {
	s, ok := v.(string)
	if !ok || strings.TrimSpace(s) == "" {
		return "", false
	}
	return strings.TrimSpace(s), true
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

// ---- wording helpers

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
		return quoted(truncate(x, 80))
	case json.Number:
		return jsNumber(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return truncate(compactJSON(v), 80)
}

func lcfirst(s string) string {
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

// summaryProp is one property line: "Label: VALUE" or "Label: OLD → NEW".
type summaryProp struct {
	label, value string
	from         *string
}

func change(lbl string, before *string, after string) summaryProp {
	return summaryProp{label: lbl, value: after, from: before}
}

func ptr(s string) *string { return &s }

type summaryChip struct {
	name   string
	change string // added, removed, same
}

type summaryFields struct {
	label string
	rows  []fieldRow
	diff  bool
	err   string
}

type summaryText struct {
	label string
	lines []diffLine
	diff  bool
}

// summary is a call's summary before it is written as lines.
type summary struct {
	title      string
	props      []summaryProp
	chipsLabel string
	chips      []summaryChip
	fields     *summaryFields
	text       *summaryText
	notes      []string
	danger     bool
}

// summarizeCall is the summary of one call of tool with these arguments
// (a JSON object, or a JSON string holding one); lk says what it changes.
func summarizeCall(tool string, args []byte, lk summaryLookup) callSummary {
	s := buildSummary(tool, argsObject(args), summaryNames{lookupOrNone(lk)})
	return callSummary{Title: s.title, Lines: s.lines(), Danger: s.danger}
}

// summaryNames names what references refer to.
type summaryNames struct{ summaryLookup }

// schemaRef is "Name vN" for a schema reference, else the reference quoted
// (with " vN" when a version is given).
func (n summaryNames) schemaRef(ref string, version int) string {
	if r, ok := n.Schema(ref); ok {
		return label(r.Name, cmp.Or(version, r.Version))
	}
	if version != 0 {
		return fmt.Sprintf("%s v%d", quoted(ref), version)
	}
	return quoted(ref)
}

func (n summaryNames) promptRef(ref string) string {
	if r, ok := n.Prompt(ref); ok && ref != "" {
		return label(r.Name, r.Version)
	}
	return quoted(ref)
}

func (n summaryNames) tagName(ref string) string {
	if t, ok := n.Tag(ref); ok {
		return t.Name
	}
	return ref
}

// latestSchema is the latest revision of the schema ref names.
func (n summaryNames) latestSchema(ref string) (storage.SchemaRevision, bool) {
	r, ok := n.Schema(ref)
	if ok && r.SchemaID != ref {
		if l, ok := n.Schema(r.SchemaID); ok {
			r = l
		}
	}
	return r, ok
}

func (n summaryNames) latestPrompt(ref string) (storage.PromptRevision, bool) {
	if ref == "" {
		return storage.PromptRevision{}, false
	}
	r, ok := n.Prompt(ref)
	if ok && r.PromptID != ref {
		if l, ok := n.Prompt(r.PromptID); ok {
			r = l
		}
	}
	return r, ok
}

// docRef is the document a call names: current when it names none or the
// current one.
func (n summaryNames) docRef(a *jsonObject) (current bool, name string) {
	id, _ := str(a.val("document_id"))
	cur, hasCur := n.Document("")
	current = id == "" || (hasCur && cur.ID == id)
	switch {
	case current && hasCur:
		name = cur.Name
	case !current:
		if d, ok := n.Document(id); ok {
			name = d.Name
		}
	}
	return current, name
}

func (n summaryNames) tagChanges(before []string, known bool, after any) []summaryChip {
	next := stringItems(after)
	var out []summaryChip
	if !known {
		for _, r := range next {
			out = append(out, summaryChip{n.tagName(r), "same"})
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
		c := "added"
		if beforeNames[n.tagName(r)] {
			c = "same"
		}
		out = append(out, summaryChip{n.tagName(r), c})
	}
	for _, r := range before {
		if !nextNames[n.tagName(r)] {
			out = append(out, summaryChip{n.tagName(r), "removed"})
		}
	}
	return out
}

func sameLines(text string) []diffLine {
	var out []diffLine
	for _, l := range strings.Split(text, "\n") {
		out = append(out, diffLine{op: "same", text: l})
	}
	return out
}

func buildSummary(tool string, a *jsonObject, n summaryNames) summary {
	orUnnamed := func(k string) string {
		if s, ok := str(a.val(k)); ok {
			return s
		}
		return "(unnamed)"
	}
	ref := func(k string) string { s, _ := str(a.val(k)); return s }

	switch tool {
	case "create_schema":
		name := orUnnamed("name")
		f := fieldsOf(a.val("response_format"))
		if f.err != "" {
			return summary{title: "Create schema " + quoted(name), fields: &summaryFields{label: "Fields", err: f.err}}
		}
		return summary{
			title:  fmt.Sprintf("Create schema %s with %s", quoted(name), plural(len(f.fields), "field")),
			fields: &summaryFields{label: "Fields", rows: fieldRows(f.fields, 0, "")},
		}

	case "update_schema":
		r := ref("schema_id")
		cur, known := n.latestSchema(r)
		s := summary{title: "Update schema " + n.schemaRef(r, 0)}
		if known {
			s.title = fmt.Sprintf("Update schema %s to v%d", quoted(cur.Name), cur.Version+1)
		}
		newName, hasName := str(a.val("name"))
		if hasName && (!known || newName != cur.Name) {
			var from *string
			if known {
				from = ptr(quoted(cur.Name))
			}
			s.props = append(s.props, change("Name", from, quoted(newName)))
		}
		if a.val("response_format") == nil {
			s.notes = append(s.notes, "The fields stay as they are.")
			if known && (!hasName || newName == cur.Name) {
				s.notes = append(s.notes, fmt.Sprintf("Nothing changes: the schema stays at v%d.", cur.Version))
			}
			return s
		}
		after := fieldsOf(a.val("response_format"))
		if after.err != "" {
			s.fields = &summaryFields{label: "Fields of the new version", err: after.err}
			return s
		}
		var before schemaFields
		if known {
			before = fieldsOf(rawValue(cur.ResponseFormat))
		}
		if !known || before.err != "" {
			s.fields = &summaryFields{label: "Fields of the new version", rows: fieldRows(after.fields, 0, "")}
			return s
		}
		rows := diffFields(before.fields, after.fields, 0, "")
		added, removed, changed := diffCounts(rows)
		s.fields = &summaryFields{label: fmt.Sprintf("Field changes against v%d", cur.Version), rows: rows, diff: true}
		if added+removed+changed == 0 {
			s.notes = append(s.notes, "The fields do not change.")
		} else {
			var parts []string
			if added > 0 {
				parts = append(parts, plural(added, "field")+" added")
			}
			if removed > 0 {
				parts = append(parts, plural(removed, "field")+" removed")
			}
			if changed > 0 {
				parts = append(parts, plural(changed, "field")+" changed")
			}
			s.notes = append(s.notes, strings.Join(parts, ", ")+".")
		}
		return s

	case "delete_schema":
		r := ref("schema_id")
		cur, known := n.latestSchema(r)
		s := summary{title: "Delete schema " + n.schemaRef(r, 0), danger: true}
		if !known {
			return s
		}
		s.title = fmt.Sprintf("Delete schema %s and its %s", quoted(cur.Name), plural(cur.Version, "version"))
		if prompts, ok := n.Prompts(); ok {
			var users []string
			for _, p := range prompts {
				if p.SchemaID == cur.SchemaID {
					users = append(users, p.Name)
				}
			}
			if len(users) > 0 {
				s.notes = append(s.notes, fmt.Sprintf("Used by %s %s: Docent refuses to delete a schema while a prompt uses it.", pluralWord(len(users), "prompt"), quoteAll(users)))
			} else {
				s.notes = append(s.notes, "No prompt uses it.")
			}
		}
		return s

	case "create_prompt":
		s := summary{title: "Create prompt " + quoted(orUnnamed("name"))}
		schemaValue := "none (free-form JSON)"
		if sid, ok := str(a.val("schema_id")); ok {
			v, _ := intArg(a.val("schema_version"))
			schemaValue = n.schemaRef(sid, v)
		}
		s.props = append(s.props, summaryProp{label: "Schema", value: schemaValue})
		model, ok := str(a.val("model"))
		if !ok {
			model = "default"
		}
		s.props = append(s.props, summaryProp{label: "Model", value: model})
		if tags := stringItems(a.val("tag_ids")); len(tags) > 0 {
			s.chipsLabel, s.chips = "Tags", n.tagChanges(nil, false, a.val("tag_ids"))
		}
		content, _ := a.val("content").(string)
		s.text = &summaryText{label: "Instructions", lines: sameLines(content)}
		return s

	case "update_prompt":
		r := ref("prompt_id")
		cur, known := n.latestPrompt(r)
		s := summary{title: "Update prompt " + n.promptRef(r)}
		if known {
			s.title = fmt.Sprintf("Update prompt %s to v%d", quoted(cur.Name), cur.Version+1)
		}
		changed := false
		if newName, ok := str(a.val("name")); ok && (!known || newName != cur.Name) {
			var from *string
			if known {
				from = ptr(quoted(cur.Name))
			}
			s.props = append(s.props, change("Name", from, quoted(newName)))
			changed = true
		}
		var curSchema *string
		if known {
			curSchema = ptr("none")
			if cur.SchemaID != "" {
				curSchema = ptr(n.schemaRef(cur.SchemaID, cur.SchemaVersion))
			}
		}
		version, hasVersion := intArg(a.val("schema_version"))
		if a.has("schema_id") {
			sid, _ := a.val("schema_id").(string)
			sid = strings.TrimSpace(sid)
			next := "none"
			if sid != "" {
				next = n.schemaRef(sid, version)
			}
			if curSchema == nil || next != *curSchema {
				s.props = append(s.props, change("Schema", curSchema, next))
				changed = true
			}
		} else if hasVersion && (!known || cur.SchemaVersion != version) {
			var from *string
			if known && cur.SchemaVersion != 0 {
				from = ptr(fmt.Sprintf("v%d", cur.SchemaVersion))
			}
			s.props = append(s.props, change("Schema version", from, fmt.Sprintf("v%d", version)))
			changed = true
		}
		if a.has("model") {
			next, ok := str(a.val("model"))
			if !ok {
				next = "default"
			}
			var before *string
			if known {
				before = ptr(firstNonEmpty(cur.Model, "default"))
			}
			if before == nil || next != *before {
				s.props = append(s.props, change("Model", before, next))
				changed = true
			}
		}
		if a.has("tag_ids") {
			chips := n.tagChanges(cur.TagIDs, known, a.val("tag_ids"))
			if !known || slices.ContainsFunc(chips, func(c summaryChip) bool { return c.change != "same" }) {
				s.chipsLabel, s.chips = "Tags", chips
				changed = true
			}
		}
		if content, ok := a.val("content").(string); ok {
			if known {
				if cur.Content != content {
					s.text = &summaryText{label: "Instructions (changes)", lines: foldDiff(lineDiff(cur.Content, content), 2), diff: true}
					changed = true
				}
			} else {
				s.text = &summaryText{label: "Instructions (new version)", lines: sameLines(content)}
				changed = true
			}
		}
		if known && !changed {
			s.notes = append(s.notes, fmt.Sprintf("Nothing changes: the prompt stays at v%d.", cur.Version))
		}
		return s

	case "delete_prompt":
		r := ref("prompt_id")
		s := summary{title: "Delete prompt " + n.promptRef(r), danger: true}
		if cur, ok := n.latestPrompt(r); ok {
			s.title = fmt.Sprintf("Delete prompt %s and its %s", quoted(cur.Name), plural(cur.Version, "version"))
		}
		s.notes = append(s.notes, "Extractions made with it are kept.")
		return s

	case "create_tag":
		name := orUnnamed("name")
		s := summary{title: "Create tag " + quoted(name), chipsLabel: "Tag", chips: []summaryChip{{name, "added"}}}
		if color, ok := str(a.val("color")); ok {
			s.props = append(s.props, summaryProp{label: "Colour", value: color})
		}
		if d, ok := str(a.val("description")); ok {
			s.props = append(s.props, summaryProp{label: "Description", value: quoted(d)})
		}
		return s

	case "update_tag":
		r := ref("tag_id")
		cur, known := n.Tag(r)
		s := summary{title: "Update tag " + quoted(r)}
		if known {
			s.title = "Update tag " + quoted(cur.Name)
		}
		newName, hasName := str(a.val("name"))
		if hasName && (!known || newName != cur.Name) {
			var from *string
			if known {
				from = ptr(quoted(cur.Name))
			}
			s.props = append(s.props, change("Name", from, quoted(newName)))
		}
		if color, ok := a.val("color").(string); ok && (!known || color != cur.Color) {
			var from *string
			if known {
				from = ptr(firstNonEmpty(cur.Color, "default"))
			}
			s.props = append(s.props, change("Colour", from, firstNonEmpty(color, "default")))
		}
		if d, ok := a.val("description").(string); ok && (!known || d != cur.Description) {
			desc := func(s string) string {
				if s == "" {
					return "(none)"
				}
				return quoted(s)
			}
			var from *string
			if known {
				from = ptr(desc(cur.Description))
			}
			s.props = append(s.props, change("Description", from, desc(d)))
		}
		if known && len(s.props) == 0 {
			s.notes = append(s.notes, "Nothing changes.")
		}
		chipName := newName
		if !hasName && known {
			chipName = cur.Name
		}
		if chipName != "" {
			s.chipsLabel, s.chips = "Tag", []summaryChip{{chipName, "same"}}
		}
		return s

	case "delete_tag":
		r := ref("tag_id")
		tag, known := n.Tag(r)
		s := summary{title: "Delete tag " + quoted(r), danger: true}
		if !known {
			return s
		}
		s.title = "Delete tag " + quoted(tag.Name)
		s.chipsLabel, s.chips = "Tag", []summaryChip{{tag.Name, "removed"}}
		docs, okDocs := n.TaggedDocuments(tag.ID)
		prompts, okPrompts := n.Prompts()
		if okDocs && okPrompts {
			var parts, users []string
			for _, p := range prompts {
				if slices.Contains(p.TagIDs, tag.ID) {
					users = append(users, p.Name)
				}
			}
			if docs > 0 {
				parts = append(parts, plural(docs, "document"))
			}
			if len(users) > 0 {
				parts = append(parts, pluralWord(len(users), "prompt")+" "+quoteAll(users))
			}
			if len(parts) > 0 {
				s.notes = append(s.notes, fmt.Sprintf("Used by %s: Docent refuses to delete a tag in use.", strings.Join(parts, " and ")))
			} else {
				s.notes = append(s.notes, "No document or prompt uses it.")
			}
		}
		return s

	case "run_extraction":
		r := ref("prompt_revid")
		cur, known := n.Prompt(r) // "" is the conversation's prompt
		title := "Run the conversation's prompt on this document"
		switch {
		case known:
			title = fmt.Sprintf("Run prompt %s on this document", label(cur.Name, cur.Version))
		case r != "":
			title = fmt.Sprintf("Run prompt %s on this document", quoted(r))
		}
		s := summary{title: title}
		if known {
			schemaValue := "none (free-form JSON)"
			if cur.SchemaID != "" {
				schemaValue = n.schemaRef(cur.SchemaID, cur.SchemaVersion)
			}
			s.props = append(s.props, summaryProp{label: "Schema", value: schemaValue}, summaryProp{label: "Model", value: firstNonEmpty(cur.Model, "default")})
		}
		s.notes = append(s.notes, "The result becomes this document's current extraction.")
		return s

	case "update_extraction_field":
		path, ok := str(a.val("path"))
		if !ok {
			path = "(no path)"
		}
		value, present := a.get("value")
		p := summaryProp{label: path, value: formatValue(value, present)}
		if x, known := n.Extraction(); known && ok {
			if root, err := parseJSON(x.Value); err == nil || len(x.Value) == 0 {
				v, found := valueAt(root, path)
				p.from = ptr(formatValue(v, found))
			}
		}
		return summary{title: fmt.Sprintf("Change %s in the extraction", path), props: []summaryProp{p}}

	case "update_document":
		current, name := n.docRef(a)
		newName, hasName := str(a.val("name"))
		onlyName := hasName && !a.has("tag_ids") && !a.has("metadata")
		var title string
		switch {
		case onlyName && name != "":
			title = fmt.Sprintf("Rename %s to %s", quoted(name), quoted(newName))
		case onlyName && current:
			title = "Rename this document to " + quoted(newName)
		case onlyName:
			title = "Rename the document to " + quoted(newName)
		case name != "":
			title = "Update document " + quoted(name)
		case current:
			title = "Update this document"
		default:
			title = "Update document " + quoted(ref("document_id"))
		}
		s := summary{title: title}
		if hasName {
			var from *string
			if name != "" {
				from = ptr(quoted(name))
			}
			s.props = append(s.props, change("Name", from, quoted(newName)))
		}
		if a.has("tag_ids") {
			var before []string
			known := false
			if current {
				if d, ok := n.Document(""); ok {
					before, known = d.TagIDs, true
				}
			}
			s.chipsLabel = "Tags from now on"
			if known {
				s.chipsLabel = "Tags"
			}
			s.chips = n.tagChanges(before, known, a.val("tag_ids"))
		}
		if a.has("metadata") {
			s.props = append(s.props, summaryProp{label: "Metadata", value: "replaced with " + formatValue(a.val("metadata"), true)})
		}
		return s

	case "delete_document":
		current, name := n.docRef(a)
		title := "Delete document " + quoted(ref("document_id"))
		switch {
		case name != "":
			title = "Delete document " + quoted(name)
		case current:
			title = "Delete this document"
		}
		return summary{title: title, danger: true, notes: []string{"Its pages, extractions and conversations are deleted with it."}}

	// ---- read-only: a title only
	case "get_ocr_text":
		if p, ok := a.val("page_num").(json.Number); ok {
			return summary{title: "Read page " + jsNumber(p)}
		}
		return summary{title: "Read the document text"}
	case "get_document":
		current, name := n.docRef(a)
		switch {
		case current:
			return summary{title: "Look up this document"}
		case name != "":
			return summary{title: "Look up document " + quoted(name)}
		}
		return summary{title: "Look up document " + quoted(ref("document_id"))}
	case "list_documents":
		return listTitle("List documents", a)
	case "get_extraction_result":
		return summary{title: "Read the current extraction"}
	case "get_schema":
		if r := ref("schema_revid"); r != "" {
			return summary{title: "Read schema " + n.schemaRef(r, 0)}
		}
		return summary{title: "Read a schema"}
	case "list_schemas":
		return listTitle("List schemas", a)
	case "validate_schema":
		return summary{title: "Check a schema"}
	case "validate_against_schema":
		if r := ref("schema_revid"); r != "" {
			return summary{title: "Check data against schema " + n.schemaRef(r, 0)}
		}
		return summary{title: "Check data against a schema"}
	case "get_prompt":
		if r := ref("prompt_revid"); r != "" {
			return summary{title: "Read prompt " + n.promptRef(r)}
		}
		return summary{title: "Read a prompt"}
	case "list_prompts":
		return listTitle("List prompts", a)
	case "get_tag":
		if r := ref("tag_id"); r != "" {
			return summary{title: "Read tag " + quoted(n.tagName(r))}
		}
		return summary{title: "Read a tag"}
	case "list_tags":
		return summary{title: "List tags"}
	case "help_schemas":
		return summary{title: "Read the guide to writing schemas"}
	case "help_prompts":
		return summary{title: "Read the guide to writing prompts"}
	case "list_models":
		return summary{title: "List models"}
	case "search_docs":
		if q, ok := str(a.val("query")); ok {
			return summary{title: "Search documents for " + quoted(q)}
		}
		return summary{title: "Search documents"}
	case "open_citation":
		if id := ref("document_id"); id != "" {
			if d, ok := n.Document(id); ok {
				return summary{title: "Open a passage of " + quoted(d.Name)}
			}
		}
		return summary{title: "Open a passage of a document"}
	}
	t := strings.ReplaceAll(tool, "_", " ")
	if r, size := utf8.DecodeRuneInString(t); size > 0 {
		t = string(unicode.ToUpper(r)) + t[size:]
	}
	return summary{title: t}
}

func listTitle(base string, a *jsonObject) summary {
	if q, ok := str(a.val("name_search")); ok {
		return summary{title: base + " matching " + quoted(q)}
	}
	return summary{title: base}
}

func pluralWord(n int, one string) string {
	if n == 1 {
		return one
	}
	return one + "s"
}

func quoteAll(names []string) string {
	out := make([]string, len(names))
	for i, s := range names {
		out[i] = quoted(s)
	}
	return strings.Join(out, ", ")
}

// rawValue is stored JSON as a value, nil when it is not JSON.
func rawValue(raw json.RawMessage) any {
	v, _ := parseJSON(raw)
	return v
}

// lines writes the body as plain text (the wording of summary.ts).
func (s summary) lines() []string {
	var out []string
	for _, p := range s.props {
		if p.from != nil {
			out = append(out, fmt.Sprintf("%s: %s → %s", p.label, *p.from, p.value))
		} else {
			out = append(out, fmt.Sprintf("%s: %s", p.label, p.value))
		}
	}
	if len(s.chips) > 0 {
		names := make([]string, len(s.chips))
		for i, c := range s.chips {
			switch c.change {
			case "added":
				names[i] = "+" + c.name
			case "removed":
				names[i] = "-" + c.name
			default:
				names[i] = c.name
			}
		}
		out = append(out, s.chipsLabel+": "+strings.Join(names, ", "))
	}
	if f := s.fields; f != nil {
		if f.err != "" {
			out = append(out, fmt.Sprintf("%s: cannot be shown: %s", f.label, f.err))
		} else {
			out = append(out, f.label+":")
			for _, r := range f.rows {
				out = append(out, "  "+r.line(f.diff))
			}
		}
	}
	if t := s.text; t != nil {
		out = append(out, t.label+":")
		for _, l := range t.lines {
			if t.diff {
				out = append(out, "  "+l.String())
			} else {
				out = append(out, "  | "+l.text)
			}
		}
	}
	return append(out, s.notes...)
}

// refusalText tells a failed call as the model's step.
func refusalText(title, err string) string {
	return fmt.Sprintf("The model tried to %s; Docent refused: %s", lcfirst(title), err)
}

// valueAt is the value at a path of an extraction, as
// update_extraction_field names it: dotted (line_items.0.amount) or a JSON
// pointer (/line_items/0/amount); found is false when it is not set.
func valueAt(root any, path string) (any, bool) {
	p := strings.TrimSpace(path)
	var parts []string
	if strings.HasPrefix(p, "/") {
		for _, s := range strings.Split(p[1:], "/") {
			parts = append(parts, strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~"))
		}
	} else {
		for _, s := range strings.Split(p, ".") {
			if s != "" {
				parts = append(parts, s)
			}
		}
	}
	cur := root
	for _, k := range parts {
		switch x := cur.(type) {
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) || strings.TrimLeft(k, "0123456789") != "" {
				return nil, false
			}
			cur = x[i]
		case *jsonObject:
			v, ok := x.get(k)
			if !ok {
				return nil, false
			}
			cur = v
		default:
			return nil, false
		}
	}
	return cur, true
}

// ---- schemas as fields (frontend/src/schema/fields.ts, reading)

// field is one property of a schema as the table models it.
type field struct {
	name        string
	typ         string // string, number, integer, boolean, date, object, array, other
	itemType    string // what an array holds: a scalar type, object or other
	nullable    bool
	required    bool
	description string
	children    []field
	raw         *jsonObject
}

type schemaFields struct {
	fields []field
	err    string
}

func baseType(s *jsonObject) (string, bool) {
	switch t := s.val("type").(type) {
	case string:
		return t, false
	case []any:
		var rest []string
		nullable := false
		for _, x := range t {
			name, ok := x.(string)
			if !ok {
				return "", false
			}
			if name == "null" {
				nullable = true
			} else {
				rest = append(rest, name)
			}
		}
		if len(rest) == 1 {
			return rest[0], nullable
		}
		return "", nullable
	}
	return "", false
}

func scalarOf(base string, s *jsonObject) string {
	switch base {
	case "string":
		if f, _ := s.val("format").(string); f == "date" {
			return "date"
		}
		return "string"
	case "number", "integer", "boolean", "object":
		return base
	}
	return ""
}

// kindOf is what the table calls a property's schema: its type, item type
// and whether it may be null.
func kindOf(v any) (typ, itemType string, nullable bool) {
	s, ok := isObj(v)
	if !ok {
		return "other", "", false
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "$ref", "not", "if"} {
		if truthy(s.val(k)) {
			return "other", "", false
		}
	}
	base, nullable := baseType(s)
	if base == "array" {
		items, ok := isObj(s.val("items"))
		if !ok {
			return "array", "other", nullable
		}
		ib, inull := baseType(items)
		it := ""
		if !inull && !truthy(items.val("anyOf")) && !truthy(items.val("oneOf")) && !truthy(items.val("$ref")) {
			it = scalarOf(ib, items)
		}
		return "array", cmpOrStr(it, "other"), nullable
	}
	if sc := scalarOf(base, s); sc != "" {
		return sc, "", nullable
	}
	return "other", "", false
}

func cmpOrStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func childrenOf(s *jsonObject) []field {
	props, ok := isObj(s.val("properties"))
	if s == nil || !ok {
		return nil
	}
	req, _ := s.val("required").([]any)
	var out []field
	for _, name := range props.keys {
		out = append(out, fieldOf(name, props.vals[name], slices.Contains(req, any(name))))
	}
	return out
}

func fieldOf(name string, p any, required bool) field {
	typ, it, nullable := kindOf(p)
	raw, _ := isObj(p)
	f := field{name: name, typ: typ, nullable: nullable, required: required, raw: raw}
	if raw != nil {
		f.description, _ = raw.val("description").(string)
	}
	switch {
	case typ == "array":
		f.itemType = it
		if it == "object" && raw != nil {
			items, _ := isObj(raw.val("items"))
			f.children = childrenOf(items)
		}
	case typ == "object" && raw != nil:
		f.children = childrenOf(raw)
	}
	return f
}

func isObjectSchema(s *jsonObject) bool {
	base, _ := baseType(s)
	_, props := isObj(s.val("properties"))
	return base == "object" || (!s.has("type") && props)
}

// innerSchema is the schema inside a response_format, or a bare schema as
// it is; nil when there is none.
func innerSchema(rf any) any {
	if s, ok := rf.(string); ok {
		rf, _ = parseJSON([]byte(s))
	}
	v, ok := isObj(rf)
	if !ok {
		return nil
	}
	if js, ok := isObj(v.val("json_schema")); ok {
		return js.val("schema")
	}
	if t, _ := v.val("type").(string); t == "json_schema" {
		return nil
	}
	return v
}

// fieldsOf reads the fields of a response_format, or says why it cannot.
func fieldsOf(rf any) schemaFields {
	inner := innerSchema(rf)
	if inner == nil {
		return schemaFields{err: "The schema is missing or not a JSON object."}
	}
	s, ok := isObj(inner)
	if !ok {
		return schemaFields{err: "The schema is not a JSON object."}
	}
	if !isObjectSchema(s) {
		return schemaFields{err: "The top level of this schema is not an object, so it cannot be shown as fields; edit it as JSON."}
	}
	return schemaFields{fields: childrenOf(s)}
}

var pluralType = map[string]string{"string": "strings", "number": "numbers", "integer": "integers", "boolean": "booleans", "date": "dates", "object": "objects"}

// typeLabel is the words for a field's type: "string", "array of
// objects", "number or null".
func typeLabel(f field) string {
	s := f.typ
	if f.typ == "array" {
		s = "array"
		if p, ok := pluralType[f.itemType]; ok {
			s = "array of " + p
		}
	}
	if f.nullable {
		s += " or null"
	}
	return s
}

// fieldRow is one line of a table of fields, with, in a diff, how it
// changed.
type fieldRow struct {
	path, name  string
	depth       int
	typ         string
	required    bool
	description string
	more        string // keywords the table does not show, as compact JSON
	change      string // added, removed, changed or same, in a diff
	changes     []string
}

var shownKeys = map[string]bool{"type": true, "description": true, "properties": true, "required": true, "items": true, "additionalProperties": true}

func moreOf(f field) string {
	if f.raw == nil {
		return ""
	}
	var parts []string
	for _, k := range f.raw.keys {
		v := f.raw.vals[k]
		if k == "description" || (f.typ != "other" && shownKeys[k]) {
			continue
		}
		if s, _ := v.(string); k == "format" && s == "date" && f.typ == "date" {
			continue
		}
		parts = append(parts, k+": "+compactJSON(v))
	}
	return truncate(strings.Join(parts, ", "), 160)
}

func holdsFields(f field) bool {
	return f.typ == "object" || (f.typ == "array" && f.itemType == "object")
}

// fieldRows are the rows of a table of fields, depth first.
func fieldRows(fields []field, depth int, prefix string) []fieldRow {
	var out []fieldRow
	for _, f := range fields {
		out = append(out, rowOf(f, depth, prefix))
		path := out[len(out)-1].path
		if len(f.children) > 0 && holdsFields(f) {
			out = append(out, fieldRows(f.children, depth+1, childPrefix(f, path))...)
		}
	}
	return out
}

func rowOf(f field, depth int, prefix string) fieldRow {
	path := f.name
	if prefix != "" {
		path = prefix + "." + f.name
	}
	return fieldRow{path: path, name: f.name, depth: depth, typ: typeLabel(f), required: f.required, description: f.description, more: moreOf(f)}
}

func childPrefix(f field, path string) string {
	if f.typ == "array" {
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
func diffFields(before, after []field, depth int, prefix string) []fieldRow {
	var out []fieldRow
	all := func(f field, change string) {
		for _, r := range fieldRows([]field{f}, depth, prefix) {
			r.change = change
			out = append(out, r)
		}
	}
	seen := map[string]bool{}
	for _, nf := range after {
		i := slices.IndexFunc(before, func(f field) bool { return f.name == nf.name })
		if i < 0 {
			all(nf, "added")
			continue
		}
		of := before[i]
		seen[of.name] = true
		oldRow, newRow := rowOf(of, depth, prefix), rowOf(nf, depth, prefix)
		var changes []string
		if oldRow.typ != newRow.typ {
			changes = append(changes, fmt.Sprintf("type %s → %s", oldRow.typ, newRow.typ))
		}
		if oldRow.required != newRow.required {
			if newRow.required {
				changes = append(changes, "optional → required")
			} else {
				changes = append(changes, "required → optional")
			}
		}
		if oldRow.description != newRow.description {
			changes = append(changes, fmt.Sprintf("description %s → %s", quoteOrNone(oldRow.description), quoteOrNone(newRow.description)))
		}
		if oldRow.more != newRow.more {
			changes = append(changes, "other settings changed")
		}
		newRow.change, newRow.changes = "same", changes
		if len(changes) > 0 {
			newRow.change = "changed"
		}
		out = append(out, newRow)
		if holdsFields(of) || holdsFields(nf) {
			var oc, nc []field
			if holdsFields(of) {
				oc = of.children
			}
			if holdsFields(nf) {
				nc = nf.children
			}
			out = append(out, diffFields(oc, nc, depth+1, childPrefix(nf, newRow.path))...)
		}
	}
	for _, of := range before {
		if !seen[of.name] {
			all(of, "removed")
		}
	}
	return out
}

func diffCounts(rows []fieldRow) (added, removed, changed int) {
	for _, r := range rows {
		switch r.change {
		case "added":
			added++
		case "removed":
			removed++
		case "changed":
			changed++
		}
	}
	return
}

// line is the row as text: `NAME: TYPE[, required][ — DESCRIPTION]`
// indented by depth, marked in a diff.
func (r fieldRow) line(diff bool) string {
	indent := strings.Repeat("  ", r.depth)
	mark := ""
	if diff {
		switch r.change {
		case "added":
			mark = "+ "
		case "removed":
			mark = "- "
		case "changed":
			mark = "~ "
		default:
			mark = "  "
		}
	}
	if diff && r.change == "changed" {
		return fmt.Sprintf("%s%s%s: %s", mark, indent, r.name, strings.Join(r.changes, "; "))
	}
	s := fmt.Sprintf("%s%s%s: %s", mark, indent, r.name, r.typ)
	if r.required {
		s += ", required"
	}
	if r.description != "" {
		s += " — " + r.description
	}
	return s
}

// ---- line diff (frontend/src/proposals/diff.ts)

// diffLine is one line of a diff: op same, add, del, or fold (text is then
// how many unchanged lines were folded).
type diffLine struct {
	op   string
	text string
}

// String is the line as the terminal prints it.
func (l diffLine) String() string {
	switch l.op {
	case "add":
		return "+ " + l.text
	case "del":
		return "- " + l.text
	case "fold":
		n, _ := strconv.Atoi(l.text)
		return "  … " + plural(n, "unchanged line")
	}
	return "  " + l.text
}

// maxDiffLines: beyond this many lines on either side, the changed middle
// is compared as blocks, to bound the work.
const maxDiffLines = 2000

// lineDiff is the line diff of two texts: the longest common subsequence
// of lines, deletions before additions within a changed block.
func lineDiff(before, after string) []diffLine {
	a := strings.Split(strings.ReplaceAll(before, "\r\n", "\n"), "\n")
	b := strings.Split(strings.ReplaceAll(after, "\r\n", "\n"), "\n")
	same := func(lines []string) []diffLine {
		out := make([]diffLine, len(lines))
		for i, t := range lines {
			out[i] = diffLine{"same", t}
		}
		return out
	}
	if before == after {
		return same(a)
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
	var mid []diffLine
	if len(am) > maxDiffLines || len(bm) > maxDiffLines {
		for _, t := range am {
			mid = append(mid, diffLine{"del", t})
		}
		for _, t := range bm {
			mid = append(mid, diffLine{"add", t})
		}
	} else {
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
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && am[i] == bm[j]:
				mid = append(mid, diffLine{"same", am[i]})
				i++
				j++
			case j < m && (i >= n || lcs[i][j+1] >= lcs[i+1][j]):
				mid = append(mid, diffLine{"add", bm[j]})
				j++
			default:
				mid = append(mid, diffLine{"del", am[i]})
				i++
			}
		}
		normaliseDiff(mid)
	}
	out := same(a[:head])
	out = append(out, mid...)
	return append(out, same(a[len(a)-tail:])...)
}

// normaliseDiff puts the deletions of each changed block before its
// additions.
func normaliseDiff(lines []diffLine) {
	for k := 0; k < len(lines); {
		if lines[k].op == "same" {
			k++
			continue
		}
		e := k
		for e < len(lines) && lines[e].op != "same" {
			e++
		}
		block := slices.Clone(lines[k:e])
		sorted := slices.DeleteFunc(slices.Clone(block), func(l diffLine) bool { return l.op != "del" })
		sorted = append(sorted, slices.DeleteFunc(block, func(l diffLine) bool { return l.op != "add" })...)
		copy(lines[k:e], sorted)
		k = e
	}
}

// foldDiff folds runs of unchanged lines more than context lines away
// from a change into one "fold" line.
func foldDiff(lines []diffLine, context int) []diffLine {
	near := make([]bool, len(lines))
	for i, l := range lines {
		if l.op == "same" {
			continue
		}
		for k := max(0, i-context); k <= min(len(lines)-1, i+context); k++ {
			near[k] = true
		}
	}
	var out []diffLine
	folded := 0
	for i, l := range lines {
		if l.op == "same" && !near[i] {
			folded++
			continue
		}
		if folded > 0 {
			out = append(out, diffLine{"fold", strconv.Itoa(folded)})
		}
		folded = 0
		out = append(out, l)
	}
	if folded > 0 {
		out = append(out, diffLine{"fold", strconv.Itoa(folded)})
	}
	return out
}
