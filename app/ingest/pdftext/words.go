package pdftext

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// Positioned words: each word of a page's text with its box on the page, so
// that a value read from the text can be shown where it stands. The layout
// makes them from the same glyph runs it makes the text from (layout.go),
// so that a page's words, in order, are the tokens of its text: a word
// list that disagreed with the text would leave values unfindable.

// MaxPageWords bounds the words kept for one page; a page with more keeps
// none (its text stays), so that a hostile page cannot make the reply, and
// the importer's memory, grow without bound.
const MaxPageWords = 50_000

// PageWords are the words of one page, in points (1/72 inch) of the page as
// displayed: origin at the top left, the page's /Rotate applied, relative
// to its crop box (the media box when it has none). The words are in
// reading order, and joined by single spaces (Text) they are the page's
// text with its whitespace collapsed.
//
// They are held compactly, as one string of text and one array of numbers
// a page, not as a Word each: a long document has millions of words, and a
// string per word was a pointer per word for the garbage collector to scan
// at every cycle while the rest of the file was read (it cost the reader
// as much time as the file's own parsing), besides 16 more bytes a word.
// All and Words give them as Words.
type PageWords struct {
	// Width and Height are the size of the displayed page in points.
	Width, Height float64
	// Omitted: the page had more than MaxPageWords words and keeps none.
	Omitted bool
	text    string    // the words joined by single spaces
	boxes   []float32 // x, y, w, h of each word
}

// Word is one word of a page's text and its box in points of the displayed
// page: X, Y the top-left corner, to 1/100 point. Text is never empty and
// holds no whitespace: the layout ends a word at any.
type Word struct {
	X, Y, W, H float32
	Text       string
}

// NewPageWords makes the PageWords of a page of the given size. A word
// text that is empty or holds a space, which the layout never makes, would
// break the words' text apart; it becomes U+FFFD, its spaces U+00A0.
func NewPageWords(width, height float64, words []Word) PageWords {
	pw := PageWords{Width: width, Height: height}
	if len(words) == 0 {
		return pw
	}
	size := len(words) - 1
	for _, w := range words {
		size += len(w.Text)
	}
	var text strings.Builder
	text.Grow(size)
	pw.boxes = make([]float32, 0, 4*len(words))
	for i, w := range words {
		if i > 0 {
			text.WriteByte(' ')
		}
		switch {
		case w.Text == "":
			text.WriteString("\ufffd")
		case strings.IndexByte(w.Text, ' ') >= 0:
			text.WriteString(strings.ReplaceAll(w.Text, " ", "\u00a0"))
		default:
			text.WriteString(w.Text)
		}
		pw.boxes = append(pw.boxes, w.X, w.Y, w.W, w.H)
	}
	pw.text = text.String()
	return pw
}

// Len is the number of words.
func (pw PageWords) Len() int { return len(pw.boxes) / 4 }

// Text is the words joined by single spaces.
func (pw PageWords) Text() string { return pw.text }

// All yields the words in reading order with their index; their texts
// share the bytes of Text.
func (pw PageWords) All() iter.Seq2[int, Word] {
	return func(yield func(int, Word) bool) {
		text := pw.text
		for i := range pw.Len() {
			t, rest, _ := strings.Cut(text, " ")
			text = rest
			b := pw.boxes[4*i : 4*i+4]
			if !yield(i, Word{X: b[0], Y: b[1], W: b[2], H: b[3], Text: t}) {
				return
			}
		}
	}
}

// Words returns the words in reading order, nil when there are none.
func (pw PageWords) Words() []Word {
	if pw.Len() == 0 {
		return nil
	}
	words := make([]Word, 0, pw.Len())
	for _, w := range pw.All() {
		words = append(words, w)
	}
	return words
}

// pageWordsJSON is how PageWords cross the child-process boundary: their
// text, and their boxes as one binary string of little-endian int32
// hundredths of a point, four per word (x, y, w, h), which encoding/json
// sends in base64. Both decode in one piece, where an array per word (as
// storage.Word is stored) took seconds to decode for a 4,000-page file,
// and the reply is smaller: about 21 bytes of box a word instead of 28.
type pageWordsJSON struct {
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
	Text    string  `json:"text,omitempty"`
	Boxes   []byte  `json:"boxes,omitempty"`
	Omitted bool    `json:"omitted,omitempty"`
}

func (pw PageWords) MarshalJSON() ([]byte, error) {
	j := pageWordsJSON{Width: pw.Width, Height: pw.Height, Text: pw.text, Omitted: pw.Omitted}
	if len(pw.boxes) > 0 {
		j.Boxes = make([]byte, 0, 4*len(pw.boxes))
		for _, v := range pw.boxes {
			j.Boxes = binary.LittleEndian.AppendUint32(j.Boxes, uint32(int32(math.Round(float64(v)*100))))
		}
	}
	return json.Marshal(j)
}

func (pw *PageWords) UnmarshalJSON(b []byte) error {
	var j pageWordsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	n := 0
	if j.Text != "" {
		n = strings.Count(j.Text, " ") + 1
	}
	if len(j.Boxes) != 16*n {
		return fmt.Errorf("page words: %d bytes of boxes for %d words, want 16 per word", len(j.Boxes), n)
	}
	*pw = PageWords{Width: j.Width, Height: j.Height, Omitted: j.Omitted, text: j.Text}
	if n > 0 {
		pw.boxes = make([]float32, 4*n)
		for i := range pw.boxes {
			pw.boxes[i] = float32(float64(int32(binary.LittleEndian.Uint32(j.Boxes[4*i:]))) / 100)
		}
	}
	return nil
}

// span is a word as the layout finds it: its text and its box in default
// user space (y up), before the page's crop box and rotation apply. While
// lineText writes a line, from and to are the word's bytes in the line's
// text, which becomes the word's text once the line is complete.
type span struct {
	text           string
	from, to       int
	x0, y0, x1, y1 float64
}

// Vertical extent of a word's box around its baseline, as fractions of the
// font size along the glyphs' up vector: fonts do not say how tall their
// glyphs are in a way worth parsing, and these cover the ascenders and
// descenders of most text.
const (
	descent = 0.2
	ascent  = 0.8
)

// wordBuilder collects the glyphs of one word while lineText writes them.
type wordBuilder struct {
	cur  span
	open bool
}

// add records that t, the cleaned text of glyph g, was written at byte
// offset at of the line. Whitespace inside t (a glyph mapped to "a b", an
// em space) ends words, as it ends tokens of the text; each part of the
// glyph gets its share of the glyph's advance.
func (wb *wordBuilder) add(words []span, g *glyph, t string, at int) []span {
	if !strings.ContainsFunc(t, unicode.IsSpace) {
		if t != "" {
			wb.extend(g, at, at+len(t), 0, 1)
		}
		return words
	}
	n := float64(utf8.RuneCountInString(t))
	runes, from, fromRune := 0, -1, 0
	for i, r := range t {
		if unicode.IsSpace(r) {
			if from >= 0 {
				wb.extend(g, at+from, at+i, float64(fromRune)/n, float64(runes)/n)
				from = -1
			}
			words = wb.finish(words)
		} else if from < 0 {
			from, fromRune = i, runes
		}
		runes++
	}
	if from >= 0 {
		wb.extend(g, at+from, at+len(t), float64(fromRune)/n, 1)
	}
	return words
}

// extend adds bytes [from, to) of the line to the word, drawn by the part
// of glyph g from f0 to f1 of its advance: the box grows by that part of
// the baseline, descent below it and ascent above it.
func (wb *wordBuilder) extend(g *glyph, from, to int, f0, f1 float64) {
	if !wb.open {
		wb.cur = span{from: from, x0: math.Inf(1), y0: math.Inf(1), x1: math.Inf(-1), y1: math.Inf(-1)}
		wb.open = true
	}
	wb.cur.to = to
	for _, f := range [2]float64{f0, f1} {
		px, py := g.x+f*g.dx, g.y+f*g.dy
		for _, k := range [2]float64{-descent, ascent} {
			x, y := px+k*g.ux, py+k*g.uy
			if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
				continue
			}
			wb.cur.x0, wb.cur.y0 = math.Min(wb.cur.x0, x), math.Min(wb.cur.y0, y)
			wb.cur.x1, wb.cur.y1 = math.Max(wb.cur.x1, x), math.Max(wb.cur.y1, y)
		}
	}
	if wb.cur.x0 > wb.cur.x1 { // nothing finite yet: the origin, which the layout checked
		wb.cur.x0, wb.cur.y0, wb.cur.x1, wb.cur.y1 = g.x, g.y, g.x, g.y
	}
}

// finish ends the word being built, if any, and appends it to words.
func (wb *wordBuilder) finish(words []span) []span {
	if wb.open {
		words = append(words, wb.cur)
		wb.open = false
	}
	return words
}

// frame is how a page is shown: its crop box in default user space and its
// rotation, clockwise.
type frame struct {
	x0, y0, x1, y1 float64
	rotate         int // 0, 90, 180 or 270
}

// defaultFrame is US Letter, for a page that gives no usable box.
var defaultFrame = frame{x1: 612, y1: 792}

// pageFrame reads a page's crop box (clipped to its media box, as PDF
// 32000-1, 14.11.2 says; the media box when there is none or the two do not
// overlap) and its /Rotate. A rotation that is not a multiple of 90 degrees
// is ignored, as viewers ignore it.
//
// The three are inherited from the page tree, and are looked up in one walk
// up the /Parent chain rather than one walk each: ledongthuc parses an
// object again every time it is reached, and the parent of every page of a
// long document is one large /Kids array (a walk each doubled the time
// to read a 4,000-page file).
func pageFrame(page pdf.Value) frame {
	var mediaBox, cropBox, rotation pdf.Value
	v := page
	for range maxTreeDepth {
		if v.IsNull() {
			break
		}
		for _, a := range []struct {
			key string
			val *pdf.Value
		}{{"MediaBox", &mediaBox}, {"CropBox", &cropBox}, {"Rotate", &rotation}} {
			if a.val.IsNull() {
				*a.val = v.Key(a.key)
			}
		}
		if !mediaBox.IsNull() && !cropBox.IsNull() && !rotation.IsNull() {
			break
		}
		v = v.Key("Parent")
	}
	f := defaultFrame
	media, okMedia := rectOf(mediaBox)
	crop, okCrop := rectOf(cropBox)
	switch {
	case okCrop && okMedia:
		f = media
		if c := (frame{x0: max(crop.x0, media.x0), y0: max(crop.y0, media.y0), x1: min(crop.x1, media.x1), y1: min(crop.y1, media.y1)}); c.x1 > c.x0 && c.y1 > c.y0 {
			f = c
		}
	case okCrop:
		f = crop
	case okMedia:
		f = media
	}
	r := rotation.Float64()
	if math.Mod(r, 90) == 0 && math.Abs(r) < 1e6 {
		f.rotate = (int(r)%360 + 360) % 360
	}
	return f
}

// rectOf reads a rectangle [x0 y0 x1 y1], in either corner order; ok is
// false unless it has four finite numbers and an area.
func rectOf(v pdf.Value) (f frame, ok bool) {
	if v.Kind() != pdf.Array || v.Len() != 4 {
		return frame{}, false
	}
	var n [4]float64
	for i := range n {
		e := v.Index(i)
		if k := e.Kind(); k != pdf.Integer && k != pdf.Real {
			return frame{}, false
		}
		n[i] = e.Float64()
		if math.IsNaN(n[i]) || math.IsInf(n[i], 0) {
			return frame{}, false
		}
	}
	f = frame{x0: min(n[0], n[2]), y0: min(n[1], n[3]), x1: max(n[0], n[2]), y1: max(n[1], n[3])}
	return f, f.x1 > f.x0 && f.y1 > f.y0
}

// size is the width and height of the page as displayed.
func (f frame) size() (w, h float64) {
	w, h = f.x1-f.x0, f.y1-f.y0
	if f.rotate == 90 || f.rotate == 270 {
		return h, w
	}
	return w, h
}

// display maps a point of default user space onto the displayed page:
// from the crop box's top-left corner, y down, turned by the rotation.
func (f frame) display(x, y float64) (float64, float64) {
	u, v := x-f.x0, f.y1-y // unrotated, from the top left
	w, h := f.x1-f.x0, f.y1-f.y0
	switch f.rotate {
	case 90: // the top edge becomes the right edge
		return h - v, u
	case 180:
		return w - u, h - v
	case 270: // the top edge becomes the left edge
		return v, w - u
	}
	return u, v
}

// pageWords places the layout's words on the displayed page. A box is
// clipped to the page: text drawn beyond the crop box is in the page's
// text (the layout does not clip), so its word stays, squeezed onto the
// edge. A page with more than MaxPageWords words keeps none.
func pageWords(f frame, spans []span) PageWords {
	w, h := f.size()
	if len(spans) > MaxPageWords {
		return PageWords{Width: w, Height: h, Omitted: true}
	}
	words := make([]Word, len(spans))
	for i, s := range spans {
		ax, ay := f.display(s.x0, s.y0)
		bx, by := f.display(s.x1, s.y1)
		x0, x1 := clamp(min(ax, bx), w), clamp(max(ax, bx), w)
		y0, y1 := clamp(min(ay, by), h), clamp(max(ay, by), h)
		// Rounding the edges, not the size, keeps the far edge on the page.
		X, Y := hundredths(x0), hundredths(y0)
		words[i] = Word{X: X, Y: Y, W: hundredths(x1) - X, H: hundredths(y1) - Y, Text: s.text}
	}
	return NewPageWords(w, h, words)
}

func clamp(v, limit float64) float64 { return min(max(v, 0), limit) }

// hundredths rounds to 1/100 point, which is what the reply carries.
func hundredths(v float64) float32 { return float32(math.Round(v*100) / 100) }
