package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/storage"
)

// What `docent chat` prints for people: each tool call and each result as
// one readable line, and a closing line per turn. The approval questions
// (approve_prompt.go) show a call's summary (proposal_summary.go).

// styler colours text on a terminal; off, it leaves the text alone.
type styler struct{ on bool }

// newStyler colours when the stream is a terminal, NO_COLOR is not set
// (no-color.org) and the terminal is not dumb.
func newStyler(tty bool) styler {
	return styler{on: tty && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"}
}

func (s styler) wrap(code, text string) string {
	if !s.on || text == "" {
		return text
	}
	return "\033[" + code + "m" + text + "\033[0m"
}

func (s styler) bold(t string) string    { return s.wrap("1", t) }
func (s styler) dim(t string) string     { return s.wrap("2", t) }
func (s styler) red(t string) string     { return s.wrap("31", t) }
func (s styler) green(t string) string   { return s.wrap("32", t) }
func (s styler) yellow(t string) string  { return s.wrap("33", t) }
func (s styler) boldRed(t string) string { return s.wrap("1;31", t) }
func (s styler) key(t string) string     { return s.wrap("1;36", t) }

// qname quotes a name for a call line: "Invoice".
func qname(s string) string { return strconv.Quote(truncate(s, 60)) }

// refWords names a schema or prompt for a call line: "Invoice" v2.
func refWords(n string, version int) string {
	if version == 0 {
		return qname(n)
	}
	return fmt.Sprintf("%s v%d", qname(n), version)
}

// callLine is a tool call on one line for people, without the arrow:
// `create_schema "Invoice" (7 fields)`, `get_ocr_text page 2`. lk names
// what the call refers to; nil names things by the references given.
func callLine(c agent.ToolCall, lk summaryLookup) string {
	raw := bytes.TrimSpace(c.Arguments)
	if len(raw) > 0 {
		if v, err := parseJSON(raw); err != nil {
			return c.Name + " " + compactArgs(c.Arguments) // not JSON: as the model sent it
		} else if _, ok := v.(string); !ok {
			if _, ok := isObj(v); !ok {
				return c.Name + " " + compactArgs(c.Arguments)
			}
		}
	}
	if _, known := agent.ToolByName(c.Name); !known {
		return c.Name + " " + truncate(compactArgs(c.Arguments), 120)
	}
	words := callWords(c.Name, argsObject(raw), summaryNames{lookupOrNone(lk)})
	if words == "" {
		return c.Name
	}
	return c.Name + " " + words
}

func callWords(tool string, a *jsonObject, n summaryNames) string {
	s := func(k string) string { v, _ := str(a.val(k)); return v }
	schemaWords := func(ref string, version int) string {
		if r, ok := n.Schema(ref); ok {
			return refWords(r.Name, version)
		}
		return refWords(ref, version)
	}
	promptWords := func(ref string, withVersion bool) string {
		if r, ok := n.Prompt(ref); ok && ref != "" { // "" is the conversation's prompt
			if withVersion {
				return refWords(r.Name, r.Version)
			}
			return qname(r.Name)
		}
		return qname(ref)
	}
	tagWords := func(ref string) string { return qname(n.tagName(ref)) }
	tagList := func(v any) string {
		var out []string
		for _, r := range stringItems(v) {
			out = append(out, tagWords(r))
		}
		if len(out) == 0 {
			return "no tags"
		}
		return "tags " + strings.Join(out, ", ")
	}
	docWords := func() string {
		current, docName := n.docRef(a)
		switch {
		case docName != "":
			return qname(docName)
		case current:
			return "this document"
		}
		return qname(s("document_id"))
	}
	paren := func(head string, parts []string) string {
		if len(parts) == 0 {
			return head
		}
		return head + " (" + strings.Join(parts, ", ") + ")"
	}
	listing := func() string {
		var parts []string
		if q := s("name_search"); q != "" {
			parts = append(parts, "matching "+qname(q))
		}
		if a.has("tag_ids") && len(stringItems(a.val("tag_ids"))) > 0 {
			parts = append(parts, "with "+tagList(a.val("tag_ids")))
		}
		if d := s("document_id"); d != "" {
			if doc, ok := n.Document(d); ok {
				d = doc.Name
			}
			parts = append(parts, "sharing a tag with "+qname(d))
		}
		if v, ok := intArg(a.val("skip")); ok && v > 0 {
			parts = append(parts, fmt.Sprintf("from %d", v))
		}
		if v, ok := intArg(a.val("limit")); ok {
			parts = append(parts, fmt.Sprintf("%d at most", v))
		}
		return strings.Join(parts, ", ")
	}
	fieldCount := func(v any) string {
		if f := fieldsOf(v); f.err == "" {
			return plural(len(f.fields), "field")
		}
		return ""
	}
	nonEmpty := func(parts ...string) []string {
		var out []string
		for _, p := range parts {
			if p != "" {
				out = append(out, p)
			}
		}
		return out
	}

	switch tool {
	case "get_ocr_text":
		if p, ok := intArg(a.val("page_num")); ok {
			return fmt.Sprintf("page %d", p)
		}
		return "all pages"
	case "get_document":
		if d := docWords(); d != "this document" {
			return d
		}
		return ""
	case "list_documents", "list_schemas", "list_prompts", "list_tags":
		return listing()
	case "get_extraction_result":
		if r := s("prompt_revid"); r != "" {
			return "of prompt " + promptWords(r, true)
		}
		return ""
	case "get_schema":
		return schemaWords(s("schema_revid"), schemaVersion(n, s("schema_revid")))
	case "validate_schema":
		if f := fieldCount(a.val("schema")); f != "" {
			return "(" + f + ")"
		}
		return ""
	case "validate_against_schema":
		return "against " + schemaWords(s("schema_revid"), schemaVersion(n, s("schema_revid")))
	case "get_prompt":
		return promptWords(s("prompt_revid"), true)
	case "get_tag", "delete_tag":
		return tagWords(s("tag_id"))
	case "search_docs":
		return qname(s("query"))
	case "open_citation":
		chunk, _ := intArg(a.val("chunk_id"))
		d := s("document_id")
		if doc, ok := n.Document(d); ok {
			d = doc.Name
		}
		return fmt.Sprintf("chunk %d of %s", chunk, qname(d))
	case "run_extraction":
		if r := s("prompt_revid"); r != "" {
			return "with prompt " + promptWords(r, true)
		}
		if p, ok := n.Prompt(""); ok {
			return "with the conversation's prompt " + refWords(p.Name, p.Version)
		}
		return "with the conversation's prompt"
	case "update_extraction_field":
		value := "null"
		if v, ok := a.get("value"); ok {
			value = truncate(compactJSON(v), 60)
		}
		return fmt.Sprintf("%s = %s", firstNonEmpty(s("path"), "(no path)"), value)
	case "update_document":
		var parts []string
		if v := s("name"); v != "" {
			parts = append(parts, "new name "+qname(v))
		}
		if a.has("tag_ids") {
			parts = append(parts, tagList(a.val("tag_ids")))
		}
		if a.has("metadata") {
			parts = append(parts, "new metadata")
		}
		return paren(docWords(), parts)
	case "delete_document":
		return docWords()
	case "create_schema":
		return paren(qname(firstNonEmpty(s("name"), "(unnamed)")), nonEmpty(fieldCount(a.val("response_format"))))
	case "update_schema", "delete_schema":
		head := schemaWords(s("schema_id"), 0)
		if tool == "delete_schema" {
			return head
		}
		var parts []string
		if v := s("name"); v != "" {
			parts = append(parts, "new name "+qname(v))
		}
		if a.val("response_format") != nil {
			parts = append(parts, nonEmpty(fieldCount(a.val("response_format")))...)
		}
		return paren(head, parts)
	case "create_prompt", "update_prompt":
		var head string
		var parts []string
		if tool == "create_prompt" {
			head = qname(firstNonEmpty(s("name"), "(unnamed)"))
		} else {
			head = promptWords(s("prompt_id"), false)
			if v := s("name"); v != "" {
				parts = append(parts, "new name "+qname(v))
			}
			if _, ok := a.val("content").(string); ok {
				parts = append(parts, "new instructions")
			}
		}
		version, _ := intArg(a.val("schema_version"))
		switch hasSchema := a.has("schema_id"); {
		case hasSchema && s("schema_id") != "":
			parts = append(parts, "schema "+schemaWords(s("schema_id"), version))
		case hasSchema && tool == "update_prompt":
			parts = append(parts, "no schema")
		case version != 0:
			parts = append(parts, fmt.Sprintf("schema v%d", version))
		}
		if a.has("model") {
			parts = append(parts, "model "+firstNonEmpty(s("model"), "default"))
		}
		if a.has("tag_ids") && (tool == "update_prompt" || len(stringItems(a.val("tag_ids"))) > 0) {
			parts = append(parts, tagList(a.val("tag_ids")))
		}
		return paren(head, parts)
	case "delete_prompt":
		return promptWords(s("prompt_id"), false)
	case "create_tag", "update_tag":
		var head string
		var parts []string
		if tool == "create_tag" {
			head = qname(firstNonEmpty(s("name"), "(unnamed)"))
		} else {
			head = tagWords(s("tag_id"))
			if v := s("name"); v != "" {
				parts = append(parts, "new name "+qname(v))
			}
		}
		if c, ok := a.val("color").(string); ok && (c != "" || tool == "update_tag") {
			parts = append(parts, "colour "+firstNonEmpty(c, "default"))
		}
		if d, ok := a.val("description").(string); ok && (d != "" || tool == "update_tag") {
			parts = append(parts, "description "+qname(d))
		}
		return paren(head, parts)
	}
	return ""
}

// schemaVersion is the version of the revision a schema reference names,
// 0 when unknown.
func schemaVersion(n summaryNames, ref string) int {
	if r, ok := n.Schema(ref); ok {
		return r.Version
	}
	return 0
}

// resultLine is a tool's outcome on one line for people, without the
// mark: `get_ocr_text: page 2 of 3, 1,234 characters`, `create_tag:
// created tag aws (tag_…)`, or the tool's name alone when there is
// nothing to say; a failure is `tool: why`.
func resultLine(ev agent.ToolResultPayload) string {
	if !ev.Success {
		return ev.Name + ": " + firstNonEmpty(oneLine(ev.Error), "failed")
	}
	if d := resultWords(ev.Name, ev.Result); d != "" {
		return ev.Name + ": " + d
	}
	if p := oneLine(ev.Preview); p != "" {
		return ev.Name + ": " + p
	}
	return ev.Name
}

// oneLine joins text's lines and spaces and cuts it for one line.
func oneLine(s string) string { return truncate(strings.Join(strings.Fields(s), " "), 300) }

// resultWords describes the results of the tools whose preview does not
// say enough ("" for the others).
func resultWords(tool string, raw json.RawMessage) string {
	v, err := parseJSON(raw)
	if err != nil {
		return ""
	}
	r, _ := isObj(v)
	if r == nil {
		return ""
	}
	num := func(o *jsonObject, k string) int { n, _ := intArg(o.val(k)); return n }
	text := func(o *jsonObject, k string) string { s, _ := o.val(k).(string); return s }
	count := func(k, one string) string {
		items, ok := r.val(k).([]any)
		if !ok {
			return ""
		}
		total := num(r, "total")
		if total > len(items) {
			return fmt.Sprintf("%d of %s", len(items), plural(total, one))
		}
		return plural(len(items), one)
	}
	chars := func(s string) string {
		shown, cut := s, ""
		if i := strings.Index(s, "\n[truncated: "); i >= 0 {
			shown, cut = s[:i], ", cut"
		}
		return withCommas(utf8.RuneCountInString(shown)) + " characters" + cut
	}
	switch tool {
	case "get_ocr_text":
		if p := num(r, "page"); p > 0 {
			return fmt.Sprintf("page %d of %d, %s", p, num(r, "pages"), chars(text(r, "text")))
		}
		return fmt.Sprintf("%s, %s", plural(num(r, "pages"), "page"), chars(text(r, "text")))
	case "get_document":
		return fmt.Sprintf("%s, %s, %s", qname(text(r, "name")), plural(num(r, "pages"), "page"), firstNonEmpty(text(r, "status"), "ready"))
	case "list_documents":
		return count("documents", "document")
	case "list_schemas":
		return count("schemas", "schema")
	case "list_prompts":
		return count("prompts", "prompt")
	case "list_tags":
		return count("tags", "tag")
	case "get_schema":
		words := refWords(text(r, "name"), num(r, "version"))
		if f := fieldsOf(r.val("response_format")); f.err == "" {
			words += ", " + plural(len(f.fields), "field")
		}
		return words
	case "get_prompt":
		return fmt.Sprintf("%s, %s", refWords(text(r, "name"), num(r, "version")), plural(len(strings.Split(text(r, "content"), "\n")), "line"))
	case "get_tag":
		return qname(text(r, "name"))
	case "open_citation":
		return fmt.Sprintf("page %d, %s", num(r, "page"), chars(text(r, "text")))
	case "validate_schema", "validate_against_schema":
		return validityWords(r)
	case "get_extraction_result", "run_extraction":
		x, _ := isObj(r.val("extraction"))
		if x == nil {
			return ""
		}
		return extractionWords(x)
	}
	return ""
}

// problemWords is the first of a list of {path, message} problems, and
// how many more there are.
func problemWords(v any) string {
	items, _ := v.([]any)
	if len(items) == 0 {
		return ""
	}
	first, _ := isObj(items[0])
	msg, _ := first.val("message").(string)
	if path, _ := first.val("path").(string); path != "" {
		msg = path + ": " + msg
	}
	msg = truncate(msg, 160)
	if len(items) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(items)-1)
	}
	return msg
}

func validityWords(r *jsonObject) string {
	if valid, _ := r.val("valid").(bool); !valid {
		if p := problemWords(r.val("errors")); p != "" {
			return "invalid: " + p
		}
		return "invalid"
	}
	if p := problemWords(r.val("warnings")); p != "" {
		return "valid, with warnings: " + p
	}
	return "valid"
}

// extractionWords says how an extraction went: its validation, and the
// values the document does not show.
func extractionWords(x *jsonObject) string {
	status, _ := x.val("validation_status").(string)
	words := firstNonEmpty(status, "not validated")
	if status == storage.ValidationInvalid {
		if p := problemWords(x.val("validation_errors")); p != "" {
			words += " (" + p + ")"
		}
	}
	if x.val("value") == nil {
		words += ", the model's output is not JSON"
	}
	if edited, _ := x.val("edited").(bool); edited {
		words += ", edited"
	}
	paths := func(k string) (int, string) {
		items := stringItems(x.val(k))
		shown := items
		if len(shown) > 5 {
			shown = append(shown[:5:5], "…")
		}
		return len(items), strings.Join(shown, ", ")
	}
	if n, list := paths("ungrounded"); n > 0 {
		words += fmt.Sprintf(", %s not found in the document (%s)", plural(n, "value"), list)
	}
	if n, list := paths("ambiguous"); n > 0 {
		words += fmt.Sprintf(", %s found in several places (%s)", plural(n, "value"), list)
	}
	return words
}

// withCommas writes n with thousands separators: 12,345.
func withCommas(n int) string {
	if n < 0 {
		return "-" + withCommas(-n)
	}
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// turnDuration writes how long a turn took: 12.4 s, 2 min 5 s.
func turnDuration(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%d min %d s", int(d/time.Minute), int(d%time.Minute/time.Second))
}

// closingLine ends a turn's output: `— thread thr_… "Invoice setup" ·
// 3 rounds · 4,812 tokens · 12.4 s`.
func closingLine(threadID, title string, rounds, tokens int, took time.Duration) string {
	head := "— thread " + threadID
	if title != "" {
		head += " " + qname(title)
	}
	return strings.Join([]string{head, plural(rounds, "round"), withCommas(tokens) + " tokens", turnDuration(took)}, " · ")
}

// storeLookup answers a summary's questions from the store, for the
// conversation about one document.
type storeLookup struct {
	ctx   context.Context
	db    *storage.DB
	docID string
	// ws is the conversation's working state as last seen.
	ws agent.WorkingState
}

func (l *storeLookup) Schema(ref string) (storage.SchemaRevision, bool) {
	if strings.TrimSpace(ref) == "" {
		return storage.SchemaRevision{}, false
	}
	r, err := l.db.FindSchema(l.ctx, strings.TrimSpace(ref))
	return r, err == nil
}

func (l *storeLookup) Prompt(ref string) (storage.PromptRevision, bool) {
	if ref = strings.TrimSpace(ref); ref == "" {
		ref = l.ws.PromptRevID
	}
	if ref == "" {
		return storage.PromptRevision{}, false
	}
	r, err := l.db.FindPrompt(l.ctx, ref)
	return r, err == nil
}

func (l *storeLookup) Tag(ref string) (storage.Tag, bool) {
	if strings.TrimSpace(ref) == "" {
		return storage.Tag{}, false
	}
	t, err := l.db.FindTag(l.ctx, strings.TrimSpace(ref))
	return t, err == nil
}

func (l *storeLookup) Document(id string) (storage.Document, bool) {
	if id = strings.TrimSpace(id); id == "" {
		id = l.docID
	}
	if id == "" {
		return storage.Document{}, false
	}
	d, err := l.db.GetDocument(l.ctx, id)
	return d, err == nil
}

// Extraction is the one update_extraction_field edits: the working
// state's, else the document's newest.
func (l *storeLookup) Extraction() (storage.Extraction, bool) {
	if x := l.ws.Extraction; x != nil {
		if cur, err := l.db.GetExtraction(l.ctx, x.ID); err == nil {
			return cur, true
		}
		return *x, true
	}
	x, err := l.db.LatestExtraction(l.ctx, l.docID, "")
	return x, err == nil
}

func (l *storeLookup) Prompts() ([]storage.PromptRevision, bool) {
	var out []storage.PromptRevision
	for {
		page, total, err := l.db.ListPrompts(l.ctx, storage.PromptFilter{Skip: len(out), Limit: 100})
		if err != nil {
			return nil, false
		}
		out = append(out, page...)
		if len(page) == 0 || len(out) >= total {
			return out, true
		}
	}
}

func (l *storeLookup) TaggedDocuments(tagID string) (int, bool) {
	_, total, err := l.db.ListDocuments(l.ctx, storage.DocumentFilter{TagIDs: []string{tagID}, Limit: 1})
	return total, err == nil
}

// noteResult keeps the working state current as calls change it, so that
// later calls name "the conversation's prompt".
func (l *storeLookup) noteResult(ev agent.ToolResultPayload) {
	if !ev.Success {
		return
	}
	var r struct {
		PromptRevID string              `json:"prompt_revid"`
		Extraction  *storage.Extraction `json:"extraction"`
	}
	switch ev.Name {
	case "create_prompt", "update_prompt", "run_extraction", "update_extraction_field":
		if json.Unmarshal(ev.Result, &r) != nil {
			return
		}
		if r.PromptRevID != "" {
			l.ws.PromptRevID = r.PromptRevID
		}
		if r.Extraction != nil && ev.Name != "create_prompt" && ev.Name != "update_prompt" {
			l.ws.Extraction = r.Extraction
		}
	}
}
