package provider

import (
	"strings"
	"unicode"
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// thinkSplitter separates <think>…</think> sections that some models write
// into their text content from the visible answer, across chunk boundaries:
// a tag split over two deltas is held back until it is complete. It is a
// pure state machine; Feed each content delta, then Flush at the end.
type thinkSplitter struct {
	inThink bool
	// pending is the tail of the input that may be the start of a tag.
	pending string
	// trimLead drops whitespace at the start of the visible text after a
	// closing tag, so "</think>\n\nAnswer" shows "Answer".
	trimLead bool
}

// Feed takes the next piece of content and returns the thinking and
// visible text it completes.
func (s *thinkSplitter) Feed(chunk string) (thinking, text string) {
	buf := s.pending + chunk
	s.pending = ""
	var th, tx strings.Builder
	for buf != "" {
		tag := thinkOpen
		if s.inThink {
			tag = thinkClose
		}
		if i := strings.Index(buf, tag); i >= 0 {
			s.emit(&th, &tx, buf[:i])
			buf = buf[i+len(tag):]
			s.inThink = !s.inThink
			s.trimLead = !s.inThink
			continue
		}
		k := partialSuffix(buf, tag)
		s.emit(&th, &tx, buf[:len(buf)-k])
		s.pending = buf[len(buf)-k:]
		break
	}
	return th.String(), tx.String()
}

// Flush returns what is held back at the end of the stream: an incomplete
// tag is just text.
func (s *thinkSplitter) Flush() (thinking, text string) {
	var th, tx strings.Builder
	s.emit(&th, &tx, s.pending)
	s.pending = ""
	return th.String(), tx.String()
}

func (s *thinkSplitter) emit(th, tx *strings.Builder, p string) {
	if s.inThink {
		th.WriteString(p)
		return
	}
	if s.trimLead {
		p = strings.TrimLeftFunc(p, unicode.IsSpace)
		if p == "" {
			return
		}
		s.trimLead = false
	}
	tx.WriteString(p)
}

// partialSuffix is the length of the longest proper prefix of tag that s
// ends with.
func partialSuffix(s, tag string) int {
	for k := min(len(tag)-1, len(s)); k > 0; k-- {
		if strings.HasSuffix(s, tag[:k]) {
			return k
		}
	}
	return 0
}
