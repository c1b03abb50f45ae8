package listarg

import (
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want []string
	}{
		{nil, nil},
		{[]string{""}, nil},
		{[]string{"a"}, []string{"a"}},
		{[]string{"a, b", "c"}, []string{"a", "b", "c"}},
		{[]string{" a ,, ", ",b,"}, []string{"a", "b"}},
	} {
		if got := Split(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Split(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
