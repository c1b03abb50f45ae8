package ppocr

import (
	"context"
	"errors"
	"image"
	"image/color"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/app/ingest/ocr/ppocr/ort"
)

// TestModelsChecked: missing models are ErrModelsMissing, an altered one
// is refused by its hash, and bytes that are no model are the runtime's
// clear error, not a crash.
func TestModelsChecked(t *testing.T) {
	e := openEngine(t) // the installed runtime and models
	_ = e
	real, err := LoadModels()
	if err != nil {
		t.Fatal(err)
	}
	installed, err := ort.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	keys, err := os.ReadFile(filepath.Join(installed, filepath.FromSlash(ModelsDir), "keys.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	t.Setenv("DOCENT_CACHE_DIR", cache)
	if _, err := LoadModels(); !errors.Is(err, ErrModelsMissing) {
		t.Errorf("empty cache folder: %v", err)
	}
	dir := filepath.Join(cache, filepath.FromSlash(ModelsDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"det.onnx": real.Det, "rec.onnx": real.Rec, "keys.txt": keys} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := LoadModels(); err != nil {
		t.Fatalf("a copy of the installed models: %v", err)
	}
	cut := real.Rec[:len(real.Rec)/2]
	if err := os.WriteFile(filepath.Join(dir, "rec.onnx"), cut, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadModels(); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("a cut recogniser: %v", err)
	}

	t.Setenv("DOCENT_CACHE_DIR", "")
	rt, err := ort.LoadInstalled()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(rt, &Models{Det: real.Det, Rec: cut, Dict: real.Dict}); err == nil || !strings.Contains(err.Error(), "recogniser") {
		t.Errorf("a cut recogniser: %v", err)
	}
	if _, err := New(rt, &Models{Det: []byte("no model"), Rec: real.Rec, Dict: real.Dict}); err == nil || !strings.Contains(err.Error(), "detector") {
		t.Errorf("no detector: %v", err)
	}
	// A dictionary that does not fit the recogniser is found on the first
	// line read.
	short, err := New(rt, &Models{Det: real.Det, Rec: real.Rec, Dict: real.Dict[:100]})
	if err != nil {
		t.Fatal(err)
	}
	defer short.Close()
	img, _ := receipt(t, "000")
	if _, err := short.Read(context.Background(), img); err == nil || !strings.Contains(err.Error(), "dictionary of 100") {
		t.Errorf("a dictionary of 100 characters: %v", err)
	}
}

// TestBadImages: an image too small to read is an error; one of noise and
// a blank one are read without a crash (text or an error saying why).
func TestBadImages(t *testing.T) {
	e := openEngine(t)
	if _, err := e.Read(context.Background(), image.NewGray(image.Rect(0, 0, 2, 100))); err == nil {
		t.Error("a 2×100 image: no error")
	}
	blank := image.NewGray(image.Rect(0, 0, 300, 200))
	for i := range blank.Pix {
		blank.Pix[i] = 255
	}
	p, err := e.Read(context.Background(), blank)
	if err != nil || p.Text != "" || len(p.Words.Words) != 0 {
		t.Errorf("a blank page: %q, %d words, %v", p.Text, len(p.Words.Words), err)
	}
	noise := image.NewRGBA(image.Rect(0, 0, 400, 300))
	r := rand.New(rand.NewPCG(1, 2))
	for y := range 300 {
		for x := range 400 {
			noise.Set(x, y, color.RGBA{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), 255})
		}
	}
	p, err = e.Read(context.Background(), noise)
	t.Logf("noise: %d lines, error %v", p.Lines, err)
	// Cancelled, a page stops between lines.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	img, _ := receipt(t, "001")
	if _, err := e.Read(ctx, img); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
