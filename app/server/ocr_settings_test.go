package server_test

import (
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/docent/docent/app/ingest/ocr/ppocr"
)

// The OCR languages are a setting: saved, used, refused when their data is
// not installed, and "" goes back to the default.
func TestOCRLanguagesSetting(t *testing.T) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("tesseract is required in CI: %v", err)
		}
		t.Skip("skipping: tesseract is not installed (sudo apt-get install tesseract-ocr)")
	}
	t.Setenv("DOCENT_OCR_LANG", "eng")
	f := newFixture(t)
	type settings struct {
		Lang, Saved, Default, Engine string
		Installed                    []string
	}
	var got settings
	f.call(http.MethodGet, "/api/settings/ocr", nil, http.StatusOK, &got)
	if got.Lang != "eng" || got.Saved != "" || got.Default != "eng" || got.Engine == "" || len(got.Installed) == 0 {
		t.Fatalf("before saving: %+v", got)
	}
	f.call(http.MethodPut, "/api/settings/ocr", map[string]string{"lang": "deu+eng"}, http.StatusOK, &got)
	if got.Lang != "deu+eng" || got.Saved != "deu+eng" {
		t.Errorf("saved deu+eng: %+v", got)
	}
	f.wantError(http.MethodPut, "/api/settings/ocr", map[string]string{"lang": "zzz"}, http.StatusBadRequest, "invalid")
	f.call(http.MethodPut, "/api/settings/ocr", map[string]string{"lang": ""}, http.StatusOK, &got)
	if got.Lang != "eng" || got.Saved != "" {
		t.Errorf("cleared: %+v", got)
	}
}

// TestOCRSettingsSayWhichEngineReads: GET and PUT /api/settings/ocr say
// which engine reads photos and which PDF pages, and whether PP-OCR is
// installed and why it reads no pages or leaves some to Tesseract: with
// English, PP-OCR (when installed) reads both; with German among the
// languages, Tesseract does, and the note names the language.
func TestOCRSettingsSayWhichEngineReads(t *testing.T) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("tesseract is required in CI: %v", err)
		}
		t.Skip("skipping: tesseract is not installed (sudo apt-get install tesseract-ocr)")
	}
	t.Setenv("DOCENT_OCR_LANG", "eng")
	f := newFixture(t)
	type settings struct {
		Engine      string
		PhotoEngine string `json:"photo_engine"`
		PDFEngine   string `json:"pdf_engine"`
		PPOCR       string `json:"ppocr"`
		PPOCRNote   string `json:"ppocr_note"`
	}
	var got settings
	f.call(http.MethodGet, "/api/settings/ocr", nil, http.StatusOK, &got)
	t.Logf("eng: %+v", got)
	switch {
	case got.Engine == "":
		t.Fatalf("no engine: %+v", got)
	case got.PPOCR == "":
		if got.PPOCRNote == "" || !strings.HasPrefix(got.PhotoEngine, got.Engine) || !strings.HasPrefix(got.PDFEngine, got.Engine) {
			t.Errorf("PP-OCR off: %+v, want Tesseract reading every page and a note saying why", got)
		}
	case got.PhotoEngine != got.PPOCR || got.PDFEngine != got.PPOCR || !strings.HasPrefix(got.PPOCR, "ppocr ") || got.PPOCRNote != "":
		t.Errorf("PP-OCR installed: %+v, want it reading photos and PDF pages in English", got)
	}
	f.call(http.MethodPut, "/api/settings/ocr", map[string]string{"lang": "deu+eng"}, http.StatusOK, &got)
	t.Logf("deu+eng: %+v", got)
	if !strings.HasPrefix(got.PhotoEngine, got.Engine) || !strings.HasPrefix(got.PDFEngine, got.Engine) {
		t.Errorf("deu+eng: photos read by %q, PDF pages by %q, want %s", got.PhotoEngine, got.PDFEngine, got.Engine)
	}
	if got.PPOCR != "" && !strings.Contains(got.PPOCRNote, "deu") {
		t.Errorf("deu+eng: PP-OCR's note %q does not name deu", got.PPOCRNote)
	}
}

// TestOCRSettingsWithoutTesseract: with no tesseract on PATH, as on
// Windows with Docent's download alone, GET /api/settings/ocr says PP-OCR
// reads photos and PDF pages in English, with no error, and that
// Tesseract is not installed, with how to add it; in deu+eng, that
// PP-OCR reads without ö, ß or €, and how to add Tesseract for deu.
func TestOCRSettingsWithoutTesseract(t *testing.T) {
	if e, err := ppocr.Open(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PP-OCR is required in CI: %v", err)
		}
		t.Skipf("skipping: %v", err)
	} else {
		e.Close()
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("DOCENT_OCR_LANG", "eng")
	f := newFixture(t)
	type settings struct {
		Engine, Error string
		PhotoEngine   string `json:"photo_engine"`
		PDFEngine     string `json:"pdf_engine"`
		PPOCR         string `json:"ppocr"`
		PPOCRNote     string `json:"ppocr_note"`
	}
	var got settings
	f.call(http.MethodGet, "/api/settings/ocr", nil, http.StatusOK, &got)
	if got.Engine != "" || got.Error != "" || !strings.HasPrefix(got.PPOCR, "ppocr ") || got.PhotoEngine != got.PPOCR || got.PDFEngine != got.PPOCR ||
		!strings.Contains(got.PPOCRNote, "Tesseract is not installed") || !strings.Contains(got.PPOCRNote, "sudo apt-get install tesseract-ocr") {
		t.Errorf("eng: %+v, want PP-OCR reading every page, no error, and a note on Tesseract", got)
	}
	f.call(http.MethodPut, "/api/settings/ocr", map[string]string{"lang": "deu+eng"}, http.StatusOK, &got)
	if got.PhotoEngine != got.PPOCR || got.PDFEngine != got.PPOCR || got.Error != "" ||
		!strings.Contains(got.PPOCRNote, "sudo apt-get install tesseract-ocr tesseract-ocr-deu") {
		t.Errorf("deu+eng: %+v, want PP-OCR reading, and its note saying what to install", got)
	}
}
