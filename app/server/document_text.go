package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/docent/docent/storage"
)

// A document's whole text (GET /api/documents/{id}/text without page) is
// written as it is read, a batch of pages at a time, rather than joined
// and encoded in memory: a 256 MiB text took the server to 1.45 GB for
// one request and 4.05 GB for three. The answer is the same JSON,
// {"text":"…","pages":N}, byte for byte.

// textBatchBytes is about how much page text is read from the store at a
// time (pages are at most 65,536 characters for text files).
const textBatchBytes = 1 << 20

// writeWholeText answers the whole text of doc, streamed.
func (s *Server) writeWholeText(w http.ResponseWriter, r *http.Request, doc storage.Document) {
	ctx := r.Context()
	batch, pages, err := s.cfg.DB.PageTexts(ctx, doc.ID, 1, textBatchBytes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if more(batch, pages) {
		// A large text: wait for a turn holding nothing, then read again
		// (large_answers.go).
		batch = nil
		if !s.largeTurn(ctx) {
			return // the client left while waiting
		}
		defer s.endLargeTurn()
		if batch, pages, err = s.cfg.DB.PageTexts(ctx, doc.ID, 1, textBatchBytes); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	tw := newTextWriter(w, s.cfg.WriteTimeout)
	defer tw.done()
	tw.raw(`{"text":"`)
	for first := true; ; {
		for _, p := range batch {
			if !first {
				tw.str(pageBreak)
			}
			first = false
			tw.str(p.Text)
		}
		if tw.err != nil || !more(batch, pages) {
			break
		}
		next, err := s.cfg.DB.MorePageTexts(ctx, doc.ID, batch, pages, textBatchBytes)
		if err != nil {
			// The status is sent: the answer ends without its closing
			// brace, which no JSON reader takes for the whole text.
			if ctx.Err() != nil {
				s.cfg.Logger.Debug("document text: the client left", "document", doc.ID, "err", err)
			} else {
				s.cfg.Logger.Warn("document text cut short", "document", doc.ID, "err", err)
			}
			return
		}
		batch = next
	}
	tw.raw(`","pages":` + strconv.Itoa(pages) + "}\n")
	if err := tw.flush(); err != nil {
		s.cfg.Logger.Debug("document text: the client left", "document", doc.ID, "err", err)
	}
}

// more reports whether pages follow a batch.
func more(batch []storage.PageText, pages int) bool {
	return len(batch) > 0 && batch[len(batch)-1].Page < pages
}

// textWriter writes a JSON answer in pieces through a buffer, each write
// to the client under a deadline, so that one who stops reading ends the
// answer (and frees its turn) instead of holding it. The first error
// sticks and makes later writes no-ops.
type textWriter struct {
	conn *deadlineWriter
	out  *bufio.Writer
	esc  bytes.Buffer
	enc  *json.Encoder
	err  error
}

func newTextWriter(w http.ResponseWriter, timeout time.Duration) *textWriter {
	tw := &textWriter{conn: newDeadlineWriter(w, timeout)}
	tw.out = bufio.NewWriterSize(tw.conn, 64<<10)
	tw.enc = json.NewEncoder(&tw.esc)
	tw.enc.SetEscapeHTML(false) // as writeJSON
	return tw
}

// raw writes JSON as it is.
func (tw *textWriter) raw(s string) {
	if tw.err == nil {
		_, tw.err = tw.out.WriteString(s)
	}
}

// str writes s escaped as inside a JSON string. The pieces of a string
// escaped one by one are the string escaped whole: the pages are joined
// with ASCII, so no character spans two pieces.
func (tw *textWriter) str(s string) {
	if tw.err != nil {
		return
	}
	tw.esc.Reset()
	if tw.err = tw.enc.Encode(s); tw.err != nil {
		return
	}
	b := tw.esc.Bytes()
	_, tw.err = tw.out.Write(b[1 : len(b)-2]) // without the quotes and the newline
}

func (tw *textWriter) flush() error {
	if tw.err == nil {
		tw.err = tw.out.Flush()
	}
	return tw.err
}

func (tw *textWriter) done() { tw.conn.done() }
