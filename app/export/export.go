// Package export turns the extractions of a schema or a prompt into a
// table: one row per document, nested fields flattened to dotted column
// names in the schema's order, arrays as JSON in one cell (or one row per
// item with Explode), edited values marked. The CLI's `docent export` and
// the HTTP exports both use it, so a file looks the same wherever it comes
// from; the data view's rows (GET /api/schemas/{id}/rows) use its columns
// and values.
//
// Columns are document_id, document_name, extraction_id, the schema's
// fields (of every version of it: the newest version's in its order, then
// those only older versions had), fields the values have that the schema
// does not (sorted), and _edited: the dotted paths whose value was edited
// after the model extracted it, separated by ";" in CSV, an array in JSON
// and XLSX.
//
// XLSX is a real workbook (excelize): a header row, frozen; JSON numbers
// as numbers, true and false as booleans, everything else as text cells,
// which a spreadsheet never runs as formulas, so it needs no quoting.
//
// CSV is written safe to open in a spreadsheet: the values come from
// documents through a model, and a text cell that begins like a formula
// (=, +, -, @, tab, carriage return) would be run by Excel or LibreOffice
// (=HYPERLINK(...), +cmd|' /C calc'!A0). Such cells get a leading single
// quote, OWASP's rule for CSV injection, so they open as text; the header
// and the document names too. A JSON number stays a number (-12.5 is not
// a formula, and the sign is part of it); a JSON string stays text even
// when it looks like a number. Options.Raw turns this off, for programs
// that read the CSV. JSON and JSONL are never changed.
package export

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// Formats.
const (
	CSV   = "csv"
	JSON  = "json"  // one array of row objects
	JSONL = "jsonl" // one row object per line
	XLSX  = "xlsx"  // an Excel workbook, one sheet
)

// Formats are the formats Write writes.
var Formats = []string{CSV, JSON, JSONL, XLSX}

// EditedColumn lists the edited paths of a row.
const EditedColumn = "_edited"

// NotFoundColumn lists, with Options.Evidence, the paths of a row's values
// that were not found in its document.
const NotFoundColumn = "_not_found"

// PageColumn names the column that, with Options.Evidence, follows a
// field's column with the page its value was found on.
func PageColumn(field string) string { return field + " (page)" }

// Fixed columns, before the fields.
var fixedColumns = []string{"document_id", "document_name", "extraction_id"}

// Row is one document's extraction.
type Row struct {
	DocumentID, DocumentName, ExtractionID string
	// Value is the current value; OriginalValue what the model produced.
	Value, OriginalValue json.RawMessage
	Edited               bool
	// Evidence is the extraction's evidence, keyed by field path.
	Evidence json.RawMessage
}

// Data is what an export reads: the schema (a response_format or a bare
// JSON Schema; nil when the prompt links none) and the rows.
type Data struct {
	// Name names the export (the schema's or the prompt's name): the
	// sheet of an XLSX file, the name of a download.
	Name string
	// Prompt is the prompt exported, or the prompt an export by schema
	// was narrowed to; zero otherwise.
	Prompt storage.PromptRevision
	Schema json.RawMessage
	// Older are the schema's older versions, newest first: their fields
	// that Schema lacks follow Schema's.
	Older []json.RawMessage
	Rows  []Row
}

// Options shape the output.
type Options struct {
	// Format is CSV, JSON or JSONL; "" means CSV.
	Format string
	// Explode names an array field (dotted path): one row per item, the
	// item's fields as columns PATH.FIELD.
	Explode string
	// Raw writes CSV text cells as they are, formulas included, for
	// programs rather than spreadsheets (`docent export --raw`, raw=1 over
	// HTTP). JSON and JSONL are the same either way.
	Raw bool
	// Evidence adds after each field's column the page its value stands
	// on (empty when it was not found) and, last, the paths of the values
	// not found in the document.
	Evidence bool
}

// Load reads what an export of a prompt (id, revision id or name) holds:
// for each document a revision of the prompt ran on, the newest extraction
// made with any revision of it, by document name; the columns follow the
// schema of the prompt's latest revision.
func Load(ctx context.Context, db *storage.DB, prompt string) (Data, error) {
	return LoadPrompt(ctx, db, prompt, nil)
}

// LoadPrompt is Load for the documents that have every one of the tags
// (ids or names).
func LoadPrompt(ctx context.Context, db *storage.DB, prompt string, tags []string) (Data, error) {
	p, err := db.FindPrompt(ctx, strings.TrimSpace(prompt))
	if err != nil {
		return Data{}, err
	}
	latest, err := db.GetPrompt(ctx, p.PromptID)
	if err != nil {
		return Data{}, err
	}
	tagIDs, err := findTags(ctx, db, tags)
	if err != nil {
		return Data{}, err
	}
	d := Data{Name: latest.Name, Prompt: latest, Rows: []Row{}}
	if latest.SchemaRevID != "" {
		s, err := db.GetSchemaRevision(ctx, latest.SchemaRevID)
		if err != nil {
			return Data{}, err
		}
		d.Schema = s.ResponseFormat
	}
	xs, err := db.ListExtractionsByPrompt(ctx, latest.PromptID)
	if err != nil {
		return Data{}, err
	}
	for _, x := range xs {
		doc, err := db.GetDocument(ctx, x.DocumentID)
		if err != nil {
			return Data{}, err
		}
		if !hasTags(doc, tagIDs) {
			continue
		}
		d.Rows = append(d.Rows, Row{DocumentID: doc.ID, DocumentName: doc.Name, ExtractionID: x.ID, Evidence: x.Evidence,
			Value: x.Value, OriginalValue: x.OriginalValue, Edited: x.Edited})
	}
	return d, nil
}

// Selection names an export by schema.
type Selection struct {
	// Schema is the schema's id, a revision id or its name.
	Schema string
	// Prompt, when set, keeps documents whose latest extraction was made
	// with a revision of this prompt (id, revision id or name).
	Prompt string
	// Tags (ids or names): a document must have every one.
	Tags []string
	// Sort, Desc, Filters and Status select and order the rows as the
	// data view does (storage.SchemaRowsQuery), so that an export can be
	// what the view shows; "" sorts by document name. Sort and filter
	// paths must be fields of the schema (or storage's RowKey constants).
	Sort    string
	Desc    bool
	Filters []storage.RowFilter
	Status  storage.RowStatus
}

// LoadSchema reads what an export of a schema holds: one row per document
// whose latest extraction used a revision of the schema (narrowed to a
// prompt and tags), by document name; the columns are the union of the
// schema's versions' fields.
func LoadSchema(ctx context.Context, db *storage.DB, sel Selection) (Data, error) {
	s, err := db.FindSchema(ctx, strings.TrimSpace(sel.Schema))
	if err != nil {
		return Data{}, err
	}
	revs, err := db.ListSchemaRevisions(ctx, s.SchemaID)
	if err != nil {
		return Data{}, err
	}
	d := Data{Name: revs[0].Name, Schema: revs[0].ResponseFormat, Rows: []Row{}}
	for _, r := range revs[1:] {
		d.Older = append(d.Older, r.ResponseFormat)
	}
	fields := FieldsOf(append([]json.RawMessage{d.Schema}, d.Older...)...)
	if sel.Sort != "" {
		if err := CheckRowKey(sel.Sort, fields, "sort"); err != nil {
			return Data{}, err
		}
	}
	for _, f := range sel.Filters {
		if err := CheckRowKey(f.Path, fields, "filter"); err != nil {
			return Data{}, err
		}
	}
	q := storage.SchemaRowsQuery{SchemaID: s.SchemaID, Sort: sel.Sort, Desc: sel.Desc, Filters: sel.Filters, Status: sel.Status}
	if strings.TrimSpace(sel.Prompt) != "" {
		p, err := db.FindPrompt(ctx, strings.TrimSpace(sel.Prompt))
		if err != nil {
			return Data{}, err
		}
		if d.Prompt, err = db.GetPrompt(ctx, p.PromptID); err != nil {
			return Data{}, err
		}
		q.PromptID = p.PromptID
	}
	if q.TagIDs, err = findTags(ctx, db, sel.Tags); err != nil {
		return Data{}, err
	}
	rows, _, err := db.SchemaRows(ctx, q)
	if err != nil {
		return Data{}, err
	}
	for _, r := range rows {
		x := r.Extraction
		d.Rows = append(d.Rows, Row{DocumentID: x.DocumentID, DocumentName: r.DocumentName, ExtractionID: x.ID, Evidence: x.Evidence,
			Value: x.Value, OriginalValue: x.OriginalValue, Edited: x.Edited})
	}
	return d, nil
}

// findTags resolves tag ids or names to ids.
func findTags(ctx context.Context, db *storage.DB, tags []string) ([]string, error) {
	var ids []string
	for _, t := range tags {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		tag, err := db.FindTag(ctx, t)
		if err != nil {
			return nil, err
		}
		ids = append(ids, tag.ID)
	}
	return ids, nil
}

// hasTags reports whether doc has every tag of ids.
func hasTags(doc storage.Document, ids []string) bool {
	for _, id := range ids {
		found := false
		for _, t := range doc.TagIDs {
			found = found || t == id
		}
		if !found {
			return false
		}
	}
	return true
}

// Write writes d in the format opts ask for.
func Write(w io.Writer, d Data, opts Options) error {
	t, err := build(d, opts.Explode, opts.Evidence)
	if err != nil {
		return err
	}
	switch opts.Format {
	case "", CSV:
		return t.writeCSV(w, opts.Raw)
	case JSON:
		return t.writeJSON(w, true)
	case JSONL:
		return t.writeJSON(w, false)
	case XLSX:
		return t.writeXLSX(w, d.Name)
	}
	return fault.Errorf(fault.Invalid, "unknown export format %q (want csv, json, jsonl or xlsx)", opts.Format)
}

// Table is an export laid out: its columns and, per row, a value per
// column (decoded JSON: nil, string, json.Number, bool, []any,
// map[string]any; the edited column holds []string).
type Table struct {
	Columns []string
	Rows    [][]any
}

// Build lays out d, with one row per item of the array at explode when it
// is not "".
func Build(d Data, explode string) (Table, error) {
	return build(d, explode, false)
}

// build is Build, with evidence columns when withEvidence.
func build(d Data, explode string, withEvidence bool) (Table, error) {
	fields := FieldsOf(append([]json.RawMessage{d.Schema}, d.Older...)...)
	values := make([]any, len(d.Rows))
	originals := make([]any, len(d.Rows))
	for i, r := range d.Rows {
		var err error
		if values[i], err = decode(r.Value); err != nil {
			return Table{}, fmt.Errorf("extraction %s: %w", r.ExtractionID, err)
		}
		if originals[i], err = decode(r.OriginalValue); err != nil {
			return Table{}, fmt.Errorf("extraction %s: %w", r.ExtractionID, err)
		}
	}
	// Fields the values have beyond the schema's, so that nothing is lost.
	extra := map[string]bool{}
	for _, v := range values {
		for path := range flatten(v, "") {
			if !covered(path, fields) {
				extra[path] = true
			}
		}
	}
	for _, p := range sortedKeys(extra) {
		fields = append(fields, p)
	}

	var itemFields []string
	if explode != "" {
		at := -1
		for i, f := range fields {
			if f == explode {
				at = i
			}
		}
		if at < 0 {
			return Table{}, fault.Errorf(fault.Invalid, "--explode %s: the schema has no such field (fields: %s)", explode, strings.Join(fields, ", "))
		}
		for _, s := range append([]json.RawMessage{d.Schema}, d.Older...) {
			if fields, ok := itemPaths(s, explode); ok {
				itemFields = fields
				break
			}
		}
		if len(itemFields) == 0 {
			itemFields = []string{""} // items that are not objects: the item itself
		}
		var out []string
		out = append(out, fields[:at]...)
		for _, f := range itemFields {
			out = append(out, joinPath(explode, f))
		}
		fields = append(out, fields[at+1:]...)
	}

	t := Table{Columns: append([]string{}, fixedColumns...)}
	for _, f := range fields {
		t.Columns = append(t.Columns, f)
		if withEvidence {
			t.Columns = append(t.Columns, PageColumn(f))
		}
	}
	t.Columns = append(t.Columns, EditedColumn)
	if withEvidence {
		t.Columns = append(t.Columns, NotFoundColumn)
	}
	for i, r := range d.Rows {
		edited := []string{}
		if r.Edited {
			edited = editedPaths(originals[i], values[i])
		}
		ev := readEvidence(r.Evidence)
		items := []any{nil}
		if explode != "" {
			if arr, ok := Lookup(values[i], explode).([]any); ok && len(arr) > 0 {
				items = arr
			}
		}
		for n, item := range items {
			row := []any{r.DocumentID, r.DocumentName, r.ExtractionID}
			for _, f := range fields {
				path := f
				if explode != "" && (f == explode || strings.HasPrefix(f, explode+".")) {
					sub := strings.TrimPrefix(strings.TrimPrefix(f, explode), ".")
					row = append(row, Lookup(item, sub))
					path = joinPath(fmt.Sprintf("%s.%d", explode, n), sub)
				} else {
					row = append(row, Lookup(values[i], f))
				}
				if withEvidence {
					row = append(row, ev.page(path))
				}
			}
			row = append(row, edited)
			if withEvidence {
				row = append(row, ev.notFound())
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t, nil
}

// fieldEvidence is what an export reads of a value's evidence.
type fieldEvidence struct {
	Page   int    `json:"page"`
	Status string `json:"status"`
}

type rowEvidence map[string]fieldEvidence

// readEvidence decodes an extraction's evidence; none (an extraction made
// before evidence existed) reads as empty.
func readEvidence(raw json.RawMessage) rowEvidence {
	var ev rowEvidence
	_ = json.Unmarshal(raw, &ev)
	return ev
}

// page is the page a value stands on, as a JSON number, or nil when it
// was not found there (or edited by hand).
func (ev rowEvidence) page(path string) any {
	if e, ok := ev[path]; ok && e.Page > 0 && (e.Status == "grounded" || e.Status == "ambiguous") {
		return json.Number(strconv.Itoa(e.Page))
	}
	return nil
}

// notFound lists the paths of values not found in the document.
func (ev rowEvidence) notFound() []string {
	out := []string{}
	for path, e := range ev {
		if e.Status == "ungrounded" {
			out = append(out, path)
		}
	}
	sort.Strings(out)
	return out
}

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "." + b
}

// covered reports whether path is a field, lies inside one (a leaf field
// whose value is an object) or holds some (an object that is null).
func covered(path string, fields []string) bool {
	for _, f := range fields {
		if path == f || strings.HasPrefix(path, f+".") || strings.HasPrefix(f, path+".") {
			return true
		}
	}
	return false
}

// decode reads JSON keeping numbers exact; empty or null is nil.
func decode(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// Lookup returns the value at a dotted path (numbers index arrays), nil
// when there is none. The empty path is v itself.
func Lookup(v any, path string) any {
	if path == "" {
		return v
	}
	for _, seg := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[seg]
		case []any:
			var i int
			if _, err := fmt.Sscanf(seg, "%d", &i); err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// flatten maps every leaf of v (objects are walked, arrays are leaves) to
// its dotted path.
func flatten(v any, prefix string) map[string]any {
	out := map[string]any{}
	var walk func(v any, prefix string)
	walk = func(v any, prefix string) {
		m, ok := v.(map[string]any)
		if !ok || (len(m) == 0 && prefix != "") {
			if prefix != "" {
				out[prefix] = v
			}
			return
		}
		for k, c := range m {
			walk(c, joinPath(prefix, k))
		}
	}
	walk(v, prefix)
	return out
}

// editedPaths are the leaves whose value differs between the original and
// the current value.
func editedPaths(orig, cur any) []string {
	a, b := flatten(orig, ""), flatten(cur, "")
	diff := map[string]bool{}
	for k, v := range b {
		if Cell(v) != Cell(a[k]) {
			diff[k] = true
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			diff[k] = true
		}
	}
	if len(diff) == 0 && orig == nil && cur != nil {
		diff[""] = true
	}
	return sortedKeys(diff)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Cell renders a value for a CSV cell: "" for null, strings as they are,
// numbers as written, objects and arrays as compact JSON.
func Cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	case []string: // the edited column
		return strings.Join(x, ";")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// Filled returns, of the schema's fields, those value fills.
func Filled(responseFormat, value json.RawMessage) (filled, fields []string) {
	fields = Fields(responseFormat)
	v, err := decode(value)
	if err != nil {
		return nil, fields
	}
	for _, f := range fields {
		if !schema.Empty(Lookup(v, f)) {
			filled = append(filled, f)
		}
	}
	return filled, fields
}

// writeCSV writes the table, every text cell neutralised unless raw.
func (t Table) writeCSV(w io.Writer, raw bool) error {
	cw := csv.NewWriter(w)
	rec := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		rec[i] = safeText(c, raw)
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	for _, row := range t.Rows {
		for i, v := range row {
			rec[i] = Cell(v)
			if _, number := v.(json.Number); !number {
				rec[i] = safeText(rec[i], raw)
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeJSON writes rows as objects with the columns as keys, in order.
func (t Table) writeJSON(w io.Writer, array bool) error {
	var b bytes.Buffer
	if array {
		b.WriteString("[")
	}
	for n, row := range t.Rows {
		if array && n > 0 {
			b.WriteString(",")
		}
		if array {
			b.WriteString("\n  ")
		}
		b.WriteString("{")
		for i, v := range row {
			if i > 0 {
				b.WriteString(",")
			}
			k, _ := json.Marshal(t.Columns[i])
			b.Write(k)
			b.WriteString(":")
			val, err := json.Marshal(v)
			if err != nil {
				return err
			}
			b.Write(val)
		}
		b.WriteString("}")
		if !array {
			b.WriteString("\n")
		}
	}
	if array {
		if len(t.Rows) > 0 {
			b.WriteString("\n")
		}
		b.WriteString("]\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// safeText is s with a single quote in front when a spreadsheet would read
// it as a formula (OWASP, "CSV Injection"): it begins with =, +, -, @, a
// tab or a carriage return. A spreadsheet shows the quote-prefixed cell as
// the text itself. With raw, s is returned as it is.
func safeText(s string, raw bool) string {
	if raw || s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}
