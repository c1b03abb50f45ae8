package ocr

import (
	"context"
	"errors"
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
	// cannot spell; without Tesseract, what Tesseract would add and how
	// to install it. "" when it reads every kind of page beside Tesseract.
	PPOCRNote string
}

// EngineReaders is the Readers of the languages langs: PP-OCR for every
// kind of page when it is installed and spells langs (usePPOCR), else
// Tesseract (when installed), whose data differs by kind (pageData).
// Without Tesseract, PP-OCR reads alone in every language, and the note
// says what Tesseract would add and how to install it.
func EngineReaders(ctx context.Context, langs string, logger *slog.Logger) Readers {
	var r Readers
	tess, terr := FindEngine(ctx)
	pp, perr := findPPOCR(ctx, logger)
	if perr != nil {
		r.PPOCRNote = fault.ErrorMessage(perr)
	} else {
		r.PPOCR, r.PPOCRFrom = pp.Name(), ppocrSource()
	}
	switch {
	case terr != nil && r.PPOCR == "":
		return r
	case terr != nil:
		r.Photos, r.PDFPages = r.PPOCR, r.PPOCR
		r.PPOCRNote = ppocrAlone(langs)
		if usePPOCR(langs) {
			r.PPOCRNote = "Tesseract is not installed, which would add other languages than English and read again the pages " +
				"PP-OCR fails on or misses small print of: " + installHint(nil)
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

// findReaders finds what reads pages in lang ("eng", as ParseLang gives
// it): Tesseract with lang's data, nil when it is not installed, and
// PP-OCR when it is installed and spells lang, else nil. Without
// Tesseract, PP-OCR reads alone in any language; with neither it nor a
// vision model (vision) the error, unavailable, says what to install.
func findReaders(ctx context.Context, lang string, vision bool, logger *slog.Logger) (*Engine, *ppocrEngine, error) {
	engine, terr := FindEngine(ctx)
	if terr != nil && !errors.Is(terr, fault.Unavailable) {
		return nil, nil, terr
	}
	if terr == nil {
		if err := engine.CheckLangs(lang); err != nil {
			return nil, nil, err
		}
	}
	// Without Tesseract, PP-OCR reads also the languages it cannot spell
	// fully, each page saying so (ppocrAlone): text without its ö and €
	// is worth more than none to a user who has only the download. A
	// vision model then reads the pages it wants, as beside Tesseract.
	var pp *ppocrEngine
	if usePPOCR(lang) || engine == nil {
		pp, _ = findPPOCR(ctx, logger)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if engine != nil || pp != nil || vision {
		return engine, pp, nil
	}
	// PP-OCR is off: its cause is logged and shown in Settings.
	return nil, nil, terr
}

// Ready checks that pages in lang ("deu+eng") can be read, as an OCR
// run reads them (findReaders): it returns Tesseract, nil when PP-OCR or
// the vision model (vision) reads without it, or an unavailable error
// that says what to install.
func Ready(ctx context.Context, lang string, vision bool, logger *slog.Logger) (*Engine, error) {
	lang, err := ParseLang(lang)
	if err != nil {
		return nil, err
	}
	e, _, err := findReaders(ctx, lang, vision, logger)
	return e, err
}

// ppocrAlone is the note of a page in langs, which PP-OCR cannot spell
// fully, that PP-OCR read without Tesseract: the letters it lacks, and
// how to install Tesseract with the languages' data.
func ppocrAlone(langs string) string {
	return fmt.Sprintf("PP-OCR reads every page, but %s, and Tesseract, which can, is not installed: %s, then read the documents again",
		ppocrWhyNot(langs), installHint(ppocrCannotSpell(langs)))
}

// ppocrWhyNot says why PP-OCR leaves pages in langs to Tesseract: the
// languages its dictionary cannot spell.
func ppocrWhyNot(langs string) string {
	return fmt.Sprintf("PP-OCR's dictionary cannot spell %s (it has no ö, ß or €)", strings.Join(ppocrCannotSpell(langs), "+"))
}

// ppocrCannotSpell are the languages of langs PP-OCR's dictionary cannot
// spell.
func ppocrCannotSpell(langs string) []string {
	var other []string
	for _, l := range strings.Split(langs, "+") {
		if !ppocrLangs[l] {
			other = append(other, l)
		}
	}
	return other
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
