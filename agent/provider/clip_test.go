package provider

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// clip never splits a character: what it keeps is valid UTF-8, at most n
// bytes of s, and s itself when it fits.
func TestClipCutsBetweenCharacters(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc…"},
		{"ééé", 3, "é…"},         // é is 2 bytes: the second would be cut in half
		{"a€b", 2, "a…"},         // € is 3 bytes
		{"😀😀", 5, "😀…"},          // 4-byte characters
		{"€", 1, "…"},            // nothing whole fits
		{"Größe über", 3, "Gr…"}, // ö is bytes 2 and 3
	} {
		got := clip(tc.s, tc.n)
		if got != tc.want || !utf8.ValidString(got) || len(strings.TrimSuffix(got, "…")) > tc.n {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
