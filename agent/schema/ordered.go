package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Object is a JSON object with its keys in the order they were written: a
// schema's property order is the order of its fields (Go maps forget it).
type Object struct {
	Keys []string
	vals map[string]any
}

// Get is the value of key k, and whether the object has it.
func (o *Object) Get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.vals[k]
	return v, ok
}

// Val is the value of key k, nil when absent.
func (o *Object) Val(k string) any {
	v, _ := o.Get(k)
	return v
}

// Has reports whether the object has key k.
func (o *Object) Has(k string) bool {
	_, ok := o.Get(k)
	return ok
}

// AsObject is v as an *Object, and whether it is one.
func AsObject(v any) (*Object, bool) {
	o, ok := v.(*Object)
	return o, ok && o != nil
}

// ParseOrdered reads one JSON value, keeping key order: nil, bool,
// json.Number, string, []any or *Object. A repeated key keeps its first
// place and its last value.
func ParseOrdered(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := readOrdered(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

func readOrdered(dec *json.Decoder) (any, error) {
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
		o := &Object{vals: map[string]any{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			v, err := readOrdered(dec)
			if err != nil {
				return nil, err
			}
			if _, seen := o.vals[k]; !seen {
				o.Keys = append(o.Keys, k)
			}
			o.vals[k] = v
		}
		_, err := dec.Token()
		return o, err
	case '[':
		a := []any{}
		for dec.More() {
			v, err := readOrdered(dec)
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

// Compact writes a value ParseOrdered read as compact JSON, keys in their
// order, numbers in their shortest form (Number).
func Compact(v any) string {
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
		b.WriteString(Number(x))
	case string:
		b.WriteString(quoteJSON(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCompact(b, e)
		}
		b.WriteByte(']')
	case *Object:
		b.WriteByte('{')
		for i, k := range x.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(quoteJSON(k))
			b.WriteByte(':')
			writeCompact(b, x.vals[k])
		}
		b.WriteByte('}')
	}
}

func quoteJSON(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

// Number is a number in its shortest plain form (4.20 is 4.2); one too
// large or too small for that stays as written.
func Number(n json.Number) string {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return string(n)
	}
	if a := max(f, -f); a != 0 && (a >= 1e21 || a < 1e-6) {
		return string(n)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
