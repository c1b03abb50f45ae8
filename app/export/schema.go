package export

import (
	"bytes"
	"encoding/json"
	"strings"
)

// member is one key of a JSON object, in the order it was written.
type member struct {
	key   string
	value json.RawMessage
}

// members reads an object's keys in order (Go maps forget it, and a
// schema's property order is the column order); nil when raw is not an
// object.
func members(raw json.RawMessage) []member {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		out = append(out, member{key, v})
	}
	return out
}

func get(raw json.RawMessage, key string) json.RawMessage {
	for _, m := range members(raw) {
		if m.key == key {
			return m.value
		}
	}
	return nil
}

// schemaRoot is the JSON Schema inside a response_format
// ({type: "json_schema", json_schema: {schema}}), or raw when it is a bare
// schema.
func schemaRoot(raw json.RawMessage) json.RawMessage {
	if js := get(raw, "json_schema"); js != nil {
		return get(js, "schema")
	}
	return raw
}

// Fields returns the dotted paths of a schema's fields in the schema's
// order: an object's properties are walked, anything else (arrays
// included) is one field. The schema may be a response_format or a bare
// JSON Schema; nil gives none.
func Fields(schema json.RawMessage) []string {
	if len(schema) == 0 {
		return nil
	}
	return fieldsOf(schemaRoot(schema), "")
}

func fieldsOf(node json.RawMessage, prefix string) []string {
	props := members(get(node, "properties"))
	if len(props) == 0 {
		if prefix == "" {
			return nil
		}
		return []string{prefix}
	}
	var out []string
	for _, p := range props {
		out = append(out, fieldsOf(p.value, joinPath(prefix, p.key))...)
	}
	return out
}

// itemsSchema is the schema of the items of the array at path.
func itemsSchema(root json.RawMessage, path string) json.RawMessage {
	node := root
	for _, seg := range strings.Split(path, ".") {
		node = get(get(node, "properties"), seg)
		if node == nil {
			return nil
		}
	}
	return get(node, "items")
}

// FieldsOf returns the union of the fields of several versions of a
// schema, newest first: the newest version's fields in its order, then the
// fields only older versions had, each in its version's order.
func FieldsOf(schemas ...json.RawMessage) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range schemas {
		for _, f := range Fields(s) {
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
// newest version that has it.
func Columns(schemas ...json.RawMessage) []Column {
	var out []Column
	for _, path := range FieldsOf(schemas...) {
		c := Column{Path: path, Title: path}
		for _, s := range schemas {
			node := fieldSchema(schemaRoot(s), path)
			if node == nil {
				continue
			}
			c.Type = schemaType(node)
			var title string
			if json.Unmarshal(get(node, "title"), &title) == nil && strings.TrimSpace(title) != "" {
				c.Title = title
			}
			break
		}
		out = append(out, c)
	}
	return out
}

// fieldSchema is the schema of the field at a dotted path, nil when there
// is none.
func fieldSchema(root json.RawMessage, path string) json.RawMessage {
	node := root
	for _, seg := range strings.Split(path, ".") {
		node = get(get(node, "properties"), seg)
		if node == nil {
			return nil
		}
	}
	return node
}

// schemaType is a schema's type: the one it names, or the first that is
// not null of a list (["number", "null"] is a number), or one read from
// anyOf/oneOf the same way.
func schemaType(node json.RawMessage) string {
	var one string
	if json.Unmarshal(get(node, "type"), &one) == nil && one != "" {
		return one
	}
	var many []string
	if json.Unmarshal(get(node, "type"), &many) == nil {
		for _, t := range many {
			if t != "null" {
				return t
			}
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		var alts []json.RawMessage
		if json.Unmarshal(get(node, key), &alts) == nil {
			for _, a := range alts {
				if t := schemaType(a); t != "" && t != "null" {
					return t
				}
			}
		}
	}
	if get(node, "properties") != nil {
		return "object"
	}
	return ""
}
