package ppocr

import (
	"image"
	"slices"

	"github.com/docent/docent/storage"
)

// Photos are often taken with the receipt turned: the pixels are rotated
// by 90°, 180° or 270° even after EXIF's orientation is applied. The
// detector finds lines in any orientation, but the recogniser reads only
// upright text, so Read turns the page upright first, with two cheap
// checks that cost nothing more on an upright photo than looking at what
// was already computed:
//
//   - 90° or 270°: most detected boxes are taller than wide (lines run
//     down the page). The page turned a quarter is detected again and
//     kept when its boxes are wide.
//   - 180°: the recogniser is unsure of what it read (upside-down text
//     reads as low-confidence noise). The longest lines are read again
//     turned half round, and when they read with clearly more
//     confidence, the whole page is read turned.
//
// Word boxes are mapped back to the pixels of the image as given, which
// is the image Docent stores and the viewer draws them on.

// tallShare is the share of boxes taller than wide above which a page is
// taken to be turned a quarter.
const tallShare = 0.5

// uprightConf is the mean recognition confidence (0 to 1, over
// characters) at or above which a page is taken to be upright without a
// look at it turned half round. On the 40 SROIE receipts, upright photos
// read at 0.89 to 0.97 and the same photos upside down at 0.43 to 0.61,
// so an upright photo costs no recogniser run more.
const uprightConf = 0.75

// flipSample is how many of the longest lines are read turned half round
// to decide whether the page is upside down.
const flipSample = 6

// flipMargin is how much more confident the lines turned half round must
// read for the page to be turned.
const flipMargin = 0.05

// mostlyTall: more than tallShare of the boxes (at least two) are taller
// than wide.
func mostlyTall(boxes []box) bool {
	tall := 0
	for _, b := range boxes {
		if b.r.Dy() > b.r.Dx() {
			tall++
		}
	}
	return tall >= 2 && float64(tall) > tallShare*float64(len(boxes))
}

// rotate gives src turned q quarter turns clockwise.
func rotate(src *image.RGBA, q int) *image.RGBA {
	q = ((q % 4) + 4) % 4
	w, h := src.Bounds().Dx(), src.Bounds().Dy()
	if q == 0 {
		return src
	}
	dw, dh := w, h
	if q%2 == 1 {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := range h {
		row := src.Pix[y*src.Stride:]
		for x := range w {
			var nx, ny int
			switch q {
			case 1:
				nx, ny = h-1-y, x
			case 2:
				nx, ny = w-1-x, h-1-y
			case 3:
				nx, ny = y, w-1-x
			}
			copy(dst.Pix[ny*dst.Stride+4*nx:ny*dst.Stride+4*nx+4], row[4*x:4*x+4])
		}
	}
	return dst
}

// rotateRect is r, a rectangle in an image of w×h, in that image turned
// q quarter turns clockwise.
func rotateRect(r image.Rectangle, w, h, q int) image.Rectangle {
	switch ((q % 4) + 4) % 4 {
	case 1:
		return image.Rect(h-r.Max.Y, r.Min.X, h-r.Min.Y, r.Max.X)
	case 2:
		return image.Rect(w-r.Max.X, h-r.Max.Y, w-r.Min.X, h-r.Min.Y)
	case 3:
		return image.Rect(r.Min.Y, w-r.Max.X, r.Max.Y, w-r.Min.X)
	}
	return r
}

// unrotateWords maps words read in an image of w×h, which is the original
// turned q quarter turns clockwise, back to the original's pixels.
func unrotateWords(words []storage.Word, w, h, q int) {
	if q%4 == 0 {
		return
	}
	for i, wd := range words {
		r := rotateRect(image.Rect(wd.X, wd.Y, wd.X+wd.W, wd.Y+wd.H), w, h, 4-q)
		words[i].X, words[i].Y, words[i].W, words[i].H = r.Min.X, r.Min.Y, r.Dx(), r.Dy()
	}
}

// meanConf is the mean confidence of the lines' characters, weighted by
// their length, and how many characters there were.
func meanConf(lines []line) (float64, int) {
	var sum float64
	var n int
	for _, l := range lines {
		c := len([]rune(l.text))
		sum += l.conf * float64(c)
		n += c
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}

// longest is the indexes of the k lines with the most characters.
func longest(lines []line, k int) []int {
	idx := make([]int, len(lines))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return len([]rune(lines[b].text)) - len([]rune(lines[a].text)) })
	return idx[:min(k, len(idx))]
}
