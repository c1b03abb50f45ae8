package ppocr

import (
	"fmt"
	"image"
	"math"
	"slices"

	"github.com/docent/docent/app/ingest/ocr/ppocr/ort"
	"github.com/docent/docent/storage"
)

// Recognition's input: lines are scaled to recHeight pixels high, keeping
// their aspect, and padded to at least recMinWidth wide, as PaddleOCR's
// rec_image_shape 3,48,320 does; recMaxWidth bounds a very long line.
const (
	recHeight   = 48
	recMinWidth = 320
	recMaxWidth = 2400
)

// line is one recognised text line: its box, its text and its words.
type line struct {
	r     image.Rectangle
	text  string
	conf  float64 // 0 to 1
	words []storage.Word
}

// recognise reads the text in box b of src.
func (e *Engine) recognise(src *image.RGBA, b box) (line, error) {
	chars, px, err := e.readChars(src, b)
	if err != nil {
		return line{}, err
	}
	markSpaces(chars, minSpaceProb)
	return toLine(b.r, chars, px), nil
}

// readChars runs the recogniser on box b of src: the characters it read,
// and how many source pixels wide a time step is.
func (e *Engine) readChars(src *image.RGBA, b box) ([]char, float64, error) {
	bw, bh := b.r.Dx(), b.r.Dy()
	rw := min(int(math.Ceil(float64(recHeight)*float64(bw)/float64(bh))), recMaxWidth)
	rw = max(rw, 1)
	width := max(rw, recMinWidth)
	img := scale(src, b.r, rw, recHeight)
	plane := recHeight * width
	// Zeros pad the right of the line, as in PaddleOCR (zero is mid-grey
	// after normalisation).
	in := ort.Tensor{Shape: []int64{1, 3, recHeight, int64(width)}, Data: make([]float32, 3*plane)}
	for y := range recHeight {
		row := img.Pix[y*img.Stride:]
		for x := range rw {
			p := row[4*x:]
			i := y*width + x
			// BGR, each to [-1, 1].
			in.Data[i] = float32(p[2])/127.5 - 1
			in.Data[plane+i] = float32(p[1])/127.5 - 1
			in.Data[2*plane+i] = float32(p[0])/127.5 - 1
		}
	}
	out, err := e.rec.Run(in)
	if err != nil {
		return nil, 0, fmt.Errorf("PP-OCR recognition: %w", err)
	}
	classes := len(e.dict) + 2
	if len(out.Shape) != 3 || out.Shape[0] != 1 || out.Shape[2] != int64(classes) {
		return nil, 0, fmt.Errorf("PP-OCR recognition: output of shape %v, want [1 T %d] for a dictionary of %d characters", out.Shape, classes, len(e.dict))
	}
	steps := int(out.Shape[1])
	chars := decode(out.Data, steps, classes, e.dict)
	// A time step covers width/steps pixels of the scaled line, which is
	// bw/rw of the source's.
	px := float64(width) / float64(steps) * float64(bw) / float64(rw)
	return chars, px, nil
}

// char is one decoded character and the time steps it spans.
type char struct {
	s      string
	t0, t1 int // first and last step
	prob   float32
	space  bool // the recogniser's space class
	// spaceProb is the highest probability of the space class in the
	// blank steps between the character before and this one.
	spaceProb float32
	// spaceBefore: a space the recogniser did not write goes before this
	// character (markSpaces).
	spaceBefore bool
}

// decode is CTC's greedy decoding of a steps×classes matrix: the most
// likely class per step, repeats merged, blanks (class 0) dropped. Class
// i (1 ≤ i ≤ len(dict)) is dict[i-1], the last class a space.
func decode(probs []float32, steps, classes int, dict []string) []char {
	var out []char
	prev := 0
	var spaceProb float32 // since the last character
	for t := range steps {
		row := probs[t*classes : (t+1)*classes]
		k, p := 0, row[0]
		for i, v := range row {
			if v > p {
				k, p = i, v
			}
		}
		switch {
		case k == 0:
			spaceProb = max(spaceProb, row[classes-1])
		case k == prev && len(out) > 0:
			c := &out[len(out)-1]
			c.t1 = t
			c.prob = max(c.prob, p)
		default:
			c := char{t0: t, t1: t, prob: p, spaceProb: spaceProb}
			if k <= len(dict) {
				c.s = dict[k-1]
			} else {
				c.s, c.space = " ", true
			}
			out = append(out, c)
			spaceProb = 0
		}
		prev = k
	}
	return out
}

// minSpaceProb is the least probability of the space class, in the
// blank steps between two characters, that markSpaces takes for a space.
// The Chinese recogniser seldom writes the spaces of large or bold Latin
// lines ("ACMEHARDWARE"), but gives its space class some probability
// where they are: a median of 0.19 at the spaces of the labelled receipt
// lines it left out, and under 0.001 at nine in ten of the gaps that are
// no space. 0.01 was chosen on the first 20 receipts of
// ../shared/corpus/sroie and holds on the other 20 (docs/benchmarks.md,
// BenchmarkSpacing).
const minSpaceProb = 0.01

// markSpaces marks the characters before which the line has a space the
// recogniser did not write (char.spaceBefore): where it gave its space
// class at least minProb in the gap, and the gap is wider than the line's
// character pitch, the median distance between neighbouring characters'
// centres. Without the second condition, the narrow gaps of "8:13" or a
// decimal point would take spaces; and none goes after a decimal point or
// thousands separator between digits ("12.50", "1,250"), whose digits
// the recogniser places a little apart.
func markSpaces(chars []char, minProb float32) {
	centre := func(c char) float64 { return float64(c.t0+c.t1) / 2 }
	var gaps []float64
	prev := -1 // the last character other than a space
	for i, c := range chars {
		if c.space {
			continue
		}
		if prev >= 0 {
			gaps = append(gaps, centre(c)-centre(chars[prev]))
		}
		prev = i
	}
	if len(gaps) < 2 {
		return // no pitch to tell a wide gap by
	}
	pitch := median(gaps)
	prev, before := -1, -1 // the last two characters other than spaces
	for i := range chars {
		c := &chars[i]
		if c.space {
			continue
		}
		// chars[i-1] is chars[prev] unless the recogniser wrote a space.
		wide := prev >= 0 && !chars[i-1].space && centre(*c)-centre(chars[prev]) > pitch
		inNumber := before >= 0 && isDigit(chars[before].s) && (chars[prev].s == "." || chars[prev].s == ",") && isDigit(c.s)
		if wide && c.spaceProb >= minProb && !inNumber {
			c.spaceBefore = true
		}
		before, prev = prev, i
	}
}

func isDigit(s string) bool { return len(s) == 1 && '0' <= s[0] && s[0] <= '9' }

// median of v, which it sorts; v is not empty.
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// toLine makes a line of the characters read in r, a time step being px
// source pixels wide, splitting it into words at spaces, those the
// recogniser wrote and those markSpaces found.
func toLine(r image.Rectangle, chars []char, px float64) line {
	l := line{r: r}
	var sum float64
	var n int
	var word []char
	flush := func() {
		if len(word) == 0 {
			return
		}
		var text string
		var p float64
		for _, c := range word {
			text += c.s
			p += float64(c.prob)
		}
		x0 := r.Min.X + int(math.Floor(float64(word[0].t0)*px))
		x1 := r.Min.X + int(math.Ceil(float64(word[len(word)-1].t1+1)*px))
		x0, x1 = max(x0, r.Min.X), min(x1, r.Max.X)
		l.words = append(l.words, storage.Word{X: x0, Y: r.Min.Y, W: max(x1-x0, 1), H: r.Dy(), Conf: 100 * p / float64(len(word)), Text: text})
		word = word[:0]
	}
	for _, c := range chars {
		if c.spaceBefore {
			// Not counted in the line's confidence: the recogniser gave
			// it too little to write it.
			l.text += " "
			flush()
		}
		l.text += c.s
		sum += float64(c.prob)
		n++
		if c.space {
			flush()
			continue
		}
		word = append(word, c)
	}
	flush()
	if n > 0 {
		l.conf = sum / float64(n)
	}
	return l
}
