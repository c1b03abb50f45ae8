package provider

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Kind is the machine-readable class of a provider error.
type Kind string

// The kinds of provider errors.
const (
	KindUnreachable       Kind = "unreachable"
	KindModelNotFound     Kind = "model_not_found"
	KindNoToolSupport     Kind = "no_tool_support"
	KindContextOverflow   Kind = "context_overflow"
	KindRateLimited       Kind = "rate_limited"
	KindServerError       Kind = "server_error"
	KindStreamInterrupted Kind = "stream_interrupted"
	KindTimeout           Kind = "timeout"
	KindAuth              Kind = "auth"
	KindBadResponse       Kind = "bad_response"
	// KindRejected is any other 4xx: the server refused the request.
	KindRejected Kind = "rejected"
)

// Error is a provider failure with a message meant for a person.
type Error struct {
	Kind Kind
	// Message says what happened and, where there is one, what to do.
	Message string
	// Err is the underlying error, if any.
	Err error

	// wait is how long the server asked to wait before the next request
	// (rateLimitWait), for the retry loop.
	wait serverWait
}

func (e *Error) Error() string {
	if e.Message == "" {
		return string(e.Kind)
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the kind: it makes a provider error a fault.Coder, so
// every edge shows its message under its kind, as it does a domain error.
func (e *Error) ErrorCode() string { return string(e.Kind) }

// Is makes errors.Is(err, ErrTimeout) and the like match on Kind.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Err == nil && t.Kind == e.Kind
}

// Sentinels to compare with errors.Is.
var (
	ErrUnreachable       = &Error{Kind: KindUnreachable}
	ErrModelNotFound     = &Error{Kind: KindModelNotFound}
	ErrNoToolSupport     = &Error{Kind: KindNoToolSupport}
	ErrContextOverflow   = &Error{Kind: KindContextOverflow}
	ErrRateLimited       = &Error{Kind: KindRateLimited}
	ErrServerError       = &Error{Kind: KindServerError}
	ErrStreamInterrupted = &Error{Kind: KindStreamInterrupted}
	ErrTimeout           = &Error{Kind: KindTimeout}
	ErrAuth              = &Error{Kind: KindAuth}
	ErrBadResponse       = &Error{Kind: KindBadResponse}
	ErrRejected          = &Error{Kind: KindRejected}
)

// ErrorKind returns the Kind of err, or "" when it is not an *Error.
func ErrorKind(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

func newError(kind Kind, err error, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...), Err: err}
}

// errIdle is the cancel cause the idle watchdog sets.
var errIdle = errors.New("provider: idle timeout")

// timeoutError is the message for a call whose stream went idle.
func timeoutError(d time.Duration) *Error {
	return newError(KindTimeout, context.DeadlineExceeded,
		"no token from the model for %v (raise the idle timeout for slow CPU-only models)", d)
}

// interrupted is the message for a stream that stopped mid-way.
func interrupted(chars int, err error) *Error {
	why := "the connection closed before the final frame"
	if err != nil {
		why = err.Error()
	}
	return newError(KindStreamInterrupted, err, "the model's stream stopped mid-way after %d characters: %s", chars, why)
}

// callbackError marks an error returned by the caller's onDelta so that it
// is returned unchanged.
type callbackError struct{ err error }

func (c *callbackError) Error() string { return c.err.Error() }
func (c *callbackError) Unwrap() error { return c.err }
