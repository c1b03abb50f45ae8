package agent

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/agent/textfmt"
)

// Each tool's summary (what Summarize says a call will do) and its call
// words (the arguments in a few words after the tool's name), referenced
// from the registry beside the tool's Changes.

type args = *schema.Object

// orUnnamed is a name argument, or "(unnamed)".
func orUnnamed(a args, k string) string { return cmp.Or(argString(a, k), "(unnamed)") }

// ---- words of a call line

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

func (n names) docWords(a args) string {
	current, docName := n.docRef(a)
	switch {
	case docName != "":
		return qname(docName)
	case current:
		return "this document"
	}
	return qname(argString(a, "document_id"))
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

// docRef is the document a call names: current when it names none or the
// current one.
func (n names) docRef(a args) (current bool, name string) {
	id := argString(a, "document_id")
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

// ---- documents and text

func ocrTextSummary(a args, _ names) Summary {
	if p, ok := a.Val("page_num").(json.Number); ok {
		return titled("Read page " + schema.Number(p))
	}
	return titled("Read the document text")
}

func ocrTextWords(a args, _ names) string {
	if p, ok := intArg(a.Val("page_num")); ok {
		return fmt.Sprintf("page %d", p)
	}
	return "all pages"
}

func getDocumentSummary(a args, n names) Summary {
	current, name := n.docRef(a)
	switch {
	case current:
		return titled("Look up this document")
	case name != "":
		return titled("Look up document " + quoted(name))
	}
	return titled("Look up document " + quoted(argString(a, "document_id")))
}

func getDocumentWords(a args, n names) string {
	if d := n.docWords(a); d != "this document" {
		return d
	}
	return ""
}

func updateDocumentSummary(a args, n names) Summary {
	current, name := n.docRef(a)
	newName, hasName := str(a.Val("name"))
	onlyName := hasName && !a.Has("tag_ids") && !a.Has("metadata")
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
		title = "Update document " + quoted(argString(a, "document_id"))
	}
	s := titled(title)
	if hasName {
		var from *string
		if name != "" {
			from = new(quoted(name))
		}
		s.Props = append(s.Props, change("Name", from, quoted(newName)))
	}
	if a.Has("tag_ids") {
		var before []string
		known := false
		if current {
			if d, ok := n.Document(""); ok {
				before, known = d.TagIDs, true
			}
		}
		s.Chips = &SummaryChips{Label: "Tags from now on", Chips: n.tagChanges(before, known, a.Val("tag_ids"))}
		if known {
			s.Chips.Label = "Tags"
		}
	}
	if a.Has("metadata") {
		s.Props = append(s.Props, SummaryProp{Label: "Metadata", Value: "replaced with " + formatValue(a.Val("metadata"), true)})
	}
	return s
}

func updateDocumentWords(a args, n names) string {
	var parts []string
	if v := argString(a, "name"); v != "" {
		parts = append(parts, "new name "+qname(v))
	}
	if a.Has("tag_ids") {
		parts = append(parts, n.tagList(a.Val("tag_ids")))
	}
	if a.Has("metadata") {
		parts = append(parts, "new metadata")
	}
	return paren(n.docWords(a), parts)
}

func deleteDocumentSummary(a args, n names) Summary {
	current, name := n.docRef(a)
	title := "Delete document " + quoted(argString(a, "document_id"))
	switch {
	case name != "":
		title = "Delete document " + quoted(name)
	case current:
		title = "Delete this document"
	}
	return Summary{Title: title, Notes: []string{"Its pages, extractions and conversations are deleted with it."}}
}

func deleteDocumentWords(a args, n names) string { return n.docWords(a) }

func listWords(a args, n names) string { return listingWords(a, n) }

func searchSummary(a args, _ names) Summary {
	if q, ok := str(a.Val("query")); ok {
		return titled("Search documents for " + quoted(q))
	}
	return titled("Search documents")
}

func searchWords(a args, _ names) string { return qname(argString(a, "query")) }

func citationSummary(a args, n names) Summary {
	if id := argString(a, "document_id"); id != "" {
		if d, ok := n.Document(id); ok {
			return titled("Open a passage of " + quoted(d.Name))
		}
	}
	return titled("Open a passage of a document")
}

func citationWords(a args, n names) string {
	chunk, _ := intArg(a.Val("chunk_id"))
	d := argString(a, "document_id")
	if doc, ok := n.Document(d); ok {
		d = doc.Name
	}
	return fmt.Sprintf("chunk %d of %s", chunk, qname(d))
}

// ---- extractions

func extractionResultWords(a args, n names) string {
	if r := argString(a, "prompt_revid"); r != "" {
		return "of prompt " + n.promptWords(r, true)
	}
	return ""
}

func runExtractionSummary(a args, n names) Summary {
	r := argString(a, "prompt_revid")
	cur, known := n.Prompt(r) // "" is the conversation's prompt
	s := titled("Run the conversation's prompt on this document")
	switch {
	case known:
		s.Title = fmt.Sprintf("Run prompt %s on this document", label(cur.Name, cur.Version))
	case r != "":
		s.Title = fmt.Sprintf("Run prompt %s on this document", quoted(r))
	}
	if known {
		schemaValue := "none (free-form JSON)"
		if cur.SchemaID != "" {
			schemaValue = n.schemaRef(cur.SchemaID, cur.SchemaVersion)
		}
		s.Props = append(s.Props, SummaryProp{Label: "Schema", Value: schemaValue}, SummaryProp{Label: "Model", Value: cmp.Or(cur.Model, "default")})
	}
	s.Notes = append(s.Notes, "The result becomes this document's current extraction.")
	return s
}

func runExtractionWords(a args, n names) string {
	if r := argString(a, "prompt_revid"); r != "" {
		return "with prompt " + n.promptWords(r, true)
	}
	if p, ok := n.Prompt(""); ok {
		return "with the conversation's prompt " + refWords(p.Name, p.Version)
	}
	return "with the conversation's prompt"
}

func updateFieldSummary(a args, n names) Summary {
	path, ok := str(a.Val("path"))
	if !ok {
		path = "(no path)"
	}
	value, present := a.Get("value")
	p := SummaryProp{Label: path, Value: formatValue(value, present), Mono: true}
	s := Summary{Title: fmt.Sprintf("Change %s in the extraction", path), Form: "value"}
	if x, known := n.Extraction(); known && ok {
		if root, err := schema.ParseOrdered(x.Value); err == nil || len(x.Value) == 0 {
			v, found := valueAt(root, path)
			p.From = new(formatValue(v, found))
			s.Now = &SummaryNow{Found: found}
			if found {
				s.Now.Value = json.RawMessage(schema.Compact(v))
			}
		}
	}
	s.Props = []SummaryProp{p}
	return s
}

func updateFieldWords(a args, _ names) string {
	value := "null"
	if v, ok := a.Get("value"); ok {
		value = textfmt.Shorten(schema.Compact(v), 60)
	}
	return fmt.Sprintf("%s = %s", cmp.Or(argString(a, "path"), "(no path)"), value)
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
		case *schema.Object:
			v, ok := x.Get(k)
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

// ---- schemas

func getSchemaSummary(a args, n names) Summary {
	if r := argString(a, "schema_revid"); r != "" {
		return titled("Read schema " + n.schemaRef(r, 0))
	}
	return titled("Read a schema")
}

func getSchemaWords(a args, n names) string { return n.schemaRevWords(argString(a, "schema_revid")) }

func validateSchemaWords(a args, _ names) string {
	if f := fieldCount(a.Val("schema")); f != nil {
		return "(" + f[0] + ")"
	}
	return ""
}

func validateAgainstSummary(a args, n names) Summary {
	if r := argString(a, "schema_revid"); r != "" {
		return titled("Check data against schema " + n.schemaRef(r, 0))
	}
	return titled("Check data against a schema")
}

func validateAgainstWords(a args, n names) string {
	return "against " + n.schemaRevWords(argString(a, "schema_revid"))
}

func createSchemaSummary(a args, _ names) Summary {
	name := orUnnamed(a, "name")
	f, err := schema.TopFields(a.Val("response_format"))
	if err != nil {
		return Summary{Title: "Create schema " + quoted(name), Fields: &SummaryFields{Label: "Fields", Error: err.Error()}, Form: "schema"}
	}
	return Summary{
		Title:  fmt.Sprintf("Create schema %s with %s", quoted(name), textfmt.Count(len(f), "field")),
		Fields: &SummaryFields{Label: "Fields", Rows: fieldRows(f, 0, "")},
		Form:   "schema",
	}
}

func createSchemaWords(a args, _ names) string {
	return paren(qname(orUnnamed(a, "name")), fieldCount(a.Val("response_format")))
}

func updateSchemaSummary(a args, n names) Summary {
	r := argString(a, "schema_id")
	cur, known := n.latestSchema(r)
	s := titled("Update schema " + n.schemaRef(r, 0))
	s.Form = "schema"
	if known {
		s.Title = fmt.Sprintf("Update schema %s to v%d", quoted(cur.Name), cur.Version+1)
		s.Now = &SummaryNow{Name: cur.Name, ResponseFormat: cur.ResponseFormat}
	}
	newName, hasName, _ := s.rename(a, known, cur.Name)
	if a.Val("response_format") == nil {
		s.Notes = append(s.Notes, "The fields stay as they are.")
		if known && (!hasName || newName == cur.Name) {
			s.Notes = append(s.Notes, fmt.Sprintf("Nothing changes: the schema stays at v%d.", cur.Version))
		}
		return s
	}
	after, err := schema.TopFields(a.Val("response_format"))
	if err != nil {
		s.Fields = &SummaryFields{Label: "Fields of the new version", Error: err.Error()}
		return s
	}
	var before []schema.Field
	if known {
		before, err = schema.TopFields(schema.RootOf(cur.ResponseFormat))
	}
	if !known || err != nil {
		s.Fields = &SummaryFields{Label: "Fields of the new version", Rows: fieldRows(after, 0, "")}
		return s
	}
	rows := diffFields(before, after, 0, "")
	s.Fields = &SummaryFields{Label: fmt.Sprintf("Field changes against v%d", cur.Version), Rows: rows, Diff: true}
	s.Notes = append(s.Notes, cmp.Or(changeCounts(rows), "The fields do not change."))
	return s
}

func updateSchemaWords(a args, n names) string {
	var parts []string
	if v := argString(a, "name"); v != "" {
		parts = append(parts, "new name "+qname(v))
	}
	if a.Val("response_format") != nil {
		parts = append(parts, fieldCount(a.Val("response_format"))...)
	}
	return paren(n.schemaWords(argString(a, "schema_id"), 0), parts)
}

func deleteSchemaSummary(a args, n names) Summary {
	r := argString(a, "schema_id")
	cur, known := n.latestSchema(r)
	s := titled("Delete schema " + n.schemaRef(r, 0))
	if !known {
		return s
	}
	s.Title = fmt.Sprintf("Delete schema %s and its %s", quoted(cur.Name), textfmt.Count(cur.Version, "version"))
	if prompts, ok := n.Prompts(); ok {
		var users []string
		for _, p := range prompts {
			if p.SchemaID == cur.SchemaID {
				users = append(users, p.Name)
			}
		}
		if len(users) > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("Used by %s: Docent refuses to delete a schema while a prompt uses it.", promptsNamed(users)))
		} else {
			s.Notes = append(s.Notes, "No prompt uses it.")
		}
	}
	return s
}

func deleteSchemaWords(a args, n names) string { return n.schemaWords(argString(a, "schema_id"), 0) }

// ---- prompts

func getPromptSummary(a args, n names) Summary {
	if r := argString(a, "prompt_revid"); r != "" {
		return titled("Read prompt " + n.promptRef(r))
	}
	return titled("Read a prompt")
}

func getPromptWords(a args, n names) string { return n.promptWords(argString(a, "prompt_revid"), true) }

func createPromptSummary(a args, n names) Summary {
	s := titled("Create prompt " + quoted(orUnnamed(a, "name")))
	s.Form = "prompt"
	schemaValue := "none (free-form JSON)"
	if sid, ok := str(a.Val("schema_id")); ok {
		v, _ := intArg(a.Val("schema_version"))
		schemaValue = n.schemaRef(sid, v)
	}
	s.Props = append(s.Props, SummaryProp{Label: "Schema", Value: schemaValue}, SummaryProp{Label: "Model", Value: cmp.Or(argString(a, "model"), "default")})
	if tags := stringItems(a.Val("tag_ids")); len(tags) > 0 {
		s.Chips = &SummaryChips{Label: "Tags", Chips: n.tagChanges(nil, false, a.Val("tag_ids"))}
	}
	content, _ := a.Val("content").(string)
	s.Text = &SummaryText{Label: "Instructions", Lines: sameLines(strings.Split(content, "\n"))}
	return s
}

// promptSettingWords are the words of a prompt's schema, model and tags.
func promptSettingWords(a args, n names, update bool) []string {
	var parts []string
	version, _ := intArg(a.Val("schema_version"))
	switch hasSchema := a.Has("schema_id"); {
	case hasSchema && argString(a, "schema_id") != "":
		parts = append(parts, "schema "+n.schemaWords(argString(a, "schema_id"), version))
	case hasSchema && update:
		parts = append(parts, "no schema")
	case version != 0:
		parts = append(parts, fmt.Sprintf("schema v%d", version))
	}
	if a.Has("model") {
		parts = append(parts, "model "+cmp.Or(argString(a, "model"), "default"))
	}
	if a.Has("tag_ids") && (update || len(stringItems(a.Val("tag_ids"))) > 0) {
		parts = append(parts, n.tagList(a.Val("tag_ids")))
	}
	return parts
}

func createPromptWords(a args, n names) string {
	return paren(qname(orUnnamed(a, "name")), promptSettingWords(a, n, false))
}

func updatePromptSummary(a args, n names) Summary {
	r := argString(a, "prompt_id")
	cur, known := n.latestPrompt(r)
	s := titled("Update prompt " + n.promptRef(r))
	s.Form = "prompt"
	if known {
		s.Title = fmt.Sprintf("Update prompt %s to v%d", quoted(cur.Name), cur.Version+1)
		s.Now = &SummaryNow{Name: cur.Name, Content: new(cur.Content)}
	}
	changed := false
	set := func(p SummaryProp) {
		s.Props = append(s.Props, p)
		changed = true
	}
	if _, _, renamed := s.rename(a, known, cur.Name); renamed {
		changed = true
	}
	var curSchema *string
	if known {
		curSchema = new("none")
		if cur.SchemaID != "" {
			curSchema = new(n.schemaRef(cur.SchemaID, cur.SchemaVersion))
		}
	}
	version, hasVersion := intArg(a.Val("schema_version"))
	if a.Has("schema_id") {
		sid, _ := a.Val("schema_id").(string)
		next := "none"
		if sid = strings.TrimSpace(sid); sid != "" {
			next = n.schemaRef(sid, version)
		}
		if curSchema == nil || next != *curSchema {
			set(change("Schema", curSchema, next))
		}
	} else if hasVersion && (!known || cur.SchemaVersion != version) {
		var from *string
		if known && cur.SchemaVersion != 0 {
			from = new(fmt.Sprintf("v%d", cur.SchemaVersion))
		}
		set(change("Schema version", from, fmt.Sprintf("v%d", version)))
	}
	if a.Has("model") {
		next := cmp.Or(argString(a, "model"), "default")
		var before *string
		if known {
			before = new(cmp.Or(cur.Model, "default"))
		}
		if before == nil || next != *before {
			set(change("Model", before, next))
		}
	}
	if a.Has("tag_ids") {
		chips := n.tagChanges(cur.TagIDs, known, a.Val("tag_ids"))
		if !known || slices.ContainsFunc(chips, func(c SummaryChip) bool { return c.Change != "same" }) {
			s.Chips = &SummaryChips{Label: "Tags", Chips: chips}
			changed = true
		}
	}
	if content, ok := a.Val("content").(string); ok {
		switch {
		case !known:
			s.Text = &SummaryText{Label: "Instructions (new version)", Lines: sameLines(strings.Split(content, "\n"))}
			changed = true
		case cur.Content != content:
			s.Text = &SummaryText{Label: "Instructions (changes)", Lines: foldDiff(lineDiff(cur.Content, content), 2), Diff: true}
			changed = true
		}
	}
	if known && !changed {
		s.Notes = append(s.Notes, fmt.Sprintf("Nothing changes: the prompt stays at v%d.", cur.Version))
	}
	return s
}

func updatePromptWords(a args, n names) string {
	var parts []string
	if v := argString(a, "name"); v != "" {
		parts = append(parts, "new name "+qname(v))
	}
	if _, ok := a.Val("content").(string); ok {
		parts = append(parts, "new instructions")
	}
	parts = append(parts, promptSettingWords(a, n, true)...)
	return paren(n.promptWords(argString(a, "prompt_id"), false), parts)
}

func deletePromptSummary(a args, n names) Summary {
	r := argString(a, "prompt_id")
	s := titled("Delete prompt " + n.promptRef(r))
	if cur, ok := n.latestPrompt(r); ok {
		s.Title = fmt.Sprintf("Delete prompt %s and its %s", quoted(cur.Name), textfmt.Count(cur.Version, "version"))
	}
	s.Notes = append(s.Notes, "Extractions made with it are kept.")
	return s
}

func deletePromptWords(a args, n names) string {
	return n.promptWords(argString(a, "prompt_id"), false)
}

// ---- tags

func getTagSummary(a args, n names) Summary {
	if r := argString(a, "tag_id"); r != "" {
		return titled("Read tag " + quoted(n.tagName(r)))
	}
	return titled("Read a tag")
}

func tagWords(a args, n names) string { return n.tagWords(argString(a, "tag_id")) }

func createTagSummary(a args, _ names) Summary {
	name := orUnnamed(a, "name")
	color := argString(a, "color")
	s := Summary{Title: "Create tag " + quoted(name), Chips: &SummaryChips{Label: "Tag", Chips: []SummaryChip{{Name: name, Color: color, Change: "added"}}}}
	if color != "" {
		s.Props = append(s.Props, SummaryProp{Label: "Colour", Value: color})
	}
	if d, ok := str(a.Val("description")); ok {
		s.Props = append(s.Props, SummaryProp{Label: "Description", Value: quoted(d)})
	}
	return s
}

// tagSettingWords are the words of a tag's colour and description; empty
// ones count for an update only (they reset).
func tagSettingWords(a args, update bool) []string {
	var parts []string
	if c, ok := a.Val("color").(string); ok && (c != "" || update) {
		parts = append(parts, "colour "+cmp.Or(c, "default"))
	}
	if d, ok := a.Val("description").(string); ok && (d != "" || update) {
		parts = append(parts, "description "+qname(d))
	}
	return parts
}

func createTagWords(a args, _ names) string {
	return paren(qname(orUnnamed(a, "name")), tagSettingWords(a, false))
}

func updateTagSummary(a args, n names) Summary {
	r := argString(a, "tag_id")
	cur, known := n.Tag(r)
	s := titled("Update tag " + quoted(r))
	if known {
		s.Title = "Update tag " + quoted(cur.Name)
	}
	newName, hasName, _ := s.rename(a, known, cur.Name)
	color, setsColor := a.Val("color").(string)
	if setsColor && (!known || color != cur.Color) {
		var from *string
		if known {
			from = new(cmp.Or(cur.Color, "default"))
		}
		s.Props = append(s.Props, change("Colour", from, cmp.Or(color, "default")))
	}
	if d, ok := a.Val("description").(string); ok && (!known || d != cur.Description) {
		var from *string
		if known {
			from = new(quoteOrNone(cur.Description))
		}
		s.Props = append(s.Props, change("Description", from, quoteOrNone(d)))
	}
	if known && len(s.Props) == 0 {
		s.Notes = append(s.Notes, "Nothing changes.")
	}
	chipName := newName
	if !hasName && known {
		chipName = cur.Name
	}
	if !setsColor {
		color = cur.Color
	}
	if chipName != "" {
		s.Chips = &SummaryChips{Label: "Tag", Chips: []SummaryChip{{Name: chipName, Color: color, Change: "same"}}}
	}
	return s
}

func updateTagWords(a args, n names) string {
	var parts []string
	if v := argString(a, "name"); v != "" {
		parts = append(parts, "new name "+qname(v))
	}
	return paren(n.tagWords(argString(a, "tag_id")), append(parts, tagSettingWords(a, true)...))
}

func deleteTagSummary(a args, n names) Summary {
	r := argString(a, "tag_id")
	tag, known := n.Tag(r)
	s := titled("Delete tag " + quoted(r))
	if !known {
		return s
	}
	s.Title = "Delete tag " + quoted(tag.Name)
	s.Chips = &SummaryChips{Label: "Tag", Chips: []SummaryChip{{Name: tag.Name, Color: tag.Color, Change: "removed"}}}
	docs, okDocs := n.TaggedDocuments(tag.ID)
	prompts, okPrompts := n.Prompts()
	if !okDocs || !okPrompts {
		return s
	}
	var parts, users []string
	for _, p := range prompts {
		if slices.Contains(p.TagIDs, tag.ID) {
			users = append(users, p.Name)
		}
	}
	if docs > 0 {
		parts = append(parts, textfmt.Count(docs, "document"))
	}
	if len(users) > 0 {
		parts = append(parts, promptsNamed(users))
	}
	if len(parts) > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("Used by %s: Docent refuses to delete a tag in use.", strings.Join(parts, " and ")))
	} else {
		s.Notes = append(s.Notes, "No document or prompt uses it.")
	}
	return s
}
