package ocr_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// visionModel is a scripted model that can see.
var visionModel = modeltest.Model{Name: "qwen2.5vl:7b", ContextLength: 128000, Capabilities: []string{"completion", "vision"}, Family: "qwen25vl"}

// newVision is the vision tier on the scripted server s, the model named
// by id ("ollama/qwen2.5vl:7b" or "openai/qwen2.5vl:7b"), checked.
func newVision(t *testing.T, s *modeltest.Server, id string) *ocr.Vision {
	t.Helper()
	reg := provider.NewRegistry(provider.Config{
		OllamaHost: s.OllamaURL(), OpenAIBaseURL: s.OpenAIURL(), OpenAIKey: "test",
		HTTPClient: s.Client(), MaxRetries: -1, IdleTimeout: time.Minute,
	})
	v, err := ocr.NewVision(reg, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	v.SetRetryWait(time.Millisecond)
	return v
}

// visionRun claims a document and reads it with v under ctx.
func visionRun(ctx context.Context, t *testing.T, db *storage.DB, id string, v *ocr.Vision, progress func(storage.Document, int, int)) (storage.Document, error) {
	t.Helper()
	job, err := db.ClaimOCR(context.Background(), id, true, ocr.Lease)
	if err != nil {
		t.Fatalf("claim %s: %v", id, err)
	}
	return ocr.Run(ctx, db, &job, ocr.Options{Lang: "eng", Vision: v, Progress: progress})
}

func details(t *testing.T, db *storage.DB, id string) []storage.PageDetail {
	t.Helper()
	d, err := db.PageDetails(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func pageText(t *testing.T, db *storage.DB, id string, page int) string {
	t.Helper()
	text, err := db.PageText(context.Background(), id, page)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// TestVisionReadsAPhotoOnBothWires: a photo (an image file) goes to the
// vision model on each wire: the request carries the prompt and the page
// as a PNG (Ollama's base64 images; OpenAI's text and image_url parts)
// that is the page's pixels, within the pixel cap, with the output cap;
// the page stores the model's text with source vision, the model as its
// engine and no confidence.
func TestVisionReadsAPhotoOnBothWires(t *testing.T) {
	page := printed(1200, 400, "INVOICE 2024-117", "TOTAL EUR 42.50")
	for _, wire := range []string{"ollama", "openai"} {
		t.Run(wire, func(t *testing.T) {
			s := modeltest.New(t, visionModel)
			s.Enqueue(modeltest.Reply{Text: "```text\nINVOICE 2024-117\nTOTAL EUR 42.50\n```"})
			v := newVision(t, s, wire+"/qwen2.5vl:7b")
			db := openDB(t)
			doc := importFile(t, db, "receipt.png", pngBytes(t, page))
			got, err := visionRun(context.Background(), t, db, doc.ID, v, nil)
			if err != nil || got.Status != storage.StatusReady || got.Error != "" {
				t.Fatalf("after the vision run: %+v, %v", got, err)
			}
			reqs := s.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			msgs, err := r.ChatMessages()
			if err != nil || len(msgs) != 1 || msgs[0].Role != "user" || msgs[0].Content != ocr.VisionPrompt || len(msgs[0].Images) != 1 {
				t.Fatalf("messages %+v: %v", msgs, err)
			}
			sent, err := png.Decode(bytes.NewReader(r.Images[0]))
			if err != nil {
				t.Fatalf("the image sent is not a PNG: %v", err)
			}
			if sent.Bounds() != page.Rect || !samePixels(sent, page) {
				t.Errorf("the image sent is %v, not the page's pixels (%v)", sent.Bounds(), page.Rect)
			}
			if r.MaxTokens != ocr.VisionMaxTokens {
				t.Errorf("output cap on the wire %d, want %d", r.MaxTokens, ocr.VisionMaxTokens)
			}
			if wire == "openai" {
				var m struct {
					Content []map[string]any `json:"content"`
				}
				if err := json.Unmarshal(r.Messages[0], &m); err != nil || len(m.Content) != 2 ||
					m.Content[0]["type"] != "text" || m.Content[1]["type"] != "image_url" {
					t.Errorf("content parts %.200s", r.Messages[0])
				}
			}
			if text := pageText(t, db, doc.ID, 1); text != "INVOICE 2024-117\nTOTAL EUR 42.50" {
				t.Errorf("page text %q", text)
			}
			d := details(t, db, doc.ID)[0]
			if d.Source != storage.SourceVision || d.Engine != wire+"/qwen2.5vl:7b" || d.Confidence != nil || d.Lang != "" || d.Note != "" {
				t.Errorf("page details %+v", d)
			}
		})
	}
}

// TestVisionPixelCap: a page larger than the cap is sent scaled down to
// it, its aspect kept.
func TestVisionPixelCap(t *testing.T) {
	s := modeltest.New(t, visionModel)
	s.Enqueue(modeltest.Reply{Text: "INVOICE"})
	v := newVision(t, s, "ollama/qwen2.5vl:7b")
	v.MaxPixels = 120_000
	db := openDB(t)
	doc := importFile(t, db, "wide.png", pngBytes(t, printed(1200, 400, "INVOICE 2024-117")))
	if _, err := visionRun(context.Background(), t, db, doc.ID, v, nil); err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(s.Requests()[0].Images[0]))
	if err != nil {
		t.Fatal(err)
	}
	if px := cfg.Width * cfg.Height; px > 120_000 || px < 110_000 || cfg.Width != 3*cfg.Height {
		t.Errorf("a 1200×400 page sent as %d×%d under a 120,000-pixel cap", cfg.Width, cfg.Height)
	}
}

func samePixels(a image.Image, b *image.Gray) bool {
	for y := b.Rect.Min.Y; y < b.Rect.Max.Y; y++ {
		for x := b.Rect.Min.X; x < b.Rect.Max.X; x++ {
			r, _, _, _ := a.At(x, y).RGBA()
			if uint8(r>>8) != b.GrayAt(x, y).Y {
				return false
			}
		}
	}
	return true
}

// TestVisionCutsALoop: a model that repeats a line is stopped in the
// stream; the page keeps the text before the loop and says it was cut,
// as does the document's message.
func TestVisionCutsALoop(t *testing.T) {
	s := modeltest.New(t, visionModel)
	// Far more than the output cap: a stream that was not cut would end
	// at the cap, with other text and another note.
	loop := "TOTAL EUR 42.50\n" + strings.Repeat("0.00\n", 20000)
	s.Enqueue(modeltest.Reply{Text: loop, ChunkRunes: 5})
	v := newVision(t, s, "ollama/qwen2.5vl:7b")
	v.MaxTokens = 100_000
	db := openDB(t)
	doc := importFile(t, db, "receipt.png", pngBytes(t, printed(1200, 400, "TOTAL EUR 42.50")))
	got, err := visionRun(context.Background(), t, db, doc.ID, v, nil)
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("%+v, %v", got, err)
	}
	if text := pageText(t, db, doc.ID, 1); text != "TOTAL EUR 42.50\n0.00" {
		t.Errorf("page text %q", text)
	}
	d := details(t, db, doc.ID)[0]
	if d.Source != storage.SourceVision || !strings.HasPrefix(d.Note, ocr.NoteRepetitionCut) {
		t.Errorf("page details %+v", d)
	}
	if !strings.Contains(got.Error, "repeated itself on page 1") {
		t.Errorf("document message %q", got.Error)
	}
}

// TestVisionOutputCap: an answer cut at the output cap is kept and noted.
func TestVisionOutputCap(t *testing.T) {
	s := modeltest.New(t, visionModel)
	s.Enqueue(modeltest.Reply{Text: "INVOICE 2024-117 TOTAL EUR 42.50", ChunkRunes: 4})
	v := newVision(t, s, "openai/qwen2.5vl:7b")
	v.MaxTokens = 2
	db := openDB(t)
	doc := importFile(t, db, "receipt.png", pngBytes(t, printed(1200, 400, "INVOICE 2024-117")))
	if _, err := visionRun(context.Background(), t, db, doc.ID, v, nil); err != nil {
		t.Fatal(err)
	}
	if text, d := pageText(t, db, doc.ID, 1), details(t, db, doc.ID)[0]; text != "INVOICE" || !strings.HasPrefix(d.Note, ocr.NoteOutputCap) {
		t.Errorf("page text %q, details %+v", text, d)
	}
}

// TestVisionWithAServerThatRefusesMaxTokens: a model that refuses
// max_tokens as OpenAI's reasoning models do reads the page all the same,
// its output cap sent as max_completion_tokens.
func TestVisionWithAServerThatRefusesMaxTokens(t *testing.T) {
	strict := visionModel
	strict.RefuseMaxTokens = true
	s := modeltest.New(t, strict)
	s.Enqueue(modeltest.Reply{Text: "INVOICE 2024-117\nTOTAL EUR 42.50"})
	v := newVision(t, s, "openai/qwen2.5vl:7b")
	db := openDB(t)
	doc := importFile(t, db, "receipt.png", pngBytes(t, printed(1200, 400, "INVOICE 2024-117")))
	got, err := visionRun(context.Background(), t, db, doc.ID, v, nil)
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("after the vision run: %+v, %v", got, err)
	}
	if text, d := pageText(t, db, doc.ID, 1), details(t, db, doc.ID)[0]; text != "INVOICE 2024-117\nTOTAL EUR 42.50" || d.Source != storage.SourceVision || d.Note != "" {
		t.Errorf("page text %q, details %+v", text, d)
	}
	reqs := s.Requests()
	if last := reqs[len(reqs)-1]; !strings.Contains(string(last.Body), `"max_completion_tokens":4096`) {
		t.Errorf("the read that succeeded: %.200s", last.Body)
	}
}

// TestVisionPageTimeout: a page whose model does not answer within the
// time limit is noted "timed out" and the run goes on to the next page.
func TestVisionPageTimeout(t *testing.T) {
	s := modeltest.New(t, visionModel)
	var n atomic.Int32
	s.Handle(func(modeltest.Request) modeltest.Reply {
		if n.Add(1) == 1 {
			return modeltest.Reply{Text: "never", Fault: modeltest.Fault{FirstTokenDelay: time.Hour}}
		}
		return modeltest.Reply{Text: "PAGE TEXT"}
	})
	v := newVision(t, s, "ollama/qwen2.5vl:7b")
	v.PageTimeout = 300 * time.Millisecond
	db := openDB(t)
	doc := importFile(t, db, "scan.tiff", ocr.MultiTIFF(printed(900, 300, "FIRST PAGE 1"), printed(900, 300, "SECOND PAGE 2")))
	got, err := visionRun(context.Background(), t, db, doc.ID, v, nil)
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("%+v, %v", got, err)
	}
	var timedOut, read int
	for _, d := range details(t, db, doc.ID) {
		switch {
		case strings.HasPrefix(d.Note, ocr.NoteTimedOut):
			timedOut++
		case d.Source == storage.SourceVision && pageText(t, db, doc.ID, d.Page) == "PAGE TEXT":
			read++
		default:
			t.Errorf("page %+v", d)
		}
	}
	if timedOut != 1 || read != 1 || !strings.Contains(got.Error, "timed out on page") {
		t.Errorf("%d pages timed out, %d read; message %q", timedOut, read, got.Error)
	}
}

// TestVisionRetriesTransientFailures: a stream cut mid-way is tried again,
// at most VisionRetries times; a page that still fails keeps what
// Tesseract read, noted, and the run goes on.
func TestVisionRetriesTransientFailures(t *testing.T) {
	s := modeltest.New(t, visionModel)
	cut := modeltest.Reply{Text: "PARTIAL TEXT", Fault: modeltest.Fault{CutAfterChunks: 1}}
	s.Enqueue(cut, modeltest.Reply{Text: "READ ON THE SECOND TRY"})
	v := newVision(t, s, "ollama/qwen2.5vl:7b")
	db := openDB(t)
	doc := importFile(t, db, "a.png", pngBytes(t, printed(900, 300, "FIRST PAGE")))
	if _, err := visionRun(context.Background(), t, db, doc.ID, v, nil); err != nil {
		t.Fatal(err)
	}
	if text := pageText(t, db, doc.ID, 1); text != "READ ON THE SECOND TRY" || len(s.Requests()) != 2 {
		t.Errorf("page text %q after %d requests", text, len(s.Requests()))
	}

	s.Enqueue(cut, cut, cut, modeltest.Reply{Text: "not asked"})
	doc = importFile(t, db, "b.png", pngBytes(t, printed(900, 300, "SECOND PAGE")))
	got, err := visionRun(context.Background(), t, db, doc.ID, v, nil)
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("%+v, %v", got, err)
	}
	d := details(t, db, doc.ID)[0]
	if !strings.HasPrefix(d.Note, ocr.NoteVisionFailed+" after 3 attempts") || s.Pending() != 1 {
		t.Errorf("page %+v; %d replies left", d, s.Pending())
	}
}

// TestVisionModelThatCannotSee: a model without the vision capability is
// refused before any page is read.
func TestVisionModelThatCannotSee(t *testing.T) {
	s := modeltest.New(t, modeltest.DefaultModel)
	reg := provider.NewRegistry(provider.Config{OllamaHost: s.OllamaURL(), HTTPClient: s.Client()})
	v, err := ocr.NewVision(reg, "ollama/qwen3:8b")
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Check(context.Background()); !errors.Is(err, fault.Unavailable) || !strings.Contains(err.Error(), "cannot read images") {
		t.Errorf("check: %v", err)
	}
	v, _ = ocr.NewVision(reg, "ollama/missing:1b")
	if err := v.Check(context.Background()); !errors.Is(err, fault.Unavailable) || !strings.Contains(err.Error(), "ollama pull") {
		t.Errorf("check of a missing model: %v", err)
	}
}

// TestVisionResumesAnInterruptedRun: a run stopped after its first page
// keeps that page; the next run reads only the others and stores the
// kept page as it was read.
func TestVisionResumesAnInterruptedRun(t *testing.T) {
	s := modeltest.New(t, visionModel)
	var n atomic.Int32
	var stall atomic.Bool
	stall.Store(true)
	s.Handle(func(modeltest.Request) modeltest.Reply {
		k := n.Add(1)
		if k > 1 && stall.Load() {
			// The first run's other pages wait until it is stopped.
			return modeltest.Reply{Fault: modeltest.Fault{FirstTokenDelay: time.Hour}}
		}
		return modeltest.Reply{Text: "READ " + string(rune('A'+k-1))}
	})
	v := newVision(t, s, "ollama/qwen2.5vl:7b")
	db := openDB(t)
	doc := importFile(t, db, "scan.tiff", ocr.MultiTIFF(printed(900, 300, "PAGE ONE"), printed(900, 300, "PAGE TWO"), printed(900, 300, "PAGE THREE")))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	progressed := 0
	got, err := visionRun(ctx, t, db, doc.ID, v, func(d storage.Document, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		progressed = done
		cancel() // stopped after the first page
	})
	if !errors.Is(err, context.Canceled) || got.Status != storage.StatusNeedsOCR || progressed != 1 {
		t.Fatalf("interrupted run: %+v, %v, %d pages done", got, err, progressed)
	}
	for _, d := range details(t, db, doc.ID) {
		if d.Source != storage.SourceNone {
			t.Errorf("an interrupted run stored page %+v", d)
		}
	}
	before := len(s.Requests())

	stall.Store(false)
	var dones []int
	got, err = visionRun(context.Background(), t, db, doc.ID, v, func(d storage.Document, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		dones = append(dones, done)
	})
	if err != nil || got.Status != storage.StatusReady {
		t.Fatalf("resumed run: %+v, %v", got, err)
	}
	if asked := len(s.Requests()) - before; asked != 2 {
		t.Errorf("the resumed run asked the model %d times, want 2 (the pages not read)", asked)
	}
	if len(dones) != 3 || dones[0] != 1 || dones[2] != 3 {
		t.Errorf("progress of the resumed run %v, want it to start at the kept page", dones)
	}
	texts := map[string]bool{}
	for _, d := range details(t, db, doc.ID) {
		if d.Source != storage.SourceVision {
			t.Errorf("page %+v", d)
		}
		texts[pageText(t, db, doc.ID, d.Page)] = true
	}
	if !texts["READ A"] || len(texts) != 3 {
		t.Errorf("page texts %v: want the first run's READ A kept and two others", texts)
	}

	// A finished run leaves nothing kept: the next run reads every page.
	before = len(s.Requests())
	if _, err := visionRun(context.Background(), t, db, doc.ID, v, nil); err != nil {
		t.Fatal(err)
	}
	if asked := len(s.Requests()) - before; asked != 3 {
		t.Errorf("a new run after a finished one asked %d times, want 3", asked)
	}
}
