package ocr

import (
	"bytes"
	"encoding/binary"
)

// An image file may say at what resolution it was scanned or printed:
// JPEG in its JFIF header or its EXIF block, PNG in its pHYs chunk. OCR
// passes it to Tesseract as --dpi (pages.go, ocrDPI), which otherwise
// guesses from the letters' size; on the SROIE receipts the file's own
// density reads better than the guess (docs/benchmarks.md, "Receipts:
// Tesseract settings").

// minDensity and maxDensity bound a density worth passing on: below 70
// Tesseract refuses it ("Invalid resolution") and guesses anyway, and a
// header claiming more than 2,400 dpi is wrong rather than a scan.
const (
	minDensity = 70
	maxDensity = 2400
)

// density is an image file's resolution in pixels per inch as its header
// says, 0 when it does not say or says something unusable.
func density(media string, data []byte) float64 {
	var d float64
	switch media {
	case MediaJPEG:
		d = jfifDensity(data)
		if d == 0 {
			d = exifDensity(data)
		}
	case MediaPNG:
		d = pngDensity(data)
	}
	if d < minDensity || d > maxDensity {
		return 0
	}
	return d
}

// jfifDensity reads the JFIF APP0 segment's density: unit 1 is dots per
// inch, 2 dots per centimetre, 0 only an aspect ratio (no density).
func jfifDensity(d []byte) float64 {
	if len(d) < 18 || !bytes.Equal(d[6:11], []byte("JFIF\x00")) {
		return 0
	}
	unit, x := d[13], float64(binary.BigEndian.Uint16(d[14:16]))
	switch unit {
	case 1:
		return x
	case 2:
		return x * 2.54
	}
	return 0
}

// exifDensity reads a JPEG's EXIF XResolution and ResolutionUnit (2
// inches, the default; 3 centimetres).
func exifDensity(data []byte) float64 {
	t := exifTIFF(data)
	order, entries := ifd0(t)
	var res float64
	unit := 2
	for _, e := range entries {
		switch order.Uint16(e[0:2]) {
		case 0x011a: // XResolution, RATIONAL: two uint32 at an offset
			v := int(order.Uint32(e[8:12]))
			if order.Uint16(e[2:4]) != 5 || v < 8 || v+8 > len(t) {
				continue
			}
			num, den := order.Uint32(t[v:v+4]), order.Uint32(t[v+4:v+8])
			if den != 0 {
				res = float64(num) / float64(den)
			}
		case 0x0128: // ResolutionUnit, SHORT
			unit = int(order.Uint16(e[8:10]))
		}
	}
	switch unit {
	case 2:
		return res
	case 3:
		return res * 2.54
	}
	return 0
}

// exifTIFF is the TIFF structure inside a JPEG's EXIF APP1 segment, nil
// when it has none.
func exifTIFF(data []byte) []byte {
	i := 2
	for i+4 <= len(data) && data[i] == 0xff {
		marker := data[i+1]
		size := int(binary.BigEndian.Uint16(data[i+2 : i+4]))
		if marker == 0xda || size < 2 || i+2+size > len(data) { // start of scan: no more metadata
			return nil
		}
		seg := data[i+4 : i+2+size]
		if marker == 0xe1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			return seg[6:]
		}
		i += 2 + size
	}
	return nil
}

// ifd0 is the byte order and the 12-byte entries of the first IFD of
// the TIFF structure t (an EXIF block), as many as t holds; no entries
// when t is too short or points outside itself.
func ifd0(t []byte) (binary.ByteOrder, [][]byte) {
	if len(t) < 8 {
		return nil, nil
	}
	order := tiffOrder(t)
	off := int(order.Uint32(t[4:8]))
	if off < 8 || off+2 > len(t) {
		return order, nil
	}
	n := int(order.Uint16(t[off : off+2]))
	var entries [][]byte
	for k := range n {
		e := off + 2 + 12*k
		if e+12 > len(t) {
			break
		}
		entries = append(entries, t[e:e+12])
	}
	return order, entries
}

// pngDensity reads a PNG's pHYs chunk: pixels per unit, unit 1 the metre
// (0: an aspect ratio only).
func pngDensity(data []byte) float64 {
	i := 8
	for i+8 <= len(data) {
		n := int(binary.BigEndian.Uint32(data[i : i+4]))
		typ := string(data[i+4 : i+8])
		if n < 0 || i+12+n > len(data) || typ == "IDAT" {
			return 0
		}
		if typ == "pHYs" && n == 9 {
			c := data[i+8 : i+8+n]
			if c[8] == 1 {
				return float64(binary.BigEndian.Uint32(c[0:4])) * 0.0254
			}
			return 0
		}
		i += 12 + n
	}
	return 0
}
