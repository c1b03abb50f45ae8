package evidence

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dates. A value that reads as a date (ISO "2023-03-20", or any form below)
// matches the date in the usual written forms, over up to maxDateWords
// words: numeric ("20.03.2023", "20/03/2023", "2023-03-20", "20-03-23",
// "20230320"), with day-first and month-first readings both accepted, and
// with the month's name in English, German, French or Dutch, in full or
// short ("20 Mar 2023", "20. März 2023", "March 20, 2023", "Mar 20 2023",
// "20-Mar-23", "1er mars 2023", "March 20th, 2023"). Two-digit years are
// 1970 to 2069.

// date is a calendar date as yyyymmdd.
type date int32

// maxDateWords is the most words a printed date spans ("20. März 2023,").
const maxDateWords = 4

func makeDate(y, m, d int) (date, bool) {
	if y < 1000 || y > 2999 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	return date(y*10000 + m*100 + d), true
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// months maps month names, lower-case, to their number.
var months = map[string]int{}

func init() {
	for i, names := range [12]string{
		"january jan januar jänner jän janvier janv januari",
		"february feb februar février fevrier févr fevr februari",
		"march mar märz maerz marz mär mrz mars maart",
		"april apr avril avr",
		"may mai mei",
		"june jun juni juin",
		"july jul juli juillet juil",
		"august aug août aout augustus",
		"september sep sept septembre",
		"october oct oktober okt octobre",
		"november nov novembre",
		"december dec dezember dez décembre decembre déc",
	} {
		for _, n := range strings.Fields(names) {
			months[n] = i + 1
		}
	}
}

// isOrdinal reports whether s is a suffix a day may carry: "20th", "1er",
// "2e".
func isOrdinal(s string) bool {
	for _, o := range [...]string{"st", "nd", "rd", "th", "er", "re", "e"} {
		if strings.EqualFold(s, o) {
			return true
		}
	}
	return false
}

// monthOf returns the month s names, in any case, or 0.
func monthOf(s string) int {
	var buf [24]byte
	n := 0
	for _, r := range s {
		if n+utf8.UTFMax > len(buf) {
			return 0
		}
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			buf[n] = byte(r)
			n++
			continue
		}
		n += utf8.EncodeRune(buf[n:], unicode.ToLower(r))
	}
	return months[string(buf[:n])]
}

// dpiece is a run of digits or of letters in the words of a date, with what
// separates it from the run before.
type dpiece struct {
	s        string // the run
	digit    bool
	month    int  // the month a run of letters names, 0 for none
	word     int  // the word it is in, counted from the first
	adjacent bool // nothing between it and the run before, in one word
	ordinal  bool // a day with its ordinal suffix
	seps     int  // characters other than spaces since the run before
	sep      rune // the first of them
	mixed    bool // they are not all the same
	bad      bool // one of them is not one dates use (. , / -)
}

// maxPieces is how many runs a date pattern looks at, with room for the one
// after the date.
const maxPieces = 6

// scanPieces splits words into runs of digits and letters.
func scanPieces(words []string, buf []dpiece) []dpiece {
	buf = buf[:0]
	var seps int
	var sep rune
	var mixed, bad, adjacent bool
	for wi, w := range words {
		adjacent = false
		for i := 0; i < len(w); {
			r, size := utf8.DecodeRuneInString(w[i:])
			kind := runeKind(r)
			if kind == 0 {
				if !unicode.IsSpace(r) {
					seps++
					if seps == 1 {
						sep = r
					} else if r != sep {
						mixed = true
					}
					switch r {
					case '.', ',', '/', '-':
					default:
						bad = true
					}
				}
				adjacent = false
				i += size
				continue
			}
			j := i + size
			for j < len(w) {
				r2, s2 := utf8.DecodeRuneInString(w[j:])
				if runeKind(r2) != kind {
					break
				}
				j += s2
			}
			p := dpiece{s: w[i:j], digit: kind == 1, word: wi, adjacent: adjacent && len(buf) > 0,
				seps: seps, sep: sep, mixed: mixed, bad: bad}
			seps, sep, mixed, bad, adjacent = 0, 0, false, false, true
			i = j
			if !p.digit {
				if prev := len(buf) - 1; p.adjacent && buf[prev].digit && len(buf[prev].s) <= 2 && isOrdinal(p.s) {
					buf[prev].ordinal = true
					continue
				}
				p.month = monthOf(p.s)
			}
			buf = append(buf, p)
			if len(buf) == maxPieces {
				return buf
			}
		}
	}
	return buf
}

// runeKind is 1 for an ASCII digit, 2 for another letter or digit, 0 for
// anything else.
func runeKind(r rune) int {
	switch {
	case '0' <= r && r <= '9':
		return 1
	case r < 0x80:
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
			return 2
		}
		return 0
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		return 2
	}
	return 0
}

// parseDate reads a date at the start of words (at most maxDateWords of
// them): it appends the date's readings to out and returns how many words
// it spans, 0 when words do not start with a date. The date must end where
// a word ends (punctuation after it aside). buf is scratch space, returned
// for reuse.
func parseDate(words []string, out []date, buf []dpiece) ([]date, int, []dpiece) {
	buf = scanPieces(words, buf)
	n0 := len(out)
	out, used := matchDate(buf, out)
	if used == 0 {
		return out[:n0], 0, buf
	}
	last := buf[used-1].word
	if used < len(buf) && buf[used].word == last {
		return out[:n0], 0, buf // "2023-03-20T10" or "20.03.2023a"
	}
	return out, last + 1, buf
}

// matchDate matches the runs of a date pattern at the start of p, appends
// its readings to out and returns how many runs it used.
func matchDate(p []dpiece, out []date) ([]date, int) {
	if len(p) == 0 || p[0].word != 0 {
		return out, 0
	}
	n0 := len(out)
	add := func(y, m, d int) {
		if v, ok := makeDate(y, m, d); ok && (len(out) == n0 || out[len(out)-1] != v) {
			out = append(out, v)
		}
	}
	if a := p[0]; a.digit && len(a.s) == 8 && !a.ordinal {
		// 20230320
		if y := atoi(a.s[:4]); 1900 <= y && y <= 2099 {
			add(y, atoi(a.s[4:6]), atoi(a.s[6:]))
		}
		return out, min(len(out)-n0, 1)
	}
	if len(p) < 3 {
		return out, 0
	}
	a, b, c := p[0], p[1], p[2]
	switch {
	case a.digit && b.digit && c.digit:
		// 20.03.2023, 03/20/2023, 2023-03-20, 20-03-23
		if a.ordinal || b.ordinal || c.ordinal || !numericSep(b) || !numericSep(c) || b.sep != c.sep {
			break
		}
		switch {
		case len(a.s) == 4 && short(b.s) && short(c.s):
			add(atoi(a.s), atoi(b.s), atoi(c.s))
		case short(a.s) && short(b.s) && isYear(c.s):
			y := year(c.s)
			add(y, atoi(b.s), atoi(a.s))
			add(y, atoi(a.s), atoi(b.s))
		}
	case a.digit && b.month > 0 && c.digit:
		// 20 Mar 2023, 20. März 2023, 20-Mar-23, 20th March 2023
		if short(a.s) && isYear(c.s) && !c.ordinal && looseSep(b) && looseSep(c) {
			add(year(c.s), b.month, atoi(a.s))
		}
	case a.month > 0 && b.digit && c.digit:
		// March 20, 2023, Mar 20 2023, March 20th, 2023
		if short(b.s) && isYear(c.s) && !c.ordinal && looseSep(b) && looseSep(c) {
			add(year(c.s), a.month, atoi(b.s))
		}
	}
	if len(out) == n0 {
		return out, 0
	}
	return out, 3
}

// numericSep: one '.', '/' or '-' between the numbers of a numeric date,
// spaces aside ("20. 03. 2023").
func numericSep(p dpiece) bool {
	return p.seps == 1 && !p.bad && (p.sep == '.' || p.sep == '/' || p.sep == '-')
}

// looseSep: spaces and at most two of . , / - between the parts of a date
// with the month's name ("Mar., 2023").
func looseSep(p dpiece) bool { return p.seps <= 2 && !p.bad }

func short(s string) bool  { return len(s) == 1 || len(s) == 2 }
func isYear(s string) bool { return len(s) == 2 || len(s) == 4 }

// year reads a year of two or four digits; two-digit years are 1970..2069.
func year(s string) int {
	y := atoi(s)
	if len(s) == 2 {
		if y < 70 {
			return 2000 + y
		}
		return 1900 + y
	}
	return y
}

// atoi reads a short run of ASCII digits.
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// mayStartDate is a cheap test before parseDate: a date starts with a
// number of 1, 2, 4 or 8 digits, or with a month's name.
func mayStartDate(s string) bool {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if runeKind(r) != 0 {
			break
		}
		i += size
	}
	j := i
	if j < len(s) && isDigit(s[j]) {
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		switch j - i {
		case 1, 2, 4, 8:
			return true
		}
		return false
	}
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		if runeKind(r) != 2 {
			break
		}
		j += size
	}
	return j > i && monthOf(s[i:j]) > 0
}

// parseDateValue reads a whole value as a date: one of the printed forms,
// or an ISO date-time ("2023-03-20T10:00:00Z") by its date.
func parseDateValue(tokens []string) ([]date, bool) {
	if len(tokens) == 0 || len(tokens) > maxDateWords {
		return nil, false
	}
	if t := tokens[0]; len(tokens) <= 2 && len(t) > 10 && t[4] == '-' && (t[10] == 'T' || t[10] == 't') {
		tokens = []string{t[:10]}
	} else if len(tokens) == 2 && len(t) == 10 && t[4] == '-' && strings.Contains(tokens[1], ":") {
		tokens = tokens[:1] // "2023-03-20 10:00"
	}
	var buf [maxPieces]dpiece
	ds, n, _ := parseDate(tokens, nil, buf[:0])
	if n != len(tokens) || len(ds) == 0 {
		return nil, false
	}
	return ds, true
}
