package modeltest

import (
	"net/http"
	"strings"
	"unicode/utf8"
)

// send writes the frames of one response with rep.TokenDelay between them,
// flushing each, and applies rep.Fault's CutAfterChunks and MalformedJSON.
// The headers must be set; the status is written with the first frame. It
// returns early when the client goes away or the server closes.
func (s *Server) send(w http.ResponseWriter, r *http.Request, rep Reply, frames [][]byte, malformed []byte) {
	rc := http.NewResponseController(w)
	for i, f := range frames {
		if i > 0 && !s.wait(r, rep.TokenDelay) {
			return
		}
		if _, err := w.Write(f); err != nil {
			return
		}
		_ = rc.Flush()
		if rep.HoldAfterChunks > 0 && i+1 == rep.HoldAfterChunks && !s.hold(r, rep.Hold) {
			return
		}
		if n := rep.Fault.CutAfterChunks; n > 0 && i+1 >= n {
			cut(w)
			return
		}
		if i == 0 && rep.Fault.MalformedJSON {
			if !s.wait(r, rep.TokenDelay) {
				return
			}
			if _, err := w.Write(malformed); err != nil {
				return
			}
			_ = rc.Flush()
		}
	}
}

// hold waits until release is closed; false when the client left or the
// server closed first.
func (s *Server) hold(r *http.Request, release <-chan struct{}) bool {
	select {
	case <-release:
		return true
	case <-r.Context().Done():
		return false
	case <-s.done:
		return false
	}
}

// cut closes the connection under the response without finishing it: no
// final frame and, for a chunked body, no terminating chunk, so the client
// reads an unexpected EOF.
func cut(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	conn, _, err := rc.Hijack()
	if err != nil {
		// Not hijackable: abort the handler, which also drops the connection.
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// sendWhole writes a non-streamed body. With CutAfterChunks it writes half
// of it and cuts; with MalformedJSON the body is replaced by malformed.
func (s *Server) sendWhole(w http.ResponseWriter, rep Reply, body, malformed []byte) {
	if rep.Fault.MalformedJSON {
		body = malformed
	}
	if rep.Fault.CutAfterChunks > 0 {
		_, _ = w.Write(body[:len(body)/2])
		cut(w)
		return
	}
	_, _ = w.Write(body)
}

// splitRunes splits s into pieces of n runes (4 when n <= 0).
func splitRunes(s string, n int) []string {
	if n <= 0 {
		n = 4
	}
	var out []string
	for len(s) > 0 {
		i, count := 0, 0
		for i < len(s) && count < n {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			count++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// splitOdd splits s at irregular byte lengths (3, 7, 5, 11, 2, ...), the way
// servers fragment streamed tool-call arguments, moving each cut forward to
// a rune boundary so every piece stays valid UTF-8 inside a JSON string.
func splitOdd(s string) []string {
	sizes := []int{3, 7, 5, 11, 2, 13}
	var out []string
	for k := 0; len(s) > 0; k++ {
		i := sizes[k%len(sizes)]
		if i >= len(s) {
			out = append(out, s)
			break
		}
		for i < len(s) && !utf8.RuneStart(s[i]) {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// capOutput cuts thinking and text at max deltas (a token each, as the
// server counts completion tokens), thinking first, as a server cuts an
// answer at the request's output cap; cut reports that it did. max 0 is
// no cap.
func capOutput(max, chunkRunes int, thinking, text string) (th, tx string, cut bool) {
	if max <= 0 {
		return thinking, text, false
	}
	thp, txp := splitRunes(thinking, chunkRunes), splitRunes(text, chunkRunes)
	if len(thp)+len(txp) <= max {
		return thinking, text, false
	}
	if len(thp) >= max {
		return strings.Join(thp[:max], ""), "", true
	}
	return thinking, strings.Join(txp[:max-len(thp)], ""), true
}
