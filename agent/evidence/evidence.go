// Package evidence grounds an extraction in its document: for each leaf
// value of an extracted JSON result it finds where the value stands among
// the document's positioned words, and says so as evidence per field (the
// page, the text as printed, its box on the page) with a status: grounded
// in one place, ambiguous between several, or ungrounded, that is not in
// the document at all and so possibly invented or computed by the model.
//
// The check runs locally, at no model cost, on every extraction: a person
// reviewing an extraction sees at once which values the document backs and
// where, and which ones need a look. Matching is tolerant of the ways a
// value is printed: case, line breaks, punctuation around words, values
// glued or split differently ("DE88 2008 0000" and "DE8820080000"), amounts
// in any usual convention ("1.234,50", "1,234.50", "$ 1 234.50") and dates
// in any usual written form ("20.03.2023", "March 20, 2023", "20. März
// 2023"). When a value stands in several places, a label naming the field
// next to it ("Total", "Datum") or the row fixed by the other values of the
// same line item decides; otherwise the evidence is ambiguous and lists the
// places.
//
// The package is pure: no storage, no I/O, only the standard library. Each
// page is indexed once (NewIndex), so grounding costs a lookup per leaf.
package evidence

import (
	"encoding/json"
	"math"
	"sort"
	"strings"
)

// Status says how a value was found in the document.
type Status string

const (
	// Grounded: found in one place, or one place clearly preferred.
	Grounded Status = "grounded"
	// Ambiguous: found in several places, none preferred; Candidates lists
	// them (best first), Page, Quote and BBox are the first.
	Ambiguous Status = "ambiguous"
	// Ungrounded: not found; possibly invented or computed.
	Ungrounded Status = "ungrounded"
	// Edited: set by a person. The caller sets it (MarkEdited); Ground
	// never returns it.
	Edited Status = "edited"
)

// Word is one word of a page with its box in page units (any unit: PDF
// points or image pixels), origin top-left.
type Word struct {
	Text           string
	X0, Y0, X1, Y1 float64
}

// Page is one page of a document.
type Page struct {
	// Number is the page's number, 1-based. A Number of 0 or less is taken
	// as the page's position in the slice plus one.
	Number int
	// Text is the page's text; it is searched when Words is empty (a text
	// file, a page without stored words).
	Text string
	// Words are the page's words in reading order.
	Words []Word
	// Width and Height are the page's size in the Words' units; 0 when
	// there are no words.
	Width, Height float64
}

// Candidate is one place where an ambiguous value stands.
type Candidate struct {
	Page  int       `json:"page"`
	Quote string    `json:"quote"`
	BBox  []float64 `json:"bbox,omitempty"`
}

// Evidence says where one value of an extraction stands in its document.
type Evidence struct {
	// Page is the 1-based number of the page the value is on.
	Page int `json:"page,omitempty"`
	// Quote is the text as it stands in the document: the matched words
	// joined by one space.
	Quote string `json:"quote,omitempty"`
	// BBox is [x0, y0, x1, y1], the union of the quote's word boxes as
	// fractions of the page's width and height (0..1), origin top-left,
	// rounded to 4 decimals; absent for pages without words.
	BBox []float64 `json:"bbox,omitempty"`
	// Status says whether the value was found, and how clearly.
	Status Status `json:"status"`
	// Candidates lists the places of a value found in several, best first,
	// at most MaxCandidates: of an ambiguous value, and of a distinctive
	// one (a name, an amount with three significant digits, a date)
	// grounded at the first of several places that none of labels and
	// siblings told apart.
	Candidates []Candidate `json:"candidates,omitempty"`
}

// MaxCandidates is the most candidates an ambiguous Evidence lists.
const MaxCandidates = 5

// Map is evidence keyed by field path: dot-separated object keys, array
// indexes as numbers ("total", "seller.name", "lines.0.amount"). A scalar
// at the root of the value has the path "".
type Map map[string]Evidence

// Ground returns evidence for every leaf of value (a JSON document) that
// can be looked for in pages: strings (non-empty after trimming) and
// numbers. Null, booleans, empty strings, empty objects and empty arrays get
// no entry. The error is for a value that is not valid JSON (or nested more
// than 10,000 deep). Keys that contain "." are used as they are, so
// {"a.b": 1} and {"a": {"b": 1}} both give the path "a.b".
//
// Ground indexes pages on every call; NewIndex(pages).Ground grounds several
// values against one document for the cost of one indexing.
func Ground(value json.RawMessage, pages []Page) (Map, error) {
	return NewIndex(pages).Ground(value)
}

// Index is a document's pages prepared for grounding: each page's words
// normalised and indexed by text, amount and date. It is immutable, and so
// safe for concurrent use.
type Index struct {
	pages []*pageIndex
}

// NewIndex indexes pages, in O(words).
func NewIndex(pages []Page) *Index {
	x := &Index{pages: make([]*pageIndex, len(pages))}
	for i := range pages {
		x.pages[i] = newPageIndex(&pages[i], i)
	}
	return x
}

// Ground is Ground on the indexed pages.
func (x *Index) Ground(value json.RawMessage) (Map, error) {
	var leaves []*leafState
	err := walk(value, func(segs []segment, v any) {
		q, ok := newQuery(v)
		if !ok {
			return
		}
		st := newLeafState(segs)
		st.distinctive, st.trivial = distinctive(v, &q), trivial(v, &q)
		st.cands = x.find(&q)
		leaves = append(leaves, st)
	})
	if err != nil {
		return nil, err
	}
	g := grounder{x: x, hits: map[hitKey][]labelHit{}, labels: map[string][][]string{}}
	g.resolve(leaves)
	m := make(Map, len(leaves))
	for _, st := range leaves {
		m[st.path] = x.evidence(st)
	}
	return m, nil
}

// evidence renders a leaf's outcome.
func (x *Index) evidence(st *leafState) Evidence {
	if len(st.cands) == 0 {
		return Evidence{Status: Ungrounded}
	}
	first := x.candidate(st.cands[0])
	ev := Evidence{Page: first.Page, Quote: first.Quote, BBox: first.BBox, Status: st.status}
	if st.status == Ambiguous || st.also {
		n := min(len(st.cands), MaxCandidates)
		ev.Candidates = make([]Candidate, n)
		ev.Candidates[0] = first
		for i := 1; i < n; i++ {
			ev.Candidates[i] = x.candidate(st.cands[i])
		}
	}
	return ev
}

// candidate renders one place: the page's number, the words as printed and
// their box as fractions of the page.
func (x *Index) candidate(c cand) Candidate {
	p := x.pages[c.page]
	texts := make([]string, 0, c.sp.end-c.sp.start)
	for i := c.sp.start; i < c.sp.end; i++ {
		texts = append(texts, p.words[i].text)
	}
	out := Candidate{Page: p.number, Quote: strings.Join(texts, " ")}
	if p.boxes {
		out.BBox = fractions(c.box, p.width, p.height)
	}
	return out
}

// fractions turns a box in page units into [x0, y0, x1, y1] fractions of
// the page, clamped to 0..1 and rounded to 4 decimals; nil when the page
// has no size or the box is not finite.
func fractions(b box, w, h float64) []float64 {
	if !(w > 0 && h > 0) || math.IsInf(w, 0) || math.IsInf(h, 0) {
		return nil
	}
	out := []float64{b.x0 / w, b.y0 / h, b.x1 / w, b.y1 / h}
	for i, v := range out {
		if math.IsNaN(v) {
			return nil
		}
		out[i] = math.Round(min(max(v, 0), 1)*10000) / 10000
	}
	return out
}

// Counts is how many entries of a Map have each status.
type Counts struct {
	Grounded, Ambiguous, Ungrounded, Edited int
}

// Counts counts the entries of m by status.
func (m Map) Counts() Counts {
	var c Counts
	for _, ev := range m {
		switch ev.Status {
		case Grounded:
			c.Grounded++
		case Ambiguous:
			c.Ambiguous++
		case Ungrounded:
			c.Ungrounded++
		case Edited:
			c.Edited++
		}
	}
	return c
}

// Paths returns the paths whose evidence has status s, sorted.
func (m Map) Paths(s Status) []string {
	var out []string
	for p, ev := range m {
		if ev.Status == s {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// MarkEdited records that a person set the value at path: the entry of
// path, and of every path below it ("lines.0" marks "lines.0.amount"),
// becomes Edited with no page, quote, box or candidates. Path gets an entry
// even if it had none; the path "" marks every entry. MarkEdited changes m
// in place and returns it; on a nil Map it returns a new one.
func (m Map) MarkEdited(path string) Map {
	if m == nil {
		m = Map{}
	}
	for p := range m {
		if path == "" || p == path || strings.HasPrefix(p, path+".") {
			m[p] = Evidence{Status: Edited}
		}
	}
	m[path] = Evidence{Status: Edited}
	return m
}
