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
// a 256 MiB upload. Here a body gets BodyTimeout, and more as it arrives:
// a second for every minBodyRate bytes received, so an upload over a slow
// network finishes while a client that trickles a byte now and then is cut
// off after BodyTimeout. Once a body is read to its end, net/http lifts
// the deadline itself (it then reads the connection only to notice a
// client that leaves), so a chat turn that streams long after its POST,
// and an event stream, which sends no body, stay open.

// minBodyRate is the slowest average at which a body may keep arriving
// after BodyTimeout: 64 KiB/s (512 kbit/s), which a 256 MiB upload over a
// weak Wi-Fi link still beats.
const minBodyRate = 64 << 10

// deadlineBodyKey is the request context's key of its deadlineBody.
type deadlineBodyKey struct{}

// limitBodyRead sets the read deadline of r's body (BodyTimeout from now)
// and returns r with the body that moves the deadline on as bytes arrive
// and notes a timeout. A ResponseWriter without deadlines (the desktop
// shell's, which has no network) keeps r as it is.
func (s *Server) limitBodyRead(w http.ResponseWriter, r *http.Request) *http.Request {
	if r.Body == nil || r.Body == http.NoBody {
		return r
	}
	body := &deadlineBody{ReadCloser: r.Body, rc: http.NewResponseController(w), start: time.Now(), grace: s.cfg.BodyTimeout}
	if err := body.rc.SetReadDeadline(body.deadline()); err != nil {
		return r
	}
	r = r.WithContext(context.WithValue(r.Context(), deadlineBodyKey{}, body))
	r.Body = body
	return r
}

// deadlineBody moves its read deadline on as bytes arrive and notes
// whether reading ran into it.
type deadlineBody struct {
	io.ReadCloser
	rc       *http.ResponseController
	start    time.Time
	grace    time.Duration
	received int64
	timedOut atomic.Bool
}

// deadline is when the body must have arrived, at the bytes received so far.
func (b *deadlineBody) deadline() time.Time {
	return b.start.Add(b.grace + time.Duration(b.received)*time.Second/minBodyRate)
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.received += int64(n)
	switch ne, ok := errors.AsType[net.Error](err); {
	case n > 0 && err == nil:
		// Not at the end, where net/http has lifted the deadline (and
		// setting it again would cut the answer's stream).
		_ = b.rc.SetReadDeadline(b.deadline())
	case ok && ne.Timeout():
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
	b, ok := r.Context().Value(deadlineBodyKey{}).(*deadlineBody)
	if !ok || !b.timedOut.Load() {
		return nil
	}
	return fault.Errorf(codeBodyTimeout, "the request body did not arrive in time: %d bytes in %v, under %d KiB/s after the first %v",
		b.received, time.Since(b.start).Round(100*time.Millisecond), minBodyRate>>10, b.grace)
}
