package ocr

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// The vision tier: a vision model (a multimodal model of Ollama or of an
// OpenAI-compatible server) reads the pages Tesseract reads badly, with
// the image in the chat request (provider.Message.Images).
//
// Which pages: with Options.Vision set, Tesseract reads each page first
// when it is installed (its words and boxes are kept: evidence finds
// quotes with them); then the model reads the page when
//
//   - Vision.All is set (docent ocr --vision-all), or
//   - Tesseract is not installed, or
//   - the page is a photo: a page of an image file (JPEG, PNG, TIFF...),
//     which Tesseract reads worst (receipts), or
//   - Tesseract's confidence is below Vision.Below (VisionBelow, 0.6) or
//     it found no words.
//
// Blank pages are read by neither. What the model reads replaces
// Tesseract's text (a page with a text layer keeps it unless the model
// read more, as with Tesseract); the page records source "vision", the
// model's id as its engine, and no confidence: a model gives none, and a
// number made up from its answer would look like a measurement.
//
// The guards, each from a way vision models fail in peers' pipelines:
//
//   - a pixel cap: the page image is scaled down to VisionMaxPixels (1.5
//     megapixels, keeping its aspect) in the reader child;
//   - an output cap: VisionMaxTokens (4096) tokens (Ollama's num_predict,
//     OpenAI's max_tokens); an answer cut there is noted "output cap
//     reached";
//   - repetition: a model that starts repeating a line or a phrase goes on
//     until the output cap; the streamed text is watched (findLoop) and
//     the stream stopped at the loop, the text before it kept, and the
//     page noted "repetition cut";
//   - a time limit per page, VisionPageTimeout (2 minutes), over every
//     attempt: a page that runs out keeps Tesseract's text when it has
//     some, else what the model sent, and is noted "timed out";
//   - a retry cap: a transient failure (a server error, a rate limit, a
//     stream cut mid-way, an idle stream) is tried again at most
//     VisionRetries (2) times, within the time limit; a page that still
//     fails keeps Tesseract's text, noted "vision model failed". A failure
//     that says the model cannot be used (not reachable, not found, a
//     refused key or request) stops the run;
//   - per-page results: each page is kept as it finishes
//     (storage.KeepOCRPage), so that a run stopped on the way (Ctrl-C, a
//     crash, the model server gone) resumes at the next page.
//
// One page is read by a vision model at a time in a process (visionSlot):
// a local server runs one request at a time, and a page queued behind
// others would spend its time limit waiting. The time limit starts when
// the page's turn comes.

// Defaults of Vision.
const (
	VisionBelow       = 0.6
	VisionMaxPixels   = 1_500_000
	VisionMaxTokens   = 4096
	VisionPageTimeout = 2 * time.Minute
	VisionRetries     = 2
)

// VisionPrompt is what the model is asked with each page image.
const VisionPrompt = "Transcribe all text on this page exactly as printed, in reading order; no commentary."

// Notes of pages the vision model read.
const (
	NoteRepetitionCut = "repetition cut"
	NoteTimedOut      = "timed out"
	NoteOutputCap     = "output cap reached"
	NoteVisionFailed  = "vision model failed"
)

// Vision is the vision tier of an OCR run.
type Vision struct {
	// Model is the model's id with its provider, "ollama/qwen2.5vl:7b": the
	// engine its pages record.
	Model string
	// Provider serves the model; Name is the model's name there
	// ("qwen2.5vl:7b"). NewVision sets both.
	Provider provider.Provider
	Name     string
	// All sends every page that is not blank to the model.
	All bool
	// Below is the Tesseract confidence under which a page goes to the
	// model; 0 means VisionBelow.
	Below float64
	// PageTimeout bounds the model on one page, every attempt included; 0
	// means VisionPageTimeout.
	PageTimeout time.Duration
	// MaxTokens caps each answer; 0 means VisionMaxTokens.
	MaxTokens int
	// MaxPixels caps each page image; 0 means VisionMaxPixels.
	MaxPixels int
	// Retries is how often a page is tried again after a transient
	// failure; 0 means VisionRetries, a negative value none.
	Retries int

	// think is false for a model that would think first (Ollama's
	// "thinking" capability): thinking spends the output cap and the time
	// limit on text nobody reads.
	think *bool
	// retryWait is the pause before the first retry, doubled at each; 0
	// means a second.
	retryWait time.Duration
}

// NewVision is the vision tier on model id modelID ("ollama/qwen2.5vl:7b")
// of the providers reg.
func NewVision(reg *provider.Registry, modelID string) (*Vision, error) {
	p, name, err := reg.For(modelID)
	if err != nil {
		return nil, err
	}
	return &Vision{Model: strings.TrimSpace(modelID), Provider: p, Name: name}, nil
}

// Check asks the provider about the model before any page is read: that
// it is there, and that it can see images when the provider says what a
// model can do (Ollama). A model that cannot be used is an unavailable
// error that says what to do.
func (v *Vision) Check(ctx context.Context) error {
	info, err := v.Provider.Show(ctx, v.Name)
	if err != nil {
		return fault.Errorf(fault.Unavailable, "the vision model %s: %w", v.Model, err)
	}
	if len(info.Capabilities) > 0 && !info.Has("vision") {
		return fault.Errorf(fault.Unavailable, "%s cannot read images (it can do: %s): pick a vision model, such as ollama/qwen2.5vl:7b",
			v.Model, strings.Join(info.Capabilities, ", "))
	}
	if info.Has("thinking") {
		off := false
		v.think = &off
	}
	return nil
}

func (v *Vision) below() float64 {
	if v.Below > 0 {
		return v.Below
	}
	return VisionBelow
}

func (v *Vision) timeout() time.Duration {
	if v.PageTimeout > 0 {
		return v.PageTimeout
	}
	return VisionPageTimeout
}

func (v *Vision) maxTokens() int {
	if v.MaxTokens > 0 {
		return v.MaxTokens
	}
	return VisionMaxTokens
}

func (v *Vision) maxPixels() int {
	if v.MaxPixels > 0 {
		return v.MaxPixels
	}
	return VisionMaxPixels
}

func (v *Vision) retries() int {
	switch {
	case v.Retries < 0:
		return 0
	case v.Retries == 0:
		return VisionRetries
	}
	return v.Retries
}

// runKey names how a run reads pages, for the pages it keeps
// (storage.KeepOCRPage): a run resumes only from pages read the same way.
func (v *Vision) runKey(engine *Engine, lang string, dpi int) string {
	tess := "none"
	if engine != nil {
		tess = engine.Name() + " " + lang
	}
	return fmt.Sprintf("vision %s; all %t; below %g; pixels %d; tesseract %s; dpi %d", v.Model, v.All, v.below(), v.maxPixels(), tess, dpi)
}

// wants reports whether the model reads a page: see the rule at the top.
// ocr is what Tesseract read, ocrRead false when it did not run.
func (v *Vision) wants(img PageImage, ocr storage.OCRPage, ocrRead bool) bool {
	switch {
	case img.Blank:
		return false
	case v.All, !ocrRead, img.Method == "image", ocr.Confidence == nil:
		return true
	}
	return *ocr.Confidence < v.below()
}

// visionSlot lets one page at a time be read by a vision model.
var visionSlot = make(chan struct{}, 1)

// read has the model read a page whose Tesseract result (or the bare page,
// when Tesseract did not run) is ocr. It returns the page to store, or an
// error that stops the run: ctx ended, or the model cannot be used.
func (v *Vision) read(ctx context.Context, img PageImage, ocr storage.OCRPage, ocrRead bool) (storage.OCRPage, error) {
	if img.VisionFile == "" {
		return ocr, fmt.Errorf("page %d has no image for the vision model", img.Page)
	}
	data, err := os.ReadFile(img.VisionFile)
	if err != nil {
		return ocr, err
	}
	select {
	case visionSlot <- struct{}{}:
	case <-ctx.Done():
		return ocr, ctx.Err()
	}
	defer func() { <-visionSlot }()

	limit := v.timeout()
	pctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var ans answer
	attempts := 0
	for {
		attempts++
		ans, err = v.ask(pctx, data)
		if err == nil || pctx.Err() != nil || attempts > v.retries() || !transient(err) {
			break
		}
		wait := v.retryWait
		if wait <= 0 {
			wait = time.Second
		}
		if !pause(pctx, wait<<(attempts-1)) {
			break
		}
	}

	// What Tesseract read stays when the model gives nothing better.
	fallback := func(note string) storage.OCRPage {
		if ocrRead && strings.TrimSpace(ocr.Text) != "" {
			ocr.Note = note + "; OCR text kept"
			return ocr
		}
		p := v.page(ocr, ans.text)
		p.Note = note
		if p.Text != "" {
			p.Note += ": the text is what the model sent until then"
		}
		return p
	}
	switch {
	case ctx.Err() != nil:
		return ocr, ctx.Err()
	case err == nil:
	case pctx.Err() != nil:
		return fallback(fmt.Sprintf("%s after %s", NoteTimedOut, limit)), nil
	case transient(err):
		return fallback(fmt.Sprintf("%s after %d attempts: %s", NoteVisionFailed, attempts, fault.ErrorMessage(err))), nil
	default:
		return ocr, fault.Errorf(fault.Unavailable, "the vision model %s: %w", v.Model, err)
	}
	p := v.page(ocr, ans.text)
	switch {
	case ans.loop:
		p.Note = NoteRepetitionCut + ": the model repeated itself; the text before the loop is kept"
	case ans.truncated:
		p.Note = fmt.Sprintf("%s (%d tokens): the text may be incomplete", NoteOutputCap, v.maxTokens())
	case p.Text == "":
		p.Note = "the vision model found no text"
	}
	return p, nil
}

// page is a page with the model's text, on the Tesseract result ocr (whose
// words stay: they are boxes on the same image).
func (v *Vision) page(ocr storage.OCRPage, text string) storage.OCRPage {
	ocr.Text, ocr.Source, ocr.Engine, ocr.Lang, ocr.Confidence, ocr.Note = text, storage.SourceVision, v.Model, "", nil, ""
	return ocr
}

// answer is what the model said of one page.
type answer struct {
	text string
	// loop: the answer was stopped at a repetition (findLoop).
	loop bool
	// truncated: the answer stopped at the output cap.
	truncated bool
}

// errLoop stops a stream that went into a loop.
var errLoop = errors.New("the model repeats itself")

// ask sends one page image and gathers the answer, stopping the stream at
// a loop. On an error, text is what arrived before it.
func (v *Vision) ask(ctx context.Context, img []byte) (answer, error) {
	req := provider.Request{
		Model:     v.Name,
		Messages:  []provider.Message{{Role: "user", Content: VisionPrompt, Images: [][]byte{img}}},
		MaxTokens: v.maxTokens(),
		Think:     v.think,
	}
	var text strings.Builder
	var ans answer
	checked := 0
	resp, err := v.Provider.Chat(ctx, req, func(d provider.Delta) error {
		if d.Text == "" {
			return nil
		}
		text.WriteString(d.Text)
		// Looking for a loop costs little, but not after every token.
		if text.Len()-checked < loopCheckEvery && !strings.Contains(d.Text, "\n") {
			return nil
		}
		checked = text.Len()
		if keep, ok := findLoop(text.String()); ok {
			ans.text, ans.loop = text.String()[:keep], true
			return errLoop
		}
		return nil
	})
	switch {
	case errors.Is(err, errLoop):
		ans.text = clean(ans.text)
		return ans, nil
	case err != nil:
		ans.text = clean(text.String())
		return ans, err
	}
	ans.text = resp.Text
	if keep, ok := findLoop(ans.text); ok {
		ans.text, ans.loop = ans.text[:keep], true
	}
	ans.text, ans.truncated = clean(ans.text), resp.Truncated && !ans.loop
	return ans, nil
}

// transient reports a failure worth another attempt.
func transient(err error) bool {
	switch provider.ErrorKind(err) {
	case provider.KindServerError, provider.KindRateLimited, provider.KindStreamInterrupted,
		provider.KindTimeout, provider.KindBadResponse:
		return true
	}
	return false
}

// pause waits d, or less if ctx ends first (false then).
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// clean trims the answer and takes off a code fence around all of it
// (```text ... ```), which models add though asked for no commentary.
func clean(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	first, rest, ok := strings.Cut(s, "\n")
	if !ok || strings.ContainsAny(strings.TrimPrefix(first, "```"), " `") {
		return s
	}
	if body, ok := strings.CutSuffix(rest, "```"); ok {
		return strings.TrimSpace(body)
	}
	if !slices.Contains(strings.Split(rest, "\n"), "```") {
		return strings.TrimSpace(rest) // cut before the closing fence
	}
	return s
}
