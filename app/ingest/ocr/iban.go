package ocr

import (
	"regexp"
	"strings"

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
// makes pass, changes; a valid IBAN and every other word stay as read.
func repairIBANs(p *storage.OCRPage) {
	if p.Words != nil {
		for i := range p.Words.Words {
			if s, ok := repairIBANWord(p.Words.Words[i].Text); ok {
				p.Words.Words[i].Text = s
			}
		}
	}
	p.Text = nonSpace.ReplaceAllStringFunc(p.Text, func(tok string) string {
		if s, ok := repairIBANWord(tok); ok {
			return s
		}
		return tok
	})
}

var nonSpace = regexp.MustCompile(`\S+`)

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

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isASCIIAlnum(c byte) bool {
	return isDigit(c) || isUpper(c) || (c >= 'a' && c <= 'z')
}
