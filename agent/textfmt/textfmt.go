// Package textfmt holds the few ways Docent shapes text for people and
// models: numbers with thousands separators, counts of things, and text
// cut to a number of characters. It is a leaf, so that agent/provider,
// which cannot import agent, and the command line (app/cli) share them
// with the agent.
package textfmt

import (
	"strconv"
	"strings"
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
