package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ledongthuc/pdf"
)

// Bounds on the work one page may cause, so that a page whose forms draw
// each other thousands of times ends with what it has instead of running on.
const (
	maxFormDepth = 12
	maxPageOps   = 20_000_000
	ctxCheckOps  = 4096
)

// errPageBudget stops a page that exceeds maxPageOps.
var errPageBudget = errors.New("page draws too much: stopped after 20 million operations")

// matrix is a PDF transformation matrix [a b c d e f].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m×n: first m, then n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2],
		m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2],
		m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4],
		m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return x*m[0] + y*m[2] + m[4], x*m[1] + y*m[3] + m[5]
}

func translate(x, y float64) matrix { return matrix{1, 0, 0, 1, x, y} }

func matrixOf(v pdf.Value) (matrix, bool) {
	if v.Kind() != pdf.Array || v.Len() != 6 {
		return identity, false
	}
	var m matrix
	for i := range m {
		m[i] = v.Index(i).Float64()
	}
	return m, true
}

// glyph is one drawn character on the page, in default user space.
type glyph struct {
	x, y   float64 // origin
	dx, dy float64 // advance vector
	ux, uy float64 // "up" vector: the font size, perpendicular to the baseline
	text   string
	space  bool
}

type gstate struct {
	ctm      matrix
	font     *font
	fontSize float64
	tc, tw   float64
	th       float64
	tl, rise float64
}

// pageReader collects the glyphs of one page: its content stream, the
// forms it draws, and the appearance streams of its annotations (where
// filled-in form fields show their values).
type pageReader struct {
	ctx    context.Context
	fonts  map[string]*font // shared across the document, keyed by font dict
	glyphs []glyph
	info   PageInfo // what the page draws besides text
	area   float64  // the page's area (its crop box, see pageFrame), for PageInfo.ImageCover
	ops    int
	err    error // why the page stopped early, if it did
	depth  int
}

// readPage returns the glyphs of a page shown in frame f. A content stream
// that breaks halfway (bad filter data, a syntax error the lexer cannot
// skip) keeps the glyphs drawn before the break; the break is reported as a
// warning.
func (pr *pageReader) readPage(page pdf.Value, f frame) ([]glyph, error) {
	res := inherited(page, "Resources")
	pr.area = (f.x1 - f.x0) * (f.y1 - f.y0)
	pr.run(page.Key("Contents"), res, gstate{ctm: identity, th: 1})
	pr.annotations(page)
	return pr.glyphs, pr.err
}

// run interprets one content stream (or array of streams).
func (pr *pageReader) run(contents pdf.Value, res pdf.Value, g gstate) {
	if contents.Kind() != pdf.Stream && contents.Kind() != pdf.Array {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			if err, ok := r.(error); ok && (err == errPageBudget || pr.ctx.Err() != nil) {
				panic(r) // ends the whole page, not just this stream
			}
			if pr.err == nil {
				pr.err = fmt.Errorf("content stream: %v", r)
			}
		}
	}()
	var stack []gstate
	tm, tlm := identity, identity
	fontsRes := res.Key("Font")

	show := func(s string) {
		f := g.font
		if f == nil {
			f = defaultFont
		}
		for _, gc := range f.decode(s) {
			trm := matrix{g.fontSize * g.th, 0, 0, g.fontSize, 0, g.rise}.mul(tm).mul(g.ctm)
			// For layout a glyph is as wide as its own advance; the
			// character and word spacing after it are gaps, which is how
			// some producers set the space between words. A space glyph is
			// as wide as the whole step, since a space narrowed to nothing
			// by negative word spacing is kerning, not a word break.
			extent := gc.width * g.fontSize * g.th
			tx := (gc.width*g.fontSize + g.tc) * g.th
			if gc.space {
				tx += g.tw * g.th
			}
			full := tm.mul(g.ctm)
			x0, y0 := trm[4], trm[5]
			blank := strings.TrimSpace(gc.text) == ""
			if blank {
				extent = tx // a space's width is the word break it makes
			}
			x1, y1 := translate(extent, g.rise).mul(full).apply(0, 0)
			if gc.text != "" {
				pr.glyphs = append(pr.glyphs, glyph{
					x: x0, y: y0, dx: x1 - x0, dy: y1 - y0,
					ux: trm[2], uy: trm[3],
					text: gc.text, space: blank,
				})
			}
			tm = translate(tx, 0).mul(tm)
		}
	}

	data, readErr := streamBytes(contents)
	if readErr != nil && pr.err == nil {
		pr.err = readErr
	}
	lex := contentLexer{data: data}
	var buf []operand
	for {
		op, args, ok := lex.next(buf)
		if !ok {
			break
		}
		buf = args
		pr.ops++
		if pr.ops%ctxCheckOps == 0 {
			if err := pr.ctx.Err(); err != nil {
				panic(err)
			}
		}
		if pr.ops > maxPageOps {
			panic(errPageBudget)
		}
		num := func(i int) float64 {
			if i < len(args) {
				return args[i].num
			}
			return 0
		}
		switch op {
		case "q":
			if len(stack) < 4096 {
				stack = append(stack, g)
			}
		case "Q":
			if n := len(stack); n > 0 {
				g = stack[n-1]
				stack = stack[:n-1]
			}
		case "cm":
			if len(args) == 6 {
				g.ctm = matrixArgs(args).mul(g.ctm)
			}
		case "BT":
			tm, tlm = identity, identity
		case "Tf":
			if len(args) == 2 {
				g.font = pr.font(fontsRes.Key(args[0].str))
				g.fontSize = args[1].num
			}
		case "Tc":
			g.tc = num(0)
		case "Tw":
			g.tw = num(0)
		case "Tz":
			g.th = num(0) / 100
		case "TL":
			g.tl = num(0)
		case "Ts":
			g.rise = num(0)
		case "Td", "TD":
			if len(args) == 2 {
				if op == "TD" {
					g.tl = -num(1)
				}
				tlm = translate(num(0), num(1)).mul(tlm)
				tm = tlm
			}
		case "Tm":
			if len(args) == 6 {
				tm = matrixArgs(args)
				tlm = tm
			}
		case "T*":
			tlm = translate(0, -g.tl).mul(tlm)
			tm = tlm
		case "Tj":
			if len(args) >= 1 {
				show(args[len(args)-1].str)
			}
		case "'", "\"":
			if op == "\"" && len(args) == 3 {
				g.tw, g.tc = num(0), num(1)
			}
			tlm = translate(0, -g.tl).mul(tlm)
			tm = tlm
			if len(args) >= 1 {
				show(args[len(args)-1].str)
			}
		case "TJ":
			if len(args) < 1 {
				continue
			}
			for _, x := range args[len(args)-1].arr {
				if x.kind == 's' {
					show(x.str)
				} else {
					tm = translate(-x.num/1000*g.fontSize*g.th, 0).mul(tm)
				}
			}
		case "Do":
			if len(args) == 1 {
				x := res.Key("XObject").Key(args[0].str)
				if x.Key("Subtype").Name() == "Image" {
					pr.image(g.ctm)
				} else {
					pr.form(x, g, res)
				}
			}
		case "BI": // an inline image, its data skipped by the lexer
			pr.image(g.ctm)
		case "m", "l", "c", "v", "y", "re":
			pr.info.PathSegments++
		}
	}
}

// image counts an image drawn with ctm, which maps the unit square onto
// the page, and the share of the page it covers.
func (pr *pageReader) image(ctm matrix) {
	pr.info.Images++
	if pr.area > 0 {
		cover := math.Abs(ctm[0]*ctm[3]-ctm[1]*ctm[2]) / pr.area
		pr.info.ImageCover = max(pr.info.ImageCover, min(cover, 1))
	}
}

// maxStreamBytes bounds the decoded size of one content stream; a page
// description larger than this is a decompression bomb, not a page.
const maxStreamBytes = 256 << 20

// streamBytes returns the decoded bytes of a content stream, or of an array
// of them joined as the specification says. A stream that fails halfway
// (damaged compressed data) gives what was decoded before the damage, with
// the error.
func streamBytes(contents pdf.Value) ([]byte, error) {
	parts := []pdf.Value{contents}
	if contents.Kind() == pdf.Array {
		parts = parts[:0]
		for i := 0; i < contents.Len() && i < 10_000; i++ {
			parts = append(parts, contents.Index(i))
		}
	}
	var out bytes.Buffer
	var firstErr error
	for _, p := range parts {
		if p.Kind() != pdf.Stream {
			continue
		}
		err := readStream(&out, p, maxStreamBytes-int64(out.Len()))
		if err != nil && firstErr == nil {
			firstErr = err
		}
		out.WriteByte('\n')
	}
	return out.Bytes(), firstErr
}

func readStream(w *bytes.Buffer, v pdf.Value, limit int64) (err error) {
	defer func() {
		// ledongthuc panics on filters it lacks and on broken data.
		if r := recover(); r != nil {
			err = fmt.Errorf("content stream: %v", r)
		}
	}()
	rd := v.Reader()
	defer rd.Close()
	n, err := w.ReadFrom(io.LimitReader(rd, limit+1))
	if err != nil {
		return fmt.Errorf("content stream: %w", err)
	}
	if n > limit {
		return fmt.Errorf("content stream larger than %d MiB: the rest is skipped", maxStreamBytes>>20)
	}
	return nil
}

func matrixArgs(args []operand) matrix {
	var m matrix
	for i := range m {
		m[i] = args[i].num
	}
	return m
}

// form draws a Form XObject (a reusable piece of content) in state g.
func (pr *pageReader) form(x pdf.Value, g gstate, parentRes pdf.Value) {
	if x.Kind() != pdf.Stream || x.Key("Subtype").Name() != "Form" || pr.depth >= maxFormDepth {
		return
	}
	if m, ok := matrixOf(x.Key("Matrix")); ok {
		g.ctm = m.mul(g.ctm)
	}
	res := x.Key("Resources")
	if res.Kind() != pdf.Dict {
		res = parentRes
	}
	pr.depth++
	pr.run(x, res, g)
	pr.depth--
}

// annotations draws the normal appearance of each visible annotation: the
// text of filled-in form fields and of free-text notes lives there, and
// poppler's pdftotext reads it too.
func (pr *pageReader) annotations(page pdf.Value) {
	annots := page.Key("Annots")
	for i := 0; i < annots.Len() && i < 10_000; i++ {
		a := annots.Index(i)
		switch a.Key("Subtype").Name() {
		case "Popup", "Link":
			continue
		}
		if a.Key("F").Int64()&2 != 0 { // hidden
			continue
		}
		ap := a.Key("AP").Key("N")
		if ap.Kind() == pdf.Dict {
			ap = ap.Key(a.Key("AS").Name())
		}
		if ap.Kind() != pdf.Stream {
			continue
		}
		rect := a.Key("Rect")
		bbox := ap.Key("BBox")
		if rect.Len() != 4 || bbox.Len() != 4 {
			continue
		}
		m, _ := matrixOf(ap.Key("Matrix"))
		// Map the form's transformed bounding box onto the annotation's
		// rectangle (PDF 32000-1, 12.5.5).
		bx0, by0, bx1, by1 := transformedBox(bbox, m)
		rx0, ry0 := math.Min(rect.Index(0).Float64(), rect.Index(2).Float64()), math.Min(rect.Index(1).Float64(), rect.Index(3).Float64())
		rx1, ry1 := math.Max(rect.Index(0).Float64(), rect.Index(2).Float64()), math.Max(rect.Index(1).Float64(), rect.Index(3).Float64())
		sx, sy := 1.0, 1.0
		if bx1-bx0 > 0 {
			sx = (rx1 - rx0) / (bx1 - bx0)
		}
		if by1-by0 > 0 {
			sy = (ry1 - ry0) / (by1 - by0)
		}
		a2 := translate(-bx0, -by0).mul(matrix{sx, 0, 0, sy, 0, 0}).mul(translate(rx0, ry0))
		res := ap.Key("Resources")
		pr.form(ap, gstate{ctm: a2, th: 1}, res)
	}
}

func transformedBox(bbox pdf.Value, m matrix) (x0, y0, x1, y1 float64) {
	x0, y0 = math.Inf(1), math.Inf(1)
	x1, y1 = math.Inf(-1), math.Inf(-1)
	for _, c := range [][2]int{{0, 1}, {0, 3}, {2, 1}, {2, 3}} {
		x, y := m.apply(bbox.Index(c[0]).Float64(), bbox.Index(c[1]).Float64())
		x0, y0 = math.Min(x0, x), math.Min(y0, y)
		x1, y1 = math.Max(x1, x), math.Max(y1, y)
	}
	return
}

// font returns the parsed font for a font dictionary, parsing each one once
// per document.
func (pr *pageReader) font(v pdf.Value) *font {
	if v.Kind() != pdf.Dict {
		return defaultFont
	}
	key := v.String()
	if f, ok := pr.fonts[key]; ok {
		return f
	}
	f := loadFont(v)
	pr.fonts[key] = f
	return f
}

// defaultFont stands in for a missing or broken font: one byte per code,
// read as WinAnsi, Helvetica widths.
var defaultFont = func() *font {
	f := &font{codeLen: 1, scale: 0.001, defaultW: 500, stdWidths: &helveticaWidths}
	var t [256]string
	for i, r := range winAnsiEncoding {
		if r != 0 {
			t[i] = string(r)
		}
	}
	f.simple = &t
	return f
}()

// inherited looks key up in the page and then up its /Parent chain, as
// ledongthuc's Page.Resources does; but that one follows a page that is its
// own parent forever, and this one stops after maxTreeDepth steps.
func inherited(page pdf.Value, key string) pdf.Value {
	v := page
	for range maxTreeDepth {
		if v.IsNull() {
			break
		}
		if r := v.Key(key); !r.IsNull() {
			return r
		}
		v = v.Key("Parent")
	}
	return pdf.Value{}
}
