package ocr

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/docent/docent/app/ingest/pdftext"
)

// pinFake pins the hash of eng's best_int file to that of content for the
// test, so that the choice can be tested without the 5 MB file.
func pinFake(t *testing.T, content []byte) {
	t.Helper()
	sum := sha256.Sum256(content)
	old := bestIntSHA256["eng"]
	bestIntSHA256["eng"] = hex.EncodeToString(sum[:])
	t.Cleanup(func() { bestIntSHA256["eng"] = old })
}

func TestTessdataChoice(t *testing.T) {
	good := []byte("best_int eng, as the registry ships it")
	pinFake(t, good)
	e := &Engine{Version: "5.3.0", Langs: []string{"eng", "deu", "osd"}}

	// Absent: the system's data, and why.
	e.best = findBestData(t.TempDir())
	if dir, kind, why := e.dataFor("eng"); dir != "" || kind != DataSystem || !strings.Contains(why, "no best_int data for eng") {
		t.Errorf("no file: dataFor = %q %q %q, want the system's data and why", dir, kind, why)
	}
	if e.NameFor("eng") != "tesseract 5.3.0" {
		t.Errorf("no file: engine %q", e.NameFor("eng"))
	}

	// Present and good: best_int for eng, not for deu+eng (deu has none).
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "eng.traineddata"), good, 0o600); err != nil {
		t.Fatal(err)
	}
	e.best = findBestData(dir)
	if got, kind, _ := e.dataFor("eng"); got != dir || kind != DataBestInt {
		t.Errorf("good file: dataFor = %q %q, want %q best_int", got, kind, dir)
	}
	if e.NameFor("eng") != "tesseract 5.3.0 best_int" {
		t.Errorf("good file: engine %q", e.NameFor("eng"))
	}
	if !strings.Contains(e.DataNote("eng"), "best_int data from "+dir) {
		t.Errorf("good file: note %q", e.DataNote("eng"))
	}
	if _, kind, why := e.dataFor("deu+eng"); kind != DataSystem || !strings.Contains(why, "deu") {
		t.Errorf("deu+eng with eng only: %q %q, want the system's data for want of deu", kind, why)
	}
	// A PDF page reads with the system's data, unless the system lacks a
	// language best_int has.
	if got, kind := e.pageData("eng", "scan"); got != "" || kind != DataSystem {
		t.Errorf("PDF page in eng: pageData = %q %q, want the system's", got, kind)
	}
	sysEngOnly := &Engine{Version: "5.3.0", Langs: []string{"deu"}, best: e.best}
	if got, kind := sysEngOnly.pageData("eng", "scan"); got != dir || kind != DataBestInt {
		t.Errorf("PDF page in eng, which only best_int has: pageData = %q %q, want %q best_int", got, kind, dir)
	}

	// Corrupt (another version, a broken download): the hash differs, the
	// system's data is used, and the note says which file and why.
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "eng.traineddata"), []byte("truncated"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.best = findBestData(bad)
	_, kind, why := e.dataFor("eng")
	if kind != DataSystem || !strings.Contains(why, "eng.traineddata is damaged or another version") {
		t.Errorf("corrupt file: %q %q, want the system's data and the hash mismatch named", kind, why)
	}
	if note := e.DataNote("eng"); !strings.Contains(note, "system's data") || !strings.Contains(note, "scripts/run") {
		t.Errorf("corrupt file: note %q", note)
	}
}

// TestPhotosReadWithBestIntPDFPagesWithSystemData: with good best_int data
// installed, a photo's page records best_int and a PDF page (rendered or a
// scan) the system's data, which reads rendered invoices better
// (docs/benchmarks.md, "Receipts: Tesseract settings"). A blank page
// records the engine without running it, so no tesseract is needed.
func TestPhotosReadWithBestIntPDFPagesWithSystemData(t *testing.T) {
	good := []byte("best_int eng, as the registry ships it")
	pinFake(t, good)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "eng.traineddata"), good, 0o600); err != nil {
		t.Fatal(err)
	}
	e := &Engine{Version: "5.3.0", Langs: []string{"eng", "osd"}, best: findBestData(dir)}
	for method, want := range map[string]string{
		"image":  "tesseract 5.3.0 best_int",
		"render": "tesseract 5.3.0",
		"scan":   "tesseract 5.3.0",
	} {
		if got, kind := e.pageData("eng", method); (kind == DataBestInt) != (method == "image") || (got == dir) != (method == "image") {
			t.Errorf("%s page: pageData = %q %q, want best_int only for an image file's page", method, got, kind)
		}
		p, err := readPage(context.Background(), e, nil, "eng", PageImage{Page: 1, Method: method, Blank: true}, nil, "", nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Engine != want {
			t.Errorf("%s page recorded as read by %q, want %q", method, p.Engine, want)
		}
	}
}

func TestTessdataDirFollowsTheEnvironment(t *testing.T) {
	t.Setenv(TessdataEnv, "/opt/tessdata")
	if d := TessdataDir(); d != "/opt/tessdata" {
		t.Errorf("with %s: %q", TessdataEnv, d)
	}
	t.Setenv(TessdataEnv, "")
	t.Setenv("XDG_DATA_HOME", "/x")
	if d := TessdataDir(); d != filepath.Join("/x", "docent", "tessdata") && runtime.GOOS == "linux" {
		t.Errorf("with XDG_DATA_HOME=/x: %q", d)
	}
}

// TestCorruptBestIntFallsBack: with a damaged best_int file in
// DOCENT_TESSDATA, tesseract reads with the system's data, and the page
// says which data read it.
func TestCorruptBestIntFallsBack(t *testing.T) {
	needTesseract(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "eng.traineddata"), []byte("not a traineddata file"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(TessdataEnv, dir)
	forgetEngine()
	t.Cleanup(forgetEngine)
	e, err := FindEngine(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if e.NameFor("eng") != e.Name() {
		t.Errorf("engine %q with a corrupt file, want %q", e.NameFor("eng"), e.Name())
	}
	file := filepath.Join(t.TempDir(), "page.png")
	if err := os.WriteFile(file, encodePNG(t, textImage(800, 120, 3, "INVOICE 2024")), 0o600); err != nil {
		t.Fatal(err)
	}
	text, _, err := e.Recognize(context.Background(), file, "eng", 0, pdftext.Limits{})
	if err != nil {
		t.Fatalf("read with the system's data: %v", err)
	}
	if !strings.Contains(text, "INVOICE") {
		t.Errorf("read %q", text)
	}
}
