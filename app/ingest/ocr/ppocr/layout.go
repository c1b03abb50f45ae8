package ppocr

import (
	"image"
	"slices"
	"strings"

	"github.com/docent/docent/app/ingest/ocr/tablecells"
)

// layout orders the recognised lines as a reader does: rows top to
// bottom, the boxes of a row (a receipt's "TOTAL" and its amount are two
// boxes) left to right on one line of text, a wrapped table cell's
// lines kept together (tablecells.Join).
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
	for _, row := range rows {
		slices.SortStableFunc(row, func(a, b line) int { return a.r.Min.X - b.r.Min.X })
	}
	rows = tablecells.Join(rows, func(l line) image.Rectangle { return l.r })
	var p Page
	var text []string
	for _, row := range rows {
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

// sameRow: a and b overlap vertically by at least half the lower one's
// height (a photo's slant moves a row's far end by part of a line).
func sameRow(a, b line) bool {
	overlap := min(a.r.Max.Y, b.r.Max.Y) - max(a.r.Min.Y, b.r.Min.Y)
	return 2*overlap >= min(a.r.Dy(), b.r.Dy())
}
