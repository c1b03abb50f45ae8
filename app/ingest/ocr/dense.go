package ocr

import (
	"context"
	"fmt"
	"strings"

	"github.com/docent/docent/app/ingest/ocr/ppocr"
	"github.com/docent/docent/storage"
)

// PP-OCR's detection sees a page scaled to at most ppocr.MaxSide pixels
// a side. On a page of small print, 3,000 pixels square with 150 lines of
// small numbers, the letters it sees are a few pixels high, and it found
// a line or two: the page was ready, read by PP-OCR with a confidence of
// 0.98 and 33 characters, where Tesseract reads 6,000 words of the same
// file. So readPage weighs PP-OCR's reading against
// the page's ink (inkLines): a page whose detection found far fewer lines
// than its ink has, or whose lines are smaller than detection sees at its
// scale, is read by Tesseract too, at full resolution, and the better
// reading is kept (readMissed).

// minSeenLine is the height in pixels, as PP-OCR's detection sees a
// page, under which a line of text is too small for it: its model was
// trained on lines ten pixels high and more.
const minSeenLine = 8

// minInkLines is the fewest lines of ink a page must have for PP-OCR's
// reading to be weighed against them: on a page of a few lines, the
// count says little.
const minInkLines = 10

// missedLines says why PP-OCR's reading of a page, which found lines
// lines of text, may have missed much of it, judged by the page's ink;
// "" when it need not have. The ink's count errs low (inkLines), so a
// reading of fewer lines than a third of it missed text for sure.
func missedLines(img PageImage, lines int) string {
	if img.InkLines < minInkLines {
		return ""
	}
	scale := min(1, float64(ppocr.MaxSide)/float64(max(img.Width, img.Height)))
	seen := float64(img.InkLineHeight) * scale
	switch {
	case 3*lines < img.InkLines:
		return fmt.Sprintf("PP-OCR found %d lines of text where the page's ink has about %d", lines, img.InkLines)
	case seen < minSeenLine && lines < img.InkLines:
		return fmt.Sprintf("the page's lines of text are about %d pixels high, %.0f as PP-OCR's detection sees the page, "+
			"too small for it, and it found %d where the page's ink has about %d", img.InkLineHeight, seen, lines, img.InkLines)
	}
	return ""
}

// NoteMissedText starts the note of a page whose PP-OCR reading missed
// text that its ink shows, which Tesseract then read too.
const NoteMissedText = "PP-OCR missed text"

// readMissed has Tesseract read the page p again, whose reading by PP-OCR
// may have missed much of its text (why, missedLines), at full
// resolution (the image tesseractImage makes), and keeps the better
// reading (more text, weighed by confidence: confidentLetters), with a
// note that says why, what each read and which is kept; without Tesseract
// (engine nil) PP-OCR's, with a note that says how to install it. It also returns
// the page image the kept reading was read from. A reading that is kept
// and still far short of the ink's lines has its confidence lowered to
// the share of them it read: a page is never ready with a near-empty text
// and a high confidence.
func readMissed(ctx context.Context, engine *Engine, lang string, img PageImage, p storage.OCRPage, why string,
	tesseractImage func(PageImage) (PageImage, error), opts Options) (storage.OCRPage, PageImage, error) {
	note := NoteMissedText + ": " + why
	first := describeReading(p.Engine, p.Words.Words, p.Confidence)
	if engine == nil {
		addNote(&p, fmt.Sprintf("%s; Tesseract, which would read it again at full resolution, is not installed (%s), so PP-OCR's reading (%s) is kept",
			note, installHint(nil), first))
		lowerToInk(&p, img.InkLines)
		return p, img, nil
	}
	t, err := tesseractImage(img)
	var text string
	var words []storage.Word
	if err == nil {
		text, words, err = engine.RecognizePage(ctx, t, lang, opts.tesseractLimits())
	}
	if err != nil && ctx.Err() != nil {
		return p, img, ctx.Err()
	}
	var kept string
	switch second := describeReading("Tesseract", words, confidence(words)); {
	case err != nil:
		opts.logger().Warn("reading a page PP-OCR missed text of with Tesseract failed", "page", img.Page, "err", err.Error())
		kept = fmt.Sprintf("Tesseract could not read it again (%v), so PP-OCR's reading (%s) is kept", err, first)
	case confidentLetters(words) <= confidentLetters(p.Words.Words):
		kept = fmt.Sprintf("Tesseract read it again at full resolution (%s), less than PP-OCR (%s), whose reading is kept", second, first)
	default:
		p.Engine = engine.NameForPage(lang, t.Method)
		p.Text, p.Confidence = text, confidence(words)
		p.Words = &storage.PageWords{Width: t.Width, Height: t.Height, DPI: t.DPI, Words: words}
		kept = fmt.Sprintf("Tesseract read it again at full resolution (%s), more than PP-OCR (%s), and its reading is kept", second, first)
	}
	addNote(&p, note+"; "+kept)
	lowerToInk(&p, img.InkLines)
	return p, t, nil
}

// describeReading says what a reading by engine holds: "6,012 words at
// confidence 0.91".
func describeReading(engine string, words []storage.Word, conf *float64) string {
	name, _, _ := strings.Cut(engine, " ")
	if name == "ppocr" {
		name = "PP-OCR"
	}
	if conf == nil {
		return fmt.Sprintf("%s: no words", name)
	}
	return fmt.Sprintf("%s: %d words at confidence %.2f", name, len(words), *conf)
}

// confidentLetters weighs a reading: its letters and digits, each by its
// word's confidence. More text read surely weighs more; the same text read
// less surely weighs less.
func confidentLetters(words []storage.Word) float64 {
	var sum float64
	for _, w := range words {
		sum += w.Conf / 100 * float64(alnum(w.Text))
	}
	return sum
}

// lowerToInk lowers the confidence of a page whose text has fewer than a
// third of the lines of text its ink has (inkLines) to the share of them
// it has.
func lowerToInk(p *storage.OCRPage, inkLines int) {
	lines := 0
	for _, l := range strings.Split(p.Text, "\n") {
		if strings.TrimSpace(l) != "" {
			lines++
		}
	}
	if p.Confidence == nil || inkLines == 0 || 3*lines >= inkLines {
		return
	}
	c := min(*p.Confidence, float64(int(float64(lines)/float64(inkLines)*1000))/1000)
	p.Confidence = &c
}
