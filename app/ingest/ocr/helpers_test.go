package ocr

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"testing"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// needTesseract skips a test without tesseract, except in CI, which must
// have it (scripts/test installs it).
func needTesseract(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("tesseract"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("tesseract is required in CI: %v", err)
		}
		t.Skip("skipping: tesseract is not installed (sudo apt-get install tesseract-ocr)")
	}
}

// needLangs skips a test when Tesseract has no data for one of langs
// ("deu+eng"), except in CI, which must have them all (scripts/test
// installs the shipped languages).
func needLangs(t testing.TB, e *Engine, langs string) {
	t.Helper()
	if err := e.CheckLangs(langs); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Tesseract's data for %s is required in CI: %v", langs, err)
		}
		t.Skipf("skipping: %v", err)
	}
}

// textImage draws lines of text in black on white, scale times the size
// of a 7×13 bitmap font, as a scan of printed text would look.
func textImage(w, h, scale int, lines ...string) *image.Gray {
	small := image.NewGray(image.Rect(0, 0, w/scale, h/scale))
	draw.Draw(small, small.Rect, image.White, image.Point{}, draw.Src)
	d := font.Drawer{Dst: small, Src: image.Black, Face: basicfont.Face7x13}
	for i, line := range lines {
		d.Dot = fixed.P(10, 20+16*i)
		d.DrawString(line)
	}
	big := image.NewGray(image.Rect(0, 0, w, h))
	xdraw.NearestNeighbor.Scale(big, big.Rect, small, small.Rect, draw.Src, nil)
	return big
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeJPEG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withOrientation inserts an EXIF segment with orientation o after a
// JPEG's SOI marker.
func withOrientation(jpg []byte, o uint16) []byte {
	var tiff bytes.Buffer
	tiff.WriteString("II*\x00")
	binary.Write(&tiff, binary.LittleEndian, uint32(8))
	binary.Write(&tiff, binary.LittleEndian, uint16(1))
	binary.Write(&tiff, binary.LittleEndian, []uint16{0x0112, 3})
	binary.Write(&tiff, binary.LittleEndian, uint32(1))
	binary.Write(&tiff, binary.LittleEndian, []uint16{o, 0})
	binary.Write(&tiff, binary.LittleEndian, uint32(0))
	seg := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	var out bytes.Buffer
	out.Write(jpg[:2])
	out.Write([]byte{0xff, 0xe1})
	binary.Write(&out, binary.BigEndian, uint16(len(seg)+2))
	out.Write(seg)
	out.Write(jpg[2:])
	return out.Bytes()
}

// multiTIFF writes grey frames as one uncompressed multi-page TIFF.
func multiTIFF(frames ...*image.Gray) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	b.WriteString("II*\x00")
	binary.Write(&b, le, uint32(8))
	for i, f := range frames {
		w, h := f.Rect.Dx(), f.Rect.Dy()
		const entries = 8
		ifd := int64(b.Len())
		data := ifd + 2 + entries*12 + 4
		next := uint32(0)
		if i < len(frames)-1 {
			next = uint32(data + int64(w*h))
		}
		binary.Write(&b, le, uint16(entries))
		entry := func(tag, typ uint16, val uint32) {
			binary.Write(&b, le, tag)
			binary.Write(&b, le, typ)
			binary.Write(&b, le, uint32(1))
			binary.Write(&b, le, val)
		}
		entry(256, 4, uint32(w))    // ImageWidth
		entry(257, 4, uint32(h))    // ImageLength
		entry(258, 3, 8)            // BitsPerSample
		entry(259, 3, 1)            // Compression: none
		entry(262, 3, 1)            // Photometric: black is zero
		entry(273, 4, uint32(data)) // StripOffsets
		entry(278, 4, uint32(h))    // RowsPerStrip
		entry(279, 4, uint32(w*h))  // StripByteCounts
		binary.Write(&b, le, next)
		for y := range h {
			b.Write(f.Pix[y*f.Stride : y*f.Stride+w])
		}
	}
	return b.Bytes()
}

// pngClaiming is a PNG whose header claims w×h pixels and whose data is
// one pixel: a decompression bomb as far as the header goes.
func pngClaiming(t testing.TB, w, h uint32) []byte {
	data := encodePNG(t, image.NewGray(image.Rect(0, 0, 1, 1)))
	// Signature (8), IHDR length (4), "IHDR" (4), then width and height.
	binary.BigEndian.PutUint32(data[16:20], w)
	binary.BigEndian.PutUint32(data[20:24], h)
	crc := crc32.ChecksumIEEE(data[12:29])
	binary.BigEndian.PutUint32(data[29:33], crc)
	return data
}

func blankGrey(w, h int, tone uint8) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	draw.Draw(g, g.Rect, &image.Uniform{color.Gray{Y: tone}}, image.Point{}, draw.Src)
	return g
}
