package ocr

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"testing"
)

// withJFIF puts a JFIF APP0 segment with density x in unit (0 aspect,
// 1 dpi, 2 dots per cm) after a JPEG's start of image.
func withJFIF(jpg []byte, unit uint8, x uint16) []byte {
	seg := []byte("JFIF\x00\x01\x02")
	seg = append(seg, unit)
	seg = binary.BigEndian.AppendUint16(seg, x)
	seg = binary.BigEndian.AppendUint16(seg, x)
	seg = append(seg, 0, 0)
	var out bytes.Buffer
	out.Write(jpg[:2])
	out.Write([]byte{0xff, 0xe0})
	binary.Write(&out, binary.BigEndian, uint16(len(seg)+2))
	out.Write(seg)
	out.Write(jpg[2:])
	return out.Bytes()
}

// withEXIFResolution puts an EXIF block with XResolution num/den in unit
// (2 inch, 3 cm) after a JPEG's start of image.
func withEXIFResolution(jpg []byte, num, den uint32, unit uint16) []byte {
	le := binary.LittleEndian
	var t bytes.Buffer
	t.WriteString("II*\x00")
	binary.Write(&t, le, uint32(8))
	binary.Write(&t, le, uint16(2))
	binary.Write(&t, le, []uint16{0x011a, 5})
	binary.Write(&t, le, []uint32{1, 8 + 2 + 2*12 + 4}) // the rational after the IFD
	binary.Write(&t, le, []uint16{0x0128, 3})
	binary.Write(&t, le, uint32(1))
	binary.Write(&t, le, []uint16{unit, 0})
	binary.Write(&t, le, uint32(0))
	binary.Write(&t, le, []uint32{num, den})
	seg := append([]byte("Exif\x00\x00"), t.Bytes()...)
	var out bytes.Buffer
	out.Write(jpg[:2])
	out.Write([]byte{0xff, 0xe1})
	binary.Write(&out, binary.BigEndian, uint16(len(seg)+2))
	out.Write(seg)
	out.Write(jpg[2:])
	return out.Bytes()
}

// withPHYs puts a pHYs chunk of ppu pixels per unit (1: the metre) after
// a PNG's IHDR chunk.
func withPHYs(pngData []byte, ppu uint32, unit uint8) []byte {
	ihdrEnd := 8 + 12 + int(binary.BigEndian.Uint32(pngData[8:12]))
	body := []byte("pHYs")
	body = binary.BigEndian.AppendUint32(body, ppu)
	body = binary.BigEndian.AppendUint32(body, ppu)
	body = append(body, unit)
	var chunk []byte
	chunk = binary.BigEndian.AppendUint32(chunk, 9)
	chunk = append(chunk, body...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(body))
	out := append([]byte{}, pngData[:ihdrEnd]...)
	out = append(out, chunk...)
	return append(out, pngData[ihdrEnd:]...)
}

func TestImageDensityFromItsHeader(t *testing.T) {
	jpg := encodeJPEG(t, blankGrey(16, 16, 255))
	pngData := encodePNG(t, blankGrey(16, 16, 255))
	for _, c := range []struct {
		name  string
		media string
		data  []byte
		want  float64
	}{
		{"JFIF 150 dpi", MediaJPEG, withJFIF(jpg, 1, 150), 150},
		{"JFIF 118 dots per cm", MediaJPEG, withJFIF(jpg, 2, 118), 299.72},
		{"JFIF aspect ratio only", MediaJPEG, withJFIF(jpg, 0, 1), 0},
		{"JFIF 10 dpi, unusable", MediaJPEG, withJFIF(jpg, 1, 10), 0},
		{"EXIF 300/1 per inch", MediaJPEG, withEXIFResolution(jpg, 300, 1, 2), 300},
		{"EXIF 400/2 per cm", MediaJPEG, withEXIFResolution(jpg, 400, 2, 3), 508},
		{"EXIF zero denominator", MediaJPEG, withEXIFResolution(jpg, 300, 0, 2), 0},
		{"JPEG without either", MediaJPEG, jpg, 0},
		{"PNG pHYs 11811 per metre", MediaPNG, withPHYs(pngData, 11811, 1), 299.9994},
		{"PNG pHYs aspect ratio only", MediaPNG, withPHYs(pngData, 11811, 0), 0},
		{"PNG without pHYs", MediaPNG, pngData, 0},
		{"truncated PNG", MediaPNG, pngData[:20], 0},
	} {
		if got := density(c.media, c.data); math.Abs(got-c.want) > 0.01 {
			t.Errorf("%s: density %.4f, want %.4f", c.name, got, c.want)
		}
	}
	// The decoder reads the files with their density as they are.
	if _, err := probeImage(withPHYs(pngData, 11811, 1), false); err != nil {
		t.Errorf("PNG with pHYs: %v", err)
	}
}

// TestScaleRuleAndDensity: a photo narrower than 2,000 pixels is enlarged
// twice, and tesseract is told the file's own density, not doubled.
func TestScaleRuleAndDensity(t *testing.T) {
	for _, c := range []struct {
		width, wantWidth int
		jfif             uint16
		wantDPI, wantOCR float64
	}{
		{460, 920, 150, 300, 150},   // a receipt photo
		{1500, 3000, 150, 300, 150}, // enlarged too: the 1,000 px rule left it small
		{1999, 3998, 0, 0, 0},       // no density: tesseract estimates it
		{2000, 2000, 300, 300, 300}, // wide enough
	} {
		data := withJFIF(encodeJPEG(t, blankGrey(c.width, 40, 255)), 1, c.jfif)
		if c.jfif == 0 {
			data = encodeJPEG(t, blankGrey(c.width, 40, 255))
		}
		rep, err := makePages(data, pagesRequest{Pages: []int{1}, Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		img := rep.Images[0]
		if img.Width != c.wantWidth || img.DPI != c.wantDPI || img.ocrDPI() != c.wantOCR {
			t.Errorf("%d px wide at %d dpi: image %d px wide at %v dpi, tesseract told %v dpi; want %d px, %v dpi, told %v",
				c.width, c.jfif, img.Width, img.DPI, img.ocrDPI(), c.wantWidth, c.wantDPI, c.wantOCR)
		}
	}
}

// TestMitchellKernel: the kernel is the Mitchell-Netravali cubic, whose
// weights sum to one at every phase (a flat grey stays that grey).
func TestMitchellKernel(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{{0, 8.0 / 9}, {1, 1.0 / 18}, {2, 0}, {3, 0}} {
		if got := mitchell.At(c.x); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("mitchell(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	g := defaultScale.enlarge(blankGrey(20, 20, 128))
	for i, v := range g.Pix {
		if v < 127 || v > 129 {
			t.Fatalf("flat grey 128 enlarged: pixel %d is %d", i, v)
		}
	}
}
