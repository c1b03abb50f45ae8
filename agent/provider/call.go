package provider

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// retryPolicy retries 429 and 5xx with exponential backoff and jitter,
// honouring Retry-After, only while nothing was streamed to the caller.
type retryPolicy struct {
	max     int           // retries after the first attempt
	base    time.Duration // first backoff; doubles each time
	maxWait time.Duration // cap on any one wait, Retry-After included
}

func defaultRetry(retries int) retryPolicy {
	return retryPolicy{max: max(retries, 0), base: 500 * time.Millisecond, maxWait: 60 * time.Second}
}

// run calls attempt until it succeeds, fails in a way not worth retrying,
// has streamed something, or the retries are spent. attempt reports
// whether anything reached the caller.
func (p retryPolicy) run(ctx context.Context, attempt func() (streamed bool, err error)) error {
	for n := 0; ; n++ {
		streamed, err := attempt()
		if err == nil {
			return nil
		}
		var e *Error
		if !errors.As(err, &e) || streamed || (e.Kind != KindRateLimited && e.Kind != KindServerError) {
			return err
		}
		if n >= p.max {
			if n > 0 {
				e.Message += " (after " + strconv.Itoa(n+1) + " attempts)"
			}
			return err
		}
		wait := p.base << n
		wait += time.Duration(rand.Int64N(int64(wait)/2 + 1))
		if e.retryAfter > 0 {
			wait = e.retryAfter
		}
		wait = min(wait, p.maxWait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// parseRetryAfter reads a Retry-After header: seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// watchdog cancels a call when no chunk arrived for d, measured from the
// last kick: an idle timeout, not a deadline.
type watchdog struct {
	d      time.Duration
	timer  *time.Timer
	cancel context.CancelCauseFunc
}

// newWatchdog starts the clock for the first chunk.
func newWatchdog(ctx context.Context, d time.Duration) (context.Context, *watchdog) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watchdog{d: d, cancel: cancel}
	w.timer = time.AfterFunc(d, func() { cancel(errIdle) })
	return ctx, w
}

// kick records that a chunk arrived.
func (w *watchdog) kick() { w.timer.Reset(w.d) }

// stop releases the timer and the context.
func (w *watchdog) stop() {
	w.timer.Stop()
	w.cancel(nil)
}

// fired reports whether the call ended because it went idle.
func fired(ctx context.Context) bool { return errors.Is(context.Cause(ctx), errIdle) }

// isConnError reports a failure to connect: nothing reached the server.
func isConnError(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns) || errors.Is(err, syscall.ECONNREFUSED)
}

// isNetError reports a transport failure mid-response.
func isNetError(err error) bool {
	var ne net.Error
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed) || errors.As(err, &ne)
}

// headerNote carries the Retry-After of a call's last response out of the
// HTTP client, for clients (Ollama's) whose errors do not keep headers.
type headerNote struct {
	mu         sync.Mutex
	retryAfter string
}

type headerNoteKey struct{}

// noteTransport records Retry-After into the request context's headerNote
// and, when the context has a streamLines, feeds it the response's lines.
type noteTransport struct{ base http.RoundTripper }

func (t noteTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if resp != nil {
		if n, ok := r.Context().Value(headerNoteKey{}).(*headerNote); ok {
			n.mu.Lock()
			n.retryAfter = resp.Header.Get("Retry-After")
			n.mu.Unlock()
		}
		tapLines(r, resp)
	}
	return resp, err
}

// withNotes returns a copy of hc whose transport records headers.
func withNotes(hc *http.Client) *http.Client {
	c := *hc
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = noteTransport{base: base}
	return &c
}

// EstimateTokens guesses a request's size in tokens: about four characters
// a token, the same rule for every model, so the agent budgets its history
// with the estimate the provider checks before sending.
func EstimateTokens(req Request) int {
	n := len(req.Format)
	for _, m := range req.Messages {
		n += len(m.Content) + len(m.Thinking) + 8
		for _, tc := range m.ToolCalls {
			n += len(tc.Name) + len(tc.Arguments)
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	return n / 4
}
