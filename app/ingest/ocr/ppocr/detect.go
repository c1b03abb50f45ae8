package ppocr

import (
	"fmt"
	"image"
	"math"

	"github.com/docent/docent/app/ingest/ocr/ppocr/ort"
)

// PaddleOCR's detection settings (DBPostProcess and its defaults).
const (
	detThresh   = 0.3 // a pixel is text above this probability
	boxThresh   = 0.6 // a box is kept when its mean probability is at least this
	unclipRatio = 1.5 // how far a box grows beyond the shrunk text kernel
	minBoxSide  = 3   // boxes thinner than this (in the detector's pixels) are dropped
)

// ImageNet's mean and deviation, per channel in the order the detector
// was trained on: PaddleOCR reads images with OpenCV, as BGR, and
// normalises channel 0 with the first values.
var (
	detMean = [3]float32{0.485, 0.456, 0.406}
	detStd  = [3]float32{0.229, 0.224, 0.225}
)

// box is a text line's rectangle in the source image's pixels, with the
// detector's mean probability inside it.
type box struct {
	r     image.Rectangle
	score float32
}

// detSize is the size detection runs at: the longest side at most
// maxSide, both sides multiples of 32 (the detector halves them five
// times).
func detSize(w, h, maxSide int) (int, int) {
	ratio := 1.0
	if m := max(w, h); m > maxSide {
		ratio = float64(maxSide) / float64(m)
	}
	round32 := func(v int) int {
		n := int(math.Round(float64(v)*ratio/32)) * 32
		return max(n, 32)
	}
	return round32(w), round32(h)
}

// detect finds the text lines of src.
func (e *Engine) detect(src *image.RGBA, maxSide int) ([]box, error) {
	sw, sh := src.Bounds().Dx(), src.Bounds().Dy()
	w, h := detSize(sw, sh, maxSide)
	img := scale(src, src.Bounds(), w, h)
	plane := w * h
	in := ort.Tensor{Shape: []int64{1, 3, int64(h), int64(w)}, Data: make([]float32, 3*plane)}
	for y := range h {
		row := img.Pix[y*img.Stride:]
		for x := range w {
			p := row[4*x:]
			i := y*w + x
			// BGR: channel 0 is blue.
			in.Data[i] = (float32(p[2])/255 - detMean[0]) / detStd[0]
			in.Data[plane+i] = (float32(p[1])/255 - detMean[1]) / detStd[1]
			in.Data[2*plane+i] = (float32(p[0])/255 - detMean[2]) / detStd[2]
		}
	}
	out, err := e.det.Run(in)
	if err != nil {
		return nil, fmt.Errorf("PP-OCR detection: %w", err)
	}
	if len(out.Shape) != 4 || out.Shape[2] != int64(h) || out.Shape[3] != int64(w) {
		return nil, fmt.Errorf("PP-OCR detection: output of shape %v for a %d×%d image", out.Shape, w, h)
	}
	return boxesOf(out.Data[:plane], w, h, float64(sw)/float64(w), float64(sh)/float64(h)), nil
}

// boxesOf finds the text regions of a probability map of w×h: the
// connected regions above detThresh, each as its bounding rectangle,
// kept when its mean probability is at least boxThresh, grown by the
// unclip distance and scaled by sx, sy to the source image.
func boxesOf(prob []float32, w, h int, sx, sy float64) []box {
	label := make([]int32, w*h)
	var out []box
	var stack []int
	next := int32(0)
	for start, p := range prob {
		if p <= detThresh || label[start] != 0 {
			continue
		}
		next++
		x0, y0, x1, y1 := w, h, -1, -1
		var sum float64
		var area int
		stack = append(stack[:0], start)
		label[start] = next
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := i%w, i/w
			sum += float64(prob[i])
			area++
			x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			// 8-connected, as OpenCV's contours join diagonal pixels.
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if nx < 0 || ny < 0 || nx >= w || ny >= h {
						continue
					}
					j := ny*w + nx
					if label[j] == 0 && prob[j] > detThresh {
						label[j] = next
						stack = append(stack, j)
					}
				}
			}
		}
		bw, bh := x1-x0+1, y1-y0+1
		if min(bw, bh) < minBoxSide {
			continue
		}
		// The score is the mean probability over the region. PaddleOCR
		// takes it over the region's rotated bounding box, which fits a
		// line closely; an upright rectangle around a slanted line would
		// be mostly background, so the region itself stands in for it.
		score := float32(sum / float64(area))
		if score < boxThresh {
			continue
		}
		// Unclip: the detector marks a shrunk kernel of each line; the
		// line is the kernel grown by area×ratio/perimeter on every side.
		d := float64(bw*bh) * unclipRatio / float64(2*(bw+bh))
		fx0, fy0 := float64(x0)-d, float64(y0)-d
		fx1, fy1 := float64(x1+1)+d, float64(y1+1)+d
		if min(fx1-fx0, fy1-fy0) < minBoxSide+2 {
			continue
		}
		r := image.Rect(int(math.Round(fx0*sx)), int(math.Round(fy0*sy)), int(math.Round(fx1*sx)), int(math.Round(fy1*sy)))
		r = r.Intersect(image.Rect(0, 0, int(math.Round(float64(w)*sx)), int(math.Round(float64(h)*sy))))
		if r.Empty() {
			continue
		}
		out = append(out, box{r: r, score: score})
	}
	return out
}
