package ocr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"

	"github.com/docent/docent/app/ingest/pdftext"
)

// Image documents: PNG, JPEG, TIFF (every frame a page), WebP and BMP.
// Decoding happens only in a reader child (pages.go), because a decoder
// fed a hostile file can allocate or loop without bound: the child's
// memory and time limits end it. Before anything is decoded, each frame's
// size is read from its header and checked against MaxPixels, so that a
// decompression bomb (a few kilobytes that claim 100,000 × 100,000 pixels)
// is refused without allocating its pixels.

// Media types of the images Docent imports.
const (
	MediaPNG  = "image/png"
	MediaJPEG = "image/jpeg"
	MediaTIFF = "image/tiff"
	MediaWebP = "image/webp"
	MediaBMP  = "image/bmp"
)

// Limits of an image document.
const (
	// MaxPixels bounds one page of an image: 100 megapixels is a
	// letter-size page scanned at 1,000 dpi, or a 600 dpi A3 scan with room
	// to spare; decoded as RGBA it takes 400 MB. Pillow's bomb guard is of
	// the same order (89 megapixels warns, twice that fails).
	MaxPixels = 100_000_000
	// MaxFrames bounds the pages of a TIFF (a fax archive has hundreds).
	MaxFrames = 1000
	// maxTotalPixels bounds all the frames of one file together.
	maxTotalPixels = 2_000_000_000
)

// ImageMediaType recognises an image by its first bytes, whatever its
// name; "" when it is none of the five.
func ImageMediaType(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return MediaPNG
	case bytes.HasPrefix(head, []byte{0xff, 0xd8, 0xff}):
		return MediaJPEG
	case bytes.HasPrefix(head, []byte("II*\x00")), bytes.HasPrefix(head, []byte("MM\x00*")):
		return MediaTIFF
	case len(head) >= 12 && string(head[0:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return MediaWebP
	case bytes.HasPrefix(head, []byte("BM")) && len(head) >= 18:
		return MediaBMP
	}
	return ""
}

// IsImage reports whether a media type is one of the images Docent imports.
func IsImage(media string) bool {
	switch media {
	case MediaPNG, MediaJPEG, MediaTIFF, MediaWebP, MediaBMP:
		return true
	}
	return false
}

// imageFile is an image file split into its frames (pages).
type imageFile struct {
	media  string
	data   []byte
	frames []int64 // TIFF: the offset of each frame's IFD
}

func openImage(data []byte) (*imageFile, error) {
	f := &imageFile{media: ImageMediaType(data[:min(len(data), 64)]), data: data}
	switch f.media {
	case "":
		return nil, badImage("not a PNG, JPEG, TIFF, WebP or BMP image")
	case MediaTIFF:
		frames, err := tiffFrames(data)
		if err != nil {
			return nil, err
		}
		f.frames = frames
	}
	return f, nil
}

func (f *imageFile) pages() int {
	if f.media == MediaTIFF {
		return len(f.frames)
	}
	return 1
}

// reader returns the bytes of page i (0-based) as a decoder reads them.
func (f *imageFile) reader(i int) io.Reader {
	r := bytes.NewReader(f.data)
	if f.media != MediaTIFF || i == 0 {
		return r
	}
	return &frameReader{r: r, order: tiffOrder(f.data), ifd: f.frames[i]}
}

// config reads page i's size from its header, without decoding it.
func (f *imageFile) config(i int) (image.Config, error) {
	var cfg image.Config
	var err error
	r := f.reader(i)
	switch f.media {
	case MediaPNG:
		cfg, err = png.DecodeConfig(r)
	case MediaJPEG:
		cfg, err = jpeg.DecodeConfig(r)
	case MediaTIFF:
		cfg, err = tiff.DecodeConfig(r)
	case MediaWebP:
		cfg, err = webp.DecodeConfig(r)
	case MediaBMP:
		cfg, err = bmp.DecodeConfig(r)
	}
	if err != nil {
		return cfg, badImage("%s header: %v", f.media, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return cfg, badImage("the image is %d×%d pixels", cfg.Width, cfg.Height)
	}
	px := int64(cfg.Width) * int64(cfg.Height)
	if px > MaxPixels {
		return cfg, tooManyPixels("page %d is %d×%d pixels (%d megapixels), more than the limit of %d megapixels: a decompression bomb, or a scan at a far higher resolution than text needs",
			i+1, cfg.Width, cfg.Height, px/1_000_000, MaxPixels/1_000_000)
	}
	if limit := pdftext.ChildMemoryLimit(); limit > 0 {
		if need := f.memoryFor(cfg); need > limit-limit/8 {
			return cfg, tooManyPixels("page %d is %d×%d pixels of %d bytes each once decoded: reading it takes about %d MiB, more than the image reader's memory limit of %d MiB allows (scan it with fewer bits per channel, in grey, or at a lower resolution)",
				i+1, cfg.Width, cfg.Height, bytesPerPixel(cfg.ColorModel), need>>20, limit>>20)
		}
	}
	return cfg, nil
}

// memoryFor is about how much memory making the image of a page of size
// cfg takes at its peak: the file, the decoded pixels, the grey copy OCR
// reads, the PNG it is written as, and a progressive JPEG's coefficients.
// It is checked before decoding (config), so that whether a large page is
// read does not depend on what else the reader child holds.
func (f *imageFile) memoryFor(cfg image.Config) int64 {
	px := int64(cfg.Width) * int64(cfg.Height)
	bpp := bytesPerPixel(cfg.ColorModel)
	need := int64(len(f.data)) + px*bpp + px // decoded, written
	if cfg.ColorModel != color.GrayModel {
		need += px // the grey copy
	}
	if f.media == MediaJPEG && progressiveJPEG(f.data) {
		// One block of 64 int32 coefficients per 64 pixels and component,
		// held until the last scan.
		need += px * 4 * min(bpp, 4)
	}
	return need
}

// bytesPerPixel is the size of one pixel of an image decoded in model m:
// 8, the largest, for a model not known here.
func bytesPerPixel(m color.Model) int64 {
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	switch m {
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.YCbCrModel:
		return 3 // 4:4:4, the largest a JPEG or WebP decodes to
	case color.NYCbCrAModel, color.RGBAModel, color.NRGBAModel, color.CMYKModel:
		return 4
	}
	return 8
}

// progressiveJPEG reports whether a JPEG's frame is progressive (SOF2 or
// another progressive start of frame), which the decoder keeps as
// coefficients until its last scan.
func progressiveJPEG(data []byte) bool {
	i := 2
	for i+4 <= len(data) && data[i] == 0xff {
		marker := data[i+1]
		switch marker {
		case 0xc2, 0xc6, 0xca, 0xce:
			return true
		case 0xc0, 0xc1, 0xc3, 0xc5, 0xc7, 0xc9, 0xcb, 0xcd, 0xcf, 0xda:
			return false
		}
		size := int(binary.BigEndian.Uint16(data[i+2 : i+4]))
		if size < 2 {
			return false
		}
		i += 2 + size
	}
	return false
}

// checkAll checks every page's header: the count of pages and the pixels
// of each and of all together.
func (f *imageFile) checkAll() ([]image.Config, error) {
	if f.pages() > MaxFrames {
		return nil, tooManyPixels("the TIFF has %d pages, more than the limit of %d", f.pages(), MaxFrames)
	}
	cfgs := make([]image.Config, f.pages())
	var total int64
	for i := range cfgs {
		cfg, err := f.config(i)
		if err != nil {
			return nil, err
		}
		total += int64(cfg.Width) * int64(cfg.Height)
		if total > maxTotalPixels {
			return nil, tooManyPixels("the image's pages have more than %d megapixels together", maxTotalPixels/1_000_000)
		}
		cfgs[i] = cfg
	}
	return cfgs, nil
}

// decode decodes page i, upright (a JPEG's EXIF orientation applied).
func (f *imageFile) decode(i int) (image.Image, error) {
	if _, err := f.config(i); err != nil {
		return nil, err
	}
	var img image.Image
	var err error
	r := f.reader(i)
	switch f.media {
	case MediaPNG:
		img, err = png.Decode(r)
	case MediaJPEG:
		img, err = jpeg.Decode(r)
	case MediaTIFF:
		img, err = tiff.Decode(r)
	case MediaWebP:
		img, err = webp.Decode(r)
	case MediaBMP:
		img, err = bmp.Decode(r)
	}
	if err != nil {
		return nil, badImage("page %d: %v", i+1, err)
	}
	if f.media == MediaJPEG {
		img = orient(img, exifOrientation(f.data))
	}
	return img, nil
}

// imageError is an image that cannot be read: it says so in its own words
// and unwraps to the kind of pdftext error (ErrMalformed, ErrTooLarge) that
// carries it across the child's process boundary.
type imageError struct {
	kind error
	msg  string
}

func (e *imageError) Error() string { return e.msg }
func (e *imageError) Unwrap() error { return e.kind }

func badImage(format string, args ...any) error {
	return &imageError{kind: pdftext.ErrMalformed, msg: "unreadable image: " + fmt.Sprintf(format, args...)}
}

func tooManyPixels(format string, args ...any) error {
	return &imageError{kind: pdftext.ErrTooLarge, msg: "image too large: " + fmt.Sprintf(format, args...)}
}

// A TIFF is a header and a chain of image file directories (IFDs), one per
// frame. x/image/tiff decodes the frame that the header points at, so page
// i is decoded through a reader whose header points at IFD i.

func tiffOrder(data []byte) binary.ByteOrder {
	if data[0] == 'M' {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// tiffFrames follows the IFD chain and returns each IFD's offset.
func tiffFrames(data []byte) ([]int64, error) {
	if len(data) < 8 {
		return nil, badImage("TIFF header truncated")
	}
	order := tiffOrder(data)
	var frames []int64
	seen := map[int64]bool{}
	off := int64(order.Uint32(data[4:8]))
	for off != 0 {
		if seen[off] {
			break // a chain that loops back: each frame once
		}
		if off+2 > int64(len(data)) || off < 8 {
			if len(frames) > 0 {
				break // a damaged link after the first frame: keep those before it
			}
			return nil, badImage("TIFF directory offset %d is outside the file", off)
		}
		seen[off] = true
		frames = append(frames, off)
		if len(frames) > MaxFrames {
			return nil, tooManyPixels("the TIFF has more than %d pages", MaxFrames)
		}
		n := int64(order.Uint16(data[off : off+2]))
		next := off + 2 + 12*n
		if next+4 > int64(len(data)) {
			break
		}
		off = int64(order.Uint32(data[next : next+4]))
	}
	if len(frames) == 0 {
		return nil, badImage("the TIFF has no image")
	}
	return frames, nil
}

// frameReader reads a TIFF whose header's first-IFD offset is ifd.
type frameReader struct {
	r     *bytes.Reader
	order binary.ByteOrder
	ifd   int64
	pos   int64
}

func (fr *frameReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := fr.r.ReadAt(p, off)
	var hdr [4]byte
	fr.order.PutUint32(hdr[:], uint32(fr.ifd))
	for i := range n {
		if at := off + int64(i); at >= 4 && at < 8 {
			p[i] = hdr[at-4]
		}
	}
	return n, err
}

func (fr *frameReader) Read(p []byte) (int, error) {
	n, err := fr.ReadAt(p, fr.pos)
	fr.pos += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// exifOrientation reads the EXIF orientation (1-8) of a JPEG, 1 when it
// has none.
func exifOrientation(data []byte) int {
	order, entries := ifd0(exifTIFF(data))
	for _, e := range entries {
		if order.Uint16(e[0:2]) == 0x0112 {
			if v := int(order.Uint16(e[8:10])); v >= 1 && v <= 8 {
				return v
			}
			return 1
		}
	}
	return 1
}

// orient turns an image with EXIF orientation o upright, as a grey image.
func orient(img image.Image, o int) image.Image {
	if o <= 1 || o > 8 {
		return img
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	ow, oh := w, h
	if o >= 5 {
		ow, oh = h, w
	}
	out := image.NewGray(image.Rect(0, 0, ow, oh))
	for y := range h {
		for x := range w {
			var nx, ny int
			switch o {
			case 2:
				nx, ny = w-1-x, y
			case 3:
				nx, ny = w-1-x, h-1-y
			case 4:
				nx, ny = x, h-1-y
			case 5:
				nx, ny = y, x
			case 6:
				nx, ny = h-1-y, x
			case 7:
				nx, ny = h-1-y, w-1-x
			case 8:
				nx, ny = y, w-1-x
			}
			out.SetGray(nx, ny, color.GrayModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray))
		}
	}
	return out
}

// grey converts an image to 8-bit grey, the input OCR binarises; it is a
// third the size of RGB to write and to read.
func grey(img image.Image) *image.Gray {
	if g, ok := img.(*image.Gray); ok {
		return g
	}
	b := img.Bounds()
	out := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	switch src := img.(type) {
	case *image.YCbCr:
		for y := range b.Dy() {
			copy(out.Pix[y*out.Stride:y*out.Stride+b.Dx()], src.Y[(y)*src.YStride:(y)*src.YStride+b.Dx()])
		}
		return out
	case *image.RGBA:
		for y := range b.Dy() {
			row := src.Pix[y*src.Stride:]
			for x := range b.Dx() {
				p := row[4*x:]
				// Premultiplied, over white: a transparent pixel is paper.
				r, g, bl, a := int(p[0]), int(p[1]), int(p[2]), int(p[3])
				l := (299*r + 587*g + 114*bl) / 1000
				out.Pix[y*out.Stride+x] = uint8(min(255, l+255-a))
			}
		}
		return out
	}
	for y := range b.Dy() {
		for x := range b.Dx() {
			c := img.At(b.Min.X+x, b.Min.Y+y)
			_, _, _, a := c.RGBA()
			l := color.GrayModel.Convert(c).(color.Gray).Y
			if a < 0xffff { // premultiplied, over white paper
				l = uint8(min(255, uint32(l)+(0xffff-a)>>8))
			}
			out.Pix[y*out.Stride+x] = l
		}
	}
	return out
}

// blankInk is the share of dark pixels under which a page is blank: 0.02 %
// is about 700 pixels of a letter page at 200 dpi, less than one short
// word's strokes.
const blankInk = 0.0002

// blank reports whether a page image is empty paper, by its ink (pageInk:
// the dark pixels of each of its rows, width pixels wide): almost no
// pixel is much darker than the paper's own tone. A scan's noise and a
// sheet's texture stay under the threshold; one short line of text is
// above it.
func blank(ink []int, width int) bool {
	total := width * len(ink)
	if total == 0 {
		return true
	}
	dark := 0
	for _, n := range ink {
		dark += n
	}
	return float64(dark)/float64(total) < blankInk
}

// pageInk is how many pixels of each row of a page image are ink, much
// darker (or, for light text on dark paper, much lighter) than its
// paper's tone: what blank and inkLines judge the page by, counted in
// one pass.
func pageInk(g *image.Gray) []int {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	if w == 0 || h == 0 {
		return nil
	}
	paper := paperTone(g)
	ink := make([]int, h)
	for y := range h {
		for _, v := range g.Pix[y*g.Stride : y*g.Stride+w] {
			if dark(v, paper) {
				ink[y]++
			}
		}
	}
	return ink
}

// paperTone is the grey of a page's paper: the median of its pixels.
func paperTone(g *image.Gray) int {
	var hist [256]int
	for y := range g.Rect.Dy() {
		for _, v := range g.Pix[y*g.Stride : y*g.Stride+g.Rect.Dx()] {
			hist[v]++
		}
	}
	total := g.Rect.Dx() * g.Rect.Dy()
	n := 0
	for v, c := range hist {
		n += c
		if n*2 >= total {
			return v
		}
	}
	return 255
}

// dark reports whether a pixel of grey v is ink on paper of tone paper:
// much darker than it, or, for light text on dark paper, much lighter.
func dark(v uint8, paper int) bool {
	return int(v) < paper-80 || int(v) >= paper+80
}
