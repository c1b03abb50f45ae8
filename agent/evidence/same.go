package evidence

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// Same reports whether two values are equal after the normalisation
// grounding uses; an evaluation compares an extraction with its ground truth
// through it. Values are leaves as Leaves returns them (json.Number,
// string, bool, nil), or Go numbers. They are equal when:
//
//   - both read as amounts and a reading is the same number, sign included:
//     json.Number 279.84, "279,84", "$279.84" and "279.840" are one value;
//   - both read as dates and a reading is the same date: "2023-03-20",
//     "20.03.2023", "March 20, 2023" and "20 Mar 2023" are one value;
//   - neither pair reads as amounts or as dates, and as text, lower-cased, with whitespace (line breaks too) collapsed to
//     one space and punctuation around the whole trimmed, they are equal.
//
// nil is the same as a blank string. Other values (maps, slices) are equal
// when reflect.DeepEqual says so.
func Same(a, b any) bool {
	na, nb := sameNumbers(a), sameNumbers(b)
	numbers := len(na) > 0 && len(nb) > 0
	if numbers && intersect(na, nb) {
		return true
	}
	da, db := sameDates(a), sameDates(b)
	dates := len(da) > 0 && len(db) > 0
	if dates && intersect(da, db) {
		return true
	}
	if numbers || dates {
		return false // "-12" is not "12", though their text differs only by a dash
	}
	ta, oka := sameText(a)
	tb, okb := sameText(b)
	if oka && okb {
		return ta == tb
	}
	return reflect.DeepEqual(a, b)
}

func intersect[T comparable](a, b []T) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// sameNumbers returns the signed numbers v may be.
func sameNumbers(v any) []float64 {
	var f float64
	switch v := v.(type) {
	case json.Number:
		x, err := v.Float64()
		if err != nil {
			return nil
		}
		f = x
	case string:
		var out []float64
		for _, a := range parseAmount(strings.TrimSpace(v), nil) {
			if a.neg {
				a.abs = -a.abs
			}
			out = append(out, a.abs)
		}
		return out
	case float64:
		f = v
	case float32:
		f = float64(v)
	case int:
		f = float64(v)
	case int8:
		f = float64(v)
	case int16:
		f = float64(v)
	case int32:
		f = float64(v)
	case int64:
		f = float64(v)
	case uint:
		f = float64(v)
	case uint8:
		f = float64(v)
	case uint16:
		f = float64(v)
	case uint32:
		f = float64(v)
	case uint64:
		f = float64(v)
	default:
		return nil
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return []float64{f}
}

func sameDates(v any) []date {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	ds, _ := parseDateValue(strings.Fields(s))
	return ds
}

// sameText returns the normalised text of a scalar value.
func sameText(v any) (string, bool) {
	var s string
	switch v := v.(type) {
	case nil:
	case string:
		s = v
	case json.Number:
		s = string(v)
	case bool:
		s = strconv.FormatBool(v)
	default:
		if f := sameNumbers(v); len(f) == 1 {
			s = strconv.FormatFloat(f[0], 'f', -1, 64)
		} else {
			return "", false
		}
	}
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimSpace(strings.TrimFunc(s, unicode.IsPunct)), true
}
