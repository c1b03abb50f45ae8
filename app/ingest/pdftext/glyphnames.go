package pdftext

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/ledongthuc/pdf"
	"golang.org/x/text/unicode/norm"
)

// Embedded Type 1 fonts made by TeX and others often carry their encoding
// inside the font program ("dup 12 /fi put") and none in the PDF, which then
// says nothing about what code 12 means. This reads that encoding from the
// font program's clear-text part, so that "ﬁlled" does not come out as
// "lled".

// builtinDupRe is compiled on first use, not at init in every process.
var builtinDupRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`dup\s+(\d{1,3})\s*/([^\s/\[\]()<>{}%]+)\s+put`) })

// builtinEncoding returns the encoding of an embedded Type 1 font program,
// code to glyph name, or nil.
func builtinEncoding(desc pdf.Value) map[int]string {
	ff := desc.Key("FontFile")
	if ff.Kind() != pdf.Stream {
		return nil
	}
	n := ff.Key("Length1").Int64()
	if n <= 0 || n > 1<<20 {
		n = 64 << 10
	}
	var head []byte
	func() {
		defer func() { recover() }() // a broken font program costs only its encoding
		var b strings.Builder
		buf := make([]byte, 4096)
		rd := ff.Reader()
		for int64(b.Len()) < n {
			k, err := rd.Read(buf)
			b.Write(buf[:k])
			if err != nil {
				break
			}
		}
		head = []byte(b.String())
	}()
	if i := strings.Index(string(head), "eexec"); i >= 0 {
		head = head[:i]
	}
	ms := builtinDupRe().FindAllSubmatch(head, 256)
	if len(ms) == 0 {
		return nil
	}
	enc := make(map[int]string, len(ms))
	for _, m := range ms {
		code, err := strconv.Atoi(string(m[1]))
		if err == nil && code < 256 {
			enc[code] = string(m[2])
		}
	}
	return enc
}

// glyphText returns the text of a glyph name: the names whose text is in
// the name itself, the common Latin names, and base letter plus accent
// ("adieresis"). The rest of the Adobe Glyph List is reached through
// ledongthuc where a font has /Differences.
func glyphText(name string) (string, bool) {
	if t, ok := glyphNameText(name); ok {
		return t, true
	}
	if t, ok := commonGlyphs[name]; ok {
		return t, true
	}
	for accent, mark := range accentMarks {
		if base, ok := strings.CutSuffix(name, accent); ok && len(base) == 1 {
			return norm.NFC.String(base + mark), true
		}
	}
	return "", false
}

var accentMarks = map[string]string{
	"grave": "\u0300", "acute": "\u0301", "circumflex": "\u0302", "tilde": "\u0303",
	"dieresis": "\u0308", "ring": "\u030a", "cedilla": "\u0327", "caron": "\u030c",
}

var commonGlyphs = map[string]string{
	"space": " ", "exclam": "!", "quotedbl": "\"", "numbersign": "#", "dollar": "$",
	"percent": "%", "ampersand": "&", "quoteright": "\u2019", "quotesingle": "'",
	"parenleft": "(", "parenright": ")", "asterisk": "*", "plus": "+", "comma": ",",
	"hyphen": "-", "period": ".", "slash": "/", "zero": "0", "one": "1", "two": "2",
	"three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
	"nine": "9", "colon": ":", "semicolon": ";", "less": "<", "equal": "=",
	"greater": ">", "question": "?", "at": "@", "bracketleft": "[", "backslash": "\\",
	"bracketright": "]", "asciicircum": "^", "underscore": "_", "quoteleft": "\u2018",
	"grave": "`", "braceleft": "{", "bar": "|", "braceright": "}", "asciitilde": "~",
	"endash": "\u2013", "emdash": "\u2014", "bullet": "\u2022", "quotedblleft": "\u201c",
	"quotedblright": "\u201d", "quotedblbase": "\u201e", "quotesinglbase": "\u201a",
	"ellipsis": "\u2026", "dagger": "\u2020", "daggerdbl": "\u2021", "section": "§",
	"paragraph": "¶", "dotlessi": "ı", "germandbls": "ß", "ae": "æ", "oe": "œ",
	"oslash": "ø", "AE": "Æ", "OE": "Œ", "Oslash": "Ø", "lslash": "ł", "Lslash": "Ł",
	"exclamdown": "¡", "questiondown": "¿", "sterling": "£", "yen": "¥", "cent": "¢",
	"currency": "¤", "copyright": "©", "registered": "®", "trademark": "™",
	"degree": "°", "plusminus": "±", "multiply": "×", "divide": "÷", "minus": "\u2212",
	"mu": "µ", "periodcentered": "·", "guillemotleft": "«", "guillemotright": "»",
	"guilsinglleft": "‹", "guilsinglright": "›", "Euro": "€", "euro": "€",
	"fraction": "⁄", "perthousand": "‰", "florin": "ƒ", "circumflex": "ˆ", "tilde": "˜",
	"dieresis": "¨", "acute": "´", "cedilla": "¸", "macron": "¯", "breve": "˘",
	"dotaccent": "˙", "ring": "˚", "hungarumlaut": "˝", "ogonek": "˛", "caron": "ˇ",
	"ff": "ff", "fi": "fi", "fl": "fl", "ffi": "ffi", "ffl": "ffl", "nbspace": " ",
}
