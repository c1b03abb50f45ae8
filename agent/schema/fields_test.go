package schema

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestTopFieldsReadsTheTreeInTheSchemasOrder(t *testing.T) {
	rf := json.RawMessage(`{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object","properties":{
		"z":{"type":["string","null"],"description":"last letter"},
		"a":{"type":"array","items":{"type":"object","properties":{"q":{"type":"integer"},"b":{"type":"string","format":"date"}},"required":["q"]}},
		"m":{"anyOf":[{"type":"string"}]},
		"o":{"type":"object","title":"O","properties":{"k":{"type":"boolean"}}}},"required":["a"]}}}`)
	v, err := ParseOrdered(rf)
	if err != nil {
		t.Fatal(err)
	}
	fields, err := TopFields(v)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var walk func(fs []Field, prefix string)
	walk = func(fs []Field, prefix string) {
		for _, f := range fs {
			s := prefix + f.Name + ":" + f.Type
			if f.ItemType != "" {
				s += "/" + f.ItemType
			}
			if f.Nullable {
				s += "?"
			}
			if f.Required {
				s += "!"
			}
			got = append(got, s)
			walk(f.Children(), prefix+f.Name+".")
		}
	}
	walk(fields, "")
	want := []string{"z:string?", "a:array/object!", "a.q:integer!", "a.b:date", "m:other", "o:object", "o.k:boolean"}
	if len(got) != len(want) {
		t.Fatalf("fields %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d is %s, want %s (all: %v)", i, got[i], want[i], got)
		}
	}
	if fields[0].Description != "last letter" || TypeName(fields[0].Schema) != "string" || TypeName(fields[3].Schema) != "object" {
		t.Errorf("description %q, types %q %q", fields[0].Description, TypeName(fields[0].Schema), TypeName(fields[3].Schema))
	}

	for _, c := range []struct {
		rf   string
		want error
	}{
		{`{"type":"json_schema"}`, ErrNoSchema},
		{`{"type":"json_schema","json_schema":{"schema":[1]}}`, ErrNotObject},
		{`{"type":"array","items":{"type":"string"}}`, ErrTopNotObject},
	} {
		v, _ := ParseOrdered([]byte(c.rf))
		if _, err := TopFields(v); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.rf, err, c.want)
		}
	}
}

func TestCompactKeepsKeyOrderAndShortNumbers(t *testing.T) {
	v, err := ParseOrdered([]byte(`{"b":[1,2.50,1e30],"a":true,"s":"<x>"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := Compact(v); got != `{"b":[1,2.5,1e30],"a":true,"s":"<x>"}` {
		t.Errorf("compact %s", got)
	}
	if _, err := ParseOrdered([]byte(`{} {}`)); err == nil {
		t.Error("two values read as one")
	}
}
