package evidence

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Labels. The words of a field's key and their synonyms are its label
// tokens: "amount_tax" and "amountTax" give "amount" and "tax", each with
// its synonyms ("total", "betrag", ...; "vat", "mwst", ...). A word of the
// page is a label of the field when its label key (its letters
// lower-cased, with "#" and "°") is a token or contains a long one; how
// well it labels a place depends on where it stands (relation).

// minLabelSubstring is the shortest token found inside a longer word
// ("rechnung" in "Rechnungsnummer"); shorter ones ("no") must be the word.
const minLabelSubstring = 4

// synonyms are the label words of common keys besides the key's own words,
// in English, German and French. Keep it short: every entry is a chance
// for a wrong label.
var synonyms = map[string][]string{
	"total":    {"sum", "amount", "betrag", "summe", "gesamt", "montant"},
	"amount":   {"total", "sum", "betrag", "summe", "montant"},
	"sum":      {"total", "amount", "summe", "betrag"},
	"date":     {"datum", "dated"},
	"invoice":  {"rechnung", "facture", "bill"},
	"number":   {"no", "nr", "num", "#", "nummer", "numéro", "n°", "nº"},
	"tax":      {"vat", "mwst", "ust", "tva", "gst", "steuer"},
	"vat":      {"tax", "mwst", "ust", "tva"},
	"quantity": {"qty", "menge", "anzahl", "qté", "quantité"},
	"qty":      {"quantity", "menge", "anzahl"},
	"price":    {"preis", "prix", "rate"},
	"due":      {"fällig", "payable", "échéance"},
	"net":      {"netto", "subtotal"},
	"subtotal": {"net", "netto", "zwischensumme"},
	"gross":    {"brutto"},
	"discount": {"rabatt", "remise"},
	"phone":    {"tel", "telefon", "téléphone"},
	"email":    {"mail", "e-mail"},
	"customer": {"client", "kunde", "buyer"},
	"buyer":    {"customer", "client", "kunde"},
	"seller":   {"vendor", "supplier", "lieferant"},
}

// stopwords never label anything.
var stopwords = map[string]bool{
	"of": true, "the": true, "and": true, "or": true, "to": true, "a": true,
	"an": true, "in": true, "on": true, "for": true, "by": true, "at": true,
	"is": true, "de": true, "la": true, "le": true, "du": true,
}

// labelWords returns the words of key, each with its synonyms: the label
// tokens, as label keys.
func labelWords(key string) [][]string {
	var out [][]string
	var seen []string
	for _, w := range splitKey(key) {
		if stopwords[w] || slices.Contains(seen, w) {
			continue
		}
		seen = append(seen, w)
		tokens := []string{w}
		for _, s := range synonyms[w] {
			var b strings.Builder
			writeLabelKey(&b, s)
			if t := b.String(); t != "" && !slices.Contains(tokens, t) {
				tokens = append(tokens, t)
			}
		}
		out = append(out, tokens)
	}
	return out
}

// splitKey splits a key into lower-case words at anything but letters
// (and "#") and at camelCase humps: "amountTax", "VATRate", "amount_tax".
func splitKey(key string) []string {
	var out []string
	var b strings.Builder
	rs := []rune(key)
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for i, r := range rs {
		if !isLabelRune(r) {
			flush()
			continue
		}
		if i > 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && nextLower {
				flush()
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	flush()
	return out
}

func isLabelRune(r rune) bool { return unicode.IsLetter(r) || r == '#' || r == '°' }

// writeLabelKey writes the label key of a word: its letters lower-cased,
// and "#" and "°".
func writeLabelKey(b *strings.Builder, s string) {
	for _, r := range s {
		switch {
		case 'a' <= r && r <= 'z' || r == '#':
			b.WriteByte(byte(r))
		case 'A' <= r && r <= 'Z':
			b.WriteByte(byte(r) + 'a' - 'A')
		case r >= 0x80 && isLabelRune(r):
			b.WriteRune(unicode.ToLower(r))
		}
	}
}

// label scores each place of a leaf by the label words around it.
func (g *grounder) label(st *leafState) {
	words, ok := g.labels[st.key]
	if !ok {
		words = labelWords(st.key)
		g.labels[st.key] = words
	}
	for i := range st.cands {
		st.cands[i].tier = noTier
		if len(words) > 0 {
			st.cands[i].label = g.labelScore(st.cands[i], words, st.row)
		}
	}
}

// labelScore sums, over the key's words, how well the best label word for
// each (the word itself or a synonym) stands to c: 3 on the same line, 2
// just above (outside line items), 1 heading its column; plus 1 when the
// label word is the token rather than containing it. So "Total 100.00"
// beats "Subtotal 100.00" for "total", and "Invoice date" above a date
// beats "Due date" for "invoice_date".
func (g *grounder) labelScore(c cand, words [][]string, row bool) int {
	p := g.x.pages[c.page]
	sum := 0
	for _, tokens := range words {
		best := 0
		for _, t := range tokens {
			k := hitKey{c.page, t}
			hits, ok := g.hits[k]
			if !ok {
				hits = p.labelHits(t)
				g.hits[k] = hits
			}
			for _, h := range hits {
				if c.sp.start <= h.word && h.word < c.sp.end {
					continue
				}
				s := relation(p, h.word, c, row)
				if s > apart && h.exact {
					s++
				}
				best = max(best, s)
			}
		}
		sum += best
	}
	return sum
}

// Where a label word stands relative to a value, weakest first.
const (
	apart    = iota
	column   // above the value, over its column; or far left on its line
	above    // just above, over its column (outside line items); or just right of it
	sameLine // left of it on its line, in the same "label: value" pair
)

// maxLabelGap is how many words may stand between a label and its value on
// one line, in reading order.
const maxLabelGap = 10

// relation says where word l of page p stands relative to the value c.
// On one line, a label labels the value after it unless another pair
// starts between them: "MwSt: 38.00  Rabatt: 38.00" has one colon-ended
// label word between "MwSt:" and the second amount, which is Rabatt's.
func relation(p *pageIndex, l int32, c cand, row bool) int {
	label, value := p.words[l].box, c.box
	lh := max(label.height(), value.height())
	dy := value.centreY() - label.centreY()
	if math.Abs(dy) <= lh/2 {
		switch {
		case l >= c.sp.end:
			if l-c.sp.end <= 1 { // "15 % MwSt", "12 Stück"
				return above
			}
			return apart
		case c.sp.start-l-1 > maxLabelGap:
			return column
		}
		colons := 0
		for i := l; i < c.sp.start; i++ {
			if t := p.words[i].text; strings.HasSuffix(t, ":") {
				colons++
			}
		}
		if colons > 1 {
			return apart
		}
		return sameLine
	}
	if !(dy > 0) {
		return apart
	}
	m := label.height()
	if label.x0-m > value.x1 || value.x0 > label.x1+m {
		return apart
	}
	if !row && dy <= 2.5*lh {
		return above
	}
	return column
}

// hitKey caches the label words of a page for a token.
type hitKey struct {
	page  int
	token string
}

// labelHit is a word that may label a field: its key equals a label token,
// or (exact false) contains one.
type labelHit struct {
	word  int32
	exact bool
}

// maxLabelHits is how many times a word may appear on a page and still
// label anything there: a word printed everywhere labels nothing, and
// bounding it bounds the cost of labels.
const maxLabelHits = 64

// labelHits finds the words of the page whose label key is token, or
// contains it when the token has at least minLabelSubstring bytes; none
// when there are more than maxLabelHits.
func (p *pageIndex) labelHits(token string) []labelHit {
	var out []labelHit
	if token == "" {
		return nil
	}
	for from := 0; from < len(p.labels); {
		j := strings.Index(p.labels[from:], token)
		if j < 0 {
			break
		}
		o := from + j
		from = o + 1
		w := sort.Search(len(p.labelAt), func(k int) bool { return int(p.labelAt[k]) > o }) - 1
		if w < 0 {
			continue
		}
		end := len(p.labels)
		if w+1 < len(p.labelAt) {
			end = int(p.labelAt[w+1]) - 1
		}
		if o+len(token) > end {
			continue // across two words' keys
		}
		exact := int(p.labelAt[w]) == o && o+len(token) == end
		if !exact && len(token) < minLabelSubstring {
			continue
		}
		if n := len(out); n > 0 && out[n-1].word == int32(w) {
			out[n-1].exact = out[n-1].exact || exact
			continue
		}
		if len(out) == maxLabelHits {
			return nil
		}
		out = append(out, labelHit{word: int32(w), exact: exact})
	}
	return out
}
