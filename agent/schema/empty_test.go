package schema

import (
	"encoding/json"
	"testing"
)

func TestEmpty(t *testing.T) {
	for _, c := range []struct {
		json  string
		empty bool
	}{
		{`null`, true}, {`""`, true}, {`"  \n"`, true}, {`[]`, true}, {`{}`, true},
		{`"x"`, false}, {`0`, false}, {`false`, false}, {`[null]`, false}, {`{"a":null}`, false},
	} {
		var v any
		if err := json.Unmarshal([]byte(c.json), &v); err != nil {
			t.Fatal(err)
		}
		if got := Empty(v); got != c.empty {
			t.Errorf("Empty(%s) = %v, want %v", c.json, got, c.empty)
		}
	}
}
