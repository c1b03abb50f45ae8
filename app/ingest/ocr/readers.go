package ocr

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/docent/docent/app/ingest/ocr/ppocr"
	"github.com/docent/docent/app/ingest/ocr/ppocr/ort"
	"github.com/docent/docent/storage/fault"
)

// Readers says which engine reads which pages in some languages, as
// Settings and `docent ocr` show it; pages record the engine that read
// each (storage.OCRPage.Engine).
type Readers struct {
	// Photos is the engine that reads the pages of image files, PDFPages
	// the one that reads PDF pages (scans, pages without a usable text
	// layer): "ppocr PP-OCRv4 onnxruntime 1.30.0", "tesseract 5.3.0
	// best_int", "tesseract 5.3.0"; "" when no engine is installed.
	Photos   string
	PDFPages string
	// PPOCR is PP-OCR as installed ("ppocr PP-OCRv4 onnxruntime 1.30.0"),
	// "" when its runtime or models are missing or do not load.
	PPOCR string
	// PPOCRFrom says where PP-OCR's runtime and models are read from: a
	// release's bundle beside the program, or the cache ("" when off).
	PPOCRFrom string
	// PPOCRNote says why PP-OCR reads no pages, or which it leaves to
	// Tesseract: its runtime's error, or the languages its dictionary
	// cannot spell. "" when it reads every kind of page.
	PPOCRNote string
}

// EngineReaders is the Readers of the languages langs: PP-OCR for every
// kind of page when it is installed and spells langs (usePPOCR), else
// Tesseract (when installed), whose data differs by kind (pageData).
func EngineReaders(ctx context.Context, langs string, logger *slog.Logger) Readers {
	var r Readers
	tess, terr := FindEngine(ctx)
	pp, perr := findPPOCR(ctx, logger)
	if perr != nil {
		r.PPOCRNote = fault.ErrorMessage(perr)
	} else {
		r.PPOCR, r.PPOCRFrom = pp.Name(), ppocrSource()
	}
	if terr != nil {
		// PP-OCR runs only beside Tesseract, which reads what it cannot.
		if r.PPOCR != "" {
			r.PPOCRNote = "PP-OCR reads only with Tesseract installed, which reads the pages it cannot: " + fault.ErrorMessage(terr)
		}
		return r
	}
	r.Photos, r.PDFPages = tess.NameForPage(langs, "image"), tess.NameForPage(langs, "scan")
	switch {
	case r.PPOCR == "":
	case usePPOCR(langs):
		r.Photos, r.PDFPages = r.PPOCR, r.PPOCR
	default:
		r.PPOCRNote = "Tesseract reads photos and PDF pages: " + ppocrWhyNot(langs)
	}
	return r
}

// ppocrWhyNot says why PP-OCR leaves pages in langs to Tesseract: the
// languages its dictionary cannot spell.
func ppocrWhyNot(langs string) string {
	var other []string
	for _, l := range strings.Split(langs, "+") {
		if !ppocrLangs[l] {
			other = append(other, l)
		}
	}
	return fmt.Sprintf("PP-OCR's dictionary cannot spell %s (it has no ö, ß or €)", strings.Join(other, "+"))
}

// ppocrSource names the runtime and the models PP-OCR loads, as a reader
// child (the same program, with the same environment) finds them.
func ppocrSource() string {
	lib, _, err := ort.Library()
	if err != nil {
		return ""
	}
	models, err := ppocr.InstalledModelsDir()
	if err != nil {
		return ""
	}
	return fmt.Sprintf("ONNX Runtime %s, models %s", lib, models)
}
