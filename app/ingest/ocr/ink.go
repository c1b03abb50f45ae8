package ocr

import "slices"

// A page's ink says roughly how many lines of text it holds, whatever
// reads it: the rows of a page image that hold dark pixels come in bands,
// one a line of text, with rows of paper between them. PP-OCR's detection
// may find far fewer lines than that (readPage checks, dense.go): on a
// page of small print scaled down to what it sees, the letters are too
// small for it.

// minInkBand is the height in pixels under which a band of inked rows is
// not counted as a line of text: a rule of a table, a speck, a scan's
// edge.
const minInkBand = 4

// inkLines estimates the lines of text of a page image from its ink
// (pageInk: the dark pixels of each row, width pixels wide): how many
// bands of inked rows it has, at least minInkBand rows high, and their
// median height in pixels. A row is inked when it has a few dark pixels
// (one in 500 of its width, at least 2). The estimate errs low: lines
// side by side in columns make one band, a photo's dark background or a
// table's vertical rules join bands into one.
func inkLines(ink []int, width int) (lines, height int) {
	minDark := max(2, width/500)
	var heights []int
	run := 0
	for y := 0; y <= len(ink); y++ {
		if y < len(ink) && ink[y] >= minDark {
			run++
			continue
		}
		if run >= minInkBand {
			heights = append(heights, run)
		}
		run = 0
	}
	if len(heights) == 0 {
		return 0, 0
	}
	slices.Sort(heights)
	return len(heights), heights[len(heights)/2]
}
