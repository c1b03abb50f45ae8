package pdftext

import (
	"errors"
	"fmt"
)

// The kinds of failure a caller can tell apart with errors.Is. They survive
// the process boundary of ExtractIsolated: the child sends the kind beside the
// message and the parent rebuilds an error that wraps the same sentinel.
var (
	// ErrPasswordRequired: the file is encrypted with a user password and
	// none was given.
	ErrPasswordRequired = errors.New("encrypted: password required")
	// ErrWrongPassword: a password was given and it opens neither the user
	// nor the owner side of the file. It is also ErrPasswordRequired for
	// errors.Is, since the remedy is the same: give the right password.
	ErrWrongPassword error = wrongPasswordError{}
	// ErrMalformed: the bytes are not a PDF that can be read, even after
	// repair. It is wrapped with the cause: "malformed PDF: xref table not found".
	ErrMalformed = errors.New("malformed PDF")
	// ErrNoPages: a valid PDF whose page tree holds no page.
	ErrNoPages = errors.New("PDF has no pages")
	// ErrTimeout: the reader did not finish within its time limit.
	ErrTimeout = errors.New("pdf reader timed out")
	// ErrTooLarge: the reader hit its memory limit.
	ErrTooLarge = errors.New("pdf reader exceeded its memory limit")
)

type wrongPasswordError struct{}

func (wrongPasswordError) Error() string        { return "encrypted: wrong password" }
func (wrongPasswordError) Is(target error) bool { return target == ErrPasswordRequired }

// malformed wraps ErrMalformed with its cause, the one shape every
// malformed-file error has.
func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// errorKinds names each sentinel on the wire between child and parent.
var errorKinds = map[string]error{
	"password_required": ErrPasswordRequired,
	"wrong_password":    ErrWrongPassword,
	"malformed":         ErrMalformed,
	"no_pages":          ErrNoPages,
	"timeout":           ErrTimeout,
	"too_large":         ErrTooLarge,
}

// errorKind returns the wire name of err's sentinel, or "" for an error
// without one. ErrWrongPassword is tested before ErrPasswordRequired because
// it matches both.
func errorKind(err error) string {
	for _, k := range []string{"wrong_password", "password_required", "malformed", "no_pages", "timeout", "too_large"} {
		if errors.Is(err, errorKinds[k]) {
			return k
		}
	}
	return ""
}

// remoteError is an error that came from the child process: its message is
// the child's, word for word, and it unwraps to the sentinel of its kind.
type remoteError struct {
	kind error
	msg  string
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.kind }
