package ocr

import (
	"fmt"
	"image"
	"testing"
)

// TestInkLinesCountsTheLinesOfAPage: a page of 12 lines of print has 12
// bands of ink about a line high; a blank page and a page of one rule
// have none.
func TestInkLinesCountsTheLinesOfAPage(t *testing.T) {
	var lines []string
	for i := range 12 {
		lines = append(lines, fmt.Sprintf("Line %d: 4711 units at 12.50 EUR", i+1))
	}
	if n, h := inkLinesOf(textImage(1200, 800, 2, lines...)); n != 12 || h < 12 || h > 32 {
		t.Errorf("12 lines of print, 13 px type drawn twice its size: %d bands of ink, %d px high", n, h)
	}
	if n, _ := inkLinesOf(blankGrey(800, 600, 250)); n != 0 {
		t.Errorf("a blank page: %d bands of ink", n)
	}
	rule := blankGrey(800, 600, 255)
	for x := 10; x < 790; x++ {
		rule.Pix[300*rule.Stride+x] = 0
		rule.Pix[301*rule.Stride+x] = 0
	}
	if n, _ := inkLinesOf(rule); n != 0 {
		t.Errorf("a page of one rule: %d bands of ink", n)
	}
}

// inkLinesOf is inkLines of a page image, as writePage counts them.
func inkLinesOf(g *image.Gray) (lines, height int) { return inkLines(pageInk(g), g.Rect.Dx()) }
