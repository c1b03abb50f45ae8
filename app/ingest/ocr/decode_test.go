package ocr

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"os"
	"strings"
	"testing"

	"github.com/docent/docent/app/ingest/pdftext"
)

func TestImageMediaTypeByContent(t *testing.T) {
	tiff := multiTIFF(blankGrey(4, 4, 255))
	for _, c := range []struct {
		data []byte
		want string
	}{
		{encodePNG(t, blankGrey(2, 2, 0)), MediaPNG},
		{encodeJPEG(t, blankGrey(8, 8, 0)), MediaJPEG},
		{tiff, MediaTIFF},
		{[]byte("RIFF\x00\x00\x00\x00WEBPVP8 "), MediaWebP},
		{[]byte("BM\x00\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00"), MediaBMP},
		{[]byte("%PDF-1.7"), ""},
		{[]byte("\x89PNG"), ""}, // four bytes of a signature are not an image
	} {
		if got := ImageMediaType(c.data); got != c.want {
			t.Errorf("ImageMediaType(%.12q) = %q, want %q", c.data, got, c.want)
		}
	}
}

func TestTIFFEveryFrameIsAPage(t *testing.T) {
	frames := []*image.Gray{blankGrey(30, 20, 255), blankGrey(40, 10, 0), textImage(200, 80, 2, "x")}
	data := multiTIFF(frames...)
	info, err := probeImage(data, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Pages) != 3 || info.Pages[1] != (PageSize{40, 10}) || info.Pages[2] != (PageSize{200, 80}) {
		t.Fatalf("pages %+v", info.Pages)
	}
	dir := t.TempDir()
	rep, err := makePages(data, pagesRequest{Pages: []int{1, 2, 3}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Images[0].Blank || !rep.Images[1].Blank || rep.Images[2].Blank {
		t.Errorf("blank pages: %v %v %v, want white and black pages blank, the text page not", rep.Images[0].Blank, rep.Images[1].Blank, rep.Images[2].Blank)
	}
	if rep.Images[1].Width != 80 { // narrow: enlarged twice for OCR
		t.Errorf("page 2 image %+v", rep.Images[1])
	}
}

func TestJPEGOrientationIsApplied(t *testing.T) {
	// A tall image with a dark top half, stored rotated: orientation 6
	// means "rotate 90° clockwise to show".
	src := blankGrey(40, 20, 255)
	for y := range 20 {
		for x := range 10 {
			src.Pix[y*src.Stride+x] = 0 // the left quarter dark
		}
	}
	data := withOrientation(encodeJPEG(t, src), 6)
	if o := exifOrientation(data); o != 6 {
		t.Fatalf("orientation %d, want 6", o)
	}
	f, err := openImage(data)
	if err != nil {
		t.Fatal(err)
	}
	img, err := f.decode(0)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	if b.Dx() != 20 || b.Dy() != 40 {
		t.Fatalf("size %v, want 20×40 (turned upright)", b)
	}
	g := grey(img)
	if top, bottom := g.GrayAt(10, 2).Y, g.GrayAt(10, 37).Y; top > 60 || bottom < 200 {
		t.Errorf("after rotation the dark band should be at the top: top %d, bottom %d", top, bottom)
	}
}

func TestDecompressionBombIsRefusedFromItsHeader(t *testing.T) {
	bomb := pngClaiming(t, 50_000, 50_000)
	_, err := ProbeImage(context.Background(), bytes.NewReader(bomb), int64(len(bomb)))
	if !errors.Is(err, pdftext.ErrTooLarge) || !strings.Contains(err.Error(), "2500 megapixels") {
		t.Fatalf("bomb: %v, want too large naming its 2500 megapixels", err)
	}
}

func TestCorruptImagesFailWithTheirCause(t *testing.T) {
	jpg := encodeJPEG(t, textImage(200, 100, 2, "hello"))
	for name, data := range map[string][]byte{
		"truncated jpeg": jpg[:len(jpg)/2],
		"garbage png":    append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...),
		"tiff loop":      []byte("II*\x00\x08\x00\x00\x00\x00\x00\x08\x00\x00\x00"),
	} {
		_, err := ProbeImage(context.Background(), bytes.NewReader(data), int64(len(data)))
		if !errors.Is(err, pdftext.ErrMalformed) || !strings.HasPrefix(err.Error(), "unreadable image") {
			t.Errorf("%s: %v, want an unreadable image", name, err)
		}
	}
}

func TestTooManyTIFFPagesAreRefused(t *testing.T) {
	frames := make([]*image.Gray, MaxFrames+1)
	one := blankGrey(1, 1, 255)
	for i := range frames {
		frames[i] = one
	}
	data := multiTIFF(frames...)
	_, err := ProbeImage(context.Background(), bytes.NewReader(data), int64(len(data)))
	if !errors.Is(err, pdftext.ErrTooLarge) || !strings.Contains(err.Error(), "more than 1000") {
		t.Fatalf("a TIFF of %d pages: %v", len(frames), err)
	}
}

func TestPagePNGOfATIFFPage(t *testing.T) {
	data := multiTIFF(blankGrey(30, 20, 255), textImage(120, 60, 2, "p2"))
	b, err := PagePNG(context.Background(), data, MediaTIFF, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil || img.Bounds().Dx() != 120 {
		t.Fatalf("page 2 as PNG: %v %v", err, img)
	}
	if _, err := PagePNG(context.Background(), data, MediaTIFF, 3, 0); err == nil {
		t.Fatal("page 3 of 2 gave an image")
	}
}

func TestBlankScanPDFRendersBlank(t *testing.T) {
	data := corpusFile(t, "pdfcpu/blank-scan.pdf")
	imgs, err := pageImages(context.Background(), data, true, []int{1}, t.TempDir(), 0, pdftext.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(imgs) != 1 || !imgs[0].Blank || imgs[0].Method != "scan" {
		t.Fatalf("blank scan: %+v", imgs)
	}
	// /Rotate 270 on a portrait scan: the page image is landscape.
	t.Logf("blank scan page image: %+v", imgs[0])
	_ = os.Remove(imgs[0].File)
}
