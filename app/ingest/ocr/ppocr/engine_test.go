package ppocr

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

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

// TestTenThousandBoxes: a page on which detection finds over 10,000 text
// boxes (a grid of 10,240 "AB"s) is refused with the count, before a
// recogniser run for each box would take many minutes.
func TestTenThousandBoxes(t *testing.T) {
	e := openEngine(t)
	e.MaxSide = 2560 // the default 1600 px would merge the grid into fewer boxes
	img := image.NewRGBA(image.Rect(0, 0, 2560, 2560))
	draw.Draw(img, img.Rect, image.White, image.Point{}, draw.Src)
	d := font.Drawer{Dst: img, Src: image.Black, Face: basicfont.Face7x13}
	for y := 13; y < 2560; y += 20 {
		for x := 0; x+14 < 2560; x += 32 {
			d.Dot = fixed.P(x, y)
			d.DrawString("AB")
		}
	}
	p, err := e.Read(context.Background(), img)
	if err == nil || !strings.Contains(err.Error(), "more than the 2000 a page may have") {
		t.Fatalf("a page of 10,240 words: %d lines, %v", p.Lines, err)
	}
	var n int
	if _, serr := fmt.Sscanf(err.Error(), "ppocr: detection found %d text boxes", &n); serr != nil || n < 10000 {
		t.Errorf("the error says %d boxes (%v): %v", n, serr, err)
	}
}
