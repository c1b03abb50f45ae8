package pdftext

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// Layout thresholds, as fractions of the font size. A PDF draws glyphs at
// positions and rarely says where words end: a gap wider than wordGap is a
// space, one wider than columnGap separates columns (table cells), which are
// kept apart by several spaces so that a row stays one readable line.
const (
	wordGap      = 0.12
	columnGap    = 1.0
	columnSpace  = 0.5 // width of one padding space in a column gap
	maxPadding   = 10
	lineTol      = 0.45 // baselines closer than this are one line
	paragraphGap = 2.2  // a baseline step larger than this leaves a blank line
	maxJoined    = 8    // a table cell wraps over at most this many more lines
)

// placed is a glyph in reading coordinates: x grows along the line, y grows
// up the page, whatever the page's or the text's rotation.
type placed struct {
	x, y, w, size float64
	text          string
	space         bool
	g             *glyph // the glyph in user space, for the box of its word
}

// layoutText turns the glyphs of a page into lines of text in reading order,
// and gives the words of that text in the same order with their boxes in
// user space. Glyphs are grouped by the direction of their baseline (a
// quarter turn at a time): the direction most text runs in comes first,
// turned to run left to right, and text set sideways (a margin note, a
// rotated stamp) follows as its own lines instead of one letter per line.
func layoutText(glyphs []glyph) (string, []span) {
	var groups [4][]glyph
	for _, g := range glyphs {
		q := quadrant(g)
		groups[q] = append(groups[q], g)
	}
	order := []int{0, 1, 2, 3}
	sort.SliceStable(order, func(i, j int) bool { return len(groups[order[i]]) > len(groups[order[j]]) })
	var parts []string
	var words []span
	for _, q := range order {
		if t, ws := layoutDirection(groups[q], float64(q)*math.Pi/2); t != "" {
			parts = append(parts, t)
			words = append(words, ws...)
		}
	}
	return strings.Join(parts, "\n\n"), words
}

// quadrant is the direction of a glyph's baseline in quarter turns
// counterclockwise: the up vector turned a quarter clockwise.
func quadrant(g glyph) int {
	return int(math.Round(math.Atan2(-g.ux, g.uy)/(math.Pi/2))) & 3
}

// layoutDirection lays out glyphs whose baselines run at angle.
func layoutDirection(glyphs []glyph, angle float64) (string, []span) {
	if len(glyphs) == 0 {
		return "", nil
	}
	sin, cos := math.Sincos(-angle)
	rot := func(x, y float64) (float64, float64) { return x*cos - y*sin, x*sin + y*cos }

	ps := make([]placed, 0, len(glyphs))
	for i := range glyphs {
		g := &glyphs[i]
		x, y := rot(g.x, g.y)
		dx, _ := rot(g.dx, g.dy)
		size := math.Hypot(g.ux, g.uy)
		if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
			continue
		}
		if size < 0.1 || math.IsNaN(size) || math.IsInf(size, 0) {
			size = 1
		}
		ps = append(ps, placed{x: x, y: y, w: math.Max(dx, 0), size: size, text: g.text, space: g.space || strings.TrimSpace(g.text) == "", g: g})
	}
	if len(ps) == 0 {
		return "", nil
	}

	// Top to bottom, then left to right.
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].y != ps[j].y {
			return ps[i].y > ps[j].y
		}
		return ps[i].x < ps[j].x
	})
	var lines [][]placed
	var lineY, lineSize float64
	for _, p := range ps {
		if n := len(lines); n > 0 && math.Abs(p.y-lineY) <= lineTol*math.Max(math.Min(p.size, lineSize), 1) {
			lines[n-1] = append(lines[n-1], p)
			continue
		}
		lines = append(lines, []placed{p})
		lineY, lineSize = p.y, p.size
	}

	// Rows are lines of text; a line whose cells sit under the cells of the
	// row above it, a line's height below, continues those cells (a table
	// cell wrapped over several lines) and is joined to them, so that a
	// table row stays one line and each cell's text stays whole.
	var rows []row
	for _, line := range lines {
		r := newRow(line)
		if len(r.cells) == 0 {
			continue
		}
		if n := len(rows); n > 0 && rows[n-1].continuedBy(r) {
			rows[n-1].join(r)
			continue
		}
		rows = append(rows, r)
	}

	var b strings.Builder
	var words []span
	for i, r := range rows {
		if i > 0 {
			b.WriteByte('\n')
			if p := rows[i-1]; p.lastY-r.y > paragraphGap*math.Max(r.size, p.size) {
				b.WriteByte('\n')
			}
		}
		b.WriteString(r.text())
		words = r.appendWords(words)
	}
	return b.String(), words
}

// cell is a run of text on one line with no column gap inside it.
type cell struct {
	x0, x1 float64
	text   string
	words  []span // the words of text, in its (visual) order
}

// row is one line of output: its cells left to right.
type row struct {
	cells    []cell
	y, lastY float64 // baseline of the first and of the last joined line
	size     float64
	joined   int // lines joined to the first
}

func newRow(line []placed) row {
	sort.SliceStable(line, func(i, j int) bool { return line[i].x < line[j].x })
	r := row{y: line[0].y, lastY: line[0].y, size: line[0].size}
	start := 0
	end := line[0].x + line[0].w
	flush := func(to int) {
		if t, words := lineText(line[start:to]); t != "" {
			x0 := line[start].x
			for _, p := range line[start:to] {
				if !p.space {
					x0 = p.x
					break
				}
			}
			r.cells = append(r.cells, cell{x0: x0, x1: end, text: strings.TrimLeft(t, " "), words: words})
		}
	}
	for i := 1; i < len(line); i++ {
		p := line[i]
		size := math.Max(math.Max(p.size, line[i-1].size), 1)
		if !p.space && p.x-end > columnGap*size {
			flush(i)
			start = i
		}
		if !p.space {
			end = math.Max(end, p.x+p.w)
		}
		r.size = math.Max(r.size, p.size)
	}
	flush(len(line))
	return r
}

// continuedBy reports whether next holds the wrapped continuation of some
// of r's cells: r has three cells or more (two are more often two columns
// of prose than a table), next has fewer, sits at most two
// lines' height below, each of its cells starts under a different cell of
// r or in a column where r has none, and at least one continues a cell.
func (r *row) continuedBy(next row) bool {
	if len(r.cells) < 3 || len(next.cells) >= len(r.cells) || r.joined >= maxJoined {
		return false
	}
	if r.lastY-next.y > 2.0*math.Max(r.size, next.size) || math.Abs(r.size-next.size) > 0.25*r.size {
		return false
	}
	used := map[int]bool{}
	continues := false
	for _, c := range next.cells {
		i := r.cellAbove(c)
		switch {
		case i >= 0 && !used[i]:
			used[i] = true
			continues = true
		case i < 0 && r.emptyUnder(c):
		default:
			return false
		}
	}
	return continues
}

// cellAbove is the cell of r that c continues: left edges aligned, and c
// ends before the next cell of r begins (wrapped text stays in its column;
// a line of prose running across the columns is no continuation), -1 if
// none.
func (r *row) cellAbove(c cell) int {
	for i, a := range r.cells {
		if math.Abs(a.x0-c.x0) < 1.5*r.size && c.x0 < a.x1 {
			if i+1 < len(r.cells) && c.x1 > r.cells[i+1].x0-0.5*r.size {
				return -1
			}
			return i
		}
	}
	return -1
}

// emptyUnder reports whether no cell of r overlaps c horizontally: c fills
// a column r left empty.
func (r *row) emptyUnder(c cell) bool {
	for _, a := range r.cells {
		if c.x0 < a.x1 && a.x0 < c.x1 {
			return false
		}
	}
	return true
}

func (r *row) join(next row) {
	for _, c := range next.cells {
		if i := r.cellAbove(c); i >= 0 {
			r.cells[i].text += " " + c.text
			r.cells[i].words = append(r.cells[i].words, c.words...)
			r.cells[i].x1 = math.Max(r.cells[i].x1, c.x1)
			continue
		}
		r.cells = append(r.cells, c)
		sort.SliceStable(r.cells, func(i, j int) bool { return r.cells[i].x0 < r.cells[j].x0 })
	}
	r.lastY = next.y
	r.joined++
}

func (r row) text() string {
	cells := r.cells
	texts := make([]string, len(cells))
	all := ""
	for i, c := range cells {
		texts[i] = logicalOrder(c.text)
		all += c.text
	}
	if rtlDominant(all) {
		// Right-to-left columns read from the right.
		rev := make([]string, len(texts))
		for i := range texts {
			rev[i] = texts[len(texts)-1-i]
		}
		return strings.Join(rev, "   ")
	}
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			gap := c.x0 - r.cells[i-1].x1
			n := int(math.Round(gap / (columnSpace * math.Max(r.size, 1))))
			b.WriteString(strings.Repeat(" ", min(max(n, 2), maxPadding)))
		}
		b.WriteString(texts[i])
	}
	return b.String()
}

// appendWords appends the words of r in the order text writes them: each
// cell's words turned to logical order as logicalOrder turns its text, the
// cells from the right in a right-to-left row.
func (r row) appendWords(words []span) []span {
	all := ""
	for _, c := range r.cells {
		all += c.text
	}
	rtl := rtlDominant(all)
	for i := range r.cells {
		c := r.cells[i]
		if rtl {
			c = r.cells[len(r.cells)-1-i]
		}
		if !hasRTL(c.text) {
			words = append(words, c.words...)
			continue
		}
		n := len(words)
		for _, w := range c.words {
			if hasRTL(w.text) {
				w.text = reverseWord(w.text)
			}
			words = append(words, w)
		}
		if rtlDominant(c.text) {
			slices.Reverse(words[n:])
		}
	}
	return words
}

// lineText joins a run of glyphs on one line, inserting spaces where the
// gaps between them say a word ends, and gives the words it wrote: each a
// run of text between those spaces, with the box of the glyphs that drew
// it.
func lineText(line []placed) (string, []span) {
	var b strings.Builder
	var words []span
	var wb wordBuilder
	var last *placed // last glyph written that is not a space
	pendingSpace := false
	for i := range line {
		p := &line[i]
		if p.space {
			// Some producers kern with a space narrowed by negative word
			// spacing; only a space with some width breaks a word.
			if p.w > 0.1*p.size {
				pendingSpace = last != nil
			}
			continue
		}
		if last != nil {
			// Fake bold and shadows draw the same glyph twice, a hair apart.
			if p.text == last.text && math.Abs(p.x-last.x) < 0.1*p.size && math.Abs(p.x-last.x) < 0.5*last.w && math.Abs(p.y-last.y) < 0.1*p.size {
				continue
			}
			gap := p.x - (last.x + last.w)
			size := math.Max(math.Max(p.size, last.size), 1)
			if gap > wordGap*size || pendingSpace {
				b.WriteByte(' ')
				words = wb.finish(words)
			}
		}
		t := cleanText(p.text)
		words = wb.add(words, p.g, t, b.Len())
		b.WriteString(t)
		last = p
		pendingSpace = false
	}
	words = wb.finish(words)
	text := b.String()
	for i := range words {
		words[i].text = text[words[i].from:words[i].to]
	}
	return strings.TrimRight(text, " "), words
}

// cleanText expands ligatures (so that "office" is found when it was set
// with an "ffi" glyph) and drops control characters.
func cleanText(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 0xfb00 && r <= 0xfb06:
			b.WriteString([]string{"ff", "fi", "fl", "ffi", "ffl", "st", "st"}[r-0xfb00])
		case r == 0xa0 || r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || r == 0xad || r == 0xfffd || (r >= 0x80 && r < 0xa0):
			// control, soft hyphen, replacement: nothing to read
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
