package ocr

import (
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"strings"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/docent/docent/app/ingest/pdftext"
)

// PDF pages are rendered by PDFium compiled to WebAssembly and run by
// wazero, in pure Go (go-pdfium's webassembly mode; the module ships inside
// the Go module, so nothing is installed and the binary stays one file).
// It runs in a reader child like every decoder. docs/benchmarks.md has
// the measurements behind this choice.

// Resolutions of rendered pages.
const (
	// RenderDPI renders a page that is neither text nor one image.
	RenderDPI = 200
	// A page whose only content is one image (a scan) is rendered at that
	// image's own resolution, within these bounds: nothing of the scan is
	// lost, and a low-resolution fax is enlarged to what OCR reads well.
	minScanDPI = 150
	maxScanDPI = 400
)

func openPDFium(cacheDir string) (pdfium.Pool, pdfium.Pdfium, error) {
	cfg := webassembly.Config{MinIdle: 1, MaxIdle: 1, MaxTotal: 1, Stdout: os.Stderr}
	rc := wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling)
	if cacheDir != "" {
		if err := os.MkdirAll(cacheDir, 0o700); err == nil {
			if cache, err := wazero.NewCompilationCacheWithDir(cacheDir); err == nil {
				rc = rc.WithCompilationCache(cache)
			}
		}
	}
	cfg.RuntimeConfig = rc
	pool, err := webassembly.Init(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("starting PDFium: %w", err)
	}
	inst, err := pool.GetInstance(time.Minute)
	if err != nil {
		pool.Close()
		return nil, nil, fmt.Errorf("starting PDFium: %w", err)
	}
	return pool, inst, nil
}

func renderPDF(data []byte, req pagesRequest) (pagesReply, error) {
	pool, inst, err := openPDFium(req.CacheDir)
	if err != nil {
		return pagesReply{}, err
	}
	defer pool.Close()
	defer inst.Close()
	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		if strings.Contains(strings.ToLower(err.Error()), "password") {
			return pagesReply{}, fmt.Errorf("%w: OCR cannot open the file without its password", pdftext.ErrPasswordRequired)
		}
		return pagesReply{}, fmt.Errorf("%w: PDFium cannot open it: %v", pdftext.ErrMalformed, err)
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return pagesReply{}, fmt.Errorf("%w: %v", pdftext.ErrMalformed, err)
	}
	var rep pagesReply
	for _, p := range req.Pages {
		if p < 1 || p > count.PageCount {
			return pagesReply{}, fmt.Errorf("page %d out of range 1-%d", p, count.PageCount)
		}
		pi, err := renderPDFPage(inst, doc.Document, p, req)
		if err != nil {
			return pagesReply{}, fmt.Errorf("page %d: %w", p, err)
		}
		rep.Images = append(rep.Images, pi)
	}
	return rep, nil
}

func renderPDFPage(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, p int, req pagesRequest) (PageImage, error) {
	loaded, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: p - 1})
	if err != nil {
		return PageImage{}, fmt.Errorf("%w: %v", pdftext.ErrMalformed, err)
	}
	page := requests.Page{ByReference: &loaded.Page}
	defer inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: loaded.Page})

	dpi, method := float64(req.DPI), "render"
	if d, ok := scanDPI(inst, page); ok {
		dpi, method = d, "scan"
	}
	if dpi <= 0 {
		dpi = RenderDPI
	}
	w, errW := inst.FPDF_GetPageWidthF(&requests.FPDF_GetPageWidthF{Page: page})
	h, errH := inst.FPDF_GetPageHeightF(&requests.FPDF_GetPageHeightF{Page: page})
	if err := errors.Join(errW, errH); err != nil {
		return PageImage{}, fmt.Errorf("%w: %v", pdftext.ErrMalformed, err)
	}
	// A huge page at this resolution would be a bomb of its own: lower the
	// resolution until it fits.
	px := float64(w.PageWidth) / 72 * dpi * float64(h.PageHeight) / 72 * dpi
	if px > MaxPixels {
		dpi *= math.Sqrt(MaxPixels / px)
	}
	if dpi < 1 || w.PageWidth <= 0 || h.PageHeight <= 0 {
		return PageImage{}, fmt.Errorf("%w: page size %.0f×%.0f points cannot be rendered", pdftext.ErrMalformed, w.PageWidth, h.PageHeight)
	}
	format := requests.RenderImageFormatGrayscale
	if req.Color {
		format = requests.RenderImageFormatRGBA
	}
	r, err := inst.RenderPageInDPI(&requests.RenderPageInDPI{
		Page: page, DPI: int(math.Round(dpi)), ImageFormat: format,
		RenderFlags: enums.FPDF_RENDER_FLAG_ANNOT,
	})
	if err != nil {
		return PageImage{}, fmt.Errorf("rendering: %w", err)
	}
	defer r.Cleanup()
	var img image.Image = r.Result.RenderedImage
	if rgba, ok := img.(*image.RGBA); ok {
		img = flatten(rgba)
	}
	pi, err := writePage(req.Dir, p, img)
	if err != nil {
		return PageImage{}, err
	}
	if req.VisionPixels > 0 && !req.Color && !pi.Blank {
		if pi.VisionFile, err = writeVisionPage(req.Dir, p, img, req.VisionPixels); err != nil {
			return PageImage{}, err
		}
	}
	pi.DPI, pi.Method = math.Round(dpi), method
	return pi, nil
}

// scanDPI returns the resolution at which a page whose only content is
// one image (besides text objects: the invisible text of an OCR layer)
// shows that image pixel for pixel.
func scanDPI(inst pdfium.Pdfium, page requests.Page) (float64, bool) {
	n, err := inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: page})
	if err != nil || n.Count == 0 || n.Count > 10_000 {
		return 0, false
	}
	var img *references.FPDF_PAGEOBJECT
	for i := range n.Count {
		o, err := inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: page, Index: i})
		if err != nil {
			return 0, false
		}
		t, err := inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: o.PageObject})
		if err != nil {
			return 0, false
		}
		switch t.Type {
		case enums.FPDF_PAGEOBJ_TEXT:
		case enums.FPDF_PAGEOBJ_IMAGE:
			if img != nil {
				return 0, false
			}
			obj := o.PageObject
			img = &obj
		default:
			return 0, false
		}
	}
	if img == nil {
		return 0, false
	}
	size, err := inst.FPDFImageObj_GetImagePixelSize(&requests.FPDFImageObj_GetImagePixelSize{ImageObject: *img})
	if err != nil {
		return 0, false
	}
	b, err := inst.FPDFPageObj_GetBounds(&requests.FPDFPageObj_GetBounds{PageObject: *img})
	if err != nil {
		return 0, false
	}
	area := float64(b.Right-b.Left) * float64(b.Top-b.Bottom) / (72 * 72) // square inches
	if area <= 0 || size.Width == 0 || size.Height == 0 {
		return 0, false
	}
	dpi := math.Sqrt(float64(size.Width) * float64(size.Height) / area)
	return min(max(dpi, minScanDPI), maxScanDPI), true
}

// flatten puts a rendering's transparent background on white paper.
func flatten(img *image.RGBA) *image.RGBA {
	for i := 0; i+3 < len(img.Pix); i += 4 {
		if a := img.Pix[i+3]; a < 255 {
			for c := range 3 {
				img.Pix[i+c] = uint8(min(255, int(img.Pix[i+c])+255-int(a))) // premultiplied: over white
			}
			img.Pix[i+3] = 255
		}
	}
	return img
}
