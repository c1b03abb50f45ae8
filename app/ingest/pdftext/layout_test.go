package pdftext

import (
	"strings"
	"testing"
)

// word returns the glyphs of s set at (x, y) in a 10-point font whose
// glyphs are all 5 points wide, running in direction (dx, dy) per glyph.
func word(s string, x, y, dx, dy float64) []glyph {
	var gs []glyph
	ux, uy := -dy*2, dx*2 // up is the advance turned a quarter counterclockwise, 10 points long
	for _, r := range s {
		gs = append(gs, glyph{x: x, y: y, dx: dx, dy: dy, ux: ux, uy: uy, text: string(r), space: r == ' '})
		x += dx
		y += dy
	}
	return gs
}

func TestLayoutSpacesWordsAndKeepsRowsTogether(t *testing.T) {
	var gs []glyph
	gs = append(gs, word("Invoice", 100, 700, 5, 0)...)
	gs = append(gs, word("no.", 100+7*5+3, 700, 5, 0)...) // a 3-point gap: a word break
	gs = append(gs, word("42", 400, 700.5, 5, 0)...)      // far right, baseline a hair off: same row
	gs = append(gs, word("Total", 100, 680, 5, 0)...)
	gs = append(gs, word("9.50", 400, 680, 5, 0)...)
	got, _ := layoutText(gs)
	lines := strings.Split(got, "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2:\n%s", len(lines), got)
	}
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "Invoice no. 42" || !strings.Contains(lines[0], "no.  ") {
		t.Errorf("line 1 = %q, want \"Invoice no.\", a column gap, \"42\"", lines[0])
	}
	if f := strings.Fields(lines[1]); strings.Join(f, " ") != "Total 9.50" {
		t.Errorf("line 2 = %q, want \"Total\" and \"9.50\"", lines[1])
	}
}

func TestLayoutTurnsRotatedTextUpright(t *testing.T) {
	// A page drawn sideways (/Rotate 90 content): text runs up the page,
	// its tops face left, so the next line is to the right.
	var gs []glyph
	gs = append(gs, word("second line", 100, 100, 0, 5)...)
	gs = append(gs, word("first line", 80, 100, 0, 5)...)
	got, _ := layoutText(gs)
	if got != "first line\nsecond line" {
		t.Errorf("got %q, want %q", got, "first line\nsecond line")
	}
}

func TestLayoutIgnoresFakeBoldDoubles(t *testing.T) {
	gs := word("Bold", 100, 700, 5, 0)
	gs = append(gs, word("Bold", 100.3, 700, 5, 0)...)
	if got, _ := layoutText(gs); got != "Bold" {
		t.Errorf("got %q, want %q", got, "Bold")
	}
}

func TestLogicalOrderReversesRightToLeftWords(t *testing.T) {
	// "שלום עולם" drawn left to right in visual order.
	visual := "םלוע םולש"
	if got, want := logicalOrder(visual), "שלום עולם"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := logicalOrder("plain text 42"); got != "plain text 42" {
		t.Errorf("left-to-right text changed: %q", got)
	}
}
