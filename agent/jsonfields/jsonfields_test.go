package jsonfields_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/docent/docent/agent/jsonfields"
)

type inner struct {
	B string `json:"b,omitempty"`
	C int    `json:"-"`
}

type outer struct {
	A string `json:"a"`
	inner
	D     []int           `json:"d,omitzero"`
	E     json.RawMessage `json:"e"`
	F     bool
	Named inner `json:"named"`
	g     int
}

// The members are those encoding/json writes, in its order.
func TestOfFollowsEncodingJSON(t *testing.T) {
	var got []string
	for _, f := range jsonfields.Of(reflect.TypeFor[*outer]()) {
		opt := ""
		if f.Optional {
			opt = "?"
		}
		got = append(got, f.Name+opt)
	}
	b, _ := json.Marshal(outer{A: "x", inner: inner{B: "y"}, D: []int{1}, E: json.RawMessage(`1`)})
	want := []string{"a", "b?", "d?", "e", "F", "named"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fields %v, want %v (encoding/json: %s)", got, want, b)
	}
	if f := jsonfields.Of(reflect.TypeFor[outer]())[1]; !reflect.DeepEqual(f.Index, []int{1, 0}) || f.Owner != reflect.TypeFor[inner]() {
		t.Errorf("promoted field %+v", f)
	}
	if !jsonfields.IsArray(reflect.TypeFor[[]int]()) || jsonfields.IsArray(reflect.TypeFor[json.RawMessage]()) || !jsonfields.IsRaw(reflect.TypeFor[json.RawMessage]()) {
		t.Error("IsArray/IsRaw")
	}
}

func TestTwoMembersOfOneNamePanic(t *testing.T) {
	str := reflect.TypeFor[string]()
	dup := reflect.StructOf([]reflect.StructField{
		{Name: "A", Type: str, Tag: `json:"x"`},
		{Name: "B", Type: str, Tag: `json:"x"`},
	})
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	jsonfields.Of(dup)
}
