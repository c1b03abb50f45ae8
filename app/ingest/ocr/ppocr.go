package ocr

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docent/docent/app/ingest/ocr/ppocr"
	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// PP-OCR (app/ingest/ocr/ppocr) is the second engine: it reads receipt
// photos far better than Tesseract (109 of 119 values against 87 on the
// SROIE receipts, docs/benchmarks.md). It runs in a reader child like
// every decoder here, which loads ONNX Runtime and the models once and
// keeps them while it lives, so that a page costs only its reading.
//
// Which engine reads a page (usePPOCR): PP-OCR reads every page, photos
// and PDF pages rendered or scanned, when the runtime and models are
// installed and every OCR language is one its dictionary spells. Its
// recogniser is PaddleOCR's Chinese one, which has a–z, A–Z and 0–9 but no
// ö, Ä, Ö, ß or €: with German among the languages (deu+eng, a German
// locale's default), Tesseract reads. A page PP-OCR fails on (a detection
// of thousands of boxes, a child out of memory) is read by Tesseract,
// with a note that says why.
//
// Without Tesseract (the Windows download carries PP-OCR's runtime and
// models, not Tesseract) PP-OCR reads alone, in every language: where
// Tesseract would have read a page too (small print PP-OCR missed, a page
// in another language, a language PP-OCR cannot spell), the page keeps
// PP-OCR's reading with a note that says what Tesseract would do and how
// to install it; a page PP-OCR fails on fails the document, saying so
// (findReaders).

// opPPOCR reads one page of an image file with PP-OCR; a probe only loads
// the engine.
const opPPOCR = "ocr.ppocr"

// PPOCRMemoryBytes is the memory limit of the reader children that run
// PP-OCR, in place of the 1 GiB of the others. ONNX Runtime allocates
// outside Go's heap, and the limit is on address space (RLIMIT_AS, the
// runtime's base plus the limit), which bounds it all the same. Under
// 1 GiB a child read all 40 SROIE receipts, but with little room: most
// left it at 230 MB resident, the largest took it to 713 MB
// (docs/benchmarks.md); and a page of 100 megapixels (MaxPixels) is
// decoded and then copied to RGBA for detection, 400 MB more. A child
// also keeps what it holds between pages (PPOCRRetain), hence 2 GiB. A
// limit of its own also gives PP-OCR children of their own (children
// are pooled by limit), so that the engine they keep loaded never takes
// from what a PDF reader child may use.
const PPOCRMemoryBytes = 2 << 30

// PPOCRRetain is how much a PP-OCR reader child may hold after a page
// and still read the next (pdftext.Limits.Retain). With the models loaded
// a child stays at 200-420 MB resident and uses 150-600 MB of address
// space, past the pool's rule for other children (256 MB, a quarter of
// the limit), which retired it after nearly every page, so that the next
// loaded the models again. 768 MB leaves a child at least 1.25 GiB of
// its limit for the next page, more than a fresh child had under the
// 1.5 GiB limit before.
const PPOCRRetain = 768 << 20

// ppocrLimits are the limits of a request to a PP-OCR reader child.
func ppocrLimits(timeout time.Duration) pdftext.Limits {
	return pdftext.Limits{Timeout: timeout, MemoryBytes: PPOCRMemoryBytes, Retain: PPOCRRetain}
}

// ppocrLangs are the OCR languages PP-OCR's dictionary spells.
var ppocrLangs = map[string]bool{"eng": true}

// NotePPOCRFailed starts the note of a page PP-OCR could not read, which
// Tesseract then read.
const NotePPOCRFailed = "PP-OCR failed"

func init() {
	pdftext.RegisterChildOp(opPPOCR, func(ctx context.Context, params json.RawMessage, data []byte) (any, error) {
		var req ppocrRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, err
		}
		return readPPOCR(ctx, data, req)
	})
}

type ppocrRequest struct {
	// Probe only loads the engine and says its version.
	Probe bool `json:"probe,omitempty"`
	// Page is the 1-based page of the image file sent.
	Page int `json:"page,omitempty"`
}

type ppocrReply struct {
	// Runtime is ONNX Runtime's version, "1.30.0".
	Runtime string            `json:"runtime"`
	Text    string            `json:"text,omitempty"`
	Words   storage.PageWords `json:"words"`
	Lines   int               `json:"lines,omitempty"`
	// Loaded: the child loaded the runtime and models for this request
	// (its first, or the first after a load that failed).
	Loaded bool `json:"loaded,omitempty"`
}

// ppocrLoads counts the replies of PP-OCR children that loaded the
// models: pages per load is what keeping a child alive saves.
var ppocrLoads atomic.Int64

// childPPOCR is the engine a reader child loaded, kept while it lives.
// A load that failed is tried again at the next request: the runtime may
// have been installed since.
var childPPOCR struct {
	sync.Mutex
	e *ppocr.Engine
}

// loadPPOCR is the child's engine, and whether this call loaded it.
func loadPPOCR() (*ppocr.Engine, bool, error) {
	childPPOCR.Lock()
	defer childPPOCR.Unlock()
	if childPPOCR.e != nil {
		return childPPOCR.e, false, nil
	}
	e, err := ppocr.Open()
	if err != nil {
		return nil, false, err
	}
	childPPOCR.e = e
	return e, true, nil
}

// readPPOCR runs in a reader child: it decodes the page of the image file
// data as the page images are decoded (checked against the limits, turned
// upright by its EXIF orientation) and reads it, in colour and at its own
// size: detection scales it itself (ppocr.MaxSide).
func readPPOCR(ctx context.Context, data []byte, req ppocrRequest) (ppocrReply, error) {
	e, loaded, err := loadPPOCR()
	if err != nil {
		return ppocrReply{}, err
	}
	if req.Probe {
		return ppocrReply{Runtime: e.Runtime(), Loaded: loaded}, nil
	}
	// The page's images (decoded, in colour, scaled for detection: tens
	// to hundreds of MB) are garbage once it is read; given back now, the
	// child stays small enough to read the next page with the models it
	// has loaded (PPOCRRetain), where a reader child's lazy collection
	// left it at 650-780 MB after a dozen receipts, and retired.
	defer debug.FreeOSMemory()
	f, err := openImage(data)
	if err != nil {
		return ppocrReply{}, err
	}
	if _, err := f.checkAll(); err != nil {
		return ppocrReply{}, err
	}
	if req.Page < 1 || req.Page > f.pages() {
		return ppocrReply{}, fmt.Errorf("page %d out of range 1-%d", req.Page, f.pages())
	}
	img, err := f.decode(req.Page - 1)
	if err != nil {
		return ppocrReply{}, err
	}
	page, err := e.Read(ctx, img)
	if err != nil {
		return ppocrReply{}, err
	}
	return ppocrReply{Runtime: e.Runtime(), Text: page.Text, Words: page.Words, Lines: page.Lines, Loaded: loaded}, nil
}

// ppocrEngine is PP-OCR as a reader child loaded it.
type ppocrEngine struct {
	// Runtime is ONNX Runtime's version.
	Runtime string
}

// Name is the engine as pages record it: "ppocr PP-OCRv4 onnxruntime 1.30.0".
func (p *ppocrEngine) Name() string { return "ppocr PP-OCRv4 onnxruntime " + p.Runtime }

var (
	ppocrMu     sync.Mutex
	ppocrCache  *ppocrEngine
	ppocrErr    error
	ppocrAt     time.Time
	ppocrLogged string
)

// findPPOCR asks a reader child to load PP-OCR, and returns it, or nil
// when it cannot be loaded (not installed, a library that does not load,
// a model that is not the pinned one): Tesseract then reads, and the cause
// is logged once, and again when it changes. The answer is kept for a
// minute, as FindEngine's is.
func findPPOCR(ctx context.Context, logger *slog.Logger) (*ppocrEngine, error) {
	ppocrMu.Lock()
	defer ppocrMu.Unlock()
	if !ppocrAt.IsZero() && time.Since(ppocrAt) < time.Minute {
		return ppocrCache, ppocrErr
	}
	var rep ppocrReply
	err := pdftext.RunIsolated(ctx, "PP-OCR reader", opPPOCR, ppocrRequest{Probe: true}, bytes.NewReader(nil), 0,
		ppocrLimits(0), &rep)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if logger == nil {
		logger = slog.Default()
	}
	ppocrCache, ppocrErr, ppocrAt = nil, nil, time.Now()
	if rep.Loaded {
		ppocrLoads.Add(1)
	}
	if err != nil {
		ppocrErr = fault.Errorf(fault.Unavailable, "PP-OCR is off, Tesseract reads every page: %v", err)
		if msg := err.Error(); msg != ppocrLogged {
			logger.Warn("PP-OCR is off: Tesseract reads every page", "reason", msg)
			ppocrLogged = msg
		}
		return nil, ppocrErr
	}
	ppocrCache = &ppocrEngine{Runtime: rep.Runtime}
	if ppocrLogged != "on" {
		logger.Info("PP-OCR reads pages in English", "engine", ppocrCache.Name())
		ppocrLogged = "on"
	}
	return ppocrCache, nil
}

// forgetPPOCR drops the cached answer of findPPOCR.
func forgetPPOCR() {
	ppocrMu.Lock()
	ppocrAt = time.Time{}
	ppocrMu.Unlock()
}

func (o Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

// usePPOCR says whether PP-OCR reads pages in the languages langs: any
// page, a photo or a PDF page rendered or scanned, in languages its
// dictionary spells. On the SROIE receipts it reads 109 values of 119
// against Tesseract's 87; on the corpus invoices rendered to images and
// read in English, it finds 1,520 of 1,628 text-layer values at 200 dpi
// against Tesseract's 1,511 at 300 dpi, at three times the CPU
// (docs/benchmarks.md, "OCR: rendered invoices").
func usePPOCR(langs string) bool {
	for _, l := range strings.Split(langs, "+") {
		if !ppocrLangs[l] {
			return false
		}
	}
	return true
}

// Read reads page (1-based) of the image file data in a PP-OCR reader
// child, within lim's time (PageTimeout when 0) and PPOCRMemoryBytes.
func (p *ppocrEngine) Read(ctx context.Context, data []byte, page int, timeout time.Duration) (ppocrReply, error) {
	if timeout <= 0 {
		timeout = PageTimeout
	}
	var rep ppocrReply
	err := pdftext.RunIsolated(ctx, "PP-OCR reader", opPPOCR, ppocrRequest{Page: page}, bytes.NewReader(data), int64(len(data)),
		ppocrLimits(timeout), &rep)
	if rep.Loaded {
		ppocrLoads.Add(1)
	}
	return rep, err
}
