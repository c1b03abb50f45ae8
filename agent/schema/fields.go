package schema

import (
	"encoding/json"
	"errors"
	"slices"
)

// The one reader of a schema's fields in their order: the summaries of
// tool calls show them as a table, export makes its columns of them, and
// auto-create describes kinds by them.

// Field is one property of a schema, as a table of fields reads it.
type Field struct {
	Name     string
	Required bool // the parent's required lists it
	// Type is string, number, integer, boolean, date (a string of format
	// date), object, array, or other (anyOf, $ref, no type, ...).
	Type string
	// ItemType is what an array holds: a scalar type, object or other.
	ItemType string
	// Nullable is set when the type also allows null.
	Nullable    bool
	Description string
	// Schema is the property's schema as written; nil when it is not an
	// object.
	Schema *Object
	// Properties are the fields of the property's own properties, whatever
	// its type says.
	Properties []Field
	// ItemProperties are the fields of the properties of an array's items.
	ItemProperties []Field
}

// Children are the fields the table shows under this one: an object's
// properties, or those of an array's objects.
func (f Field) Children() []Field {
	switch {
	case f.Type == "object":
		return f.Properties
	case f.Type == "array" && f.ItemType == "object":
		return f.ItemProperties
	}
	return nil
}

// Why a response_format has no fields to show.
var (
	ErrNoSchema     = errors.New("The schema is missing or not a JSON object.")
	ErrNotObject    = errors.New("The schema is not a JSON object.")
	ErrTopNotObject = errors.New("The top level of this schema is not an object, so it cannot be shown as fields; edit it as JSON.")
)

// Root is the JSON Schema inside a response_format ({type: "json_schema",
// json_schema: {schema}}), or a bare schema as it is; a JSON string holding
// either is read too. Nil when there is none.
func Root(rf any) any {
	if s, ok := rf.(string); ok {
		rf, _ = ParseOrdered([]byte(s))
	}
	v, ok := AsObject(rf)
	if !ok {
		return nil
	}
	if js, ok := AsObject(v.Val("json_schema")); ok {
		return js.Val("schema")
	}
	if t, _ := v.Val("type").(string); t == "json_schema" {
		return nil
	}
	return v
}

// RootOf is Root of stored JSON; nil when it is not JSON.
func RootOf(raw json.RawMessage) any {
	v, err := ParseOrdered(raw)
	if err != nil {
		return nil
	}
	return Root(v)
}

// TopFields are the fields of a response_format (or bare schema) whose top
// level is an object, or why it cannot be read as fields.
func TopFields(rf any) ([]Field, error) {
	inner := Root(rf)
	if inner == nil {
		return nil, ErrNoSchema
	}
	s, ok := AsObject(inner)
	if !ok {
		return nil, ErrNotObject
	}
	base, _ := baseType(s)
	if _, props := AsObject(s.Val("properties")); base != "object" && (s.Has("type") || !props) {
		return nil, ErrTopNotObject
	}
	return Properties(s), nil
}

// Properties are the fields of a schema's properties, in their order; none
// when node is not an object schema with properties.
func Properties(node any) []Field {
	s, ok := AsObject(node)
	if !ok {
		return nil
	}
	props, ok := AsObject(s.Val("properties"))
	if !ok {
		return nil
	}
	req, _ := s.Val("required").([]any)
	out := make([]Field, 0, len(props.Keys))
	for _, name := range props.Keys {
		out = append(out, fieldOf(name, props.vals[name], slices.Contains(req, any(name))))
	}
	return out
}

func fieldOf(name string, p any, required bool) Field {
	typ, it, nullable := kindOf(p)
	raw, _ := AsObject(p)
	f := Field{Name: name, Type: typ, ItemType: it, Nullable: nullable, Required: required, Schema: raw}
	if raw != nil {
		f.Description, _ = raw.Val("description").(string)
		f.Properties = Properties(raw)
		f.ItemProperties = Properties(raw.Val("items"))
	}
	return f
}

// TypeName is a schema's type for data: the one it names, or the first
// that is not null of a list (["number", "null"] is a number), or one read
// from anyOf/oneOf the same way; "object" for properties without a type,
// "" when it does not say.
func TypeName(node any) string {
	s, ok := AsObject(node)
	if !ok {
		return ""
	}
	switch t := s.Val("type").(type) {
	case string:
		if t != "" {
			return t
		}
	case []any:
		for _, x := range t {
			if name, ok := x.(string); ok && name != "null" {
				return name
			}
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		alts, _ := s.Val(key).([]any)
		for _, a := range alts {
			if t := TypeName(a); t != "" && t != "null" {
				return t
			}
		}
	}
	if s.Has("properties") {
		return "object"
	}
	return ""
}

func baseType(s *Object) (string, bool) {
	switch t := s.Val("type").(type) {
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

func scalarOf(base string, s *Object) string {
	switch base {
	case "string":
		if f, _ := s.Val("format").(string); f == "date" {
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
	s, ok := AsObject(v)
	if !ok {
		return "other", "", false
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "$ref", "not", "if"} {
		if truthy(s.Val(k)) {
			return "other", "", false
		}
	}
	base, nullable := baseType(s)
	if base == "array" {
		items, ok := AsObject(s.Val("items"))
		if !ok {
			return "array", "other", nullable
		}
		ib, inull := baseType(items)
		it := ""
		if !inull && !truthy(items.Val("anyOf")) && !truthy(items.Val("oneOf")) && !truthy(items.Val("$ref")) {
			it = scalarOf(ib, items)
		}
		if it == "" {
			it = "other"
		}
		return "array", it, nullable
	}
	if sc := scalarOf(base, s); sc != "" {
		return sc, "", nullable
	}
	return "other", "", false
}

// truthy is whether a keyword's value says something: not null, false, ""
// or 0.
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
