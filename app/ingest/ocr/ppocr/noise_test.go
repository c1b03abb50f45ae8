package ppocr

import (
	"context"
	"image"
	"math/rand/v2"
	"testing"
)

// greyNoise is a w×h image of uniform grey noise, the same for a seed.
func greyNoise(w, h int, seed uint64) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(seed, seed+1))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.IntN(256))
	}
	return img
}

// TestNoiseReadsNothing: a photo of nothing but grey noise reads no text.
// The recogniser turns the detector's boxes on noise into lines of stray
// Chinese characters, each read with little confidence; like PaddleOCR
// (drop_score), the engine drops lines read below DropScore.
func TestNoiseReadsNothing(t *testing.T) {
	e := openEngine(t)
	p, err := e.Read(context.Background(), greyNoise(1600, 1600, 23))
	if err != nil {
		t.Fatalf("1600×1600 grey noise: %v", err)
	}
	if p.Text != "" || len(p.Words.Words) != 0 || p.Lines != 0 {
		t.Errorf("1600×1600 grey noise read as %d lines, %d words:\n%s", p.Lines, len(p.Words.Words), p.Text)
	}
}

// TestConfidentKeepsTheThreshold: a line read at exactly the threshold is
// kept, as PaddleOCR keeps a score >= drop_score; one below is dropped.
func TestConfidentKeepsTheThreshold(t *testing.T) {
	lines := []line{{text: "TOTAL", conf: 0.93}, {text: "茶", conf: 0.31}, {text: "3", conf: 0.5}, {text: "R", conf: 0.49}}
	var got []string
	for _, l := range confident(lines, 0.5) {
		got = append(got, l.text)
	}
	if len(got) != 2 || got[0] != "TOTAL" || got[1] != "3" {
		t.Errorf("lines kept at 0.5: %q, want TOTAL and 3", got)
	}
}
