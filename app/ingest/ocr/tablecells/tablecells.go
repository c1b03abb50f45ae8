// Package tablecells keeps a table cell's wrapped lines together in the
// text OCR reads.
//
// OCR reads a page row by row. A table row whose description wraps
// ("Choice" over "Upgrade", the price and amount beside "Choice") comes
// out as two lines: the row with the cell's first line, then the cell's
// second line alone, so the description is split by the row's numbers.
// A text layer keeps a cell's lines together, and a reader does too; so
// does Join: a line right under a row, as close as the row's own line
// spacing, whose parts each sit in one of the row's middle columns
// (starting where that cell starts) or in a column the row leaves empty,
// is read as the continuation of those cells: each part right after its
// cell's words. The last column does not continue, nor does the first unless the
// row is a table's item of four cells or more: they hold a table's
// amounts and a form's labels, where a line below starts a row of its
// own.
package tablecells

import (
	"image"
	"slices"
)

// Join returns rows (each a line of text's items left to right, in
// reading order) with each wrapped cell's further lines moved into the row
// of its first line, right after that cell's items. box gives an item's
// box (a word, or a detected run of text). Other rows are kept as they
// are, in their order.
func Join[T any](rows [][]T, box func(T) image.Rectangle) [][]T {
	var out [][]T
	// The open row, whose cells a following line may continue: its
	// cells' boxes (the columns) and where its items end per cell.
	var (
		open    = -1
		cols    []image.Rectangle
		ends    []int // ends[j]: the end of cell j's items in out[open]
		height  int
		top     int
		lastBot int
	)
	for _, row := range rows {
		cells := split(row, box)
		if open >= 0 && len(cells) < len(cols) {
			if at, ok := under(cells, cols, height, top, lastBot); ok {
				// Each cell's items go after those of the column it
				// continues, left to right.
				for i, c := range cells {
					j := at[i]
					out[open] = slices.Insert(out[open], ends[j], c.items...)
					for k := j; k < len(ends); k++ {
						ends[k] += len(c.items)
					}
					lastBot = max(lastBot, c.box.Max.Y)
				}
				continue
			}
		}
		out = append(out, row)
		open = -1
		if len(cells) >= 2 {
			open, cols, ends = len(out)-1, nil, nil
			n := 0
			var heights []int
			top, lastBot = cells[0].box.Min.Y, 0
			for _, c := range cells {
				cols = append(cols, c.box)
				n += len(c.items)
				ends = append(ends, n)
				heights = append(heights, c.box.Dy())
				top, lastBot = min(top, c.box.Min.Y), max(lastBot, c.box.Max.Y)
			}
			slices.Sort(heights)
			height = heights[len(heights)/2]
		}
	}
	return out
}

// cell is a run of a row's items with no wide gap between them.
type cell[T any] struct {
	box   image.Rectangle
	items []T
}

// split cuts a row into cells where the gap between two items is wider
// than twice the row's typical item height: wider than any space between
// words (a third to two thirds of a letter's height; a monospaced font's
// two spaces stay below it), narrower than the gap between table columns.
func split[T any](row []T, box func(T) image.Rectangle) []cell[T] {
	if len(row) == 0 {
		return nil
	}
	var heights []int
	for _, it := range row {
		heights = append(heights, box(it).Dy())
	}
	slices.Sort(heights)
	gap := 2 * heights[len(heights)/2]
	var cells []cell[T]
	for i, it := range row {
		b := box(it)
		if i > 0 {
			last := &cells[len(cells)-1]
			if b.Min.X-last.box.Max.X <= gap {
				last.box = last.box.Union(b)
				last.items = append(last.items, it)
				continue
			}
		}
		cells = append(cells, cell[T]{box: b, items: []T{it}})
	}
	return cells
}

// under says which of the open row's columns each cell of a line
// continues: the line lies below the row (its top under the row's
// middle), no further below the row's last line than one line's height,
// and each of its cells either lies within one column's reach (clear of
// the columns beside it) and starts where that column starts, to within a
// line's height (a centred line under a row is a receipt's "Thank you",
// not a cell's second line), or lies in the gap between two
// columns (a column empty on the row's first line, such as an article
// number printed on the second), beside a cell that continues a column.
// A cell goes after the column it is under or, in a gap, after the column
// to its left.
//
// Only the middle columns continue. A line with something under the last
// column (an amount) is a row of its own. The first column is a label
// as often as a cell: on receipts and forms a line under "Total" or
// "Cashier: ANGELA" is the next label, not the rest of this one, and
// joining it would part the label from its value ("Change: *Goods sold
// are non-refundable 70.00"). It continues only in a row of at least
// minItemCells cells, a table's item (a description, a quantity, a
// price, an amount), which a label and its value are not.
func under[T any](cells []cell[T], cols []image.Rectangle, height, top, lastBot int) ([]int, bool) {
	if len(cells) == 0 {
		return nil, false
	}
	line := cells[0].box
	for _, c := range cells[1:] {
		line = line.Union(c.box)
	}
	if line.Min.Y < top+height/2 || line.Min.Y-lastBot > height {
		return nil, false
	}
	last := len(cols) - 1
	at := make([]int, len(cells))
	continued := false
	for i, c := range cells {
		var over []int
		left := -1
		for j, col := range cols {
			if c.box.Max.X >= col.Min.X && c.box.Min.X <= col.Max.X {
				over = append(over, j)
			}
			if col.Max.X < c.box.Min.X {
				left = j
			}
		}
		switch {
		case len(over) == 1 && (over[0] > 0 || len(cols) >= minItemCells) && over[0] < last:
			col := cols[over[0]]
			if abs(c.box.Min.X-col.Min.X) > height {
				return nil, false
			}
			at[i], continued = over[0], true
		case len(over) == 0 && left >= 0 && left < last:
			at[i] = left
		default:
			return nil, false
		}
	}
	return at, continued
}

// minItemCells is the fewest cells of a row whose first column may
// continue on the next line.
const minItemCells = 4

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
