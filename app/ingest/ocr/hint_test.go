package ocr

import (
	"strings"
	"testing"
)

// TestInstallHintPerSystem: what to install for Tesseract is said the way
// each system installs it: Debian's packages on Linux (as before), UB
// Mannheim's installer on Windows with tesseract.exe on PATH, where
// FindEngine looks, and Homebrew's formulae on macOS.
func TestInstallHintPerSystem(t *testing.T) {
	for _, c := range []struct {
		goos  string
		langs []string
		want  []string
	}{
		{"linux", []string{"deu"}, []string{"sudo apt-get install tesseract-ocr tesseract-ocr-deu"}},
		{"linux", []string{"eng", "chi_sim"}, []string{"sudo apt-get install tesseract-ocr tesseract-ocr-chi-sim"}},
		{"windows", []string{"deu"}, []string{"https://github.com/UB-Mannheim/tesseract/wiki", "deu", "tesseract.exe", "PATH"}},
		{"windows", nil, []string{"https://github.com/UB-Mannheim/tesseract/wiki", "tesseract.exe", "PATH"}},
		{"darwin", []string{"deu"}, []string{"brew install tesseract tesseract-lang"}},
		{"darwin", []string{"eng"}, []string{"brew install tesseract"}},
	} {
		got := installHintFor(c.goos, c.langs)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %v: %q lacks %q", c.goos, c.langs, got, w)
			}
		}
		if c.goos != "linux" && strings.Contains(got, "apt-get") {
			t.Errorf("%s %v: %q says apt-get", c.goos, c.langs, got)
		}
	}
	if got := installHintFor("darwin", []string{"eng"}); strings.Contains(got, "tesseract-lang") {
		t.Errorf("English alone on macOS: %q asks for every language's data", got)
	}
}

// TestFindEngineNoticesTesseractGone: FindEngine keeps its answer for a
// minute, but not past tesseract leaving PATH: a process whose PATH no
// longer has it (a test that takes it away, an uninstall) is told at once.
func TestFindEngineNoticesTesseractGone(t *testing.T) {
	needTesseract(t)
	forgetEngine()
	t.Cleanup(forgetEngine)
	if _, err := FindEngine(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	if e, err := FindEngine(t.Context()); err == nil {
		t.Fatalf("tesseract %s found with an empty PATH", e.Path)
	}
}
