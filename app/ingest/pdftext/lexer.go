package pdftext

import (
	"bytes"
	"strconv"
)

// A content stream is read by this package's own lexer rather than by
// ledongthuc's Interpret, which stops the whole page at the first token it
// cannot read (an odd escape in a string, the binary data of an inline image)
// and cannot skip inline image data at all. This one skips what it cannot
// read, one byte at a time, and carries on.

// operand is one operand of a content stream operator.
type operand struct {
	kind byte // 'n' number, 's' string, '/' name, '[' array, 'd' dict, 'b' bool/null
	num  float64
	str  string // string bytes, or name
	arr  []operand
}

const maxNesting = 64

// contentLexer splits a content stream into operators with their operands.
type contentLexer struct {
	data []byte
	pos  int
}

func isWhite(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

// next returns the next operator and its operands; ok is false at the end.
// Inline images (BI ... ID data EI) come back as one "BI" operator with no
// operands, their data skipped.
func (l *contentLexer) next(args []operand) (op string, operands []operand, ok bool) {
	args = args[:0]
	for {
		l.skipSpace()
		if l.pos >= len(l.data) {
			return "", args, false
		}
		c := l.data[l.pos]
		if isDelim(c) || c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9') {
			o, ok := l.operand(0)
			if ok && len(args) < 1024 {
				args = append(args, o)
			}
			continue
		}
		word := l.word()
		switch word {
		case "true", "false", "null":
			args = append(args, operand{kind: 'b'})
			continue
		case "BI":
			l.skipInlineImage()
			return "BI", args[:0], true
		}
		return word, args, true
	}
}

func (l *contentLexer) skipSpace() {
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		if c == '%' {
			for l.pos < len(l.data) && l.data[l.pos] != '\n' && l.data[l.pos] != '\r' {
				l.pos++
			}
			continue
		}
		if !isWhite(c) {
			return
		}
		l.pos++
	}
}

func (l *contentLexer) word() string {
	start := l.pos
	for l.pos < len(l.data) && !isWhite(l.data[l.pos]) && !isDelim(l.data[l.pos]) {
		l.pos++
	}
	if l.pos == start {
		l.pos++ // a stray delimiter such as ')' or '}': skip it
	}
	return string(l.data[start:l.pos])
}

// operand reads one operand; ok is false for bytes that are none (which are
// skipped).
func (l *contentLexer) operand(depth int) (operand, bool) {
	c := l.data[l.pos]
	switch {
	case c == '(':
		l.pos++
		return operand{kind: 's', str: l.literalString()}, true
	case c == '<' && l.pos+1 < len(l.data) && l.data[l.pos+1] == '<':
		l.pos += 2
		l.skipDict(depth)
		return operand{kind: 'd'}, true
	case c == '<':
		l.pos++
		return operand{kind: 's', str: l.hexString()}, true
	case c == '/':
		l.pos++
		return operand{kind: '/', str: l.name()}, true
	case c == '[':
		l.pos++
		a := operand{kind: '['}
		for {
			l.skipSpace()
			if l.pos >= len(l.data) {
				return a, true
			}
			if l.data[l.pos] == ']' {
				l.pos++
				return a, true
			}
			if depth >= maxNesting {
				l.pos++
				continue
			}
			c := l.data[l.pos]
			if isDelim(c) || c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9') {
				if o, ok := l.operand(depth + 1); ok && len(a.arr) < 1<<16 {
					a.arr = append(a.arr, o)
				}
				continue
			}
			// An operator inside an array is an error; PDF readers end the
			// array there. Leave the word for the caller.
			return a, true
		}
	case c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9'):
		start := l.pos
		l.pos++
		for l.pos < len(l.data) {
			c := l.data[l.pos]
			if (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' {
				l.pos++
				continue
			}
			break
		}
		return operand{kind: 'n', num: parseNumber(l.data[start:l.pos])}, true
	}
	l.pos++ // ')', '>', ']', '{', '}' out of place
	return operand{}, false
}

// parseNumber reads a PDF number leniently, as viewers do: "--5" is -5 and
// "1.2.3" is 1.2.
func parseNumber(b []byte) float64 {
	neg := false
	for len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = neg != (b[0] == '-')
		b = b[1:]
	}
	end := 0
	dot := false
	for end < len(b) && (b[end] >= '0' && b[end] <= '9' || b[end] == '.' && !dot) {
		dot = dot || b[end] == '.'
		end++
	}
	f, err := strconv.ParseFloat(string(b[:end]), 64)
	if err != nil {
		return 0
	}
	if neg {
		return -f
	}
	return f
}

func (l *contentLexer) literalString() string {
	var b []byte
	depth := 1
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return string(b)
			}
		case '\\':
			if l.pos >= len(l.data) {
				return string(b)
			}
			e := l.data[l.pos]
			l.pos++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if l.pos < len(l.data) && l.data[l.pos] == '\n' {
					l.pos++
				}
				continue
			case '\n':
				continue
			case '0', '1', '2', '3', '4', '5', '6', '7':
				v := int(e - '0')
				for i := 0; i < 2 && l.pos < len(l.data) && l.data[l.pos] >= '0' && l.data[l.pos] <= '7'; i++ {
					v = v*8 + int(l.data[l.pos]-'0')
					l.pos++
				}
				c = byte(v)
			default:
				c = e // \( \) \\ and unknown escapes stand for the character
			}
		}
		b = append(b, c)
	}
	return string(b)
}

func unhexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func (l *contentLexer) hexString() string {
	var b []byte
	var hi byte
	half := false
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		if c == '>' {
			break
		}
		d, ok := unhexDigit(c)
		if !ok {
			continue
		}
		if half {
			b = append(b, hi<<4|d)
		} else {
			hi = d
		}
		half = !half
	}
	if half {
		b = append(b, hi<<4)
	}
	return string(b)
}

func (l *contentLexer) name() string {
	start := l.pos
	for l.pos < len(l.data) && !isWhite(l.data[l.pos]) && !isDelim(l.data[l.pos]) {
		l.pos++
	}
	n := l.data[start:l.pos]
	if bytes.IndexByte(n, '#') < 0 {
		return string(n)
	}
	var b []byte
	for i := 0; i < len(n); i++ {
		if n[i] == '#' && i+2 < len(n) {
			h, ok1 := unhexDigit(n[i+1])
			lo, ok2 := unhexDigit(n[i+2])
			if ok1 && ok2 {
				b = append(b, h<<4|lo)
				i += 2
				continue
			}
		}
		b = append(b, n[i])
	}
	return string(b)
}

// skipDict skips a dictionary after its "<<" (marked-content properties).
func (l *contentLexer) skipDict(depth int) {
	for {
		l.skipSpace()
		if l.pos >= len(l.data) {
			return
		}
		if l.data[l.pos] == '>' && l.pos+1 < len(l.data) && l.data[l.pos+1] == '>' {
			l.pos += 2
			return
		}
		c := l.data[l.pos]
		if depth < maxNesting && (isDelim(c) || c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9')) {
			l.operand(depth + 1)
			continue
		}
		l.word()
	}
}

// skipInlineImage skips an inline image after its "BI": the parameters up to
// "ID", one white-space byte, then the data up to an "EI" that stands alone.
func (l *contentLexer) skipInlineImage() {
	i := bytes.Index(l.data[l.pos:], []byte("ID"))
	if i < 0 {
		l.pos = len(l.data)
		return
	}
	l.pos += i + 3
	for l.pos < len(l.data) {
		j := bytes.Index(l.data[l.pos:], []byte("EI"))
		if j < 0 {
			l.pos = len(l.data)
			return
		}
		at := l.pos + j
		before := at == 0 || isWhite(l.data[at-1])
		after := at+2 >= len(l.data) || isWhite(l.data[at+2]) || isDelim(l.data[at+2])
		l.pos = at + 2
		if before && after {
			return
		}
	}
}
