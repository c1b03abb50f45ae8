// Package jsonfields lists the members of a Go struct as encoding/json
// writes them: the JSON name of each exported field, whether omitempty may
// leave it out, and untagged embedded structs flattened into their parent.
// The agent's event encoder, the eventcheck shape checker and the
// TypeScript generator all read the wire types through it, so the JSON tags
// are the one description of the wire.
//
// It covers what the wire types use: tags with a name, "-", omitempty and
// omitzero, and embedded structs without a tag. Two members with one JSON
// name, which encoding/json resolves by depth, are a panic here: the wire
// types never need that rule.
package jsonfields

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"
)

// Field is one member of a struct's JSON object.
type Field struct {
	// Name is the member's JSON name.
	Name string
	// Go is the Go field's name; Owner the struct type that declares it
	// (the embedded struct, for a promoted field).
	Go    string
	Owner reflect.Type
	// Index is the field's index path, for reflect.Value.FieldByIndex.
	Index []int
	// Type is the field's Go type.
	Type reflect.Type
	// Optional is true when the tag says omitempty or omitzero: the member
	// may be absent.
	Optional bool
	// Tag is the field's whole struct tag.
	Tag reflect.StructTag
}

var cache sync.Map // reflect.Type -> []Field

// Of returns the members of struct type t (or *t), in the order
// encoding/json writes them.
func Of(t reflect.Type) []Field {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if f, ok := cache.Load(t); ok {
		return f.([]Field)
	}
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("jsonfields: %s is not a struct", t))
	}
	var out []Field
	seen := map[string]string{}
	collect(t, nil, &out, seen)
	f, _ := cache.LoadOrStore(t, out)
	return f.([]Field)
}

func collect(t reflect.Type, index []int, out *[]Field, seen map[string]string) {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, tagged := sf.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		idx := append(append([]int(nil), index...), i)
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				collect(et, idx, out, seen)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if !tagged || name == "" {
			name = sf.Name
		}
		if prev, dup := seen[name]; dup {
			panic(fmt.Sprintf("jsonfields: %s: fields %s and %s are both %q", t, prev, sf.Name, name))
		}
		seen[name] = sf.Name
		optional := false
		for _, o := range strings.Split(opts, ",") {
			optional = optional || o == "omitempty" || o == "omitzero"
		}
		*out = append(*out, Field{
			Name: name, Go: sf.Name, Owner: t, Index: idx, Type: sf.Type, Optional: optional, Tag: sf.Tag,
		})
	}
}

// The types whose JSON is not their Go structure.
var (
	rawType  = reflect.TypeFor[json.RawMessage]()
	timeType = reflect.TypeFor[time.Time]()
)

// IsRaw reports whether t is json.RawMessage: any JSON value.
func IsRaw(t reflect.Type) bool { return t == rawType }

// IsTime reports whether t is time.Time: a string (RFC 3339).
func IsTime(t reflect.Type) bool { return t == timeType }

// IsArray reports whether t is written as a JSON array: a slice or array
// other than json.RawMessage and []byte (which is base64 text).
func IsArray(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Slice:
		return !IsRaw(t) && t.Elem().Kind() != reflect.Uint8
	case reflect.Array:
		return true
	}
	return false
}

// IsObject reports whether t is written as a JSON object by its fields: a
// struct (not time.Time).
func IsObject(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && !IsTime(t)
}
