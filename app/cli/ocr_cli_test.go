package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app"
	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/app/ingest/ocr/ppocr"
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

// TestImportReceiptPhotoReadsItWithOCR: `docent
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
	// With PP-OCR installed, it read the photo, and the report says so.
	if e, err := ppocr.Open(); err == nil {
		e.Close()
		if !strings.HasPrefix(ocrRep.PhotoEngine, "ppocr PP-OCRv4 ") || !strings.Contains(errOut, "photos with ppocr") {
			t.Errorf("photo engine %q; stderr %s", ocrRep.PhotoEngine, errOut)
		}
	} else if os.Getenv("CI") == "true" {
		t.Errorf("PP-OCR is required in CI: %v", err)
	}
	if code, _, errOut := docent(t, dataDir, "ocr", "--lang", "no such", d.ID); code != ExitUsage {
		t.Errorf("ocr with a bad --lang: exit %d: %s", code, errOut)
	}
}

// TestOCRVisionReadsAReceiptPhotoEndToEnd: `docent ocr --vision MODEL`
// sends a real receipt photo (SROIE 000.jpg) to the scripted vision model,
// on the Ollama wire and then on the OpenAI wire, and the document's text
// is what the model read, its page recorded as read by the model. It runs
// with or without Tesseract: a photo goes to the model either way.
func TestOCRVisionReadsAReceiptPhotoEndToEnd(t *testing.T) {
	corpus := testcorpus.Dir(t)
	vision := modeltest.Model{Name: "qwen2.5vl:7b", ContextLength: 128000, Capabilities: []string{"completion", "vision"}, Family: "qwen25vl"}
	srv := modeltest.New(t, vision, modeltest.DefaultModel)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("DOCENT_MODEL", "")
	const receipt = "BOOK TA .K (TAMAN DAYA) SDN BHD\nNO.53 55,57 & 59, JALAN SAGU 18,\nTAMAN DAYA,\n81100 JOHOR BAHRU, JOHOR.\n25/12/2018\nTOTAL 9.00"
	srv.Enqueue(modeltest.Reply{Text: receipt}, modeltest.Reply{Text: receipt + "\nTHANK YOU"})

	dataDir := t.TempDir()
	id := importReceiptUnread(t, corpus, dataDir)

	code, out, errOut := docent(t, dataDir, "ocr", "--vision", "ollama/qwen2.5vl:7b", "--lang", "eng", "--json", id)
	var ocrRep ocrReport
	if code != ExitOK || json.Unmarshal([]byte(out), &ocrRep) != nil || len(ocrRep.Documents) != 1 || ocrRep.Vision != "ollama/qwen2.5vl:7b" {
		t.Fatalf("ocr --vision: exit %d: %s\n%s", code, out, errOut)
	}
	if d := ocrRep.Documents[0]; d.Status != storage.StatusReady || d.Error != "" {
		t.Fatalf("after ocr --vision: %s %q", d.Status, d.Error)
	}
	if code, text, _ := docent(t, dataDir, "text", id); code != ExitOK || strings.TrimSpace(text) != receipt {
		t.Fatalf("text after ocr --vision: %q", text)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Wire != "ollama" || len(reqs[0].Images) != 1 {
		t.Fatalf("%d requests to the model", len(reqs))
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(reqs[0].Images[0]))
	if err != nil || cfg.Width != 463 || cfg.Height != 1013 {
		t.Errorf("the photo was sent as %d×%d (%v), want its own 463×1013 as PNG", cfg.Width, cfg.Height, err)
	}
	if d := onlyPageDetail(t, dataDir, id); d.Source != storage.SourceVision || d.Engine != "ollama/qwen2.5vl:7b" || d.Confidence != nil {
		t.Errorf("page details %+v", d)
	}

	code, _, errOut = docent(t, dataDir, "ocr", "--vision", "openai/qwen2.5vl:7b", "--vision-all", "--vision-timeout", "30s", "--lang", "eng", id)
	if code != ExitOK || !strings.Contains(errOut, "openai/qwen2.5vl:7b") {
		t.Fatalf("ocr --vision openai/...: exit %d: %s", code, errOut)
	}
	reqs = srv.Requests()
	if r := reqs[len(reqs)-1]; r.Wire != "openai" || len(r.Images) != 1 || !bytes.Equal(r.Images[0], reqs[0].Images[0]) {
		t.Errorf("the OpenAI request: wire %s, %d images", r.Wire, len(r.Images))
	}
	if code, text, _ := docent(t, dataDir, "text", id); code != ExitOK || !strings.HasSuffix(strings.TrimSpace(text), "THANK YOU") {
		t.Errorf("text after the second run: %q", text)
	}
	if d := onlyPageDetail(t, dataDir, id); d.Engine != "openai/qwen2.5vl:7b" {
		t.Errorf("page details after the second run %+v", d)
	}
}

// TestOCRVisionFlags: the vision flags' usage errors, and a model that
// cannot see, refused before anything is read.
func TestOCRVisionFlags(t *testing.T) {
	srv := modeltest.New(t)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("DOCENT_MODEL", "")
	dataDir := t.TempDir()
	for _, args := range [][]string{
		{"ocr", "--all", "--vision-all"},
		{"ocr", "--all", "--vision-timeout", "1m"},
		{"ocr", "--all", "--vision", "qwen2.5vl"},
		{"ocr", "--all", "--vision", "ollama/qwen2.5vl:7b", "--vision-timeout", "0s"},
	} {
		if code, _, errOut := docent(t, dataDir, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, code, ExitUsage, errOut)
		}
	}
	code, _, errOut := docent(t, dataDir, "ocr", "--all", "--vision", "ollama/qwen3:8b")
	if code != ExitFailure || !strings.Contains(errOut, "cannot read images") {
		t.Errorf("a model without vision: exit %d: %s", code, errOut)
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("the model was asked to read")
	}
}

// TestOCRUsesTheSavedVisionModel: `docent ocr` without --vision reads with
// the vision model saved in Settings (its "every page" choice too), and
// --vision wins over it.
func TestOCRUsesTheSavedVisionModel(t *testing.T) {
	corpus := testcorpus.Dir(t)
	vision := modeltest.Model{Name: "qwen2.5vl:7b", ContextLength: 128000, Capabilities: []string{"completion", "vision"}, Family: "qwen25vl"}
	srv := modeltest.New(t, vision, modeltest.DefaultModel)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("DOCENT_MODEL", "")
	const receipt = "BOOK TA .K (TAMAN DAYA) SDN BHD\n25/12/2018\nTOTAL 9.00"
	srv.Handle(func(modeltest.Request) modeltest.Reply { return modeltest.Reply{Text: receipt} })

	dataDir := t.TempDir()
	id := importReceiptUnread(t, corpus, dataDir)
	db, err := storage.Open(context.Background(), filepath.Join(dataDir, app.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	err = db.SetSetting(context.Background(), storage.SettingOCRVision, ocr.VisionSetting{Model: "ollama/qwen2.5vl:7b", All: true})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	code, out, errOut := docent(t, dataDir, "ocr", "--lang", "eng", "--json", id)
	var ocrRep ocrReport
	if code != ExitOK || json.Unmarshal([]byte(out), &ocrRep) != nil || ocrRep.Vision != "ollama/qwen2.5vl:7b" {
		t.Fatalf("ocr with a saved vision model: exit %d: %s\n%s", code, out, errOut)
	}
	if e := onlyPageDetail(t, dataDir, id).Engine; e != "ollama/qwen2.5vl:7b" {
		t.Errorf("the page was read by %q, want the saved model", e)
	}
	if code, text, _ := docent(t, dataDir, "text", id); code != ExitOK || strings.TrimSpace(text) != receipt {
		t.Errorf("text: %q", text)
	}

	code, out, errOut = docent(t, dataDir, "ocr", "--vision", "openai/qwen2.5vl:7b", "--lang", "eng", "--json", id)
	if code != ExitOK || json.Unmarshal([]byte(out), &ocrRep) != nil || ocrRep.Vision != "openai/qwen2.5vl:7b" {
		t.Fatalf("ocr --vision over a saved model: exit %d: %s\n%s", code, out, errOut)
	}
	if e := onlyPageDetail(t, dataDir, id).Engine; e != "openai/qwen2.5vl:7b" {
		t.Errorf("with --vision the page was read by %q, want the flag's model", e)
	}
}

// importReceiptUnread imports the SROIE receipt photo 000.jpg with --no-ocr
// into dataDir and returns its document's id.
func importReceiptUnread(t *testing.T, corpus, dataDir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpus, "sroie", "000.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	photo := filepath.Join(t.TempDir(), "receipt.jpg")
	if err := os.WriteFile(photo, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := docent(t, dataDir, "import", "--no-ocr", "--json", photo)
	var rep importReport
	if code != ExitOK || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Documents) != 1 {
		t.Fatalf("import: exit %d: %s %s", code, out, errOut)
	}
	return rep.Documents[0].ID
}

// onlyPageDetail reads the details of the one page of document id, closing
// the database again before the next command runs.
func onlyPageDetail(t *testing.T, dataDir, id string) storage.PageDetail {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(dataDir, app.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d, err := db.PageDetails(context.Background(), id)
	if err != nil || len(d) != 1 {
		t.Fatalf("page details %v: %v", d, err)
	}
	return d[0]
}
