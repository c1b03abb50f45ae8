package evidence

import (
	"encoding/json"
	"strings"
	"testing"
)

// The test pages are laid out like a fixed-pitch printout: a character is
// charW units wide, a line lineH units apart and wordH units high, so the
// columns of the source lines are the columns of the page.
const (
	charW = 5.0
	lineH = 12.0
	wordH = 10.0
	pageW = 600.0
	pageH = 800.0
)

// layout makes page 1 of the given lines, with a box for each word.
func layout(lines ...string) Page {
	pg := Page{Number: 1, Width: pageW, Height: pageH}
	for li, l := range lines {
		col, start, startCol := 0, -1, 0
		flush := func(end int) {
			if start >= 0 {
				pg.Words = append(pg.Words, Word{
					Text: l[start:end],
					X0:   float64(startCol) * charW, X1: float64(col) * charW,
					Y0: float64(li) * lineH, Y1: float64(li)*lineH + wordH,
				})
				start = -1
			}
		}
		for i, r := range l {
			if r == ' ' || r == '\t' { // a no-break space stays inside a word
				flush(i)
			} else if start < 0 {
				start, startCol = i, col
			}
			col++
		}
		flush(len(l))
	}
	return pg
}

// textPage makes a page without words, from its text.
func textPage(n int, lines ...string) Page {
	return Page{Number: n, Text: strings.Join(lines, "\n")}
}

// ground grounds value (JSON text) and fails the test on an error.
func ground(t testing.TB, value string, pages ...Page) Map {
	t.Helper()
	m, err := Ground(json.RawMessage(value), pages)
	if err != nil {
		t.Fatalf("Ground(%s): %v", value, err)
	}
	return m
}

// bboxOf is what BBox should be for the words of pg from..to (inclusive).
func bboxOf(pg Page, from, to int) []float64 {
	b := box{pg.Words[from].X0, pg.Words[from].Y0, pg.Words[from].X1, pg.Words[from].Y1}
	for _, w := range pg.Words[from+1 : to+1] {
		b = b.union(box{w.X0, w.Y0, w.X1, w.Y1})
	}
	return fractions(b, pg.Width, pg.Height)
}

// wordIndex is the index of the n-th (0-based) word of pg with text s.
func wordIndex(t testing.TB, pg Page, s string, n int) int {
	t.Helper()
	for i, w := range pg.Words {
		if w.Text == s {
			if n == 0 {
				return i
			}
			n--
		}
	}
	t.Fatalf("no word %q on the page", s)
	return -1
}

func describe(ev Evidence) string {
	b, _ := json.Marshal(ev)
	return string(b)
}
