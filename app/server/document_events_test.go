package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// GET /api/documents/{id}/events streams a photo's document while OCR reads
// it, from its state at the start to ready, and then ends; a document that
// waits for nothing gets one frame.
func TestDocumentEventsFollowOCR(t *testing.T) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("tesseract is required in CI: %v", err)
		}
		t.Skip("skipping: tesseract is not installed (sudo apt-get install tesseract-ocr)")
	}
	photo, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), "sroie", "001.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	frames := func(id string) []storage.Document {
		t.Helper()
		res, err := f.ts.Client().Do(f.request(context.Background(), http.MethodGet, "/api/documents/"+id+"/events", nil))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, err := io.ReadAll(res.Body) // the server ends the stream
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
			t.Fatalf("events: %d %s: %s", res.StatusCode, res.Header.Get("Content-Type"), raw)
		}
		var out []storage.Document
		for _, line := range strings.Split(string(raw), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var d storage.Document
				if err := json.Unmarshal([]byte(data), &d); err != nil {
					t.Fatalf("frame %q: %v", data, err)
				}
				out = append(out, d)
			}
		}
		return out
	}

	status, body := f.upload(map[string]string{"receipt.jpg": string(photo)}, nil)
	if status != http.StatusOK {
		t.Fatalf("upload: %d %s", status, body)
	}
	var up struct{ Documents []storage.Document }
	if err := json.Unmarshal(body, &up); err != nil || len(up.Documents) != 1 {
		t.Fatalf("upload answer %s: %v", body, err)
	}
	got := frames(up.Documents[0].ID)
	if len(got) == 0 {
		t.Fatal("no frame")
	}
	last := got[len(got)-1]
	if last.Status != storage.StatusReady || last.Pages != 1 {
		t.Errorf("the stream ended on %s (%d pages), want ready", last.Status, last.Pages)
	}
	for _, d := range got[:len(got)-1] {
		if d.Status != storage.StatusNeedsOCR && d.Status != storage.StatusOCR {
			t.Errorf("a frame before the last is %s", d.Status)
		}
	}
	// Ready already: one frame, and the stream ends.
	if again := frames(last.ID); len(again) != 1 || again[0].Status != storage.StatusReady {
		t.Errorf("a ready document's stream: %+v", again)
	}
	f.wantError(http.MethodGet, "/api/documents/doc_missing/events", nil, http.StatusNotFound, "not_found")
}
