package ppocr

import (
	"fmt"
	"image"
	"math"

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
		return line{}, fmt.Errorf("PP-OCR recognition: %w", err)
	}
	classes := len(e.dict) + 2
	if len(out.Shape) != 3 || out.Shape[0] != 1 || out.Shape[2] != int64(classes) {
		return line{}, fmt.Errorf("PP-OCR recognition: output of shape %v, want [1 T %d] for a dictionary of %d characters", out.Shape, classes, len(e.dict))
	}
	steps := int(out.Shape[1])
	chars := decode(out.Data, steps, classes, e.dict)
	// A time step covers width/steps pixels of the scaled line, which is
	// bw/rw of the source's.
	px := float64(width) / float64(steps) * float64(bw) / float64(rw)
	return toLine(b.r, chars, px), nil
}

// char is one decoded character and the time steps it spans.
type char struct {
	s          string
	t0, t1     int // first and last step
	prob       float32
	space, bad bool
}

// decode is CTC's greedy decoding of a steps×classes matrix: the most
// likely class per step, repeats merged, blanks (class 0) dropped. Class
// i (1 ≤ i ≤ len(dict)) is dict[i-1], the last class a space.
func decode(probs []float32, steps, classes int, dict []string) []char {
	var out []char
	prev := 0
	for t := range steps {
		row := probs[t*classes : (t+1)*classes]
		k, p := 0, row[0]
		for i, v := range row {
			if v > p {
				k, p = i, v
			}
		}
		if k != 0 && k == prev && len(out) > 0 {
			c := &out[len(out)-1]
			c.t1 = t
			c.prob = max(c.prob, p)
		} else if k != 0 {
			c := char{t0: t, t1: t, prob: p}
			if k <= len(dict) {
				c.s = dict[k-1]
			} else {
				c.s, c.space = " ", true
			}
			out = append(out, c)
		}
		prev = k
	}
	return out
}

// toLine makes a line of the characters read in r, a time step being px
// source pixels wide, splitting it into words at spaces.
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
