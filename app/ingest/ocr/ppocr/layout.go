package ppocr

import (
	"slices"
	"strings"
)

// layout orders the recognised lines as a reader does: rows top to
// bottom, the boxes of a row (a receipt's "TOTAL" and its amount are two
// boxes) left to right on one line of text.
func layout(lines []line) Page {
	slices.SortStableFunc(lines, func(a, b line) int { return (a.r.Min.Y + a.r.Max.Y) - (b.r.Min.Y + b.r.Max.Y) })
	var rows [][]line
	for _, l := range lines {
		if n := len(rows); n > 0 && sameRow(rows[n-1][0], l) {
			rows[n-1] = append(rows[n-1], l)
			continue
		}
		rows = append(rows, []line{l})
	}
	var p Page
	var text []string
	for _, row := range rows {
		slices.SortStableFunc(row, func(a, b line) int { return a.r.Min.X - b.r.Min.X })
		var parts []string
		for _, l := range row {
			parts = append(parts, strings.TrimSpace(l.text))
			p.Words.Words = append(p.Words.Words, l.words...)
			p.Lines++
		}
		text = append(text, strings.Join(parts, " "))
	}
	p.Text = strings.Join(text, "\n")
	return p
}

// sameRow: b's vertical centre is inside a's box, and a's inside b's.
func sameRow(a, b line) bool {
	ca, cb := (a.r.Min.Y+a.r.Max.Y)/2, (b.r.Min.Y+b.r.Max.Y)/2
	return cb >= a.r.Min.Y && cb < a.r.Max.Y && ca >= b.r.Min.Y && ca < b.r.Max.Y
}
