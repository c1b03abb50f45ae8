package ocr

import (
	"regexp"
	"strings"
	"sync"

	"github.com/docent/docent/storage"
)

// OCR misreads a digit as the letter it looks like (0 as O, 5 as S, 1 as
// I) inside codes, and an IBAN is the value a user most needs exact. An
// IBAN carries its own check (ISO 13616: the first four characters moved
// to the end, letters as 10 to 35, the number mod 97 is 1), so a repair
// that makes it pass is proven, not guessed: a wrong repair passes with a
// chance of about 1 in 97, and a word is repaired only when exactly one
// of its few possible repairs passes.

// ibanDigit is the digit an OCR engine may have read as each letter.
var ibanDigit = map[byte]byte{
	'O': '0', 'D': '0', 'Q': '0',
	'I': '1', 'L': '1', '|': '1',
	'Z': '2', 'S': '5', 'G': '6', 'B': '8',
}

// maxIBANGuesses bounds the letters outside the check digits that a
// repair may turn into digits: each doubles the repairs tried (16 at
// most), and each more repair tried is one more chance for a wrong one to
// pass the check.
const maxIBANGuesses = 4

// repairIBANs repairs the IBANs OCR misread on page p, in its words and,
// token by token, in its text, so that the two agree. Only a word shaped
// like an IBAN that fails the check, and that exactly one of its repairs
// makes pass, changes, and so do the groups of four of an IBAN printed
// as such ("DEO2 1203 0000 …"); a valid IBAN and every other word stay as
// read. A repair keeps each word's length, so the text is mended in place.
func repairIBANs(p *storage.OCRPage) {
	if p.Words != nil {
		ws := p.Words.Words
		toks := make([]string, len(ws))
		for i, w := range ws {
			toks[i] = w.Text
		}
		repairIBANTokens(toks, func(i int) bool { return sameLine(ws[i-1], ws[i]) })
		for i := range ws {
			ws[i].Text = toks[i]
		}
	}
	at := nonSpace().FindAllStringIndex(p.Text, -1)
	toks := make([]string, len(at))
	for i, a := range at {
		toks[i] = p.Text[a[0]:a[1]]
	}
	repairIBANTokens(toks, func(i int) bool {
		return !strings.Contains(p.Text[at[i-1][1]:at[i][0]], "\n")
	})
	text := []byte(p.Text)
	for i, a := range at {
		copy(text[a[0]:a[1]], toks[i])
	}
	p.Text = string(text)
}

var nonSpace = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\S+`) })

// sameLine says whether word b follows word a on its line: their boxes
// overlap in height. Words without boxes are taken to.
func sameLine(a, b storage.Word) bool {
	if a.H == 0 || b.H == 0 {
		return true
	}
	return a.Y < b.Y+b.H && b.Y < a.Y+a.H
}

// repairIBANTokens repairs the IBANs in toks, a page's words in reading
// order, each alone or printed in groups of four on a line (joined(i)
// says toks[i] follows toks[i-1] on its line). A repaired token keeps its
// length.
func repairIBANTokens(toks []string, joined func(i int) bool) {
	for i, tok := range toks {
		if s, ok := repairIBANWord(tok); ok {
			toks[i] = s
		}
	}
	for i := 0; i < len(toks); i++ {
		if n := repairIBANGroups(toks[i:], joined, i); n > 0 {
			i += n - 1
		}
	}
}

// repairIBANGroups repairs the IBAN printed in groups of four at the
// start of toks ("DEO2 1203 0000 0000 2020 51"), off is the index of
// toks[0] for joined, and returns how many tokens it spans, 0 if none.
// A group of four may be followed by a word of four that is no part of
// it (a Belgian IBAN is four groups of four), so each length is tried:
// one already valid leaves them all as read, and only a repair at one
// length alone changes the tokens.
func repairIBANGroups(toks []string, joined func(i int) bool, off int) int {
	first := strings.TrimLeftFunc(toks[0], func(r rune) bool { return r > 127 || !isASCIIAlnum(byte(r)) })
	if len(first) != 4 || !isASCIILetter(first[0]) || !isASCIILetter(first[1]) {
		return 0
	}
	lead := len(toks[0]) - len(first)
	core := strings.ToUpper(first)
	var repairs []string // one for each length tried, "" where none passed
	valid := false
	for n := 2; n <= len(toks) && joined(off+n-1) && len(core) < 34; n++ {
		g := toks[n-1]
		trail := 0
		for trail < len(g) && !isASCIIAlnum(g[len(g)-1-trail]) {
			trail++
		}
		g = g[:len(g)-trail]
		if len(g) == 0 || len(g) > 4 || strings.IndexFunc(g, func(r rune) bool { return r > 127 || !isASCIIAlnum(byte(r)) }) >= 0 {
			break
		}
		core += strings.ToUpper(g)
		if len(core) >= 15 {
			if validIBAN(core) {
				valid = true
				break
			}
			fixed, ok := repairIBAN(core)
			if ok {
				repairs = append(repairs, fixed)
			} else {
				repairs = append(repairs, "")
			}
		}
		if len(g) < 4 || trail > 0 {
			break // a short group or punctuation ends the IBAN
		}
	}
	found := -1
	for k, r := range repairs {
		if r != "" {
			if found >= 0 {
				return 0
			}
			found = k
		}
	}
	if valid || found < 0 {
		return 0
	}
	fixed := repairs[found]
	// The tokens the repaired IBAN spans: the first whose groups reach
	// its length.
	n, pos := 0, 0
	for pos < len(fixed) {
		tok := toks[n]
		a, b := 0, 0
		if n == 0 {
			a, b = lead, lead+4 // may hold a '|' read for a 1
		}
		for b < len(tok) && isASCIIAlnum(tok[b]) {
			b++
		}
		toks[n] = tok[:a] + fixed[pos:pos+b-a] + tok[b:]
		pos += b - a
		n++
	}
	return n
}

// repairIBANWord returns word with the IBAN in it repaired, and whether
// it repaired one. The punctuation around it (a colon after, a bracket)
// is kept.
func repairIBANWord(word string) (string, bool) {
	start, end := 0, len(word)
	for start < end && !isASCIIAlnum(word[start]) {
		start++
	}
	for end > start && !isASCIIAlnum(word[end-1]) {
		end--
	}
	core := strings.ToUpper(word[start:end])
	fixed, ok := repairIBAN(core)
	if !ok {
		return word, false
	}
	return word[:start] + fixed + word[end:], true
}

// repairIBAN returns s, upper-case and without surrounding punctuation,
// repaired to a valid IBAN, and whether exactly one repair made it one.
// A valid IBAN is never changed.
func repairIBAN(s string) (string, bool) {
	if len(s) < 15 || len(s) > 34 || !isUpper(s[0]) || !isUpper(s[1]) || validIBAN(s) {
		return "", false
	}
	b := []byte(s)
	// The check digits are digits in every IBAN: a letter there is a
	// misread digit or no IBAN at all.
	for i := 2; i < 4; i++ {
		if isDigit(b[i]) {
			continue
		}
		d, ok := ibanDigit[b[i]]
		if !ok {
			return "", false
		}
		b[i] = d
	}
	// Elsewhere a letter may be one (Dutch and British account numbers
	// start with the bank's letters), so it is guessed a digit only where
	// it stands in a run of digits: among digits on both sides, or after
	// digits at the end.
	var guesses []int
	for i := 4; i < len(b); i++ {
		c := b[i]
		switch {
		case isDigit(c):
		case isUpper(c):
			if isGuessable(c) && amongDigits(b, i) {
				guesses = append(guesses, i)
			}
		default:
			return "", false // not A–Z0–9: no IBAN
		}
	}
	if len(guesses) > maxIBANGuesses {
		return "", false
	}
	var found string
	n := 0
	try := make([]byte, len(b))
	for mask := 0; mask < 1<<len(guesses); mask++ {
		copy(try, b)
		for k, i := range guesses {
			if mask&(1<<k) != 0 {
				try[i] = ibanDigit[try[i]]
			}
		}
		if validIBAN(string(try)) {
			n++
			found = string(try)
		}
	}
	if n != 1 {
		return "", false
	}
	return found, true
}

// amongDigits says whether the letter at i in b stands in a run of
// digits: the nearest character on each side that is not a letter taken
// for a digit is a digit (on the left the check digits count), or on the
// right the end of b. Runs of such
// letters ("00OO0") count, a bank's letters ("INGB0") do not.
func amongDigits(b []byte, i int) bool {
	l := i - 1
	for l >= 4 && isGuessable(b[l]) {
		l--
	}
	if !isDigit(b[l]) { // l >= 3: the check digits count
		return false
	}
	r := i + 1
	for r < len(b) && isGuessable(b[r]) {
		r++
	}
	return r == len(b) || isDigit(b[r])
}

func isGuessable(c byte) bool {
	_, ok := ibanDigit[c]
	return ok && !isDigit(c)
}

// validIBAN checks s by ISO 13616 mod 97.
func validIBAN(s string) bool {
	if len(s) < 15 || len(s) > 34 || !isUpper(s[0]) || !isUpper(s[1]) || !isDigit(s[2]) || !isDigit(s[3]) {
		return false
	}
	rem := 0
	for _, c := range []byte(s[4:] + s[:4]) {
		switch {
		case isDigit(c):
			rem = (rem*10 + int(c-'0')) % 97
		case isUpper(c):
			rem = (rem*100 + int(c-'A') + 10) % 97
		default:
			return false
		}
	}
	return rem == 1
}

func isDigit(c byte) bool       { return c >= '0' && c <= '9' }
func isUpper(c byte) bool       { return c >= 'A' && c <= 'Z' }
func isASCIILetter(c byte) bool { return isUpper(c) || (c >= 'a' && c <= 'z') }
func isASCIIAlnum(c byte) bool  { return isDigit(c) || isASCIILetter(c) }
