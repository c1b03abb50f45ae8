package evidence

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// box is a rectangle in page units, origin top-left. Pages without words
// get pseudo-boxes in characters and lines (x a column, y a line number),
// good for telling lines and columns apart but never shown.
type box struct{ x0, y0, x1, y1 float64 }

func (b box) height() float64  { return b.y1 - b.y0 }
func (b box) centreY() float64 { return (b.y0 + b.y1) / 2 }
func (b box) centreX() float64 { return (b.x0 + b.x1) / 2 }

func (b box) union(o box) box {
	return box{min(b.x0, o.x0), min(b.y0, o.y0), max(b.x1, o.x1), max(b.y1, o.y1)}
}

// span is the words [start, end) of a page.
type span struct{ start, end int32 }

// word is one word of a page as the matchers see it.
type word struct {
	text string // as printed, trimmed; the quote is made of these
	key  string // compactKey(text): lower-case letters and digits only
	box  box
}

// pageIndex is one page prepared for grounding.
type pageIndex struct {
	number        int
	words         []word
	boxes         bool // the words came with boxes (Page.Words), not from Page.Text
	width, height float64

	byKey   postings[string]   // compact key -> the word with that key
	keyLens []int              // the lengths of the compact keys, ascending, each once
	punct   map[string][]int32 // lower-cased text of words with an empty key ("-", "&")

	numbers postings[float64] // absolute amount -> words that print it
	dates   postings[date]    // date -> words that print it

	// labels holds every word's label key (writeLabelKey) after a NUL,
	// for finding label words by substring; labelAt[i] is where word i's
	// key starts.
	labels  string
	labelAt []int32
}

// newPageIndex prepares page i of a document: its words (or the words of
// its text), and the indexes by compact key, amount and date.
func newPageIndex(pg *Page, i int) *pageIndex {
	p := &pageIndex{number: pg.Number, width: pg.Width, height: pg.Height, words: make([]word, 0, len(pg.Words))}
	if p.number <= 0 {
		p.number = i + 1
	}
	for _, w := range pg.Words {
		t := strings.TrimSpace(w.Text)
		if t == "" {
			continue
		}
		b := box{min(w.X0, w.X1), min(w.Y0, w.Y1), max(w.X0, w.X1), max(w.Y0, w.Y1)}
		p.words = append(p.words, word{text: t, box: b})
	}
	if len(p.words) > 0 {
		p.boxes = true
	} else {
		p.words = textWords(pg.Text)
	}
	p.words = splitLabelled(p.words)
	p.setKeys()
	for i := range p.words {
		w := &p.words[i]
		if w.key == "" {
			if p.punct == nil {
				p.punct = map[string][]int32{}
			}
			k := strings.ToLower(w.text)
			p.punct[k] = append(p.punct[k], int32(i))
			continue
		}
		p.byKey.add(w.key, span{int32(i), int32(i + 1)})
		p.keyLens = append(p.keyLens, len(w.key))
	}
	p.byKey.build()
	slices.Sort(p.keyLens)
	p.keyLens = slices.Compact(p.keyLens)
	p.indexNumbers()
	p.indexDates()
	return p
}

// splitLabelled splits words that glue a label to its value, as
// "n°562044387", "Nr.:4711", "#12345" or "Date:20.03.2023", into the label
// and the value, so that the value is a word of its own (a value is never
// matched inside a longer word). The cut is after the last ":", "°" or "#"
// that has a letter or digit after it and is not between two digits (a
// time, "10:30"); the box is shared by the characters' count.
func splitLabelled(words []word) []word {
	var out []word
	for i, w := range words {
		cut := labelCut(w.text)
		if cut <= 0 {
			if out != nil {
				out = append(out, w)
			}
			continue
		}
		if out == nil {
			out = append(make([]word, 0, len(words)+4), words[:i]...)
		}
		label, value := w.text[:cut], w.text[cut:]
		share := float64(utf8.RuneCountInString(label)) / float64(utf8.RuneCountInString(w.text))
		mid := w.box.x0 + (w.box.x1-w.box.x0)*share
		out = append(out,
			word{text: label, box: box{w.box.x0, w.box.y0, mid, w.box.y1}},
			word{text: value, box: box{mid, w.box.y0, w.box.x1, w.box.y1}})
	}
	if out == nil {
		return words
	}
	return out
}

// labelCut is the byte offset where a word's value begins after a glued
// label, or 0.
func labelCut(t string) int {
	for end := len(t); end > 0; {
		r, size := utf8.DecodeLastRuneInString(t[:end])
		end -= size
		if r != ':' && r != '°' && r != '#' {
			continue
		}
		next, _ := utf8.DecodeRuneInString(t[end+size:])
		if end+size == len(t) || !unicode.IsLetter(next) && !unicode.IsDigit(next) {
			return 0
		}
		if prev, _ := utf8.DecodeLastRuneInString(t[:end]); end > 0 && unicode.IsDigit(prev) && unicode.IsDigit(next) {
			return 0
		}
		return end + size
	}
	return 0
}

// setKeys sets each word's compact key, and builds the label keys, in a few
// allocations: the keys are cut from one string.
func (p *pageIndex) setKeys() {
	var keys, labels strings.Builder
	ends := make([]int32, len(p.words))
	p.labelAt = make([]int32, len(p.words))
	for i := range p.words {
		writeCompactKey(&keys, p.words[i].text)
		ends[i] = int32(keys.Len())
		labels.WriteByte(0)
		p.labelAt[i] = int32(labels.Len())
		writeLabelKey(&labels, p.words[i].text)
	}
	all := keys.String()
	start := int32(0)
	for i, end := range ends {
		p.words[i].key = all[start:end]
		start = end
	}
	p.labels = labels.String()
}

// textWords splits a page's text into pseudo-words: whitespace-separated
// fields, each with a box of columns (in runes) and lines.
func textWords(text string) []word {
	var out []word
	line := 0
	for len(text) > 0 {
		l, rest, _ := strings.Cut(text, "\n")
		text = rest
		col, start, startCol := 0, -1, 0
		for j, r := range l {
			if unicode.IsSpace(r) {
				if start >= 0 {
					out = append(out, textWord(l[start:j], startCol, col, line))
					start = -1
				}
			} else if start < 0 {
				start, startCol = j, col
			}
			col++
		}
		if start >= 0 {
			out = append(out, textWord(l[start:], startCol, col, line))
		}
		line++
	}
	return out
}

func textWord(t string, col0, col1, line int) word {
	return word{text: t, box: box{float64(col0), float64(line), float64(col1), float64(line + 1)}}
}

// indexNumbers records the amounts each word prints, and those printed over
// two or three words with spaces between digit groups ("1 234 567,00").
func (p *pageIndex) indexNumbers() {
	var buf [2]amount
	add := func(as []amount, s span) {
		for k, a := range as {
			if k == 0 || a.abs != as[k-1].abs {
				p.numbers.add(a.abs, s)
			}
		}
	}
	for i := range p.words {
		t := p.words[i].text
		add(parseAmount(t, buf[:0]), span{int32(i), int32(i + 1)})
		// Thousands separated by spaces: "1" "234,50", "12" "345" "678".
		if !endsWithDigit(t) {
			continue
		}
		joined := t
		for j := i + 1; j < len(p.words) && j <= i+2; j++ {
			next := p.words[j].text
			if !startsWithGroup(next) {
				break
			}
			joined += " " + next
			add(parseAmount(joined, buf[:0]), span{int32(i), int32(j + 1)})
			if len(next) != 3 {
				break
			}
		}
	}
	p.numbers.build()
}

// indexDates records the dates that start at each word, over up to
// maxDateWords words.
func (p *pageIndex) indexDates() {
	texts := make([]string, 0, maxDateWords)
	var buf []dpiece
	var ds [2]date
	for i := range p.words {
		if !mayStartDate(p.words[i].text) {
			continue
		}
		texts = texts[:0]
		for j := i; j < len(p.words) && j < i+maxDateWords; j++ {
			texts = append(texts, p.words[j].text)
		}
		var found []date
		var n int
		found, n, buf = parseDate(texts, ds[:0], buf)
		for _, d := range found {
			p.dates.add(d, span{int32(i), int32(i + n)})
		}
	}
	p.dates.build()
}

// postings maps keys to the spans that print them, in reading order, in a
// few allocations rather than a slice per key: a key's spans are a chain
// through next.
type postings[K comparable] struct {
	keys  []K // while adding
	spans []span
	next  []int32     // 1 + the index of the key's next span; 0 after the last
	first map[K]int32 // 1 + the index of the key's first span
}

func (p *postings[K]) add(k K, s span) {
	p.keys = append(p.keys, k)
	p.spans = append(p.spans, s)
}

// build chains the spans added; no add after it.
func (p *postings[K]) build() {
	p.first = make(map[K]int32, len(p.keys))
	p.next = make([]int32, len(p.keys))
	for i := len(p.keys) - 1; i >= 0; i-- {
		p.next[i] = p.first[p.keys[i]]
		p.first[p.keys[i]] = int32(i + 1)
	}
	p.keys = nil
}

// appendTo appends the spans of k to out, until out holds limit spans.
func (p *postings[K]) appendTo(out []span, k K, limit int) []span {
	for i := p.first[k]; i != 0 && len(out) < limit; i = p.next[i-1] {
		out = append(out, p.spans[i-1])
	}
	return out
}

// spanBox is the union of the boxes of a span's words.
func (p *pageIndex) spanBox(s span) box {
	b := p.words[s.start].box
	for i := s.start + 1; i < s.end; i++ {
		b = b.union(p.words[i].box)
	}
	return b
}

// endsWithDigit and startsWithGroup pick the word pairs worth reading as
// one amount with a space as thousands separator: "1" then "234,50".
func endsWithDigit(s string) bool {
	return s != "" && isDigit(s[len(s)-1])
}

func startsWithGroup(s string) bool {
	return len(s) >= 3 && isDigit(s[0]) && isDigit(s[1]) && isDigit(s[2]) && (len(s) == 3 || !isDigit(s[3]))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
