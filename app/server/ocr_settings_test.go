package server_test

import (
	"net/http"
	"os"
	"os/exec"
	"testing"
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
