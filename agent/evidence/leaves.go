package evidence

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Leaf is one leaf value of a JSON document and its path.
type Leaf struct {
	// Path is the leaf's path as in Map: object keys and array indexes
	// joined by ".".
	Path string
	// Value is the leaf as decoded with json.Decoder.UseNumber:
	// json.Number, string, bool or nil.
	Value any
}

// Leaves returns the leaves of value in document order: object members in
// the order they appear in the JSON text, array elements by index. Empty
// objects and arrays have no leaves. The error is for a value that is not
// valid JSON.
func Leaves(value json.RawMessage) ([]Leaf, error) {
	var out []Leaf
	err := walk(value, func(segs []segment, v any) {
		out = append(out, Leaf{Path: joinPath(segs), Value: v})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// segment is one step of a path: an object key, or an array index.
type segment struct {
	key   string
	index int
	isIdx bool
}

func (s segment) String() string {
	if s.isIdx {
		return strconv.Itoa(s.index)
	}
	return s.key
}

func joinPath(segs []segment) string {
	switch len(segs) {
	case 0:
		return ""
	case 1:
		return segs[0].String()
	}
	var b strings.Builder
	for i, s := range segs {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.String())
	}
	return b.String()
}

// walk calls fn for each leaf of value in document order, with the leaf's
// path (valid only during the call). It checks value with json.Valid
// first, which also bounds the nesting (10,000 deep), and then reads it
// without further checks.
func walk(value json.RawMessage, fn func(segs []segment, v any)) error {
	if !json.Valid(value) {
		var v any
		err := json.Unmarshal(value, &v)
		if err == nil {
			err = errors.New("not valid JSON")
		}
		return fmt.Errorf("evidence: invalid JSON value: %w", err)
	}
	w := walker{data: value, fn: fn}
	w.value()
	return nil
}

// walker reads a valid JSON text.
type walker struct {
	data []byte
	i    int
	segs []segment
	fn   func([]segment, any)
}

func (w *walker) value() {
	w.space()
	switch w.data[w.i] {
	case '{':
		w.i++
		if w.space(); w.data[w.i] == '}' {
			w.i++
			return
		}
		for {
			w.space()
			key := w.str()
			w.space()
			w.i++ // ':'
			w.segs = append(w.segs, segment{key: key})
			w.value()
			w.segs = w.segs[:len(w.segs)-1]
			if w.space(); w.data[w.i] == '}' {
				w.i++
				return
			}
			w.i++ // ','
		}
	case '[':
		w.i++
		if w.space(); w.data[w.i] == ']' {
			w.i++
			return
		}
		for n := 0; ; n++ {
			w.segs = append(w.segs, segment{index: n, isIdx: true})
			w.value()
			w.segs = w.segs[:len(w.segs)-1]
			if w.space(); w.data[w.i] == ']' {
				w.i++
				return
			}
			w.i++ // ','
		}
	case '"':
		w.fn(w.segs, w.str())
	case 't':
		w.i += len("true")
		w.fn(w.segs, true)
	case 'f':
		w.i += len("false")
		w.fn(w.segs, false)
	case 'n':
		w.i += len("null")
		w.fn(w.segs, nil)
	default:
		start := w.i
		for w.i < len(w.data) && strings.IndexByte("+-.eE0123456789", w.data[w.i]) >= 0 {
			w.i++
		}
		w.fn(w.segs, json.Number(w.data[start:w.i]))
	}
}

func (w *walker) space() {
	for w.i < len(w.data) {
		switch w.data[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// str reads a string, decoding escapes and replacing invalid UTF-8 as
// encoding/json does.
func (w *walker) str() string {
	start := w.i
	escaped := false
	for w.i++; w.data[w.i] != '"'; w.i++ {
		if w.data[w.i] == '\\' {
			escaped = true
			w.i++
		}
	}
	w.i++
	raw := w.data[start:w.i]
	if !escaped && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s) // a valid JSON string
	return s
}
