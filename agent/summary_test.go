package agent

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/storage"
)

// fakeLookup is what a summary knows, without a store.
type fakeLookup struct {
	schemas    []storage.SchemaRevision // every revision
	prompts    []storage.PromptRevision // every revision
	tags       []storage.Tag
	docs       []storage.Document
	current    string // the current document's id
	working    string // the conversation's prompt_revid
	extraction *storage.Extraction
	tagged     map[string]int // documents per tag id; nil: unknown
}

func (f fakeLookup) Schema(ref string) (storage.SchemaRevision, bool) {
	var best storage.SchemaRevision
	found := false
	for _, r := range f.schemas {
		if r.SchemaRevID == ref {
			return r, true
		}
		if (r.SchemaID == ref || r.Name == ref) && r.Version > best.Version {
			best, found = r, true
		}
	}
	return best, found
}

func (f fakeLookup) Prompt(ref string) (storage.PromptRevision, bool) {
	if ref == "" {
		if f.working == "" {
			return storage.PromptRevision{}, false
		}
		ref = f.working
	}
	var best storage.PromptRevision
	found := false
	for _, r := range f.prompts {
		if r.PromptRevID == ref {
			return r, true
		}
		if (r.PromptID == ref || r.Name == ref) && r.Version > best.Version {
			best, found = r, true
		}
	}
	return best, found
}

func (f fakeLookup) Tag(ref string) (storage.Tag, bool) {
	for _, t := range f.tags {
		if t.ID == ref || strings.EqualFold(t.Name, ref) {
			return t, true
		}
	}
	return storage.Tag{}, false
}

func (f fakeLookup) Document(id string) (storage.Document, bool) {
	if id == "" {
		id = f.current
	}
	for _, d := range f.docs {
		if d.ID == id {
			return d, true
		}
	}
	return storage.Document{}, false
}

func (f fakeLookup) Extraction() (storage.Extraction, bool) {
	if f.extraction == nil {
		return storage.Extraction{}, false
	}
	return *f.extraction, true
}

func (f fakeLookup) Prompts() ([]storage.PromptRevision, bool) {
	latest := map[string]storage.PromptRevision{}
	var order []string
	for _, p := range f.prompts {
		cur, ok := latest[p.PromptID]
		if !ok {
			order = append(order, p.PromptID)
		}
		if !ok || p.Version > cur.Version {
			latest[p.PromptID] = p
		}
	}
	var out []storage.PromptRevision
	for _, id := range order {
		out = append(out, latest[id])
	}
	return out, true
}

func (f fakeLookup) TaggedDocuments(tagID string) (int, bool) {
	n, ok := f.tagged[tagID]
	return n, ok
}

const summaryInvoiceSchema = `{"type":"object","properties":{
	"invoice_number":{"type":"string","description":"As printed"},
	"total":{"type":"number"},
	"line_items":{"type":"array","items":{"type":"object",
		"properties":{"description":{"type":"string"},"amount":{"type":"number"}},
		"required":["description","amount"],"additionalProperties":false}}},
	"required":["invoice_number","total","line_items"],"additionalProperties":false}`

// The next version: total removed, due_date added, amount may be null.
const summaryInvoiceSchemaV2 = `{"type":"object","properties":{
	"invoice_number":{"type":"string","description":"As printed"},
	"line_items":{"type":"array","items":{"type":"object",
		"properties":{"description":{"type":"string"},"amount":{"type":["number","null"]}},
		"required":["description","amount"],"additionalProperties":false}},
	"due_date":{"type":"string","format":"date","description":"Pay by"}},
	"required":["invoice_number","total","line_items"],"additionalProperties":false}`

func rf(s string) string {
	return `{"type":"json_schema","json_schema":{"name":"invoice","strict":true,"schema":` + s + `}}`
}

func summaryWorld() fakeLookup {
	schemaV1 := storage.SchemaRevision{SchemaID: "sch_1", SchemaRevID: "srv_1", Version: 1, Name: "Invoice", ResponseFormat: json.RawMessage(rf(summaryInvoiceSchema))}
	promptV1 := storage.PromptRevision{PromptID: "prm_1", PromptRevID: "prv_1", Version: 1, Name: "Invoice prompt", Content: "Extract the invoice."}
	promptV2 := storage.PromptRevision{
		PromptID: "prm_1", PromptRevID: "prv_2", Version: 2, Name: "Invoice prompt",
		Content:  "Extract the invoice.\nUse ISO dates.\nNumbers without currency.",
		SchemaID: "sch_1", SchemaRevID: "srv_1", SchemaVersion: 1, TagIDs: []string{"tag_a"},
	}
	x := storage.Extraction{ID: "ext_1", Value: json.RawMessage(`{"vendor":null,"line_items":[{"amount":4.11}]}`)}
	return fakeLookup{
		schemas: []storage.SchemaRevision{schemaV1},
		prompts: []storage.PromptRevision{promptV1, promptV2},
		tags: []storage.Tag{
			{ID: "tag_a", Name: "finance", Color: "#ff0000"},
			{ID: "tag_b", Name: "2024"},
		},
		docs:       []storage.Document{{ID: "doc_1", Name: "invoice-42.pdf", TagIDs: []string{"tag_a"}}, {ID: "doc_2", Name: "other.pdf"}},
		current:    "doc_1",
		extraction: &x,
		tagged:     map[string]int{"tag_a": 3, "tag_b": 0},
	}
}

func TestSummarizeCall(t *testing.T) {
	world := summaryWorld()
	v3 := world
	v3.schemas = append(slices.Clone(world.schemas),
		storage.SchemaRevision{SchemaID: "sch_1", SchemaRevID: "srv_2", Version: 2, Name: "Invoice"},
		storage.SchemaRevision{SchemaID: "sch_1", SchemaRevID: "srv_3", Version: 3, Name: "Invoice"})
	unused := world
	unused.prompts = nil
	working := world
	working.working = "prv_2"

	for _, c := range []struct {
		name   string
		tool   string
		args   string
		lk     lookup
		title  string
		lines  []string // nil: not checked
		danger bool
	}{
		{
			name: "create_schema lists the fields, line items indented", tool: "create_schema",
			args:  `{"name":"Invoice","response_format":` + rf(summaryInvoiceSchema) + `}`,
			title: "Create schema “Invoice” with 3 fields",
			lines: []string{
				"Fields:",
				"  invoice_number: string, required — As printed",
				"  total: number, required",
				"  line_items: array of objects, required",
				"    description: string, required",
				"    amount: number, required",
			},
		},
		{
			name: "create_schema with arguments as a JSON string and a bare schema", tool: "create_schema",
			args:  `"{\"name\":\"X\",\"response_format\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}}}}"`,
			title: "Create schema “X” with 1 field", lines: []string{"Fields:", "  a: integer"},
		},
		{
			name: "create_schema of a schema that is not an object says why", tool: "create_schema",
			args:  `{"name":"X","response_format":` + rf(`{"type":"array"}`) + `}`,
			title: "Create schema “X”",
			lines: []string{"Fields: cannot be shown: The top level of this schema is not an object, so it cannot be shown as fields; edit it as JSON."},
		},
		{
			name: "create_schema keeps the order of the properties and says what may be null", tool: "create_schema",
			args:  `{"name":"Z","response_format":{"type":"object","properties":{"z":{"type":["string","null"]},"a":{"type":"array","items":{"type":"string","format":"date"}},"m":{"anyOf":[{"type":"string"}]}}}}`,
			title: "Create schema “Z” with 3 fields",
			lines: []string{"Fields:", "  z: string or null", "  a: array of dates", "  m: other"},
		},
		{
			name: "update_schema is a field diff against the version it replaces", tool: "update_schema", lk: world,
			args:  `{"schema_id":"sch_1","name":"Invoice EU","response_format":` + rf(summaryInvoiceSchemaV2) + `}`,
			title: "Update schema “Invoice” to v2",
			lines: []string{
				"Name: “Invoice” → “Invoice EU”",
				"Field changes against v1:",
				"    invoice_number: string, required — As printed",
				"    line_items: array of objects, required",
				"      description: string, required",
				"  ~   amount: type number → number or null",
				"  + due_date: date — Pay by",
				"  - total: number, required",
				"1 field added, 1 field removed, 1 field changed.",
			},
		},
		{
			name: "update_schema by name or revision id finds the current version", tool: "update_schema", lk: world,
			args: `{"schema_id":"srv_1","response_format":` + rf(summaryInvoiceSchema) + `}`, title: "Update schema “Invoice” to v2",
		},
		{
			name: "update_schema without the current version lists the new fields", tool: "update_schema",
			args:  `{"schema_id":"x","response_format":{"type":"object","properties":{"a":{"type":"boolean"}},"required":["a"]}}`,
			title: "Update schema “x”", lines: []string{"Fields of the new version:", "  a: boolean, required"},
		},
		{
			name: "update_schema with the same fields", tool: "update_schema", lk: world,
			args:  `{"schema_id":"sch_1","response_format":` + rf(summaryInvoiceSchema) + `}`,
			title: "Update schema “Invoice” to v2",
			lines: []string{
				"Field changes against v1:",
				"    invoice_number: string, required — As printed",
				"    total: number, required",
				"    line_items: array of objects, required",
				"      description: string, required",
				"      amount: number, required",
				"The fields do not change.",
			},
		},
		{
			name: "update_schema that changes nothing", tool: "update_schema", lk: world,
			args: `{"schema_id":"sch_1","name":"Invoice"}`, title: "Update schema “Invoice” to v2",
			lines: []string{"The fields stay as they are.", "Nothing changes: the schema stays at v1."},
		},
		{
			name: "delete_schema says what uses it", tool: "delete_schema", lk: v3,
			args: `{"schema_id":"sch_1"}`, title: "Delete schema “Invoice” and its 3 versions", danger: true,
			lines: []string{"Used by prompt “Invoice prompt”: Docent refuses to delete a schema while a prompt uses it."},
		},
		{
			name: "delete_schema nothing uses", tool: "delete_schema", lk: unused,
			args: `{"schema_id":"Invoice"}`, title: "Delete schema “Invoice” and its 1 version", danger: true,
			lines: []string{"No prompt uses it."},
		},
		{
			name: "delete_schema of an unknown schema", tool: "delete_schema",
			args: `{"schema_id":"sch_9"}`, title: "Delete schema “sch_9”", danger: true, lines: []string{},
		},
		{
			name: "create_prompt with its text, schema by name, model and tags", tool: "create_prompt", lk: world,
			args:  `{"name":"Invoice prompt","content":"Extract it.\nCarefully.","schema_id":"Invoice","tag_ids":["tag_a"]}`,
			title: "Create prompt “Invoice prompt”",
			lines: []string{"Schema: Invoice v1", "Model: default", "Tags: finance", "Instructions:", "  | Extract it.", "  | Carefully."},
		},
		{
			name: "create_prompt without a schema", tool: "create_prompt",
			args:  `{"name":"p","content":"x","model":"ollama/qwen3:8b"}`,
			title: "Create prompt “p”", lines: []string{"Schema: none (free-form JSON)", "Model: ollama/qwen3:8b", "Instructions:", "  | x"},
		},
		{
			name: "update_prompt is a line diff with the other changes", tool: "update_prompt", lk: world,
			args:  `{"prompt_id":"prm_1","content":"Extract the invoice.\nUse ISO 8601 dates.\nNumbers without currency.","tag_ids":["tag_b"],"model":"ollama/qwen3:8b"}`,
			title: "Update prompt “Invoice prompt” to v3",
			lines: []string{
				"Model: default → ollama/qwen3:8b",
				"Tags: +2024, -finance",
				"Instructions (changes):",
				"    Extract the invoice.",
				"  - Use ISO dates.",
				"  + Use ISO 8601 dates.",
				"    Numbers without currency.",
			},
		},
		{
			name: "update_prompt unlinks the schema", tool: "update_prompt", lk: world,
			args: `{"prompt_id":"prv_1","schema_id":""}`, title: "Update prompt “Invoice prompt” to v3",
			lines: []string{"Schema: Invoice v1 → none"},
		},
		{
			name: "update_prompt that changes nothing", tool: "update_prompt", lk: world,
			args:  `{"prompt_id":"Invoice prompt","content":"Extract the invoice.\nUse ISO dates.\nNumbers without currency."}`,
			title: "Update prompt “Invoice prompt” to v3", lines: []string{"Nothing changes: the prompt stays at v2."},
		},
		{
			name: "update_prompt of an unknown prompt", tool: "update_prompt",
			args: `{"prompt_id":"prm_9","content":"a"}`, title: "Update prompt “prm_9”",
			lines: []string{"Instructions (new version):", "  | a"},
		},
		{
			name: "delete_prompt", tool: "delete_prompt", lk: world, args: `{"prompt_id":"prm_1"}`,
			title: "Delete prompt “Invoice prompt” and its 2 versions", danger: true,
			lines: []string{"Extractions made with it are kept."},
		},
		{
			name: "run_extraction names the prompt, its schema and model", tool: "run_extraction", lk: world,
			args: `{"prompt_revid":"prv_2"}`, title: "Run prompt Invoice prompt v2 on this document",
			lines: []string{"Schema: Invoice v1", "Model: default", "The result becomes this document's current extraction."},
		},
		{
			name: "run_extraction of the conversation's prompt", tool: "run_extraction", lk: working,
			args: `{}`, title: "Run prompt Invoice prompt v2 on this document",
		},
		{
			name: "run_extraction when nothing is known", tool: "run_extraction", args: `{}`,
			title: "Run the conversation's prompt on this document", lines: []string{"The result becomes this document's current extraction."},
		},
		{
			name: "update_extraction_field: path: old → new", tool: "update_extraction_field", lk: world,
			args: `{"path":"line_items.0.amount","value":4.20}`, title: "Change line_items.0.amount in the extraction",
			lines: []string{"line_items.0.amount: 4.11 → 4.2"},
		},
		{
			name: "update_extraction_field of a path not set", tool: "update_extraction_field", lk: world,
			args: `{"path":"/total","value":"ACME"}`, title: "Change /total in the extraction",
			lines: []string{"/total: (not set) → “ACME”"},
		},
		{
			name: "update_extraction_field of an empty value", tool: "update_extraction_field", lk: world,
			args: `{"path":"vendor","value":{"name":"ACME"}}`, title: "Change vendor in the extraction",
			lines: []string{`vendor: empty (null) → {"name":"ACME"}`},
		},
		{
			name: "update_extraction_field without an extraction", tool: "update_extraction_field",
			args: `{"path":"x","value":null}`, title: "Change x in the extraction", lines: []string{"x: empty (null)"},
		},
		{
			name: "create_tag", tool: "create_tag", args: `{"name":"urgent","color":"#ff0000"}`,
			title: "Create tag “urgent”", lines: []string{"Colour: #ff0000", "Tag: +urgent"},
		},
		{
			name: "update_tag", tool: "update_tag", lk: world, args: `{"tag_id":"tag_a","name":"money"}`,
			title: "Update tag “finance”", lines: []string{"Name: “finance” → “money”", "Tag: money"},
		},
		{
			name: "update_tag that changes nothing", tool: "update_tag", lk: world, args: `{"tag_id":"finance","color":"#ff0000"}`,
			title: "Update tag “finance”", lines: []string{"Tag: finance", "Nothing changes."},
		},
		{
			name: "delete_tag says what uses it", tool: "delete_tag", lk: world, args: `{"tag_id":"tag_a"}`,
			title: "Delete tag “finance”", danger: true,
			lines: []string{"Tag: -finance", "Used by 3 documents and prompt “Invoice prompt”: Docent refuses to delete a tag in use."},
		},
		{
			name: "delete_tag nothing uses", tool: "delete_tag", lk: world, args: `{"tag_id":"2024"}`,
			title: "Delete tag “2024”", danger: true, lines: []string{"Tag: -2024", "No document or prompt uses it."},
		},
		{
			name: "update_document renames the current document", tool: "update_document", lk: world,
			args: `{"name":"aws.pdf"}`, title: "Rename “invoice-42.pdf” to “aws.pdf”",
			lines: []string{"Name: “invoice-42.pdf” → “aws.pdf”"},
		},
		{
			name: "update_document renames, the document unknown", tool: "update_document",
			args: `{"name":"aws.pdf"}`, title: "Rename this document to “aws.pdf”", lines: []string{"Name: “aws.pdf”"},
		},
		{
			name: "update_document tags against the document's", tool: "update_document", lk: world,
			args: `{"tag_ids":["tag_a","tag_b"]}`, title: "Update document “invoice-42.pdf”", lines: []string{"Tags: finance, +2024"},
		},
		{
			name: "update_document of another document", tool: "update_document", lk: world,
			args: `{"document_id":"doc_2","tag_ids":["tag_b"],"metadata":{"k":1}}`, title: "Update document “other.pdf”",
			lines: []string{`Metadata: replaced with {"k":1}`, "Tags from now on: 2024"},
		},
		{
			name: "delete_document", tool: "delete_document", lk: world, args: `{}`,
			title: "Delete document “invoice-42.pdf”", danger: true,
			lines: []string{"Its pages, extractions and conversations are deleted with it."},
		},
		{name: "get_schema", tool: "get_schema", lk: world, args: `{"schema_revid":"srv_1"}`, title: "Read schema Invoice v1", lines: []string{}},
		{name: "get_ocr_text", tool: "get_ocr_text", args: `{"page_num":2}`, title: "Read page 2", lines: []string{}},
		{name: "search_docs", tool: "search_docs", args: `{"query":"total"}`, title: "Search documents for “total”"},
		{name: "a tool this build does not know", tool: "some_new_tool", args: `{}`, title: "Some new tool"},
		{name: "arguments that are not JSON", tool: "create_tag", args: `{"name":`, title: "Create tag “(unnamed)”"},
	} {
		t.Run(c.name, func(t *testing.T) {
			lk := c.lk
			if lk == nil {
				lk = noLookup{}
			}
			s := summarize(c.tool, []byte(c.args), lk)
			if s.Title != c.title {
				t.Errorf("title %q, want %q", s.Title, c.title)
			}
			if c.lines != nil && !slices.Equal(s.Lines, c.lines) && !(len(s.Lines) == 0 && len(c.lines) == 0) {
				t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(s.Lines, "\n"), strings.Join(c.lines, "\n"))
			}
			if s.Danger != c.danger {
				t.Errorf("danger %v", s.Danger)
			}
		})
	}
}

// TestSummaryCarriesWhatTheRegistryDeclares checks that every tool's
// summary says what its registry entry declares (read-write, destructive,
// its ops; danger on deletes), which the edges read instead of the tool's
// name, and that a tool this build does not know declares nothing.
func TestSummaryCarriesWhatTheRegistryDeclares(t *testing.T) {
	for _, tool := range Tools() {
		s := summarize(tool.Name, []byte(`{}`), noLookup{})
		if s.Writes != (tool.Access == ReadWrite) || s.Destructive != tool.Destructive() || !slices.Equal(s.Ops, tool.Ops) ||
			s.Danger != slices.Contains(tool.Ops, OpDelete) {
			t.Errorf("%s: writes %v, destructive %v, ops %v, danger %v; the registry: %s, destructive %v, ops %v",
				tool.Name, s.Writes, s.Destructive, s.Ops, s.Danger, tool.Access, tool.Destructive(), tool.Ops)
		}
	}
	// On the wire: the fields are left out where they are false or empty.
	for name, want := range map[string]string{
		"get_schema":    `{}`,
		"update_tag":    `{"destructive":true,"ops":["update"],"writes":true}`,
		"delete_schema": `{"danger":true,"destructive":true,"ops":["delete"],"writes":true}`,
		"create_prompt": `{"ops":["create","link"],"writes":true}`,
		"some_new_tool": `{}`,
	} {
		var wire map[string]json.RawMessage
		if err := json.Unmarshal(mustJSON(summarize(name, []byte(`{}`), noLookup{})), &wire); err != nil {
			t.Fatal(err)
		}
		declared := map[string]json.RawMessage{}
		for _, k := range []string{"danger", "writes", "destructive", "ops"} {
			if v, ok := wire[k]; ok {
				declared[k] = v
			}
		}
		if got := string(mustJSON(declared)); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
}

func TestSummaryWordingHelpers(t *testing.T) {
	if got := formatValue(strings.Repeat("x", 100), true); utf8.RuneCountInString(got) != 82 || !strings.HasSuffix(got, "…”") {
		t.Errorf("a long string: %q", got)
	}
	v, _ := schema.ParseOrdered([]byte(`{"b":[1,2.50],"a":true}`))
	if got := formatValue(v, true); got != `{"b":[1,2.5],"a":true}` {
		t.Errorf("an object: %q", got)
	}
	if got := formatValue(nil, false); got != "(not set)" {
		t.Errorf("absent: %q", got)
	}
	var lines []string
	for i := range 20 {
		lines = append(lines, "line "+string(rune('a'+i)))
	}
	a := strings.Join(lines, "\n")
	d := foldDiff(lineDiff(a, strings.Replace(a, "line k", "line ten", 1)), 2)
	var ops []string
	for _, l := range d {
		ops = append(ops, l.Op)
	}
	if want := []string{"fold", "same", "same", "del", "add", "same", "same", "fold"}; !slices.Equal(ops, want) || d[0].String() != "  … 8 unchanged lines" {
		t.Errorf("folded diff %v %q", ops, d[0].String())
	}
	if d := lineDiff("a", "a"); len(d) != 1 || d[0] != (DiffLine{"same", "a"}) {
		t.Errorf("no change: %v", d)
	}
}

func TestValueAt(t *testing.T) {
	root, err := schema.ParseOrdered([]byte(`{"a":{"b":[{"c":1},{"c":null}]},"x/y":2}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path  string
		want  string // compact JSON; "" when not found
		found bool
	}{
		{"a.b.0.c", "1", true}, {"/a/b/1/c", "null", true}, {"/x~1y", "2", true},
		{"a.b.5.c", "", false}, {"a.b.0.c.d", "", false}, {"a.b.-1", "", false},
	} {
		v, found := valueAt(root, c.path)
		if found != c.found || (found && schema.Compact(v) != c.want) {
			t.Errorf("%s: %v %v", c.path, schema.Compact(v), found)
		}
	}
	if _, found := valueAt(nil, "a"); found {
		t.Error("a path in null was found")
	}
}

// The words of call lines, without a store: references are named as the
// model gave them, and nothing ends in a dangling colon.
func TestCallWords(t *testing.T) {
	for _, c := range []struct{ tool, args, want string }{
		{"get_ocr_text", `{}`, "get_ocr_text all pages"},
		{"get_document", `{}`, "get_document"},
		{"list_documents", `{"name_search":"aws","limit":5}`, `list_documents matching "aws", 5 at most`},
		{"get_schema", `{"schema_revid":"srv_1"}`, `get_schema "srv_1"`},
		{"validate_schema", `{"schema":{"type":"object","properties":{"a":{"type":"string"}}}}`, "validate_schema (1 field)"},
		{"search_docs", `{"query":"total due"}`, `search_docs "total due"`},
		{"run_extraction", `{"prompt_revid":"prv_9"}`, `run_extraction with prompt "prv_9"`},
		{"run_extraction", `{}`, "run_extraction with the conversation's prompt"},
		{"update_extraction_field", `{"path":"total","value":4.2,"reason":"page 1 says 4.20"}`, "update_extraction_field total = 4.2"},
		{"update_schema", `{"schema_id":"invoice","name":"Invoice EU"}`, `update_schema "invoice" (new name "Invoice EU")`},
		{"update_prompt", `{"prompt_id":"p","content":"x","schema_id":""}`, `update_prompt "p" (new instructions, no schema)`},
		{"update_document", `{"tag_ids":["tag_1"]}`, `update_document this document (tags "tag_1")`},
		{"delete_tag", `{"tag_id":"aws"}`, `delete_tag "aws"`},
		{"create_tag", `{"name":"aws","color":"#ff9900"}`, `create_tag "aws" (colour #ff9900)`},
		{"some_new_tool", `{"x":1}`, `some_new_tool {"x":1}`},
		{"create_tag", `{"name": not json`, `create_tag {"name": not json`},
	} {
		line := c.tool
		if s := Summarize(t.Context(), nil, c.tool, json.RawMessage(c.args)); s.Call != "" {
			line += " " + s.Call
		}
		if line != c.want {
			t.Errorf("%s %s: %q, want %q", c.tool, c.args, line, c.want)
		}
	}
}

// The field diff of two versions of a schema: nested fields by their path,
// each change said in words (the Schemas page's words too).
func TestFieldDiff(t *testing.T) {
	before := `{"type":"object","properties":{
		"invoice_number":{"type":"string","description":"As printed","pattern":"^[0-9]+$"},
		"total":{"type":"number","minimum":0},
		"paid":{"type":["boolean","null"]},
		"vendor":{"type":"object","properties":{"name":{"type":"string"},"vat_id":{"type":["string","null"],"description":"VAT number"}},"required":["name","vat_id"],"additionalProperties":false},
		"line_items":{"type":"array","description":"One per line","items":{"type":"object","properties":{"amount":{"type":"number"}},"required":["amount"],"additionalProperties":false}},
		"notes":{"type":"array","items":{"type":"string","maxLength":200}}},
		"required":["total","invoice_number"],"additionalProperties":false}`
	after := `{"type":"object","properties":{
		"invoice_number":{"type":"string","description":"As printed","pattern":"^[0-9]+$"},
		"total":{"type":"string"},
		"paid":{"type":["boolean","null"]},
		"vendor":{"type":"object","properties":{"name":{"type":"string","description":"Legal name"},"vat_id":{"type":["string","null"],"description":"VAT number"}},"required":["name","vat_id"],"additionalProperties":false},
		"line_items":{"type":"array","description":"One per line","items":{"type":"object","properties":{"amount":{"type":"number"},"tax":{"type":"string"}},"required":["amount","tax"],"additionalProperties":false}}},
		"required":["total","invoice_number","paid"],"additionalProperties":false}`
	fields := func(s string) []schema.Field {
		v, _ := schema.ParseOrdered([]byte(s))
		f, err := schema.TopFields(v)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	rows := diffFields(fields(before), fields(after), 0, "")
	var changed []string
	for _, r := range rows {
		if r.Change != "same" {
			changed = append(changed, r.Change+" "+r.Path+" "+strings.Join(r.Changes, "; "))
		}
	}
	want := []string{
		"changed total type number → string; other settings changed",
		"changed paid optional → required",
		"changed vendor.name description (none) → “Legal name”",
		"added line_items[].tax ",
		"removed notes ",
	}
	if !slices.Equal(changed, want) {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(changed, "\n"), strings.Join(want, "\n"))
	}
	if got := changeCounts(rows); got != "1 field added, 1 field removed, 3 fields changed." {
		t.Errorf("counts %q", got)
	}
}
