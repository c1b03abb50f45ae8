package ppocr

import (
	"context"
	"image"
	"image/color"
	"strings"
	"testing"
)

// TestRotateRect: a rectangle painted on an image is where rotateRect
// says once the image is turned by rotate, for every quarter turn.
func TestRotateRect(t *testing.T) {
	const w, h = 7, 5
	r := image.Rect(1, 2, 4, 5)
	src := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			src.Set(x, y, color.White)
		}
	}
	for q := range 4 {
		dst := rotate(src, q)
		want := rotateRect(r, w, h, q)
		db := dst.Bounds()
		for y := range db.Dy() {
			for x := range db.Dx() {
				in := image.Pt(x, y).In(want)
				if lit := dst.RGBAAt(x, y).R == 255; lit != in {
					t.Fatalf("%d quarter turns: pixel %d,%d lit %v, in %v %v", q, x, y, lit, want, in)
				}
			}
		}
		if back := rotateRect(want, db.Dx(), db.Dy(), 4-q); back != r {
			t.Errorf("%d quarter turns and back: %v, want %v", q, back, r)
		}
	}
}

// TestRotatedReceipt: a receipt photographed at 90°, 180° and 270° reads
// its total as the upright one does, and each word's box is in the
// pixels of the image as given: turned upright, it lies on the same word
// as read in the upright photo.
func TestRotatedReceipt(t *testing.T) {
	e := openEngine(t)
	img, label := receipt(t, "000")
	upright := toRGBA(img)
	want, err := e.Read(context.Background(), upright)
	if err != nil {
		t.Fatal(err)
	}
	total := normalise(label["total"])
	if !strings.Contains(normalise(want.Text), total) || want.Turned != 0 {
		t.Fatalf("upright: turned %d, total %q not in:\n%s", want.Turned, label["total"], want.Text)
	}
	ub := upright.Bounds()
	for _, q := range []int{1, 2, 3} {
		turned := rotate(upright, q)
		tb := turned.Bounds()
		page, err := e.Read(context.Background(), turned)
		if err != nil {
			t.Fatalf("%d°: %v", 90*q, err)
		}
		if !strings.Contains(normalise(page.Text), total) {
			t.Errorf("%d°: total %q not in:\n%s", 90*q, label["total"], page.Text)
		}
		if page.Turned != (360-90*q)%360 {
			t.Errorf("%d°: turned by %d°, want %d°", 90*q, page.Turned, (360-90*q)%360)
		}
		if page.Words.Width != tb.Dx() || page.Words.Height != tb.Dy() {
			t.Errorf("%d°: words on a %d×%d page, the image is %v", 90*q, page.Words.Width, page.Words.Height, tb)
		}
		// Every word lies inside the image given; turned back upright,
		// most overlap a word of the upright reading with the same text.
		matched := 0
		for _, w := range page.Words.Words {
			r := image.Rect(w.X, w.Y, w.X+w.W, w.Y+w.H)
			if !r.In(tb) || r.Empty() {
				t.Errorf("%d°: word %+v outside the %v image", 90*q, w, tb)
				continue
			}
			back := rotateRect(r, tb.Dx(), tb.Dy(), 4-q)
			ok := false
			for _, u := range want.Words.Words {
				if u.Text != w.Text {
					continue
				}
				ur := image.Rect(u.X, u.Y, u.X+u.W, u.Y+u.H)
				if in := back.Intersect(ur); 2*in.Dx()*in.Dy() >= ur.Dx()*ur.Dy() && back.In(ub) {
					matched++
					ok = true
					break
				}
			}
			if !ok {
				t.Logf("%d°: %q at %v upright", 90*q, w.Text, back)
			}
		}
		if n := len(page.Words.Words); n == 0 || 10*matched < 9*n {
			t.Errorf("%d°: %d of %d words lie, turned upright, on the same word of the upright reading", 90*q, matched, n)
		}
		t.Logf("%d°: %d words, %d on their upright place", 90*q, len(page.Words.Words), matched)
	}
}
