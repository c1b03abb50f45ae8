package ocr

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// readAsImport reads pages of a document (data, a PDF when pdf) as
// docent import's OCR run reads them (read): page images made as it makes
// them (pageImaging), read together by readPages in lang, as one batch,
// with PP-OCR where it is installed and spells lang. A PDF's pages are
// rendered at RenderDPI, as a page without a text layer is.
func readAsImport(ctx context.Context, tb testing.TB, engine *Engine, lang string, data []byte, pdf bool, pages []int) ([]storage.OCRPage, error) {
	var pp *ppocrEngine
	if usePPOCR(lang) {
		pp, _ = findPPOCR(ctx, nil)
	}
	dir := tb.TempDir()
	lim, scale, tesseractImage := pageImaging(ctx, data, pdf, pp, dir, pdftext.Limits{})
	imgs, err := runPages(ctx, data, pagesRequest{PDF: pdf, Pages: pages, Dir: dir, DPI: RenderDPI, CacheDir: wasmCacheDir(), Scale: scale}, lim)
	if err != nil {
		return nil, err
	}
	return readPages(ctx, engine, pp, lang, imgs, data, nil, tesseractImage, Options{}, &docLang{}, nil)
}

// englishPDFs are the corpus's English PDFs that OCR reads (a scan) or
// the rendered-invoice benchmark renders: MANIFEST.tsv names the
// language of the others in its notes (German, French, Dutch), and these
// were read to be English.
var englishPDFs = []string{
	"invoice2data/AmazonWebServices.pdf",
	"invoice2data/AzureInterior.pdf",
	"invoice2data/ENVATO.pdf",
	"invoice2data/FlipkartInvoice.pdf",
	"invoice2data/SammyMaystoneLinesTest.pdf",
	"invoice2data/oyo.pdf",
}

// TestEnglishPagesAreNotReadAgain: every English receipt photo of the
// corpus (the 40 of sroie/) and every English PDF it renders, read as
// docent import reads them in eng with every language's data installed,
// keeps its first reading in eng: none is taken for another language
// and read again (17 of the 40 receipts once were, in fra+eng,
// and read worse).
func TestEnglishPagesAreNotReadAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 40 photos and the English PDFs")
	}
	needTesseract(t)
	ctx := context.Background()
	forgetEngine()
	t.Cleanup(forgetEngine)
	engine, err := FindEngine(ctx)
	if err != nil {
		t.Fatal(err)
	}
	needLangs(t, engine, "deu+fra+spa+ita+nld")
	forgetPPOCR()
	t.Cleanup(forgetPPOCR)
	dir := testcorpus.Dir(t)
	photos, _ := filepath.Glob(filepath.Join(dir, "sroie", "*.jpg"))
	if len(photos) != 40 {
		t.Fatalf("%d receipt photos in the corpus, want 40", len(photos))
	}
	check := func(name string, pages []storage.OCRPage, err error) {
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		for _, p := range pages {
			if p.Lang != "eng" || strings.Contains(p.Note, NoteReadInLang) {
				t.Errorf("%s page %d: read by %q in %q, note %q: want its first reading, in eng", name, p.Page, p.Engine, p.Lang, p.Note)
			}
		}
	}
	for _, f := range photos {
		data := corpusFile(t, filepath.Join("sroie", filepath.Base(f)))
		pages, err := readAsImport(ctx, t, engine, "eng", data, false, []int{1})
		check(filepath.Base(f), pages, err)
	}
	_, entries := testcorpus.Manifest(t)
	count := map[string]int{}
	for _, e := range entries {
		count[e.File] = e.Pages
	}
	for _, name := range englishPDFs {
		var which []int
		for p := range min(count[name], 3) { // the pages the benchmark renders
			which = append(which, p+1)
		}
		pages, err := readAsImport(ctx, t, engine, "eng", corpusFile(t, name), true, which)
		check(name, pages, err)
	}
}
