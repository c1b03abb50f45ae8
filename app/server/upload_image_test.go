package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/storage"
)

// TestImageUploadIsDecodedInTheBackground: an image upload once decoded every page inside the request, so four WebP
// bombs of 32 bytes kept their requests open 50 s. The upload checks the
// headers only and answers at once; the OCR worker decodes the image in
// the background and fails the document with the cause. A PNG whose
// header is sound and whose pixel data is cut short shows which side
// decoded it.
func TestImageUploadIsDecodedInTheBackground(t *testing.T) {
	t.Setenv("DOCENT_OCR_LANG", "eng")
	img := image.NewGray(image.Rect(0, 0, 400, 300))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	cut := b.Bytes()[:b.Len()/2]

	f := newFixture(t)
	status, body := f.upload(map[string]string{"cut.png": string(cut)}, nil)
	var up struct {
		Documents []storage.Document
		Errors    []struct{ File, Error string }
	}
	if status != http.StatusOK || json.Unmarshal(body, &up) != nil {
		t.Fatalf("upload: %d %s", status, body)
	}
	if len(up.Errors) != 0 || len(up.Documents) != 1 || up.Documents[0].Status != storage.StatusNeedsOCR || up.Documents[0].Pages != 1 {
		t.Fatalf("upload answered %s; want the image stored, waiting for OCR, its decoding left to the worker", body)
	}

	if _, err := exec.LookPath("tesseract"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("tesseract is required in CI: %v", err)
		}
		t.Skip("skipping the worker's part: tesseract is not installed (sudo apt-get install tesseract-ocr)")
	}
	id := up.Documents[0].ID
	deadline := time.Now().Add(2 * time.Minute) // against a hang only
	for {
		d, err := f.db.GetDocument(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if d.Status == storage.StatusFailed {
			if !strings.Contains(d.Error, "unreadable image") {
				t.Fatalf("failed with %q; want the decoder's cause", d.Error)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("document is %s (%q) after 2 minutes; want failed by the OCR worker", d.Status, d.Error)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
