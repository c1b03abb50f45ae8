package app

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

func needTesseractCLI(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tesseract"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("tesseract is required in CI: %v", err)
		}
		t.Skip("skipping: tesseract is not installed (sudo apt-get install tesseract-ocr)")
	}
}

// TestImportReceiptPhotoReadsItWithOCR is the issue's own case: `docent
// import receipt.jpg` gives a ready document whose text is the receipt's;
// `docent ocr` reads it again, and --no-ocr leaves a scan waiting.
func TestImportReceiptPhotoReadsItWithOCR(t *testing.T) {
	corpus := testcorpus.Dir(t)
	needTesseractCLI(t)
	dir := t.TempDir()
	receipt := filepath.Join(dir, "receipt.jpg")
	data, err := os.ReadFile(filepath.Join(corpus, "sroie", "000.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(receipt, data, 0o644)
	scan := filepath.Join(corpus, "invoice2data", "Amazon_EU_2014-06-04.pdf")
	dataDir := t.TempDir()

	code, out, errOut := docent(t, dataDir, "import", "--json", "--lang", "eng", receipt)
	if code != ExitOK {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	var rep importReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Documents) != 1 {
		t.Fatalf("import report %s: %v", out, err)
	}
	d := rep.Documents[0]
	if d.Status != storage.StatusReady || d.MediaType != "image/jpeg" || d.Pages != 1 {
		t.Fatalf("imported receipt: %+v; stderr %s", d, errOut)
	}
	code, text, _ := docent(t, dataDir, "text", d.ID)
	if code != ExitOK || !strings.Contains(strings.ToUpper(text), "TOTAL") {
		t.Fatalf("text of the receipt: %q", text)
	}

	code, _, errOut = docent(t, dataDir, "import", "--no-ocr", scan)
	if code != ExitOK || !strings.Contains(errOut, "needs OCR") {
		t.Fatalf("import --no-ocr: exit %d: %s", code, errOut)
	}
	code, out, errOut = docent(t, dataDir, "ocr", "--all", "--lang", "eng", "--json")
	if code != ExitOK {
		t.Fatalf("ocr --all: exit %d: %s", code, errOut)
	}
	var ocrRep ocrReport
	if err := json.Unmarshal([]byte(out), &ocrRep); err != nil || len(ocrRep.Documents) != 2 || ocrRep.Lang != "eng" ||
		!strings.HasPrefix(ocrRep.Engine, "tesseract ") {
		t.Fatalf("ocr report %s: %v", out, err)
	}
	for _, d := range ocrRep.Documents {
		if d.Status != storage.StatusReady {
			t.Errorf("%s after docent ocr: %s %q", d.Name, d.Status, d.Error)
		}
	}
	if code, _, errOut := docent(t, dataDir, "ocr", "--lang", "no such", d.ID); code != ExitUsage {
		t.Errorf("ocr with a bad --lang: exit %d: %s", code, errOut)
	}
}
