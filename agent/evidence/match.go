package evidence

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"unicode"
)

// Normalisation. A word and a value compare by their compact keys: the
// text lower-cased with everything but letters and digits dropped, so case,
// punctuation around and inside words, and spaces do not matter: "DE88 2008
// 0000" and "DE8820080000", "(870) 931-0505" and "(870)-931-0505",
// "Acme," and "ACME" all compare equal. What does matter is where words
// begin and end: a value matches whole words only, never part of a word
// ("2023" is not in "INV/2023/03/0008").

// compactKey returns s lower-cased, with only its letters and digits;
// ligatures are spelled out.
func compactKey(s string) string {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	writeCompactKey(&b, s)
	return b.String()
}

func writeCompactKey(b *strings.Builder, s string) {
	for _, r := range s {
		switch {
		case r < 0x80:
			if 'A' <= r && r <= 'Z' {
				b.WriteByte(byte(r) + 'a' - 'A')
			} else if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
				b.WriteByte(byte(r))
			}
		case 0xFB00 <= r && r <= 0xFB06:
			b.WriteString(ligatures[r-0xFB00])
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		}
	}
}

var ligatures = [...]string{"ff", "fi", "fl", "ffi", "ffl", "st", "st"}

// query is a leaf value prepared for lookup.
type query struct {
	numbers []float64 // absolute amounts the value may be
	dates   []date    // dates the value may be
	key     string    // compact key, "" when the value is not looked up as text
	tokens  int       // the value's whitespace-separated tokens
	strict  string    // when set, text matches must have this trimmedText
	punct   []string  // lower-cased tokens of a value without letters or digits
}

// newQuery prepares a leaf; ok is false for leaves that are not looked for
// (null, booleans, blank strings).
func newQuery(v any) (q query, ok bool) {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		if err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			q.numbers = []float64{math.Abs(f)}
		}
		return q, true
	case string:
		s := strings.TrimSpace(v)
		if s == "" {
			return q, false
		}
		tokens := strings.Fields(s)
		q.tokens = len(tokens)
		var buf [2]amount
		for _, a := range parseAmount(s, buf[:0]) {
			q.numbers = append(q.numbers, a.abs)
		}
		q.dates, _ = parseDateValue(tokens)
		// An amount with a decimal or thousands separator is matched as an
		// amount only: as text, "12.50" would match "1250".
		if len(q.numbers) == 0 || !hasDigitSepDigit(s) {
			q.key = compactKey(s)
		}
		// A short value of digits and punctuation keeps its punctuation:
		// "1.2.3", "3/4" and "10:30" are not "123", "34" and "1030".
		if q.key != "" && len(q.key) < minGlue && len(q.key) < len(s) && allDigits(q.key) {
			q.strict = trimmedText(tokens)
		}
		if q.key == "" && len(q.numbers) == 0 {
			for _, t := range tokens {
				q.punct = append(q.punct, strings.ToLower(t))
			}
		}
		return q, true
	}
	return q, false
}

// hasDigitSepDigit reports whether s has a '.', ',' or apostrophe between
// two digits, as amounts do.
func hasDigitSepDigit(s string) bool {
	for i := 1; i+1 < len(s); i++ {
		switch s[i] {
		case '.', ',', '\'':
			if isDigit(s[i-1]) && isDigit(s[i+1]) {
				return true
			}
		}
	}
	return false
}

// maxMatches bounds the places collected for one value.
const maxMatches = 256

// find returns the places where q stands, page by page, in reading order.
// A place that contains another place of the same value is dropped
// ("$ 12.00" when "12.00" matched too).
func (x *Index) find(q *query) []cand {
	var out []cand
	var spans []span
	for pi, p := range x.pages {
		// Each source is in reading order; enough of each is plenty.
		spans = spans[:0]
		for _, v := range q.numbers {
			spans = p.numbers.appendTo(spans, v, len(spans)+maxMatches)
		}
		for _, d := range q.dates {
			spans = p.dates.appendTo(spans, d, len(spans)+maxMatches)
		}
		if q.key != "" {
			n := len(spans)
			spans = p.findText(q.key, q.tokens, spans, len(spans)+maxMatches)
			if q.strict != "" {
				kept := slices.DeleteFunc(spans[n:], func(s span) bool { return p.trimmedText(s) != q.strict })
				spans = spans[:n+len(kept)]
			}
		} else if len(q.punct) > 0 {
			spans = p.findPunct(q.punct, spans, len(spans)+maxMatches)
		}
		for _, s := range minimalSpans(spans) {
			if len(out) == maxMatches {
				return out
			}
			out = append(out, cand{page: pi, sp: s, box: p.spanBox(s)})
		}
	}
	return out
}

// trimmedText is tokens lower-cased, without the punctuation around each,
// joined by a space.
func trimmedText(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		if t = strings.TrimFunc(t, unicode.IsPunct); t != "" {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strings.ToLower(t))
		}
	}
	return b.String()
}

// trimmedText is the trimmedText of a span's words.
func (p *pageIndex) trimmedText(s span) string {
	tokens := make([]string, 0, s.end-s.start)
	for i := s.start; i < s.end; i++ {
		tokens = append(tokens, p.words[i].text)
	}
	return trimmedText(tokens)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// minGlue is the shortest compact key that may match more words than the
// value has tokens ("INV/2023" over "INV", "/2023"); shorter values would
// match by chance ("2023" over "20" "23").
const minGlue = 6

// maxGlue is how many words more than its tokens a value may span; a long
// value may also span one word for each 4 of its characters (an IBAN in
// groups of four).
const maxGlue = 3

// maxSkip is how many words without letters or digits ("-", "|") may stand
// between two matched words.
const maxSkip = 3

// maxTextSteps bounds the words findText compares for one value on one
// page; only a page of one word repeated thousands of times reaches it.
const maxTextSteps = 1 << 17

// findText appends the spans of words whose compact keys, concatenated,
// equal key: a run starts with a word whose key is a prefix of key, and
// each next word must continue it. It stops when out holds limit spans.
func (p *pageIndex) findText(key string, tokens int, out []span, limit int) []span {
	words := tokens
	if len(key) >= minGlue {
		words += max(maxGlue, len(key)/4)
	}
	steps := 0
	for _, l := range p.keyLens {
		if l > len(key) {
			break
		}
		for e := p.byKey.first[key[:l]]; e != 0; e = p.byKey.next[e-1] {
			if len(out) >= limit || steps > maxTextSteps {
				return out
			}
			start := p.byKey.spans[e-1].start
			pos, n, last := l, 1, int(start)
			for i, skipped := last+1, 0; pos < len(key) && i < len(p.words) && n < words; i++ {
				steps++
				wk := p.words[i].key
				if wk == "" {
					if skipped++; skipped > maxSkip {
						break
					}
					continue
				}
				if !strings.HasPrefix(key[pos:], wk) {
					break
				}
				pos, n, last, skipped = pos+len(wk), n+1, i, 0
			}
			if pos == len(key) {
				out = append(out, span{start, int32(last + 1)})
			}
		}
	}
	return out
}

// findPunct appends the spans of words equal to tokens, for values without
// letters or digits, until out holds limit spans.
func (p *pageIndex) findPunct(tokens []string, out []span, limit int) []span {
	steps := 0
	for _, start := range p.punct[tokens[0]] {
		if steps += len(tokens); len(out) >= limit || steps > maxTextSteps {
			break
		}
		end := int(start) + len(tokens)
		if end > len(p.words) {
			continue
		}
		ok := true
		for j, t := range tokens[1:] {
			if w := p.words[int(start)+1+j]; w.key != "" || strings.ToLower(w.text) != t {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, span{start, int32(end)})
		}
	}
	return out
}

// minimalSpans sorts spans, drops duplicates and drops every span that
// contains another one. It reuses the slice.
func minimalSpans(spans []span) []span {
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(a, b span) int {
		if a.start != b.start {
			return int(a.start - b.start)
		}
		return int(a.end - b.end)
	})
	spans = slices.Compact(spans)
	out := spans[:0]
	prev := span{-1, -1}
	for i, s := range spans {
		// A span inside s either starts where s does and ends earlier (it
		// sorts just before s), or starts later and before s ends.
		contains := prev.start == s.start
		for _, t := range spans[i+1:] {
			if t.start >= s.end {
				break
			}
			if t.end <= s.end {
				contains = true
				break
			}
		}
		prev = s
		if !contains {
			out = append(out, s) // writes at or before i: spans[i+1:] is intact
		}
	}
	return out
}
