// Package textfmt holds the few ways the agent and its providers shape text
// for people and models: numbers with thousands separators and text cut to
// a number of characters. It is a leaf, so that agent/provider, which
// cannot import agent, shares them with it.
package textfmt

import (
	"strconv"
	"strings"
)

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
