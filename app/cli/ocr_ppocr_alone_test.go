package cli

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/app/ingest/ocr/ppocr"
	"github.com/docent/docent/app/ingest/ocr/ppocr/ort"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// needPPOCRCLI skips a test without the ONNX Runtime and PP-OCR's
// models, except in CI, which must have them.
func needPPOCRCLI(t *testing.T) {
	t.Helper()
	e, err := ppocr.Open()
	if err != nil {
		if os.Getenv("CI") != "true" && (errors.Is(err, ort.ErrNotInstalled) || errors.Is(err, ppocr.ErrModelsMissing)) {
			t.Skipf("skipping: %v (scripts/test installs it)", err)
		}
		t.Fatalf("PP-OCR: %v", err)
	}
	e.Close()
}

// TestPPOCRReadsWithoutTesseractEndToEnd: with no tesseract on PATH, as
// on Windows with Docent's download alone, `docent import` reads a
// receipt photo with PP-OCR in English, `docent ocr --json` reads it
// again and names PP-OCR for photos and PDF pages, and `docent models`
// says PP-OCR reads them and that Tesseract is not installed, with how
// to add it; in deu+eng, `docent import` reads with PP-OCR too, and the
// page's note says Tesseract is needed for deu and how to install it.
func TestPPOCRReadsWithoutTesseractEndToEnd(t *testing.T) {
	corpus := testcorpus.Dir(t)
	needPPOCRCLI(t)
	t.Setenv("PATH", t.TempDir())
	t.Setenv("DOCENT_OCR_LANG", "eng")
	data, err := os.ReadFile(filepath.Join(corpus, "sroie", "000.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	receipt := filepath.Join(t.TempDir(), "receipt.jpg")
	if err := os.WriteFile(receipt, data, 0o644); err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()

	code, out, errOut := docent(t, dataDir, "import", "--json", receipt)
	var rep importReport
	if code != ExitOK || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Documents) != 1 {
		t.Fatalf("import: exit %d: %s %s", code, out, errOut)
	}
	id := rep.Documents[0].ID
	if d := rep.Documents[0]; d.Status != storage.StatusReady {
		t.Fatalf("imported receipt: %s %q; stderr %s", d.Status, d.Error, errOut)
	}
	if d := onlyPageDetail(t, dataDir, id); !strings.HasPrefix(d.Engine, "ppocr ") {
		t.Errorf("imported receipt read by %q", d.Engine)
	}

	code, out, errOut = docent(t, dataDir, "ocr", "--json", id)
	var ocrRep ocrReport
	if code != ExitOK || json.Unmarshal([]byte(out), &ocrRep) != nil || len(ocrRep.Documents) != 1 {
		t.Fatalf("ocr: exit %d: %s %s", code, out, errOut)
	}
	if ocrRep.Engine != "" || !strings.HasPrefix(ocrRep.PhotoEngine, "ppocr ") || ocrRep.PDFEngine != ocrRep.PhotoEngine ||
		ocrRep.Documents[0].Status != storage.StatusReady || !strings.Contains(errOut, "with "+ocrRep.PhotoEngine) {
		t.Errorf("ocr report %s; stderr %s", out, errOut)
	}

	code, out, errOut = docent(t, dataDir, "models", "--json")
	var list modelList
	if json.Unmarshal([]byte(out), &list) != nil {
		t.Fatalf("models: exit %d: %s %s", code, out, errOut)
	}
	if o := list.OCR; !strings.HasPrefix(o.PhotoEngine, "ppocr ") || o.PDFEngine != o.PhotoEngine ||
		!strings.Contains(o.PPOCRNote, "Tesseract is not installed") || !strings.Contains(o.PPOCRNote, "sudo apt-get install tesseract-ocr") {
		t.Errorf("models' OCR: %+v", o)
	}
	if !strings.Contains(errOut, "photos and PDF pages are read by ppocr ") || !strings.Contains(errOut, "Tesseract is not installed") {
		t.Errorf("models' stderr %q", errOut)
	}

	// Another receipt, imported in deu+eng (OCR again of the first would
	// keep its first reading, as a text layer is kept).
	data, err = os.ReadFile(filepath.Join(corpus, "sroie", "001.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	receipt = filepath.Join(t.TempDir(), "beleg.jpg")
	if err := os.WriteFile(receipt, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCENT_OCR_LANG", "deu+eng")
	code, out, errOut = docent(t, dataDir, "import", "--json", receipt)
	rep = importReport{}
	if code != ExitOK || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Documents) != 1 || rep.Documents[0].Status != storage.StatusReady {
		t.Fatalf("import in deu+eng: exit %d: %s %s", code, out, errOut)
	}
	if d := onlyPageDetail(t, dataDir, rep.Documents[0].ID); !strings.HasPrefix(d.Engine, "ppocr ") || !strings.Contains(d.Note, "sudo apt-get install tesseract-ocr tesseract-ocr-deu") {
		t.Errorf("ocr in deu+eng: page read by %q, note %q; want PP-OCR, and how to add Tesseract for deu", d.Engine, d.Note)
	}
}
