// Package ppocr reads text in images with PaddleOCR's PP-OCRv4 mobile
// models on ONNX Runtime (package ort): a detector finds the text lines,
// a recogniser reads each one, and CTC's time steps place every
// character, so each line splits into words with their boxes as
// Tesseract's do (storage.Word), for evidence and search.
//
// The steps and their settings are PaddleOCR's own defaults (tools/infer
// in PaddleOCR): ImageNet mean and deviation for detection, DB's
// threshold 0.3, box score at least 0.6, unclip ratio 1.5, recognition
// at height 48 normalised to [-1, 1], greedy CTC decoding. The longest
// side detection sees is bounded (MaxSide), which bounds its time and
// memory.
package ppocr

import (
	"context"
	"errors"
	"fmt"
	"image"
	"slices"
	"strings"

	"github.com/docent/docent/app/ingest/ocr/ppocr/ort"
	"github.com/docent/docent/storage"
)

// MaxSide is the longest side of the image detection sees by default:
// 1600 px read 107 of 119 receipt values at 2.0 CPU s and 800 MB; 2400 px
// read 109 at 2.6 s and 2.0 GB: two more values are not worth 2.5 times
// the memory.
const MaxSide = 1600

// DropScore is the mean character confidence (0 to 1) below which a
// recognised line is dropped, PaddleOCR's drop_score: on an image of
// noise the detector finds boxes and the recogniser reads each as a few
// stray Chinese characters, with little confidence.
const DropScore = 0.5

// maxBoxes bounds the lines read on one page: an image of noise can make
// the detector find thousands, each a recogniser run.
const maxBoxes = 2000

// Engine is a loaded detector and recogniser. Read may be called from
// one goroutine at a time per Engine.
type Engine struct {
	det, rec *ort.Session
	dict     []string
	runtime  string
	// MaxSide bounds the longest side detection sees (0: MaxSide).
	MaxSide int
	// DropScore is the mean character confidence below which a line is
	// dropped (0: DropScore; below 0: every line is kept).
	DropScore float64
}

// Open loads the installed runtime and models (ort.LoadInstalled,
// LoadModels). Its error wraps ort.ErrNotInstalled or ErrModelsMissing
// when they are not installed.
func Open() (*Engine, error) {
	rt, err := ort.LoadInstalled()
	if err != nil {
		return nil, err
	}
	m, err := LoadModels()
	if err != nil {
		return nil, err
	}
	return New(rt, m)
}

// New makes an Engine of models on rt, one thread each.
func New(rt *ort.Runtime, m *Models) (*Engine, error) {
	if len(m.Dict) == 0 {
		return nil, errors.New("ppocr: empty dictionary")
	}
	det, err := rt.NewSession(m.Det, 1)
	if err != nil {
		return nil, fmt.Errorf("load PP-OCR detector: %w", err)
	}
	rec, err := rt.NewSession(m.Rec, 1)
	if err != nil {
		det.Close()
		return nil, fmt.Errorf("load PP-OCR recogniser: %w", err)
	}
	return &Engine{det: det, rec: rec, dict: m.Dict, runtime: rt.Version()}, nil
}

// Runtime is the version of the ONNX Runtime the engine runs on, "1.30.0".
func (e *Engine) Runtime() string { return e.runtime }

// Close frees the sessions.
func (e *Engine) Close() {
	e.det.Close()
	e.rec.Close()
}

// Page is what the engine read in one image.
type Page struct {
	// Text is the lines top to bottom, the boxes of one line left to
	// right joined by a space.
	Text string
	// Words are in the image's pixels, Conf 0 to 100.
	Words storage.PageWords
	// Lines is how many text lines detection found and recognition read
	// with at least the engine's DropScore.
	Lines int
	// Turned is how far the image was turned clockwise, in degrees (0,
	// 90, 180 or 270), for its text to be upright; Words are in the
	// image's own pixels all the same.
	Turned int
}

// Read reads the text in img. ctx is checked between lines.
func (e *Engine) Read(ctx context.Context, img image.Image) (Page, error) {
	b := img.Bounds()
	if b.Dx() < 4 || b.Dy() < 4 {
		return Page{}, fmt.Errorf("ppocr: image of %d×%d pixels is too small to read", b.Dx(), b.Dy())
	}
	src := toRGBA(img)
	maxSide := e.MaxSide
	if maxSide <= 0 {
		maxSide = MaxSide
	}
	boxes, err := e.detect(src, maxSide)
	if err != nil {
		return Page{}, err
	}
	// q is the quarter turns clockwise that make src upright (orient.go).
	q := 0
	if len(boxes) <= maxBoxes && mostlyTall(boxes) {
		turned := rotate(src, 1)
		tb, err := e.detect(turned, maxSide)
		if err != nil {
			return Page{}, err
		}
		if !mostlyTall(tb) {
			src, boxes, q = turned, tb, 1
		}
	}
	if len(boxes) > maxBoxes {
		return Page{}, fmt.Errorf("ppocr: detection found %d text boxes, more than the %d a page may have (an image of noise?)", len(boxes), maxBoxes)
	}
	lines, err := e.recogniseAll(ctx, src, boxes)
	if err != nil {
		return Page{}, err
	}
	if flipped, err := e.upsideDown(ctx, src, lines); err != nil {
		return Page{}, err
	} else if flipped {
		// Detected again upright: the detector finds lines a little
		// differently upside down, and upright is how it was trained.
		turned := rotate(src, 2)
		tb, err := e.detect(turned, maxSide)
		if err != nil {
			return Page{}, err
		}
		if len(tb) > maxBoxes {
			return Page{}, fmt.Errorf("ppocr: detection found %d text boxes, more than the %d a page may have (an image of noise?)", len(tb), maxBoxes)
		}
		tl, err := e.recogniseAll(ctx, turned, tb)
		if err != nil {
			return Page{}, err
		}
		src, lines, q = turned, tl, q+2
	}
	// Only now: the upside-down check above compares the confidence of
	// all the lines read, and upside-down text reads at about 0.5.
	page := layout(confident(lines, e.dropScore()))
	unrotateWords(page.Words.Words, src.Bounds().Dx(), src.Bounds().Dy(), q)
	page.Words.Width, page.Words.Height = b.Dx(), b.Dy()
	page.Turned = 90 * (q % 4)
	return page, nil
}

// recogniseAll reads the lines in boxes of src, dropping empty ones. ctx
// is checked between lines.
func (e *Engine) recogniseAll(ctx context.Context, src *image.RGBA, boxes []box) ([]line, error) {
	var lines []line
	for _, box := range boxes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l, err := e.recognise(src, box)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(l.text) != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// dropScore is the engine's DropScore, its default for 0.
func (e *Engine) dropScore() float64 {
	if e.DropScore == 0 {
		return DropScore
	}
	return e.DropScore
}

// confident is the lines read with a mean character confidence of at
// least floor (PaddleOCR keeps a line whose score is >= drop_score).
func confident(lines []line, floor float64) []line {
	return slices.DeleteFunc(lines, func(l line) bool { return l.conf < floor })
}

// upsideDown: lines, read in src, read with little confidence, and the
// longest of them turned half round read with clearly more.
func (e *Engine) upsideDown(ctx context.Context, src *image.RGBA, lines []line) (bool, error) {
	conf, n := meanConf(lines)
	if n == 0 || conf >= uprightConf {
		return false, nil
	}
	w, h := src.Bounds().Dx(), src.Bounds().Dy()
	turned := rotate(src, 2)
	var as, turnedAs []line
	for _, i := range longest(lines, flipSample) {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		l, err := e.recognise(turned, box{r: rotateRect(lines[i].r, w, h, 2)})
		if err != nil {
			return false, err
		}
		as, turnedAs = append(as, lines[i]), append(turnedAs, l)
	}
	c0, _ := meanConf(as)
	c1, _ := meanConf(turnedAs)
	return c1 >= c0+flipMargin, nil
}
