package ocr

import (
	"bytes"
	"sync"
)

// Bounds of what Tesseract gives for one page. An engine is a program on
// PATH: a faulty or hostile one can print without end, and what it printed
// was read whole (140 MB of valid TSV made a ready document of 107 MB of
// text and took the server to 2.5 GB). A dense A3 page at 600 dpi has some
// 5,000 words, about 350 KB of TSV and 40 KB of text: the bounds are
// twenty times that and more, and a page past one fails, saying which.
const (
	// maxPageTSV bounds tesseract's standard output for one page; past it
	// the engine is stopped.
	maxPageTSV = 16 << 20
	// maxTSVLine bounds one line of it (one row of the layout).
	maxTSVLine = 64 << 10
	// maxPageWords bounds the words of one page.
	maxPageWords = 100_000
	// maxPageText bounds the text of one page, in bytes.
	maxPageText = 1 << 20
	// stderrKeep is how much of tesseract's standard error is kept: its
	// end, where a failing program says why.
	stderrKeep = 4 << 10
)

// capWriter keeps what is written up to max bytes; the write that would
// pass it calls over (once) and fails, so that the program is stopped
// rather than read on.
type capWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	max  int
	over func()
	past bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.past || w.buf.Len()+len(p) > w.max {
		if !w.past {
			w.past = true
			if w.over != nil {
				w.over()
			}
		}
		return 0, errOutputCap
	}
	return w.buf.Write(p)
}

// exceeded reports whether more than max bytes were written.
func (w *capWriter) exceeded() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.past
}

type outputCapError struct{}

func (outputCapError) Error() string { return "output over its limit" }

var errOutputCap error = outputCapError{}

// tailWriter keeps the last max bytes written to it, and counts them all.
type tailWriter struct {
	mu    sync.Mutex
	buf   []byte
	max   int
	total int64
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.total += int64(len(p))
	if len(p) >= w.max {
		w.buf = append(w.buf[:0], p[len(p)-w.max:]...)
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	if len(w.buf) > 2*w.max { // trimmed now and then, not at every write
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-w.max:]...)
	}
	return len(p), nil
}

// String returns the last max bytes, beginning at a line's start when
// it was cut.
func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.buf
	if len(b) > w.max {
		b = b[len(b)-w.max:]
	}
	if int64(len(b)) < w.total {
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
	}
	return string(b)
}
