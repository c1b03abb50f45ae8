package ingest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"iter"
	"math"
	"strings"

	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/storage"
)

// A PDF's text layer is stored with its words and their boxes (page_words),
// as OCR stores the words it reads: grounding finds an extracted value's
// words on the page. The reader gives them in points of the displayed
// page; the store keeps whole points at DPI 72.

// orDefault is extract, or the isolated reader with default limits when it
// is nil.
func orDefault(extract ExtractFunc) ExtractFunc {
	if extract != nil {
		return extract
	}
	return func(ctx context.Context, r io.Reader, size int64, opts pdftext.Options) (pdftext.Result, error) {
		return pdftext.ExtractIsolatedReader(ctx, r, size, opts, pdftext.Limits{})
	}
}

// textLayer is a PDF's words as the reader gave them, kept in its compact
// form until the store takes them a page at a time: in the store's form a
// word takes 56 bytes, and a 4,000-page file has two million words.
type textLayer struct {
	pages []string
	words []pdftext.PageWords
}

// newTextLayer keeps the words of res; nil when the reader gave none (an
// ExtractFunc that does not make them).
func newTextLayer(res pdftext.Result) *textLayer {
	if len(res.Words) != len(res.Pages) || len(res.Words) == 0 {
		return nil
	}
	return &textLayer{pages: res.Pages, words: res.Words}
}

// page converts page i's words (0-based) for the store: nil for a page
// without text, an empty list for a page whose words the reader did not
// keep (too many), so that EnsureWords does not read the file again for
// it.
func (t *textLayer) page(i int) *storage.PageWords {
	if strings.TrimSpace(t.pages[i]) == "" {
		return nil
	}
	return storageWords(t.words[i])
}

// source yields the words of each page converted for the store, dropping
// each page's compact words once converted; nil for no words.
func (t *textLayer) source() iter.Seq2[*storage.PageWords, error] {
	if t == nil {
		return nil
	}
	return func(yield func(*storage.PageWords, error) bool) {
		for i := range t.words {
			pw := t.page(i)
			t.words[i] = pdftext.PageWords{}
			if !yield(pw, nil) {
				return
			}
		}
	}
}

// store stores the words of the pages of document id that have words,
// with SetPageWords: for a document whose pages are already stored.
func (t *textLayer) store(ctx context.Context, db *storage.DB, id string) error {
	if t == nil {
		return nil
	}
	pages := make([]int, len(t.words))
	for i := range pages {
		pages[i] = i + 1
	}
	return setWords(ctx, db, id, pages, func(page int) *storage.PageWords {
		pw := t.page(page - 1)
		t.words[page-1] = pdftext.PageWords{}
		return pw
	})
}

// wordBatch is how many pages' words setWords stores in one transaction.
const wordBatch = 256

// setWords stores the words that words gives for pages (nil for none) with
// SetPageWords, wordBatch pages at a time, so that a long document's words
// are never all held in the store's form. A batch stored stays stored if a
// later one fails: each page's words are whole, and the pages still
// missing are read again by the next EnsureWords.
func setWords(ctx context.Context, db *storage.DB, id string, pages []int, words func(page int) *storage.PageWords) error {
	for len(pages) > 0 {
		n := min(wordBatch, len(pages))
		set := make(map[int]storage.PageWords, n)
		for _, page := range pages[:n] {
			if pw := words(page); pw != nil {
				set[page] = *pw
			}
		}
		if len(set) > 0 {
			if err := db.SetPageWords(ctx, id, set); err != nil {
				return err
			}
		}
		pages = pages[n:]
	}
	return nil
}

// storageWords converts one page's words: whole points, the edges rounded
// (a box at least 1 point wide and high, on the page), confidence 100.
func storageWords(pw pdftext.PageWords) *storage.PageWords {
	width, height := wholePoints(pw.Width), wholePoints(pw.Height)
	out := &storage.PageWords{Width: width, Height: height, DPI: 72, Words: make([]storage.Word, pw.Len())}
	for i, w := range pw.All() {
		x, wd := edges(w.X, w.W, width)
		y, ht := edges(w.Y, w.H, height)
		out.Words[i] = storage.Word{X: x, Y: y, W: wd, H: ht, Conf: 100, Text: w.Text}
	}
	return out
}

// wholePoints is a page side in whole points, at least 1 (the store wants a
// size).
func wholePoints(v float64) int {
	if math.IsNaN(v) || v < 1 {
		return 1
	}
	return int(math.Round(min(v, 1e6)))
}

// edges rounds a box's start and end to whole points and keeps it at least
// 1 point long within [0, limit].
func edges(start, length float32, limit int) (int, int) {
	a := int(math.Round(float64(start)))
	b := int(math.Round(float64(start + length)))
	a = min(max(a, 0), limit)
	n := max(min(b, limit)-a, 1)
	if a+n > limit {
		a = max(limit-n, 0)
	}
	return a, n
}

// EnsureWords stores the words of a PDF's text-layer pages that have none:
// documents imported before words were stored, or whose words were lost.
// It reads the stored file again in a reader child (extract; nil is the
// isolated reader with default limits) and stores the words of the pages
// that lacked them. It does nothing for a document that has them, for
// other types than PDF, and for pages whose text OCR read; when nothing is
// missing it costs two small queries. A page the reader now gives no words
// for gets an empty list, so that it is not read again at the next call.
// An encrypted PDF that needs a user password fails with
// pdftext.ErrPasswordRequired: the password is not stored.
func EnsureWords(ctx context.Context, db *storage.DB, documentID string, extract ExtractFunc) error {
	doc, err := db.GetDocument(ctx, documentID)
	if err != nil {
		return err
	}
	if doc.MediaType != MediaPDF {
		return nil
	}
	missing, err := db.PagesWithoutWords(ctx, documentID)
	if err != nil || len(missing) == 0 {
		return err
	}
	data, err := db.DocumentFile(ctx, documentID)
	if err != nil {
		return err
	}
	res, err := orDefault(extract)(ctx, bytes.NewReader(data), int64(len(data)), pdftext.Options{})
	if err != nil {
		return fmt.Errorf("read the words of %s (%s) again: %w", doc.Name, doc.ID, err)
	}
	reread := len(res.Words) == len(res.Pages)
	return setWords(ctx, db, documentID, missing, func(page int) *storage.PageWords {
		if !reread || page > len(res.Words) {
			return &storage.PageWords{Width: 612, Height: 792, DPI: 72, Words: []storage.Word{}} // US Letter, the reader's default
		}
		pw := storageWords(res.Words[page-1])
		res.Words[page-1] = pdftext.PageWords{}
		return pw
	})
}
