package ppocr

import (
	"image"
	"image/draw"

	xdraw "golang.org/x/image/draw"
)

// toRGBA gives img as an *image.RGBA whose bounds start at 0,0.
func toRGBA(img image.Image) *image.RGBA {
	b := img.Bounds()
	if m, ok := img.(*image.RGBA); ok && b.Min == (image.Point{}) {
		return m
	}
	m := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(m, m.Bounds(), img, b.Min, draw.Src)
	return m
}

// scale resizes the part r of src to w×h with bilinear interpolation (as
// PaddleOCR's cv2.resize does).
func scale(src *image.RGBA, r image.Rectangle, w, h int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.BiLinear.Scale(dst, dst.Bounds(), src, r, xdraw.Src, nil)
	return dst
}
