package pdftext

import (
	"strings"
	"unicode"
)

// PDFs place right-to-left text (Hebrew, Arabic, Persian) glyph by glyph in
// visual order, so a line read left to right has its words backwards. This
// is a small part of the Unicode bidirectional algorithm, enough for search
// and for a language model: words with right-to-left letters are reversed
// into logical order, and in a line that is mostly right to left the order
// of the words is reversed too, leaving numbers and Latin words intact.

func isRTL(r rune) bool {
	return unicode.In(r, unicode.Hebrew, unicode.Arabic, unicode.Syriac, unicode.Thaana, unicode.Nko)
}

// rtlDominant reports whether s has more right-to-left letters than others.
func rtlDominant(s string) bool {
	rtl, ltr := 0, 0
	for _, r := range s {
		switch {
		case isRTL(r):
			rtl++
		case unicode.IsLetter(r):
			ltr++
		}
	}
	return rtl > ltr
}

func hasRTL(s string) bool {
	for _, r := range s {
		if isRTL(r) {
			return true
		}
	}
	return false
}

// logicalOrder turns one line (or cell) from visual into logical order.
func logicalOrder(s string) string {
	if !hasRTL(s) {
		return s
	}
	words := strings.Split(s, " ")
	for i, w := range words {
		if hasRTL(w) {
			words[i] = reverseWord(w)
		}
	}
	if rtlDominant(s) {
		for i, j := 0, len(words)-1; i < j; i, j = i+1, j-1 {
			words[i], words[j] = words[j], words[i]
		}
	}
	return strings.Join(words, " ")
}

// reverseWord reverses the letters of a word, keeping each combining mark
// after its letter, and mirrors brackets.
func reverseWord(w string) string {
	rs := []rune(w)
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	for i := 0; i+1 < len(rs); i++ {
		if unicode.Is(unicode.Mn, rs[i]) && !unicode.Is(unicode.Mn, rs[i+1]) {
			rs[i], rs[i+1] = rs[i+1], rs[i]
			i++
		}
	}
	for i, r := range rs {
		switch r {
		case '(':
			rs[i] = ')'
		case ')':
			rs[i] = '('
		case '[':
			rs[i] = ']'
		case ']':
			rs[i] = '['
		}
	}
	return string(rs)
}
