package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Answers larger than what the store hands out at a time (a document's
// whole text, its original file) are written as they are read, and only
// maxLargeAnswers of them at once: the others wait for a turn (or for
// their client to leave), holding nothing. Each holds about 2 MiB while
// it is written, and every write has WriteTimeout, so a client that stops
// reading frees its turn; the bound keeps memory and the store's readers
// steady under many such requests, while short answers never wait.
const maxLargeAnswers = 4

// largeTurn waits for a turn to write a large answer; false means the
// client left first. A true turn ends with endLargeTurn.
func (s *Server) largeTurn(ctx context.Context) bool {
	select {
	case s.largeAnswers <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s *Server) endLargeTurn() { <-s.largeAnswers }

// deadlineWriter is the client's connection with a deadline on each
// write, cleared by done (the connection may serve another request).
type deadlineWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func newDeadlineWriter(w http.ResponseWriter, timeout time.Duration) *deadlineWriter {
	return &deadlineWriter{w: w, rc: http.NewResponseController(w), timeout: timeout}
}

func (d *deadlineWriter) Write(b []byte) (int, error) {
	if err := d.rc.SetWriteDeadline(time.Now().Add(d.timeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return 0, fmt.Errorf("set write deadline: %w", err)
	}
	return d.w.Write(b)
}

func (d *deadlineWriter) done() { _ = d.rc.SetWriteDeadline(time.Time{}) }
