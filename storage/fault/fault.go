// Package fault is Docent's one error policy. It defines the domain error —
// a machine code and a message meant for a person — that the store, the
// agent and the app all return, and Describe, the one mapping from any error
// to the code and message it is shown with: in the HTTP API, on the command
// line, in a tool result the model reads, in a chat stream's error event and
// in a document's auto-create error.
//
// It is a leaf: it imports nothing of Docent. It lives under storage/
// because the store is the innermost layer, the one every other imports, and
// it is a package of its own so that the agent and the app use it for
// errors that are not the store's. Other packages' errors
// join the mapping by implementing Coder (the model providers' errors do).
package fault

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// Code is the machine-readable class of an error. Its values are stable:
// clients branch on them (the JSON body's "code", an error event's code).
// A Code is itself an error, so errors.Is(err, fault.NotFound) tells
// whether err carries that code.
type Code string

// Error returns the code, so that a Code can be a target of errors.Is.
func (c Code) Error() string { return string(c) }

// The codes of domain errors. Packages add their own where only they need
// one (the HTTP layer's "unauthorized", the CLI's "usage"); the provider
// errors add their kinds ("unreachable", "model_not_found", …).
const (
	// NotFound: what was named does not exist.
	NotFound Code = "not_found"
	// Conflict: the request clashes with what is stored or under way.
	Conflict Code = "conflict"
	// Invalid: the request or its data is wrong; the message says how.
	Invalid Code = "invalid"
	// Unavailable: something Docent needs is not there (no model provider
	// configured, a port already taken, a part not built in).
	Unavailable Code = "unavailable"
	// Canceled: the work was interrupted (Ctrl-C, the client left).
	Canceled Code = "canceled"
	// Timeout: the work ran out of time.
	Timeout Code = "timeout"
	// SpendingLimit: a spending limit on model calls is reached (or cannot
	// be kept); the message says the limit, what was spent and where to
	// raise it.
	SpendingLimit Code = "spending_limit"
	// Internal: anything else. Its details go to the log, and a person is
	// shown InternalMessage.
	Internal Code = "internal"
)

// InternalMessage is what a person is shown for an internal error: one
// sentence that says where the details are.
const InternalMessage = "Internal error: something failed inside Docent; the details are in its log (the terminal docent runs in)."

// Error is a domain error: a code and a message for a person (or a model)
// to act on. Every edge shows Message as it is, so it must read well on its
// own ("tag \"x\" exists").
type Error struct {
	// Code classifies the error (NotFound, Conflict, Invalid, …).
	Code Code
	// Message says what went wrong, and where it can, what to do.
	Message string
	// Field, when the error is about one member of a request, is that
	// member's JSON name ("name", "schema_id"): a form shows the message
	// beside its input instead of guessing the input from the words.
	// "" for an error about the whole request.
	Field string
	// Err is the underlying error, if any: errors.Is and errors.As see it,
	// the log shows it, a person does not.
	Err error
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// ErrorCode returns the code; it makes *Error a Coder.
func (e *Error) ErrorCode() string { return string(e.Code) }

// Unwrap returns the code and the underlying error, so that
// errors.Is(err, fault.NotFound) and errors.Is(err, cause) both work.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Code}
	}
	return []error{e.Code, e.Err}
}

// On sets the request member the error is about (see Field) and returns e.
func (e *Error) On(field string) *Error {
	e.Field = field
	return e
}

// Errorf returns a domain error with the given code and the formatted
// message. A %w verb keeps the wrapped error as Err (its text is part of the
// message, as with fmt.Errorf).
func Errorf(code Code, format string, args ...any) *Error {
	w := fmt.Errorf(format, args...)
	e := &Error{Code: code, Message: w.Error()}
	switch u := w.(type) {
	case interface{ Unwrap() error }:
		e.Err = u.Unwrap()
	case interface{ Unwrap() []error }:
		e.Err = w
	}
	return e
}

// Coder is an error that carries its own code and a message written for a
// person. *Error is one; so is the model providers' error, whose code is its
// kind. Describe shows a Coder's own message under its code.
type Coder interface {
	error
	ErrorCode() string
}

// Describe is the one mapping from an error to what it is shown as:
//
//   - the outermost Coder in err's chain (a domain error, a provider error):
//     its code and its own message;
//   - context cancellation: Canceled, "interrupted";
//   - a deadline: Timeout, "timed out";
//   - anything else: Internal and InternalMessage, with internal true — the
//     caller logs err (Report does) and shows only the message.
//
// A nil error gives "", "", false.
func Describe(err error) (code Code, message string, internal bool) {
	if err == nil {
		return "", "", false
	}
	var c Coder
	if errors.As(err, &c) {
		code = Code(c.ErrorCode())
		if code == "" {
			code = Internal
		}
		return code, c.Error(), false
	}
	switch {
	case errors.Is(err, context.Canceled):
		return Canceled, "interrupted", false
	case errors.Is(err, context.DeadlineExceeded):
		return Timeout, "timed out", false
	}
	return Internal, InternalMessage, true
}

// FieldOf returns the request member err is about: the Field of the
// outermost Coder in its chain (see Describe) when that is an *Error, else
// "". An outer error that carries its own code speaks for the whole of err,
// so its lack of a field wins over a field further in.
func FieldOf(err error) string {
	var c Coder
	if !errors.As(err, &c) {
		return ""
	}
	if e, ok := c.(*Error); ok {
		return e.Field
	}
	return ""
}

// ErrorCode returns the code err is shown with (see Describe), "" for nil.
func ErrorCode(err error) Code {
	code, _, _ := Describe(err)
	return code
}

// ErrorMessage returns the message err is shown with (see Describe): a
// domain or provider error's own message, InternalMessage for an internal
// one. It returns "" for nil.
func ErrorMessage(err error) string {
	_, msg, _ := Describe(err)
	return msg
}

// Report logs an internal error once, with its whole chain and op (what was
// being done, such as "GET /api/documents" or "tool get_document"), to
// logger (slog.Default() when nil), and returns it as an *Error with code
// Internal and InternalMessage that still wraps it. Whoever gets the result
// shows that sentence and does not log it again, as it is no longer
// internal to Describe. Any other error (and nil) is returned unchanged.
//
// Every edge passes its error through Report before it renders it with
// Describe.
func Report(ctx context.Context, logger *slog.Logger, op string, err error) error {
	if _, _, internal := Describe(err); !internal {
		return err
	}
	if logger == nil {
		logger = slog.Default()
	}
	logger.ErrorContext(ctx, "internal error", "op", op, "err", err)
	return &Error{Code: Internal, Message: InternalMessage, Err: err}
}
