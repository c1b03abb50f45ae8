// Package textfmt holds the few ways Docent shapes text for people and
// models: numbers with thousands separators, counts of things, and text
// cut to a number of characters. It is a leaf, so that agent/provider,
// which cannot import agent, and the command line (app/cli) share them
// with the agent.
package textfmt

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Count is n with its noun, in the plural unless n is 1: "1 page",
// "3 pages". Nouns whose plural is not one + "s" are not asked for.
func Count(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + one + "s"
}

// Thousands is n with commas between groups of three digits: 12345 is
// "12,345", -1234567 is "-1,234,567".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	digits := strings.TrimPrefix(s, "-")
	var b strings.Builder
	b.WriteString(s[:len(s)-len(digits)])
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Cut is the first n characters (runes) of s, never part of one's UTF-8
// bytes, and whether anything was left out. n below 0 counts as 0.
func Cut(s string, n int) (string, bool) {
	i := 0
	for at := range s {
		if i >= n {
			return s[:at], true
		}
		i++
	}
	return s, false
}

// Shorten is s cut to at most n characters (n ≥ 1), the last an ellipsis ("…")
// when anything was left out.
func Shorten(s string, n int) string {
	head, cut := Cut(s, n)
	if !cut {
		return s
	}
	head, _ = Cut(head, n-1)
	return head + "…"
}

// Visible is s with every character that could steer a terminal, or hide
// or reorder what is shown, spelled out as a Go escape: the C0 controls
// (newline and tab too: a name is one line), DEL, the C1 controls, a byte
// that is not UTF-8 (a lone 0x9b is CSI to some terminals), and the
// bidirectional overrides, embeddings, isolates and marks ("\x1b",
// "\n", "\u202e"). Everything else, accented and non-Latin letters included,
// is left as it is, and so is a backslash: the escapes are for reading,
// not for parsing back. A name a user or a client chose goes through it
// before it reaches a terminal (`\x1b]0;PWNED\x07` would retitle it).
func Visible(s string) string { return visible(s, false) }

// VisibleLines is Visible for text of several lines (a message, a
// page): newlines and tabs are kept.
func VisibleLines(s string) string { return visible(s, true) }

func visible(s string, keepLines bool) string {
	i := firstHidden(s, keepLines)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !hidden(r, keepLines):
			b.WriteString(s[i : i+size])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// firstHidden is the index of the first character or invalid byte of s
// that Visible spells out, or -1.
func firstHidden(s string, keepLines bool) int {
	for i, r := range s {
		if hidden(r, keepLines) {
			return i
		}
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return -1
}

// hidden reports whether r is one of the characters Visible spells out.
func hidden(r rune, keepLines bool) bool {
	switch {
	case keepLines && (r == '\n' || r == '\t'):
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidi: Arabic letter mark, LRM and RLM, embeddings and overrides, isolates
	case r == 0x2028, r == 0x2029:
		return true // line and paragraph separators: new lines to some terminals
	}
	return false
}
