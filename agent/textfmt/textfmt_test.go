package textfmt

import (
	"math"
	"testing"
	"unicode/utf8"
)

func TestThousands(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "0"},
		{7, "7"},
		{999, "999"},
		{1000, "1,000"},
		{12345, "12,345"},
		{52000, "52,000"},
		{1234567, "1,234,567"},
		{-1, "-1"},
		{-999, "-999"},
		{-1000, "-1,000"},
		{-123456, "-123,456"},
		{math.MaxInt64, "9,223,372,036,854,775,807"},
		{math.MinInt64, "-9,223,372,036,854,775,808"}, // has no positive twin to recurse on
	} {
		if got := Thousands(tc.n); got != tc.want {
			t.Errorf("Thousands(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// Cut keeps whole characters: what it keeps is valid UTF-8, n characters
// at most, and s itself when s fits.
func TestCutKeepsWholeCharacters(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
		cut  bool
	}{
		{"", 0, "", false},
		{"", 3, "", false},
		{"short", 10, "short", false},
		{"exact", 5, "exact", false},
		{"abcdef", 3, "abc", true},
		{"ééé", 2, "éé", true},           // 2 bytes each: cut by characters, not bytes
		{"a€b", 2, "a€", true},           // € is 3 bytes
		{"😀😀", 1, "😀", true},             // 4-byte characters
		{"€", 0, "", true},               // nothing kept
		{"Größe über", 3, "Grö", true},   // ö is 2 bytes
		{"e\u0301e\u0301", 1, "e", true}, // a combining accent is a character of its own
		{"abc", -1, "", true},            // below 0 is 0
		{"\xffbad", 2, "\xffb", true},    // invalid bytes count one each and are kept as they are
		{"日本語のテキスト", 3, "日本語", true},
	} {
		got, cut := Cut(tc.s, tc.n)
		if got != tc.want || cut != tc.cut {
			t.Errorf("Cut(%q, %d) = %q, %v; want %q, %v", tc.s, tc.n, got, cut, tc.want, tc.cut)
		}
		if utf8.ValidString(tc.s) && !utf8.ValidString(got) {
			t.Errorf("Cut(%q, %d) = %q: not valid UTF-8", tc.s, tc.n, got)
		}
	}
}

func TestShortenEndsWithAnEllipsisWithinN(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exact", 5, "exact"},
		{"abcdef", 4, "abc…"},
		{"ééé", 2, "é…"},
		{"a€b", 2, "a…"},
		{"😀😀😀", 2, "😀…"},
		{"Größe über", 4, "Grö…"},
		{"abc", 1, "…"},
		{"abc", 0, "…"}, // nothing fits but the mark that something was left out
	} {
		got := Shorten(tc.s, tc.n)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("Shorten(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 pages"}, {1, "1 page"}, {2, "2 pages"}, {-1, "-1 pages"}} {
		if got := Count(c.n, "page"); got != c.want {
			t.Errorf("Count(%d, page) = %q, want %q", c.n, got, c.want)
		}
	}
}

// Visible spells out what could steer a terminal or hide text, and leaves
// every other character as it is.
func TestVisible(t *testing.T) {
	for _, tc := range []struct{ in, want, lines string }{
		{"Rechnung März 2024.pdf", "Rechnung März 2024.pdf", "Rechnung März 2024.pdf"},
		{"\x1b]0;PWNED\x07", `\x1b]0;PWNED\x07`, `\x1b]0;PWNED\x07`},
		{"a\x1b[2Jb", `a\x1b[2Jb`, `a\x1b[2Jb`},
		{"two\nlines\tand tab", `two\nlines\tand tab`, "two\nlines\tand tab"},
		{"cr\rdel\x7fnul\x00", `cr\rdel\x7fnul\x00`, `cr\rdel\x7fnul\x00`},
		{"c1 \u009b31m csi", `c1 \u009b31m csi`, `c1 \u009b31m csi`},
		{"bad \x9b byte", `bad \x9b byte`, `bad \x9b byte`},
		{"invoice\u202Efdp.exe", `invoice\u202efdp.exe`, `invoice\u202efdp.exe`},
		{"\u2066iso\u2069 \u200fmark \u2028sep", `\u2066iso\u2069 \u200fmark \u2028sep`, `\u2066iso\u2069 \u200fmark \u2028sep`},
		{"ok \ufffd ünïcödé 請求書 فاتورة \u200c\u200d", "ok \ufffd ünïcödé 請求書 فاتورة \u200c\u200d", "ok \ufffd ünïcödé 請求書 فاتورة \u200c\u200d"},
		{`C:\docs\x1b`, `C:\docs\x1b`, `C:\docs\x1b`},
		{"", "", ""},
	} {
		if got := Visible(tc.in); got != tc.want {
			t.Errorf("Visible(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := VisibleLines(tc.in); got != tc.lines {
			t.Errorf("VisibleLines(%q) = %q, want %q", tc.in, got, tc.lines)
		}
		for _, got := range []string{Visible(tc.in), VisibleLines(tc.in)} {
			for i := 0; i < len(got); i++ {
				if c := got[i]; (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
					t.Errorf("%q keeps the control byte %#x", got, c)
				}
			}
			if !utf8.ValidString(got) {
				t.Errorf("%q is not UTF-8", got)
			}
		}
	}
}
