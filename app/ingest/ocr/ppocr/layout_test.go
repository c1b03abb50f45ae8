package ppocr

import (
	"image"
	"slices"
	"strings"
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

// TestSpacesTheRecogniserLeftOut: a space goes where the recogniser gave
// its space class some probability in a gap wider than the line's pitch
// ("ACME HARDWARE", read glued), and the words and their boxes follow it;
// not in a gap as wide with no such probability, nor in a narrow one that
// has it, nor after a decimal point ("12.50"), nor twice where the
// recogniser wrote the space itself.
func TestSpacesTheRecogniserLeftOut(t *testing.T) {
	dict := strings.Split("ACDEHLMORTW01258.:", "")
	classes := len(dict) + 2 // blank, dict, space
	// read lays out a line: each string is one time step, a character of
	// the dictionary, "_" a blank, "~" a blank where the space class has
	// probability 0.2, " " the space class itself.
	read := func(steps string) line {
		probs := make([]float32, len(steps)*classes)
		for t, s := range strings.Split(steps, "") {
			row := probs[t*classes : (t+1)*classes]
			switch s {
			case "_":
				row[0] = 0.9
			case "~":
				row[0], row[classes-1] = 0.7, 0.2
			case " ":
				row[classes-1] = 0.9
			default:
				row[1+slices.Index(dict, s)] = 0.9
			}
		}
		chars := decode(probs, len(steps), classes, dict)
		markSpaces(chars, minSpaceProb)
		return toLine(image.Rect(0, 0, 10*len(steps), 30), chars, 10)
	}
	for _, c := range []struct{ steps, want string }{
		{"A__C__M__E__~__H__A__R__D__W__A__R__E", "ACME HARDWARE"},
		{"A__C__M__E______H__A__R__D__W__A__R__E", "ACMEHARDWARE"}, // wide, but nothing said a space
		{"T__O__T~_A__L", "TOTAL"},                                 // a space's probability, in a gap of the pitch
		{"T__O__T__A__L__~__1__2__._~__5__0", "TOTAL 12.50"},       // the point's gap is wide, the digits stay together
		{"D__A__T__E__:__~__2__0__1__8", "DATE: 2018"},
		{"C__A__R__D__~_ ~__M__E__M__O", "CARD MEMO"}, // the recogniser's own space
	} {
		l := read(c.steps)
		if l.text != c.want {
			t.Errorf("%q read %q, want %q", c.steps, l.text, c.want)
			continue
		}
		var words []string
		for _, w := range l.words {
			words = append(words, w.Text)
		}
		if want := strings.Fields(c.want); !slices.Equal(words, want) {
			t.Errorf("%q: words %q, want %q", c.steps, words, want)
		}
		if l.conf < 0.89 {
			t.Errorf("%q: confidence %.2f; a space written for the recogniser counts in it", c.steps, l.conf)
		}
	}
	// Each word's box is its characters' steps, 10 px each: "ACME" steps
	// 0 to 9, "HARDWARE" 15 to 36.
	l := read("A__C__M__E__~__H__A__R__D__W__A__R__E")
	if w := l.words; len(w) != 2 || w[0].X != 0 || w[0].W != 100 || w[1].X != 150 || w[1].W != 220 {
		t.Errorf("word boxes %+v", w)
	}
}
