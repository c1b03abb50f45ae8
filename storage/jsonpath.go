package storage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// setJSONPath returns doc with the field at path set to value. path is
// dot-separated ("line_items.0.amount"); a segment that is all digits
// indexes an array. A missing key is added when it is the last segment; a
// path through null, a scalar or a missing key, an index out of range, a
// segment that is not an index into an array and an empty path are invalid,
// with a message naming where the path stopped:
// "line_items.0: is null, cannot set amount".
//
// Only the containers along the path are taken apart; everything else is
// copied as it was, so numbers keep their exact text and objects their key
// order. doc and value must be valid JSON; the result is compact when they
// are.
func setJSONPath(doc json.RawMessage, path string, value json.RawMessage) (json.RawMessage, error) {
	if strings.TrimSpace(path) == "" {
		return nil, Errorf(ErrInvalid, "path is empty")
	}
	segs := strings.Split(path, ".")
	for _, s := range segs {
		if s == "" {
			return nil, Errorf(ErrInvalid, "path %q has an empty segment", path)
		}
	}
	return setIn(bytes.TrimSpace(doc), segs, 0, bytes.TrimSpace(value))
}

// setIn sets segs[i:] inside node, which is at segs[:i].
func setIn(node json.RawMessage, segs []string, i int, value json.RawMessage) (json.RawMessage, error) {
	if i == len(segs) {
		return value, nil
	}
	where := "(root)"
	if i > 0 {
		where = strings.Join(segs[:i], ".")
	}
	seg := segs[i]
	last := i == len(segs)-1
	switch kind := jsonKind(node); kind {
	case "object":
		keys, vals, err := splitObject(node)
		if err != nil {
			return nil, err
		}
		at := -1
		for k := range keys {
			if keys[k] == seg {
				at = k // the last one wins, as in encoding/json
			}
		}
		if at < 0 {
			if !last {
				return nil, Errorf(ErrInvalid, "%s: does not exist, cannot set %s (set %s to an object or array first)",
					strings.Join(segs[:i+1], "."), segs[i+1], strings.Join(segs[:i+1], "."))
			}
			keys, vals = append(keys, seg), append(vals, value)
			return joinObject(keys, vals), nil
		}
		child, err := setIn(vals[at], segs, i+1, value)
		if err != nil {
			return nil, err
		}
		vals[at] = child
		return joinObject(keys, vals), nil
	case "array":
		items, err := splitArray(node)
		if err != nil {
			return nil, err
		}
		n, ok := arrayIndex(seg)
		if !ok {
			return nil, Errorf(ErrInvalid, "%s: is an array, %q is not an index", where, seg)
		}
		if n >= len(items) {
			return nil, Errorf(ErrInvalid, "%s: index %s is out of range (the array has %d items)", where, seg, len(items))
		}
		child, err := setIn(items[n], segs, i+1, value)
		if err != nil {
			return nil, err
		}
		items[n] = child
		return joinArray(items), nil
	case "null":
		return nil, Errorf(ErrInvalid, "%s: is null, cannot set %s", where, seg)
	default:
		return nil, Errorf(ErrInvalid, "%s: is a %s, cannot set %s", where, kind, seg)
	}
}

// jsonKind names the type of a valid JSON value from its first byte.
func jsonKind(v json.RawMessage) string {
	if len(v) == 0 {
		return "null"
	}
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// arrayIndex parses a segment made of decimal digits only (no sign).
func arrayIndex(seg string) (int, bool) {
	for _, c := range seg {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(seg)
	return n, err == nil
}

// splitObject returns an object's keys and raw values in document order.
func splitObject(obj json.RawMessage) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // {
		return nil, nil, fmt.Errorf("read object: %w", err)
	}
	var keys []string
	var vals []json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("read object: %w", err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, fmt.Errorf("read object: %w", err)
		}
		keys, vals = append(keys, key), append(vals, v)
	}
	return keys, vals, nil
}

func splitArray(arr json.RawMessage) ([]json.RawMessage, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(arr, &items); err != nil {
		return nil, fmt.Errorf("read array: %w", err)
	}
	return items, nil
}

func joinObject(keys []string, vals []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(quoteJSON(k))
		b.WriteByte(':')
		b.Write(vals[i])
	}
	b.WriteByte('}')
	return b.Bytes()
}

func joinArray(items []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(v)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// quoteJSON encodes a string without escaping <, > and &, which
// json.Marshal would turn into \u003c and the like.
func quoteJSON(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimRight(b.Bytes(), "\n")
}

// compactJSON checks that raw is one JSON value and returns it compact.
func compactJSON(raw json.RawMessage) (json.RawMessage, bool) {
	var b bytes.Buffer
	if err := json.Compact(&b, bytes.TrimSpace(raw)); err != nil || b.Len() == 0 {
		return nil, false
	}
	return b.Bytes(), true
}

// SetJSONPath returns doc with the value at path (a JSON pointer or a
// dotted path, as field patches take) set to value, without storing
// anything: what a patch would make.
func SetJSONPath(doc json.RawMessage, path string, value json.RawMessage) (json.RawMessage, error) {
	return setJSONPath(doc, path, value)
}
