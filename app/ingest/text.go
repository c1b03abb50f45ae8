package ingest

import (
	"bufio"
	"bytes"
	"io"
	"iter"
	"unicode/utf8"
)

// A text file is decoded as a stream, a page at a time, so that importing
// one costs about the same memory whatever its size (a 256 MiB file once
// took two gigabytes as []byte, []rune, string and split copies). See
// passes.go for how the file is read.

// MaxPageChars is the longest page a text file gives, in characters. Plain
// text has no page break but the form feed, and without one a whole file
// would be one page: too large to show, to quote or to send to a model. A
// longer stretch is split at its last line break in the second half of
// the limit (at the limit itself when a line is longer than half of it).
const MaxPageChars = 64 << 10

// utf8Check is a writer that tells whether everything written to it is
// UTF-8, a piece at a time: a character cut between two writes is kept
// until the next one completes it.
type utf8Check struct {
	carry []byte // the start of a character the last write cut off
	bad   bool
}

func (c *utf8Check) Write(p []byte) (int, error) {
	n := len(p)
	if c.bad {
		return n, nil
	}
	for len(c.carry) > 0 && len(p) > 0 {
		c.carry = append(c.carry, p[0])
		p = p[1:]
		if utf8.FullRune(c.carry) {
			if r, size := utf8.DecodeRune(c.carry); r == utf8.RuneError && size == 1 {
				c.bad = true
				return n, nil
			}
			c.carry = c.carry[:0]
		}
	}
	cut := len(p)
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				cut = i
			}
			break
		}
	}
	if !utf8.Valid(p[:cut]) {
		c.bad = true
		return n, nil
	}
	c.carry = append(c.carry, p[cut:]...)
	return n, nil
}

// valid reports whether all that was written is UTF-8, with no character
// cut off at the end.
func (c *utf8Check) valid() bool { return !c.bad && len(c.carry) == 0 }

var bom = []byte("\xef\xbb\xbf")

// textPages yields the pages of a text file: a byte-order mark at the start
// is dropped, the bytes are decoded as UTF-8 or, when latin1 is set, as
// Latin-1 (what older text files usually are, rather than dropping what is
// not UTF-8), CRLF becomes LF, a form feed starts a new page, a trailing
// form feed does not make an empty last page, and no page is longer than
// maxChars characters. It holds one page in memory at a time.
func textPages(r io.Reader, latin1 bool, maxChars int) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		br := bufio.NewReaderSize(r, 64<<10)
		if head, _ := br.Peek(len(bom)); bytes.Equal(head, bom) {
			_, _ = br.Discard(len(bom))
		}
		var page []byte // the page so far, as UTF-8
		chars, pages := 0, 0
		emit := func(p []byte) bool {
			pages++
			return yield(string(p), nil)
		}
		// add appends one character and ends the page if it is full.
		add := func(c rune) bool {
			page = utf8.AppendRune(page, c)
			if chars++; chars < maxChars {
				return true
			}
			cut, next := len(page), len(page)
			if i := bytes.LastIndexByte(page, '\n'); i >= len(page)/2 {
				cut, next = i, i+1 // the line break becomes the page break
			}
			if !emit(page[:cut]) {
				return false
			}
			page = append(page[:0], page[next:]...)
			chars = utf8.RuneCount(page)
			return true
		}
		cr := false // a CR was read: it is kept unless an LF follows
		for {
			var c rune
			var err error
			if latin1 {
				var b byte
				b, err = br.ReadByte()
				c = rune(b)
			} else {
				c, _, err = br.ReadRune()
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				yield("", err)
				return
			}
			if cr && c != '\n' && !add('\r') {
				return
			}
			cr = false
			switch c {
			case '\r':
				cr = true
			case '\f':
				if !emit(page) {
					return
				}
				page, chars = page[:0], 0
			default:
				if !add(c) {
					return
				}
			}
		}
		if cr && !add('\r') {
			return
		}
		if pages > 0 && len(bytes.TrimSpace(page)) == 0 {
			return // a trailing form feed ends the last page
		}
		emit(page)
	}
}
