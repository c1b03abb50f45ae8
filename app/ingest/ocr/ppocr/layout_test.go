package ppocr

import (
	"image"
	"testing"

	"github.com/docent/docent/storage"
)

// TestLayout: boxes on one row, however slanted, are one line of text
// left to right; rows run top to bottom; the words keep that order.
func TestLayout(t *testing.T) {
	mk := func(x0, y0, x1, y1 int, text string) line {
		return line{r: image.Rect(x0, y0, x1, y1), text: text, words: []storage.Word{{X: x0, Y: y0, W: x1 - x0, H: y1 - y0, Conf: 90, Text: text}}}
	}
	p := layout([]line{
		mk(400, 212, 480, 250, "14.10"), // lower than its label: the photo is slanted
		mk(10, 300, 200, 330, "CASH"),
		mk(10, 200, 200, 230, "TOTAL"),
		mk(10, 100, 300, 130, "SAM SAM"),
	})
	want := "SAM SAM\nTOTAL 14.10\nCASH"
	if p.Text != want {
		t.Errorf("text %q, want %q", p.Text, want)
	}
	var words []string
	for _, w := range p.Words.Words {
		words = append(words, w.Text)
	}
	if len(words) != 4 || words[1] != "TOTAL" || words[2] != "14.10" || p.Lines != 4 {
		t.Errorf("words %q, %d lines", words, p.Lines)
	}
}

// TestDecode: CTC's greedy decoding merges repeats, drops blanks (a
// blank between two equal classes keeps both), maps the last class to a
// space, and toLine splits words there with boxes from the time steps.
func TestDecode(t *testing.T) {
	dict := []string{"A", "B"}
	const classes = 4 // blank, A, B, space
	steps := []int{1, 1, 0, 1, 2, 3, 3, 2, 0}
	probs := make([]float32, len(steps)*classes)
	for i, k := range steps {
		probs[i*classes+k] = 0.9
	}
	chars := decode(probs, len(steps), classes, dict)
	l := toLine(image.Rect(100, 50, 190, 70), chars, 10)
	if l.text != "AAB B" {
		t.Fatalf("text %q, want %q", l.text, "AAB B")
	}
	if len(l.words) != 2 || l.words[0].Text != "AAB" || l.words[1].Text != "B" {
		t.Fatalf("words %+v", l.words)
	}
	// "AAB" spans steps 0..4, 10 px each from x=100; "B" is step 7.
	if w := l.words[0]; w.X != 100 || w.W != 50 || w.Y != 50 || w.H != 20 {
		t.Errorf("first word's box %+v", w)
	}
	if w := l.words[1]; w.X != 170 || w.W != 10 {
		t.Errorf("second word's box %+v", w)
	}
}
