package ocr

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"

	"golang.org/x/image/draw"

	"github.com/docent/docent/app/ingest/ocr/ppocr/ort"
	"github.com/docent/docent/app/ingest/pdftext"
)

// Page images: what OCR reads. They are made in a reader child (the
// operations registered below), written as grey PNG files into a folder the
// parent gives and removes, and described in the child's reply.

// Child operations, registered with app/ingest/pdftext.
const (
	opProbe = "ocr.probe" // an image's pages and their sizes
	opPages = "ocr.pages" // page images of an image or a PDF
)

func init() {
	pdftext.RegisterChildOp(opProbe, func(ctx context.Context, params json.RawMessage, data []byte) (any, error) {
		var req probeRequest
		if len(params) > 0 {
			if err := json.Unmarshal(params, &req); err != nil {
				return nil, err
			}
		}
		return probeImage(data, req.HeadersOnly)
	})
	pdftext.RegisterChildOp(opPages, func(ctx context.Context, params json.RawMessage, data []byte) (any, error) {
		var req pagesRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, err
		}
		return makePages(data, req)
	})
}

// ImageInfo is what the header of each page of an image says.
type ImageInfo struct {
	// Media is the image's media type, from its content.
	Media string `json:"media"`
	// Pages holds each page's size in pixels.
	Pages []PageSize `json:"pages"`
}

// PageSize is a page image's size in pixels.
type PageSize struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// ProbeImage checks an image file of size bytes read from r, in a reader
// child: its type, its pages, and that each is within MaxPixels and
// decodes. The importer calls it, so that an image that cannot be read
// fails at import rather than at OCR.
func ProbeImage(ctx context.Context, r io.Reader, size int64) (ImageInfo, error) {
	var info ImageInfo
	err := pdftext.RunIsolated(ctx, "image reader", opProbe, probeRequest{}, r, size, pdftext.Limits{}, &info)
	return info, err
}

// ProbeImageHeaders is ProbeImage without decoding: it reads each page's
// header only (its type, its pages, their size against MaxPixels and the
// reader's memory limit), which takes milliseconds whatever the file. A
// page that does not decode is then found by OCR, in the background, and
// fails the document with its cause: the HTTP upload answers at once
// rather than while a decompression bomb of a few bytes is decoded.
func ProbeImageHeaders(ctx context.Context, r io.Reader, size int64) (ImageInfo, error) {
	var info ImageInfo
	err := pdftext.RunIsolated(ctx, "image reader", opProbe, probeRequest{HeadersOnly: true}, r, size, pdftext.Limits{}, &info)
	return info, err
}

// probeRequest is the parameters of opProbe.
type probeRequest struct {
	// HeadersOnly reads the pages' headers without decoding them.
	HeadersOnly bool `json:"headers_only,omitempty"`
}

func probeImage(data []byte, headersOnly bool) (ImageInfo, error) {
	f, err := openImage(data)
	if err != nil {
		return ImageInfo{}, err
	}
	cfgs, err := f.checkAll()
	if err != nil {
		return ImageInfo{}, err
	}
	info := ImageInfo{Media: f.media}
	for i, cfg := range cfgs {
		// Decode each page once: a truncated or corrupt image is refused
		// now, with its cause, not when OCR reads it.
		if !headersOnly {
			if _, err := f.decode(i); err != nil {
				return ImageInfo{}, err
			}
		}
		info.Pages = append(info.Pages, PageSize{Width: cfg.Width, Height: cfg.Height})
	}
	return info, nil
}

// pagesRequest asks a child for page images.
type pagesRequest struct {
	// PDF is true for a PDF, false for an image.
	PDF bool `json:"pdf,omitempty"`
	// Pages are the 1-based pages to make.
	Pages []int `json:"pages"`
	// Dir is where the PNG files go.
	Dir string `json:"dir"`
	// DPI is the resolution of a rendered PDF page that is not a scan.
	DPI int `json:"dpi"`
	// CacheDir keeps PDFium's compiled WebAssembly between children; "" for none.
	CacheDir string `json:"cache_dir,omitempty"`
	// Color keeps the colours (an image to show), rather than grey for OCR.
	Color bool `json:"color,omitempty"`
	// VisionPixels > 0 also writes, for each page that is not blank, the
	// image a vision model reads: grey, scaled down to at most that many
	// pixels (PageImage.VisionFile).
	VisionPixels int `json:"vision_pixels,omitempty"`
	// Scale, if not nil, replaces defaultScale: the benchmark compares rules.
	Scale *scaleRule `json:"scale,omitempty"`
}

// PageImage is one page image a child wrote.
type PageImage struct {
	Page   int     `json:"page"`
	File   string  `json:"file"`
	Width  int     `json:"width"`
	Height int     `json:"height"`
	DPI    float64 `json:"dpi,omitempty"`
	// Density is an image file's own resolution as its header says (0 when
	// it does not), not doubled where the page was enlarged.
	Density float64 `json:"density,omitempty"`
	// Blank: the page is empty paper; OCR need not read it.
	Blank bool `json:"blank,omitempty"`
	// InkLines and InkLineHeight are the lines of text the page's ink
	// suggests and their median height in pixels (inkLines): what
	// readPage checks PP-OCR's reading against.
	InkLines      int `json:"ink_lines,omitempty"`
	InkLineHeight int `json:"ink_line_height,omitempty"`
	// Method says how the image was made: "image" (an image file's page),
	// "scan" (a PDF page whose only content is one image, rendered at that
	// image's own resolution) or "render" (a PDF page rendered at DPI).
	Method string `json:"method"`
	// VisionFile is the page's image for a vision model (a PNG of at most
	// pagesRequest.VisionPixels pixels), when one was asked for.
	VisionFile string `json:"vision_file,omitempty"`
}

// ocrDPI is the resolution to tell the engine: that of a rendered PDF
// page, which is exact, and an image file's own density, as its header
// says, not doubled where the page was enlarged: Tesseract's own estimate
// reads the SROIE receipts worse (docs/benchmarks.md, "Receipts:
// Tesseract settings").
func (pi PageImage) ocrDPI() float64 {
	if pi.Method == "image" {
		return pi.Density
	}
	return pi.DPI
}

type pagesReply struct {
	Images []PageImage `json:"images"`
}

func makePages(data []byte, req pagesRequest) (pagesReply, error) {
	if req.PDF {
		return renderPDF(data, req)
	}
	f, err := openImage(data)
	if err != nil {
		return pagesReply{}, err
	}
	if _, err := f.checkAll(); err != nil {
		return pagesReply{}, err
	}
	rule := defaultScale
	if req.Scale != nil {
		rule = *req.Scale
	}
	// The file's own density, from its header: the same for every page.
	own := density(f.media, f.data)
	var rep pagesReply
	for _, p := range req.Pages {
		if p < 1 || p > f.pages() {
			return pagesReply{}, fmt.Errorf("page %d out of range 1-%d", p, f.pages())
		}
		img, err := f.decode(p - 1)
		if err != nil {
			return pagesReply{}, err
		}
		var out, seen image.Image = img, nil
		dpi := own
		if !req.Color {
			g := grey(img)
			seen = g // a vision model reads the image as it is, not enlarged
			if rule.enlarges(g) {
				g, dpi = rule.enlarge(g), dpi*2
			}
			out = g
		}
		pi, err := writePage(req.Dir, p, out)
		if err != nil {
			return pagesReply{}, err
		}
		if seen != nil && req.VisionPixels > 0 && !pi.Blank {
			if pi.VisionFile, err = writeVisionPage(req.Dir, p, seen, req.VisionPixels); err != nil {
				return pagesReply{}, err
			}
		}
		pi.DPI, pi.Density, pi.Method = dpi, own, "image"
		rep.Images = append(rep.Images, pi)
	}
	return rep, nil
}

// scaleRule is when and how an image file's page is enlarged before OCR:
// a receipt photographed 460 pixels wide has letters of 10 pixels, and
// Tesseract reads letters of 20 and more far better (docs/benchmarks.md).
type scaleRule struct {
	// Below is the width in pixels under which a page is enlarged twice.
	Below int `json:"below"`
	// Kernel interpolates: "mitchell" or "catmull-rom".
	Kernel string `json:"kernel"`
}

// defaultScale enlarges pages narrower than 2,000 pixels (the SROIE
// receipts, 450 to 1,650 pixels wide, read best so), with Mitchell-Netravali
// interpolation, which rings less around strokes than Catmull-Rom (measured
// in docs/benchmarks.md, "Receipts: Tesseract settings").
var defaultScale = scaleRule{Below: 2000, Kernel: "mitchell"}

// enlarges reports whether the rule enlarges g: narrower than Below, and
// within MaxPixels once enlarged.
func (r scaleRule) enlarges(g *image.Gray) bool {
	return g.Rect.Dx() < r.Below && g.Rect.Dx()*g.Rect.Dy()*4 <= MaxPixels
}

// mitchell is the Mitchell-Netravali cubic (B = C = 1/3), the filter
// ImageMagick enlarges with.
var mitchell = &draw.Kernel{Support: 2, At: func(t float64) float64 {
	const b, c = 1.0 / 3, 1.0 / 3
	t = math.Abs(t)
	switch {
	case t < 1:
		return ((12-9*b-6*c)*t*t*t + (-18+12*b+6*c)*t*t + (6 - 2*b)) / 6
	case t < 2:
		return ((-b-6*c)*t*t*t + (6*b+30*c)*t*t + (-12*b-48*c)*t + (8*b + 24*c)) / 6
	}
	return 0
}}

// enlarge doubles a grey image's size, interpolating with the rule's kernel.
func (r scaleRule) enlarge(g *image.Gray) *image.Gray {
	var k draw.Scaler = mitchell
	if r.Kernel == "catmull-rom" {
		k = draw.CatmullRom
	}
	out := image.NewGray(image.Rect(0, 0, 2*g.Rect.Dx(), 2*g.Rect.Dy()))
	k.Scale(out, out.Rect, g, g.Rect, draw.Src, nil)
	return out
}

// writePage writes a page image as PNG, fast rather than small: the file
// lives until OCR has read it.
func writePage(dir string, page int, img image.Image) (PageImage, error) {
	name := filepath.Join(dir, fmt.Sprintf("page-%05d.png", page))
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return PageImage{}, err
	}
	if err := os.WriteFile(name, buf.Bytes(), 0o600); err != nil {
		return PageImage{}, err
	}
	b := img.Bounds()
	pi := PageImage{Page: page, File: name, Width: b.Dx(), Height: b.Dy()}
	if g, ok := img.(*image.Gray); ok {
		ink := pageInk(g)
		pi.Blank = blank(ink, b.Dx())
		if !pi.Blank {
			pi.InkLines, pi.InkLineHeight = inkLines(ink, b.Dx())
		}
	}
	return pi, nil
}

// writeVisionPage writes the image a vision model reads: img scaled down,
// keeping its aspect, to at most maxPixels pixels (fitPixels), as PNG.
func writeVisionPage(dir string, page int, img image.Image, maxPixels int) (string, error) {
	name := filepath.Join(dir, fmt.Sprintf("page-%05d-vision.png", page))
	var buf bytes.Buffer
	if err := png.Encode(&buf, fitPixels(img, maxPixels)); err != nil {
		return "", err
	}
	return name, os.WriteFile(name, buf.Bytes(), 0o600)
}

// fitPixels scales img down, keeping its aspect, to at most maxPixels
// pixels (interpolating, Catmull-Rom); an image within it is returned as
// it is. The result is grey.
func fitPixels(img image.Image, maxPixels int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w*h <= maxPixels {
		return img
	}
	f := math.Sqrt(float64(maxPixels) / float64(w*h))
	nw, nh := max(1, int(float64(w)*f)), max(1, int(float64(h)*f))
	for nw*nh > maxPixels { // rounding
		if nw > nh {
			nw--
		} else {
			nh--
		}
	}
	out := image.NewGray(image.Rect(0, 0, nw, nh))
	draw.CatmullRom.Scale(out, out.Rect, img, b, draw.Src, nil)
	return out
}

// PagePNG returns page (1-based) of a document as a colour PNG, for a
// viewer: a TIFF's page, or a PDF page rendered at dpi. It is made in a
// reader child like every page image.
func PagePNG(ctx context.Context, data []byte, media string, page, dpi int) ([]byte, error) {
	pdf := media == "application/pdf"
	if !pdf && !IsImage(media) {
		return nil, fmt.Errorf("%s has no page images", media)
	}
	dir, err := os.MkdirTemp("", "docent-page-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	req := pagesRequest{PDF: pdf, Pages: []int{page}, Dir: dir, DPI: dpi, CacheDir: wasmCacheDir(), Color: true}
	images, err := runPages(ctx, data, req, pdftext.Limits{})
	if err != nil {
		return nil, err
	}
	if len(images) != 1 {
		return nil, fmt.Errorf("page %d: no image", page)
	}
	return os.ReadFile(images[0].File)
}

// pageImages makes the images of pages (1-based) of a document in a reader
// child, into dir.
func pageImages(ctx context.Context, data []byte, pdf bool, pages []int, dir string, dpi int, lim pdftext.Limits) ([]PageImage, error) {
	return visionPageImages(ctx, data, pdf, pages, dir, dpi, 0, lim)
}

// visionPageImages is pageImages that, with visionPixels > 0, also makes
// the images a vision model reads (PageImage.VisionFile).
func visionPageImages(ctx context.Context, data []byte, pdf bool, pages []int, dir string, dpi, visionPixels int, lim pdftext.Limits) ([]PageImage, error) {
	req := pagesRequest{PDF: pdf, Pages: pages, Dir: dir, DPI: dpi, CacheDir: wasmCacheDir(), VisionPixels: visionPixels}
	return runPages(ctx, data, req, lim)
}

func runPages(ctx context.Context, data []byte, req pagesRequest, lim pdftext.Limits) ([]PageImage, error) {
	var rep pagesReply
	reader := "image reader"
	if req.PDF {
		reader = "pdf renderer"
	}
	if err := pdftext.RunIsolated(ctx, reader, opPages, req, bytes.NewReader(data), int64(len(data)), lim, &rep); err != nil {
		return nil, err
	}
	return rep.Images, nil
}

// wasmCacheDir is where PDFium's compiled WebAssembly is kept, in Docent's
// cache folder beside ONNX Runtime: compiling it takes seconds, loading it
// a tenth of one.
func wasmCacheDir() string {
	dir, err := ort.CacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "wazero")
}
