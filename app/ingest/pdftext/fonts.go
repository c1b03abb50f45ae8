package pdftext

import (
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/ledongthuc/pdf"
)

// font turns the bytes of a shown string into glyphs: how many bytes make
// one character code, what Unicode text the code stands for, and how far the
// glyph advances. ledongthuc/pdf has a Font type too, but it takes every byte
// as one glyph for advance widths, so two-byte (Type0) fonts all land on the
// same spot and their words run together; this keeps the code length, the
// ToUnicode map and the widths together, code by code.
type font struct {
	// codeLen is 1 for simple fonts and 2 for Type0 fonts unless a CMap
	// gives codespace ranges.
	codeLen int
	space   [4][]codeRange // codespace ranges by code length - 1, if known
	toUni   *cmap          // the font's ToUnicode map, if any
	simple  *[256]string   // text per code for simple fonts, from /Encoding
	ucs2    bool           // codes are UCS-2 (the Uni*-UCS2-* CMaps)
	// widths holds advance widths in glyph units (1/1000 em, or the Type3
	// font matrix's units) per code (simple) or CID (Type0).
	widths    map[int]float64
	ranges    []widthRange // Type0 /W ranges "first last width"
	defaultW  float64
	scale     float64 // glyph units to text space: 0.001, or FontMatrix[0] for Type3
	vertical  bool
	stdWidths *[95]float64 // built-in widths of a standard 14 font without /Widths
}

type codeRange struct{ lo, hi uint32 }

type widthRange struct {
	first, last int
	w           float64
}

// glyphCode is one character code of a shown string.
type glyphCode struct {
	text  string  // Unicode text, "" when unknown
	width float64 // advance in text space units for a font size of 1
	space bool    // the single-byte code 32, which word spacing (Tw) applies to
}

// decode splits s into character codes.
func (f *font) decode(s string) []glyphCode {
	out := make([]glyphCode, 0, len(s)/f.codeLen+1)
	for len(s) > 0 {
		n := f.codeLength(s)
		raw := s[:n]
		s = s[n:]
		code := 0
		for i := 0; i < len(raw); i++ {
			code = code<<8 | int(raw[i])
		}
		g := glyphCode{text: f.text(raw, code), width: f.width(code) * f.scale}
		g.space = n == 1 && code == 32
		out = append(out, g)
	}
	return out
}

func (f *font) codeLength(s string) int {
	if f.codeLen == 1 && f.space[1] == nil && f.space[2] == nil && f.space[3] == nil {
		return 1
	}
	for n := 1; n <= 4 && n <= len(s); n++ {
		if len(f.space[n-1]) == 0 {
			continue
		}
		c := beUint(s[:n])
		for _, r := range f.space[n-1] {
			if r.lo <= c && c <= r.hi {
				return n
			}
		}
	}
	return min(f.codeLen, len(s))
}

func (f *font) text(raw string, code int) string {
	if f.toUni != nil {
		if t, ok := f.toUni.lookup(raw); ok {
			return t
		}
	}
	switch {
	case f.simple != nil && code < 256:
		return f.simple[code]
	case f.ucs2 && len(raw) == 2:
		return string(rune(code))
	}
	return ""
}

func (f *font) width(code int) float64 {
	if w, ok := f.widths[code]; ok {
		return w
	}
	for _, r := range f.ranges {
		if r.first <= code && code <= r.last {
			return r.w
		}
	}
	if f.stdWidths != nil && code >= 32 && code < 127 {
		return f.stdWidths[code-32]
	}
	return f.defaultW
}

// loadFont reads a font dictionary. It never fails: what it cannot read it
// guesses, since a wrong width only costs a space and no font costs the text.
func loadFont(v pdf.Value) *font {
	f := &font{codeLen: 1, scale: 0.001, defaultW: 500}
	subtype := v.Key("Subtype").Name()
	if subtype == "Type0" {
		loadType0(f, v)
	} else {
		loadSimple(f, v, subtype)
	}
	if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		if m := readCMap(tu, v); m != nil && (len(m.chars) > 0 || len(m.ranges) > 0) {
			f.toUni = m
			if f.codeLen != 1 {
				// A Type0 font's own CMap decides code lengths; its ToUnicode
				// map usually repeats the codespace, so use it when the
				// encoding is a predefined CMap we cannot read.
				for i := range m.space {
					if len(f.space[i]) == 0 && len(m.space[i]) > 0 && !hasSpace(f) {
						f.space = m.space
						break
					}
				}
			}
		}
	}
	return f
}

func hasSpace(f *font) bool {
	for _, s := range f.space {
		if len(s) > 0 {
			return true
		}
	}
	return false
}

func loadType0(f *font, v pdf.Value) {
	f.codeLen = 2
	f.defaultW = 1000
	enc := v.Key("Encoding")
	switch enc.Kind() {
	case pdf.Name:
		name := enc.Name()
		f.vertical = strings.HasSuffix(name, "-V")
		f.ucs2 = strings.Contains(name, "UCS2") || strings.Contains(name, "UTF16")
		if strings.Contains(name, "RKSJ") || strings.HasPrefix(name, "GB-EUC") || strings.HasPrefix(name, "KSC-EUC") {
			// Mixed one/two-byte encodings: ASCII is one byte.
			f.space[0] = []codeRange{{0, 0x80}}
			f.space[1] = []codeRange{{0x8140, 0xfffe}}
		}
	case pdf.Stream:
		if m := readCMap(enc, v); m != nil && hasSpaceRanges(m) {
			f.space = m.space
		}
	}
	desc := v.Key("DescendantFonts").Index(0)
	if dw := desc.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
		f.defaultW = dw.Float64()
	}
	w := desc.Key("W")
	f.widths = map[int]float64{}
	for i := 0; i < w.Len(); {
		first := w.Index(i)
		next := w.Index(i + 1)
		if first.Kind() != pdf.Integer {
			break
		}
		if next.Kind() == pdf.Array {
			c := int(first.Int64())
			for j := 0; j < next.Len() && j < 1<<16; j++ {
				f.widths[c+j] = next.Index(j).Float64()
			}
			i += 2
			continue
		}
		last := w.Index(i + 1)
		width := w.Index(i + 2)
		if last.Kind() != pdf.Integer {
			break
		}
		f.ranges = append(f.ranges, widthRange{int(first.Int64()), int(last.Int64()), width.Float64()})
		i += 3
	}
}

func hasSpaceRanges(m *cmap) bool {
	for _, s := range m.space {
		if len(s) > 0 {
			return true
		}
	}
	return false
}

func loadSimple(f *font, v pdf.Value, subtype string) {
	if subtype == "Type3" {
		if fm := v.Key("FontMatrix"); fm.Len() == 6 && fm.Index(0).Float64() != 0 {
			f.scale = fm.Index(0).Float64()
		}
	}
	first := int(v.Key("FirstChar").Int64())
	ws := v.Key("Widths")
	if ws.Len() > 0 {
		f.widths = make(map[int]float64, ws.Len())
		for i := 0; i < ws.Len() && i < 256; i++ {
			f.widths[first+i] = ws.Index(i).Float64()
		}
		desc := v.Key("FontDescriptor")
		f.defaultW = desc.Key("MissingWidth").Float64()
		if f.defaultW == 0 {
			f.defaultW = desc.Key("AvgWidth").Float64()
		}
		if f.defaultW == 0 {
			f.defaultW = 500
		}
	} else {
		f.stdWidths = standardWidths(v.Key("BaseFont").Name())
	}
	f.simple = simpleEncoding(v)
}

// standardWidths returns the advance widths of printable ASCII for the
// standard 14 fonts, which PDFs may use without a /Widths array.
func standardWidths(base string) *[95]float64 {
	if i := strings.IndexByte(base, '+'); i >= 0 {
		base = base[i+1:]
	}
	switch {
	case strings.HasPrefix(base, "Courier"):
		var w [95]float64
		for i := range w {
			w[i] = 600
		}
		return &w
	case strings.HasPrefix(base, "Times"):
		return &timesWidths
	default:
		return &helveticaWidths
	}
}

// simpleEncoding maps the 256 codes of a simple font to text: the base
// encoding, then /Differences. Glyph names go through ledongthuc's Adobe
// glyph list (reached through its Encoder, which knows the list) and the
// uniXXXX convention.
func simpleEncoding(v pdf.Value) *[256]string {
	var table [256]string
	base := &standardEncoding
	if strings.HasPrefix(v.Key("Subtype").Name(), "TrueType") {
		base = &winAnsiEncoding
	}
	enc := v.Key("Encoding")
	baseName := enc.Name()
	if enc.Kind() == pdf.Dict {
		baseName = enc.Key("BaseEncoding").Name()
	}
	switch baseName {
	case "WinAnsiEncoding":
		base = &winAnsiEncoding
	case "MacRomanEncoding":
		base = &macRomanEncoding
	case "StandardEncoding":
		base = &standardEncoding
	}
	for i, r := range base {
		if r != 0 {
			table[i] = string(r)
		}
	}
	if baseName == "" {
		// No base encoding named: the font program's own applies.
		for code, name := range builtinEncoding(v.Key("FontDescriptor")) {
			if t, ok := glyphText(name); ok {
				table[code] = t
			}
		}
	}
	if enc.Kind() != pdf.Dict {
		return &table
	}
	diffs := enc.Key("Differences")
	var agl pdf.TextEncoding
	code := -1
	for i := 0; i < diffs.Len() && i < 1024; i++ {
		x := diffs.Index(i)
		switch x.Kind() {
		case pdf.Integer:
			code = int(x.Int64())
		case pdf.Name:
			if code >= 0 && code < 256 {
				if t, ok := glyphText(x.Name()); ok {
					table[code] = t
				} else {
					if agl == nil {
						fv := pdf.Font{V: v}
						agl = fv.Encoder()
					}
					if t := agl.Decode(string([]byte{byte(code)})); t != "" && t != string(rune(code)) && t != "\ufffd" {
						table[code] = t
					} else if len(x.Name()) > 1 {
						// An unknown name (g12, glyph7): the text is lost.
						table[code] = ""
					}
				}
			}
			code++
		}
	}
	return &table
}

// glyphNameText reads the glyph names whose text is in the name itself.
func glyphNameText(name string) (string, bool) {
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i] // "a.sc" is a small-cap a
	}
	if len(name) == 1 {
		return name, true
	}
	if strings.HasPrefix(name, "uni") && len(name) >= 7 && (len(name)-3)%4 == 0 {
		var u []uint16
		for i := 3; i+4 <= len(name); i += 4 {
			n, err := strconv.ParseUint(name[i:i+4], 16, 16)
			if err != nil {
				return "", false
			}
			u = append(u, uint16(n))
		}
		return string(utf16.Decode(u)), true
	}
	if name[0] == 'u' && len(name) >= 5 && len(name) <= 7 {
		if n, err := strconv.ParseUint(name[1:], 16, 32); err == nil && n <= 0x10ffff {
			return string(rune(n)), true
		}
	}
	switch name {
	case "space", "nbspace", "nonbreakingspace":
		return " ", true
	case "fi", "fl", "ff", "ffi", "ffl":
		return name, true
	}
	return "", false
}

func beUint(s string) uint32 {
	var c uint32
	for i := 0; i < len(s); i++ {
		c = c<<8 | uint32(s[i])
	}
	return c
}

// cmap is a parsed CMap: codespace ranges and code-to-text mappings.
type cmap struct {
	space  [4][]codeRange
	chars  map[string]string
	ranges []cmapRange
}

type cmapRange struct {
	lo, hi uint32
	n      int      // code length in bytes
	dst    string   // UTF-16BE of the first code, incremented along the range
	array  []string // or one UTF-16BE string per code
}

func (m *cmap) lookup(raw string) (string, bool) {
	if t, ok := m.chars[raw]; ok {
		return t, true
	}
	c := beUint(raw)
	for _, r := range m.ranges {
		if r.n != len(raw) || c < r.lo || c > r.hi {
			continue
		}
		off := c - r.lo
		if r.array != nil {
			if int(off) < len(r.array) {
				return utf16BE(r.array[off]), true
			}
			return "", true
		}
		b := []byte(r.dst)
		if len(b) < 2 {
			return "", true
		}
		// Increment the last UTF-16 code unit by the offset.
		last := uint32(b[len(b)-2])<<8 | uint32(b[len(b)-1])
		last += off
		b[len(b)-2], b[len(b)-1] = byte(last>>8), byte(last)
		return utf16BE(string(b)), true
	}
	return "", false
}

// readCMap parses a CMap stream (ToUnicode or an embedded encoding) with
// ledongthuc's PostScript interpreter. A CMap that breaks the interpreter
// halfway keeps what was read before the break. scratch is any dictionary:
// a CMap starts with "/CIDInit /ProcSet findresource begin", which needs a
// dictionary on the stack, and this package cannot make a pdf.Value of its
// own; the defs that follow go to the CMap's own "N dict begin" dictionary.
func readCMap(v, scratch pdf.Value) (m *cmap) {
	m = &cmap{chars: map[string]string{}}
	defer func() {
		if recover() != nil && len(m.chars) == 0 && len(m.ranges) == 0 && !hasSpaceRanges(m) {
			m = nil
		}
	}()
	pdf.Interpret(v, func(stk *pdf.Stack, op string) {
		switch op {
		case "findresource":
			popAll(stk)
			stk.Push(scratch)
		case "begincodespacerange", "beginbfchar", "beginbfrange", "begincidrange", "begincidchar":
			for stk.Len() > 0 {
				stk.Pop()
			}
		case "endcodespacerange":
			args := popAll(stk)
			for i := 0; i+1 < len(args); i += 2 {
				lo, hi := args[i].RawString(), args[i+1].RawString()
				if len(lo) == 0 || len(lo) > 4 || len(lo) != len(hi) {
					continue
				}
				m.space[len(lo)-1] = append(m.space[len(lo)-1], codeRange{beUint(lo), beUint(hi)})
			}
		case "endbfchar":
			args := popAll(stk)
			for i := 0; i+1 < len(args); i += 2 {
				src := args[i].RawString()
				dst := args[i+1]
				switch dst.Kind() {
				case pdf.String:
					m.chars[src] = utf16BE(dst.RawString())
				case pdf.Name:
					if t, ok := glyphNameText(dst.Name()); ok {
						m.chars[src] = t
					}
				}
			}
		case "endbfrange":
			args := popAll(stk)
			for i := 0; i+2 < len(args); i += 3 {
				lo, hi := args[i].RawString(), args[i+1].RawString()
				if len(lo) == 0 || len(lo) > 4 || len(lo) != len(hi) || beUint(lo) > beUint(hi) {
					continue
				}
				r := cmapRange{lo: beUint(lo), hi: beUint(hi), n: len(lo)}
				dst := args[i+2]
				switch dst.Kind() {
				case pdf.String:
					r.dst = dst.RawString()
				case pdf.Array:
					for j := 0; j < dst.Len() && j < 1<<16; j++ {
						r.array = append(r.array, dst.Index(j).RawString())
					}
				default:
					continue
				}
				m.ranges = append(m.ranges, r)
			}
		case "endcidrange", "endcidchar":
			popAll(stk)
		}
	})
	return m
}

func popAll(stk *pdf.Stack) []pdf.Value {
	args := make([]pdf.Value, stk.Len())
	for i := len(args) - 1; i >= 0; i-- {
		args[i] = stk.Pop()
	}
	return args
}

// utf16BE decodes big-endian UTF-16, the text encoding of ToUnicode maps.
func utf16BE(s string) string {
	if len(s) == 1 {
		return string(rune(s[0]))
	}
	u := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
	}
	return string(utf16.Decode(u))
}
