package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// retryPolicy retries 429 and 5xx with exponential backoff and jitter,
// honouring the wait the server asks for (rateLimitWait), only while
// nothing was streamed to the caller.
type retryPolicy struct {
	max     int           // retries after the first attempt
	base    time.Duration // first backoff; doubles each time
	maxWait time.Duration // cap on any one wait; a server asking for more is not retried
}

func defaultRetry(retries int) retryPolicy {
	return retryPolicy{max: max(retries, 0), base: 500 * time.Millisecond, maxWait: 60 * time.Second}
}

// run calls attempt until it succeeds, fails in a way not worth retrying,
// has streamed something, or the retries are spent. attempt reports
// whether anything reached the caller. A server that asks for a longer
// wait than maxWait (a per-minute or per-day limit) is not retried: the
// error says how long it asked for.
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
		if e.wait.d > p.maxWait {
			e.Message += "; it asks to wait " + e.wait.String() + " before the next request: try again after that"
			return err
		}
		if n >= p.max {
			switch {
			case n > 0 && e.wait.d > 0:
				e.Message += fmt.Sprintf(" (after %d attempts; it last asked to wait %v)", n+1, roundWait(e.wait.d))
			case n > 0:
				e.Message += fmt.Sprintf(" (after %d attempts)", n+1)
			case e.wait.d > 0:
				e.Message += "; it asks to wait " + e.wait.String()
			}
			return err
		}
		wait := p.base << n
		wait += time.Duration(rand.Int64N(int64(wait)/2 + 1))
		if e.wait.d > 0 {
			wait = e.wait.d
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

// exchange is what one attempt's HTTP response said besides its body
// stream: its status and, for an error status, its headers (rate limits)
// and its body, up to maxErrorBody, which the transport reads and puts
// back for the client. Every failed request is then explained from the
// server's own words, whatever the client library made of them (openai-go
// keeps no message from a flat or string error body, and fails to decode
// {"error": "text"} at all).
type exchange struct {
	mu     sync.Mutex
	status int
	header http.Header
	body   []byte
	// limit, when above 0, is how many bytes of a successful answer the
	// client may read; overLimit is set when the answer went past it.
	limit     int64
	overLimit bool
}

type exchangeKey struct{}

// withExchange returns a context whose requests record into x.
func withExchange(ctx context.Context) (context.Context, *exchange) {
	x := &exchange{}
	return context.WithValue(ctx, exchangeKey{}, x), x
}

// tooLarge reports whether an answer went past the exchange's limit.
func (x *exchange) tooLarge() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.overLimit
}

// failed returns the last response's status, headers and body when it was
// an error status.
func (x *exchange) failed() (status int, header http.Header, body []byte, ok bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.status, x.header, x.body, x.status >= 400
}

// noteTransport records each response into its request context's
// exchange, if any.
type noteTransport struct{ base http.RoundTripper }

func (t noteTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	x, ok := r.Context().Value(exchangeKey{}).(*exchange)
	if resp == nil || !ok {
		return resp, err
	}
	var header http.Header
	var body []byte
	if resp.StatusCode >= 400 {
		header = resp.Header.Clone()
		if resp.Body != nil {
			body, _ = io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
			resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(body))
		}
	}
	x.mu.Lock()
	x.status, x.header, x.body = resp.StatusCode, header, body
	if x.limit > 0 && resp.StatusCode < 400 && resp.Body != nil {
		resp.Body = &limitedBody{body: resp.Body, left: x.limit, x: x}
	}
	x.mu.Unlock()
	return resp, err
}

// errAnswerTooLarge ends the reading of an answer past its exchange's
// limit.
var errAnswerTooLarge = errors.New("provider: the answer is larger than its limit")

// limitedBody is an answer's body that fails with errAnswerTooLarge, and
// notes it on its exchange, once more than left bytes are read: the
// client library then stops, having held no more than the limit.
type limitedBody struct {
	body io.ReadCloser
	left int64
	x    *exchange
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, errAnswerTooLarge
	}
	// One byte more than is left tells an answer of exactly the limit
	// from a longer one.
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.body.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		b.x.mu.Lock()
		b.x.overLimit = true
		b.x.mu.Unlock()
		return n + int(b.left), errAnswerTooLarge
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.body.Close() }

// withNotes returns a copy of hc whose transport records exchanges.
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
// with the estimate the provider checks before sending. An image counts
// ImageTokens.
func EstimateTokens(req Request) int {
	n := len(req.Format)
	images := 0
	for _, m := range req.Messages {
		n += len(m.Content) + len(m.Thinking) + 8
		for _, tc := range m.ToolCalls {
			n += len(tc.Name) + len(tc.Arguments)
		}
		images += len(m.Images)
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	return n/4 + images*ImageTokens
}

// ImageTokens is what one image is counted in a prompt: what Ollama counts
// an image when it fits a prompt to the window (server/prompt.go). Models
// differ (a 1.5-megapixel page is about 1,900 tokens to Qwen2.5-VL, 256 to
// Gemma 3), so this is a rough guess like the rest of the estimate.
const ImageTokens = 768
