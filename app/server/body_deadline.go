package server

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/docent/docent/storage/fault"
)

// A request's body must arrive in time: without a deadline a client that
// sends its headers and then a byte now and then holds a connection, a
// goroutine and an upload's temporary file for as long as it likes (slow
// uploads stayed open past 70 s). http.Server's ReadTimeout is one
// deadline for headers and body alike, the same for a 1 KiB JSON body and
// a 256 MiB upload; here each body gets its own, sized for what it may
// carry. Once a body is read to its end, net/http lifts the deadline
// itself (it then reads the connection only to notice a client that
// leaves), so a chat turn that streams long after its POST, and an event
// stream, which sends no body, stay open.

// minBodyRate is the slowest a large body (an upload) may arrive, on top
// of BodyTimeout: 256 KiB/s gives a 256 MiB upload about 17 minutes.
const minBodyRate = 256 << 10

// deadlineBodyKey is the request context's key of its deadlineBody.
type deadlineBodyKey struct{}

// limitBodyRead sets the read deadline of r's body: BodyTimeout, and one
// more second for every minBodyRate bytes it declares (or, sent without a
// length, may carry under its route's limit). It returns r with the body
// that notes a timeout; a ResponseWriter without deadlines (the desktop
// shell's, which has no network) keeps r as it is.
func (s *Server) limitBodyRead(w http.ResponseWriter, r *http.Request) *http.Request {
	if r.Body == nil || r.Body == http.NoBody {
		return r
	}
	size := r.ContentLength
	if size < 0 {
		size = s.cfg.MaxJSONBytes
		if r.Method == http.MethodPost && r.URL.Path == "/api/documents" {
			size = s.cfg.MaxUploadBytes
		}
	}
	rc := http.NewResponseController(w)
	timeout := s.cfg.BodyTimeout + time.Duration(size)*time.Second/minBodyRate
	if err := rc.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return r
	}
	body := &deadlineBody{ReadCloser: r.Body, timeout: timeout}
	r = r.WithContext(context.WithValue(r.Context(), deadlineBodyKey{}, body))
	r.Body = body
	return r
}

// deadlineBody notes whether reading the body ran into its deadline.
type deadlineBody struct {
	io.ReadCloser
	timeout  time.Duration
	timedOut atomic.Bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		b.timedOut.Store(true)
	}
	return n, err
}

// bodyTimedOut returns, for a request whose body did not arrive in time,
// the error that says so: the server has cancelled the request's context
// by then, as for a client that left, but this client is still there and
// gets a 408 saying why.
func bodyTimedOut(r *http.Request) error {
	// From the context, not r.Body: a handler may have wrapped the body
	// (http.MaxBytesReader) in its copy of r.
	if b, ok := r.Context().Value(deadlineBodyKey{}).(*deadlineBody); ok && b.timedOut.Load() {
		return fault.Errorf(codeBodyTimeout, "the request body did not arrive within %v", b.timeout.Round(100*time.Millisecond))
	}
	return nil
}
