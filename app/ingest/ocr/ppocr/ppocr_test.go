package ppocr

import (
	"context"
	"encoding/json"
	"errors"
	"image"
	_ "image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/app/ingest/ocr/ppocr/ort"
	"github.com/docent/docent/app/internal/testcorpus"
)

// openEngine opens the installed engine; it skips when the runtime or
// the models are not installed, except in CI, where the test command
// installs them.
func openEngine(tb testing.TB) *Engine {
	tb.Helper()
	e, err := Open()
	if err != nil {
		if os.Getenv("CI") != "true" && (errors.Is(err, ort.ErrNotInstalled) || errors.Is(err, ErrModelsMissing)) {
			tb.Skipf("skipping: %v (scripts/test installs it)", err)
		}
		tb.Fatalf("PP-OCR: %v", err)
	}
	tb.Cleanup(e.Close)
	return e
}

// receipt is one SROIE photo, decoded, and its labels.
func receipt(tb testing.TB, id string) (image.Image, map[string]string) {
	tb.Helper()
	dir := filepath.Join(testcorpus.Dir(tb), "sroie")
	f, err := os.Open(filepath.Join(dir, id+".jpg"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		tb.Fatalf("%s: %v", id, err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, id+".expected.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var label map[string]string
	if err := json.Unmarshal(raw, &label); err != nil {
		tb.Fatalf("%s labels: %v", id, err)
	}
	return img, label
}

// normalise drops whitespace and case, as the benchmark's metric does.
func normalise(s string) string { return strings.ToUpper(strings.Join(strings.Fields(s), "")) }

// singleSpaced drops case and makes every run of whitespace one space:
// text as printed, its spaces kept.
func singleSpaced(s string) string { return strings.ToUpper(strings.Join(strings.Fields(s), " ")) }

// TestReceiptTotals reads five receipt photos: the total a user wants
// from each is in the text of at least four, and every word has a box
// inside the image.
func TestReceiptTotals(t *testing.T) {
	e := openEngine(t)
	found := 0
	ids := []string{"000", "001", "002", "003", "004"}
	for _, id := range ids {
		img, label := receipt(t, id)
		page, err := e.Read(context.Background(), img)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if strings.Contains(normalise(page.Text), normalise(label["total"])) {
			found++
		} else {
			t.Logf("%s: total %q not in the text:\n%s", id, label["total"], page.Text)
		}
		b := img.Bounds()
		if page.Words.Width != b.Dx() || page.Words.Height != b.Dy() || len(page.Words.Words) == 0 {
			t.Errorf("%s: words on a %d×%d page, %d of them; the image is %v", id, page.Words.Width, page.Words.Height, len(page.Words.Words), b)
		}
		for _, w := range page.Words.Words {
			r := image.Rect(w.X, w.Y, w.X+w.W, w.Y+w.H)
			if !r.In(image.Rect(0, 0, b.Dx(), b.Dy())) || r.Empty() || strings.ContainsAny(w.Text, " \n") || w.Text == "" || w.Conf <= 0 || w.Conf > 100 {
				t.Errorf("%s: word %+v", id, w)
			}
		}
	}
	if found < 4 {
		t.Errorf("totals found in %d of %d receipts, want at least 4", found, len(ids))
	}
}

// TestReceiptLinesKeepTheirSpaces reads the labelled lines of two
// receipts whose large and bold lines the recogniser reads glued
// ("GOODSSOLDARENOTRETURNABLEOR"; it wrote 13 of their 78 spaces): with
// the spaces markSpaces adds, most of the label's spaces are in the text,
// and few that it does not have.
func TestReceiptLinesKeepTheirSpaces(t *testing.T) {
	e := openEngine(t)
	var score spacingScore
	for _, id := range []string{"000", "003"} {
		img, _ := receipt(t, id)
		src := toRGBA(img)
		for _, l := range labelledLines(t, filepath.Join(testcorpus.Dir(t), "sroie", id+".boxes.txt")) {
			r := l.r.Intersect(src.Bounds())
			if r.Dx() < 4 || r.Dy() < 4 {
				continue
			}
			read, err := e.recognise(src, box{r: r})
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			before := score
			score.add(read.text, l.text)
			if score.tp-before.tp != score.labelled-before.labelled || score.tp-before.tp != score.written-before.written {
				t.Logf("%s: %q read %q", id, l.text, read.text)
			}
		}
	}
	if score.recall() < 0.8 || score.precision() < 0.85 {
		t.Errorf("word boundaries: %d of the label's %d written, %d written in all (recall %.2f, precision %.2f), want recall 0.8 and precision 0.85 at least",
			score.tp, score.labelled, score.written, score.recall(), score.precision())
	}
}
