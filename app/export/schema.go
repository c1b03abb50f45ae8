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
