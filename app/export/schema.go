package export

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/docent/docent/agent/schema"
)

// Fields returns the dotted paths of a schema's fields in the schema's
// order: an object's properties are walked, anything else (arrays
// included) is one field. The schema may be a response_format or a bare
// JSON Schema; nil gives none.
func Fields(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	return paths(schema.Properties(schema.RootOf(raw)), "")
}

// paths are the dotted paths of fields: a field with properties is its
// properties' paths.
func paths(fields []schema.Field, prefix string) []string {
	var out []string
	for _, f := range fields {
		path := joinPath(prefix, f.Name)
		if len(f.Properties) == 0 {
			out = append(out, path)
			continue
		}
		out = append(out, paths(f.Properties, path)...)
	}
	return out
}

// fieldAt is the field at a dotted path among a schema's fields
// (schema.Properties of its root).
func fieldAt(fields []schema.Field, path string) (schema.Field, bool) {
	var f schema.Field
	for _, seg := range strings.Split(path, ".") {
		i := slices.IndexFunc(fields, func(f schema.Field) bool { return f.Name == seg })
		if i < 0 {
			return schema.Field{}, false
		}
		f = fields[i]
		fields = f.Properties
	}
	return f, true
}

// itemPaths are the paths of the fields of the items of the array at
// path; nil when its items have none.
func itemPaths(raw json.RawMessage, path string) ([]string, bool) {
	f, ok := fieldAt(schema.Properties(schema.RootOf(raw)), path)
	if !ok || f.Schema == nil || !f.Schema.Has("items") {
		return nil, false
	}
	return paths(f.ItemProperties, ""), true
}

// FieldsOf returns the union of the fields of several versions of a
// schema, newest first: the newest version's fields in its order, then the
// fields only older versions had, each in its version's order.
func FieldsOf(schemas ...json.RawMessage) []string {
	return unionPaths(fieldTrees(schemas))
}

// fieldTrees are the fields of each schema, each parsed once.
func fieldTrees(schemas []json.RawMessage) [][]schema.Field {
	trees := make([][]schema.Field, len(schemas))
	for i, s := range schemas {
		trees[i] = schema.Properties(schema.RootOf(s))
	}
	return trees
}

// unionPaths is FieldsOf over schemas already parsed.
func unionPaths(trees [][]schema.Field) []string {
	var out []string
	seen := map[string]bool{}
	for _, fields := range trees {
		for _, f := range paths(fields, "") {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// Column is a field of a schema as a column of its data: the dotted path,
// the JSON Schema type ("string", "number", "integer", "boolean",
// "array", "object"; "" when the schema does not say) and the title (the
// field's "title", else its path).
type Column struct {
	Path  string `json:"path"`
	Type  string `json:"type"`
	Title string `json:"title"`
}

// Columns returns the columns of several versions of a schema, newest
// first, in FieldsOf's order; a field's type and title come from the
// newest version that has it. Each version is parsed once, not once per
// column.
func Columns(schemas ...json.RawMessage) []Column {
	trees := fieldTrees(schemas)
	var out []Column
	for _, path := range unionPaths(trees) {
		c := Column{Path: path, Title: path}
		for _, fields := range trees {
			f, ok := fieldAt(fields, path)
			if !ok {
				continue
			}
			c.Type = schema.TypeName(f.Schema)
			if title, _ := f.Schema.Val("title").(string); strings.TrimSpace(title) != "" {
				c.Title = title
			}
			break
		}
		out = append(out, c)
	}
	return out
}
