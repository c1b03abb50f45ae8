package evidence

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Amounts. A printed amount is read in every usual convention: "1.234,50",
// "1,234.50", "1234.5", "1 234,50", "1'234.50", with a currency symbol or
// code before or after ("€", "$", "EUR", "USD"), a percent sign after, and a
// sign, a trailing minus or parentheses for negatives. A separator that may
// be either ("1,234" is 1234 in one convention and 1.234 in another) gives
// both readings. Values compare as float64: the same decimal parses to the
// same float64, so 279.84, "279,84" and "279.840" are equal, and 42 is
// "42.00".

// amount is one reading of a printed amount.
type amount struct {
	abs float64 // the amount's absolute value
	neg bool    // printed as negative
}

// maxGroups bounds the digit groups of an amount ("1.234.567.890,12" has 5).
const maxGroups = 8

// parseAmount appends to out the readings of s as an amount: none when s is
// not one, two when its separator is ambiguous. Integers with a leading
// zero ("03", "0008") are codes, not amounts.
func parseAmount(s string, out []amount) []amount {
	first, last := -1, -1
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || last-first > 64 {
		return out
	}
	neg1, ok1 := decoration(s[:first], false)
	neg2, ok2 := decoration(s[last+1:], true)
	if !ok1 || !ok2 {
		return out
	}
	neg := neg1 || neg2

	// The core, from the first digit to the last: digit groups and one
	// separator between each two.
	var groups [maxGroups]string
	var seps [maxGroups - 1]rune
	n, start := 0, first
	core := s[first : last+1]
	for i, r := range core {
		if '0' <= r && r <= '9' {
			continue
		}
		sep := separator(r)
		if sep == 0 || n == maxGroups-1 || first+i == start {
			return out // not a separator, too many groups, or two in a row
		}
		groups[n], seps[n] = s[start:first+i], sep
		n++
		start = first + i + utf8.RuneLen(r)
	}
	groups[n] = s[start : last+1]
	n++

	add := func(intPart []string, frac string) {
		if v, ok := decimalValue(intPart, frac); ok {
			out = append(out, amount{abs: v, neg: neg})
		}
	}
	g := groups[:n]
	switch {
	case n == 1:
		if plainInt(g[0]) {
			add(g, "")
		}
	case allSame(seps[:n-1]):
		c := seps[0]
		thousands := leadGroup(g[0])
		for _, x := range g[1:] {
			thousands = thousands && len(x) == 3
		}
		if n == 2 && (c == '.' || c == ',') && plainInt(g[0]) {
			add(g[:1], g[1])
		}
		if thousands {
			add(g, "")
		}
	default:
		// Mixed: the last separator is the decimal one, the others (all the
		// same, and different from it) group thousands.
		d, t := seps[n-2], seps[0]
		if d != '.' && d != ',' || t == d || !allSame(seps[:n-2]) || !leadGroup(g[0]) {
			return out
		}
		for _, x := range g[1 : n-1] {
			if len(x) != 3 {
				return out
			}
		}
		add(g[:n-1], g[n-1])
	}
	return out
}

// separator maps the characters that separate digit groups to a point, a
// comma, an apostrophe or a space, and anything else to 0.
func separator(r rune) rune {
	switch r {
	case '.', ',', '\'', ' ':
		return r
	case '’', 'ʼ':
		return '\''
	case '\u00a0', '\u202f', '\u2009', '\u2007':
		return ' '
	}
	return 0
}

func allSame(seps []rune) bool {
	for _, s := range seps {
		if s != seps[0] {
			return false
		}
	}
	return true
}

// plainInt: digits without a leading zero, or "0".
func plainInt(g string) bool { return len(g) == 1 || g[0] != '0' }

// leadGroup: the first group of a number with thousands separators.
func leadGroup(g string) bool { return len(g) <= 3 && g[0] != '0' }

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// decimalValue is the value of the digits of intPart followed by frac as
// decimals, as strconv.ParseFloat would read it.
func decimalValue(intPart []string, frac string) (float64, bool) {
	digits := len(frac)
	for _, g := range intPart {
		digits += len(g)
	}
	if digits <= 15 {
		// Exact in a float64, and one correctly rounded division: the same
		// result as ParseFloat, without building a string.
		var m uint64
		for _, g := range intPart {
			for i := 0; i < len(g); i++ {
				m = m*10 + uint64(g[i]-'0')
			}
		}
		for i := 0; i < len(frac); i++ {
			m = m*10 + uint64(frac[i]-'0')
		}
		return float64(m) / pow10[len(frac)], true
	}
	var b strings.Builder
	for _, g := range intPart {
		b.WriteString(g)
	}
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	v, err := strconv.ParseFloat(b.String(), 64)
	return v, err == nil
}

// decoration reports whether s, the text before (or after) the digits of an
// amount, is only what may stand there: spaces, a sign, parentheses, a
// currency, and after the digits a percent sign or closing punctuation. neg
// is true when it marks the amount negative.
func decoration(s string, after bool) (neg, ok bool) {
	if s == "" {
		return false, true
	}
	rest := strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '-', '−', '–', '(', ')':
			neg = true
			return true
		case '+', ' ', '\t', '\u00a0', '\u202f', '\u2009', '"', '\'', '*', '“', '”', '«', '»':
			return true
		case '.', ',', ':', ';':
			return after
		}
		return false
	})
	return neg, rest == "" || after && rest == "%" || isCurrency(rest)
}

// currencies are the symbols and codes an amount may carry, lower-case.
var currencies = map[string]bool{
	"$": true, "€": true, "£": true, "¥": true, "₹": true, "₽": true, "₩": true,
	"₺": true, "₪": true, "₫": true, "฿": true, "₴": true, "₦": true, "¢": true,
	"us$": true, "a$": true, "au$": true, "c$": true, "ca$": true, "nz$": true,
	"hk$": true, "s$": true, "r$": true,
	"eur": true, "usd": true, "gbp": true, "chf": true, "jpy": true, "cny": true,
	"rmb": true, "inr": true, "aud": true, "cad": true, "nzd": true, "sek": true,
	"nok": true, "dkk": true, "pln": true, "czk": true, "huf": true, "ron": true,
	"rub": true, "try": true, "brl": true, "mxn": true, "zar": true, "hkd": true,
	"sgd": true, "krw": true, "euro": true, "euros": true,
	"fr": true, "fr.": true, "sfr": true, "sfr.": true, "kr": true, "kr.": true,
	"zł": true, "kč": true, "rs": true, "rs.": true,
}

// isCurrency reports whether s is a currency symbol or code, in any case.
func isCurrency(s string) bool {
	if len(s) > 8 {
		return false
	}
	var buf [8]byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return currencies[string(buf[:len(s)])]
}
