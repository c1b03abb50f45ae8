package evidence

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Preference among several places. A value found in one place is grounded
// there. Found in several, two things may pick one:
//
//   - labels: words naming the field (the key's words, split at "_" and
//     camelCase, or their synonyms: "amount_tax" is labelled by "Amount",
//     "Tax", "VAT", "MwSt") on the same line as the value, just above it,
//     or heading its column. Nearer is better, a word that is the label
//     beats one that contains it ("Total" beats "Subtotal" for "total"),
//     and more of the key's words beat fewer ("Invoice date" beats "Due
//     date" for "invoice_date").
//   - siblings: the other values of the same object that are already
//     grounded. The place vertically nearest to them on their page wins;
//     for an object that is not a line item, a place in their column
//     breaks a tie (an address block beside another).
//
// For fields of an array element (a line item) the row comes first: the
// row is fixed by a sibling grounded in one place (the product code, the
// description), then a label (the column's header) picks within it; a
// header just above counts only as a column header there, since every row
// is below it. For other fields labels come first, then siblings. Places
// that are one word printed twice at one spot (text layers do that for
// bold) count as one. What stays tied is ambiguous.

// cand is one place a value stands.
type cand struct {
	page      int // index in Index.pages
	sp        span
	box       box // the union of the span's word boxes
	label     int // labelScore: higher for more key words, nearer, spelled out
	tier      int // lines to the nearest grounded sibling; noTier when none
	offColumn int // 1 when no grounded sibling shares its column (fields of objects)
}

const noTier = math.MaxInt32

// leafState is one leaf being grounded.
type leafState struct {
	path  string
	key   string // the object key naming the field: the last one of its path
	group string // the object whose grounded members are its siblings; "" for none
	row   bool   // group is an array element: a line item, a table row
	cands []cand
	// status is "" until decided.
	status Status
	// distinctive: the value says enough that every place it is printed
	// supports it (a name, an IBAN, 279.84), so several places with none
	// preferred still ground it; "1", "0.00" or "EUR" printed in several
	// places could be any of them, and stay ambiguous.
	distinctive bool
	// also: the value was grounded at the first of several places, which
	// Candidates lists.
	also bool
	// trivial: a value of one significant digit or one letter ("0", "1",
	// "0.50", "A"), which any document prints somewhere.
	trivial bool
}

// newLeafState places a leaf: the key naming it and its sibling group,
// which is the deepest array element above it ("lines.0" for
// "lines.0.product.name"), else its parent object unless that is the root.
func newLeafState(segs []segment) *leafState {
	st := &leafState{path: joinPath(segs)}
	for i := len(segs) - 1; i >= 0; i-- {
		if !segs[i].isIdx {
			st.key = segs[i].key
			break
		}
	}
	for i := len(segs) - 2; i >= 0; i-- {
		if segs[i].isIdx {
			st.group, st.row = joinPath(segs[:i+1]), true
			return st
		}
	}
	if n := len(segs); n >= 2 && !segs[n-1].isIdx {
		st.group = joinPath(segs[:n-1])
	}
	return st
}

// maxRounds bounds the sibling passes: a field grounded by its siblings
// may in turn fix the row for another.
const maxRounds = 4

// grounder decides among places; it caches label words per page and token.
type grounder struct {
	x      *Index
	hits   map[hitKey][]labelHit
	labels map[string][][]string // key -> labelWords(key)
}

// resolve gives every leaf its status and puts its best place first.
func (g *grounder) resolve(leaves []*leafState) {
	for _, st := range leaves {
		switch {
		case len(st.cands) == 0:
			st.status = Ungrounded
		case len(st.cands) == 1:
			st.status = Grounded
		default:
			g.label(st)
			if st.row {
				if g.duplicates(st.cands) {
					st.status = Grounded
				}
			} else {
				g.decide(st, false)
			}
		}
	}
	for range maxRounds {
		anchors := map[string][]cand{}
		for _, st := range leaves {
			if st.status == Grounded && st.group != "" {
				anchors[st.group] = append(anchors[st.group], st.cands[0])
			}
		}
		changed := false
		for _, st := range leaves {
			if st.status != "" || len(anchors[st.group]) == 0 {
				continue
			}
			setTiers(st.cands, anchors[st.group])
			if g.decide(st, false) {
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for _, st := range leaves {
		if st.status == "" {
			g.decide(st, true)
		}
	}
	g.unsupported(leaves)
}

// unsupported turns down trivial values found where nothing says they are
// this field: "1", "0.00" or "7" printed once somewhere on an invoice is
// a coincidence, not evidence. Such a value stays grounded when a label
// names it (on its line, above it, heading its column) or when it stands
// on the line of a sibling that is grounded by itself (a distinctive
// value or a labelled one: the line item's name, say).
func (g *grounder) unsupported(leaves []*leafState) {
	for _, st := range leaves {
		if st.status == Grounded && st.trivial && len(st.cands) == 1 {
			g.label(st)
		}
	}
	anchors := map[string][]cand{}
	for _, st := range leaves {
		if st.status == Grounded && st.group != "" && (st.distinctive || st.cands[0].label > 0) {
			anchors[st.group] = append(anchors[st.group], st.cands[0])
		}
	}
	for _, st := range leaves {
		if st.status != Grounded || !st.trivial || st.cands[0].label > 0 {
			continue
		}
		if a := anchors[st.group]; len(a) > 0 {
			best := st.cands[:1]
			setTiers(best, a)
			if best[0].tier == 0 {
				continue
			}
		}
		st.status, st.cands = Ungrounded, nil
	}
}

// decide sorts a leaf's places best first and grounds it when one place
// (or one word printed twice at one spot) is ahead of the others; when final
// is true, it makes it ambiguous otherwise. It reports whether it grounded.
func (g *grounder) decide(st *leafState, final bool) bool {
	rank := func(c cand) [3]int {
		if st.row {
			return [3]int{c.tier, -c.label, 0}
		}
		return [3]int{-c.label, c.tier, c.offColumn}
	}
	slices.SortStableFunc(st.cands, func(a, b cand) int {
		ra, rb := rank(a), rank(b)
		switch {
		case ra != rb:
			for i := range ra {
				if ra[i] != rb[i] {
					return cmp.Compare(ra[i], rb[i])
				}
			}
		case a.page != b.page:
			return cmp.Compare(a.page, b.page)
		case a.sp.start != b.sp.start:
			return cmp.Compare(a.sp.start, b.sp.start)
		}
		return cmp.Compare(a.sp.end, b.sp.end)
	})
	top := 1
	for top < len(st.cands) && rank(st.cands[top]) == rank(st.cands[0]) {
		top++
	}
	if top == 1 || g.duplicates(st.cands[:top]) {
		st.status = Grounded
		return true
	}
	if final && st.distinctive {
		st.status, st.also = Grounded, true
		return true
	}
	if final {
		st.status = Ambiguous
	}
	return false
}

// distinctive reports whether a value is one that several places in a
// document all support: a number with at least three significant digits
// (279.84, 1999, not 1.0 or 19), a date, or text with at least four
// letters or digits.
func distinctive(v any, q *query) bool {
	if len(q.dates) > 0 {
		return true
	}
	s := strings.TrimSpace(fmt.Sprint(v))
	if n, ok := v.(json.Number); ok {
		s = n.String()
	} else if len(q.numbers) == 0 {
		alnum := 0
		for _, r := range s {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				alnum++
			}
		}
		return alnum >= 4
	}
	// Significant digits of the number: no sign, no leading zeros, no
	// zeros after the last non-zero decimal.
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r == '.' || r == ',' {
			return r
		}
		return -1
	}, s)
	if i := strings.LastIndexAny(digits, ".,"); i >= 0 && len(digits)-i-1 <= 2 {
		digits = strings.TrimRight(digits, "0")
	}
	digits = strings.TrimLeft(strings.NewReplacer(".", "", ",", "").Replace(digits), "0")
	return len(digits) >= 3
}

// trivial reports whether a value has at most one significant digit or
// one letter: "0", "1.0", "0.50", "-5", "A".
func trivial(v any, q *query) bool {
	if len(q.dates) > 0 {
		return false
	}
	s := strings.TrimSpace(fmt.Sprint(v))
	if n, ok := v.(json.Number); ok {
		s = n.String()
	}
	if len(q.numbers) > 0 {
		if i := strings.LastIndexAny(s, ".,"); i >= 0 && len(s)-i-1 <= 2 {
			s = strings.TrimRight(s, "0")
		}
	}
	alnum := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, s)
	if len(q.numbers) > 0 {
		return utf8.RuneCountInString(strings.TrimLeft(alnum, "0")) <= 1
	}
	return utf8.RuneCountInString(alnum) == 1
}

// duplicates reports whether places are all the same text at the same
// spot: one word drawn twice by a text layer.
func (g *grounder) duplicates(cs []cand) bool {
	first := cs[0]
	for _, c := range cs[1:] {
		if c.page != first.page || !g.sameText(first, c) {
			return false
		}
		h := max(first.box.height(), c.box.height())
		if !(math.Abs(c.box.centreY()-first.box.centreY()) <= h/2 && math.Abs(c.box.centreX()-first.box.centreX()) <= h) {
			return false
		}
	}
	return true
}

func (g *grounder) sameText(a, b cand) bool {
	if a.sp.end-a.sp.start != b.sp.end-b.sp.start {
		return false
	}
	words := g.x.pages[a.page].words
	for i := range a.sp.end - a.sp.start {
		if words[a.sp.start+i].text != words[b.sp.start+i].text {
			return false
		}
	}
	return true
}

// setTiers sets each place's tier: how many lines it is from the nearest
// anchor (a grounded sibling) on its page, 0 when their boxes share a line;
// and whether it is apart from the anchors' columns (an address block side
// by side with another).
func setTiers(cs []cand, anchors []cand) {
	for i := range cs {
		c := &cs[i]
		d := math.Inf(1)
		c.offColumn = 1
		for _, a := range anchors {
			if a.page != c.page {
				continue
			}
			if a.box.x0 <= c.box.x1 && c.box.x0 <= a.box.x1 {
				c.offColumn = 0
			}
			cy, ay := c.box.centreY(), a.box.centreY()
			if a.box.y0 <= cy && cy <= a.box.y1 || c.box.y0 <= ay && ay <= c.box.y1 {
				d = 0
			}
			d = min(d, math.Abs(cy-ay))
		}
		h := c.box.height()
		if !(h > 0) {
			h = 1
		}
		c.tier = noTier
		if t := d/h + 0.5; t < noTier {
			c.tier = int(t)
		}
	}
}
