package fault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// codedErr stands for another package's error that carries its own code,
// as the model providers' errors do.
type codedErr struct{ code, msg string }

func (e *codedErr) Error() string     { return e.msg }
func (e *codedErr) ErrorCode() string { return e.code }

func TestDescribeMapsEveryKindOfError(t *testing.T) {
	cause := errors.New("disk on fire")
	for _, tc := range []struct {
		name     string
		err      error
		code     Code
		msg      string
		internal bool
	}{
		{"nil", nil, "", "", false},
		{"not found", Errorf(NotFound, "document %s not found", "doc_x"), NotFound, "document doc_x not found", false},
		{"wrapped conflict shows its own message", fmt.Errorf("wrapped: %w", Errorf(Conflict, "tag %q exists", "x")), Conflict, `tag "x" exists`, false},
		{"invalid", Errorf(Invalid, "bad"), Invalid, "bad", false},
		{"a package's own code", Errorf("usage", "docent: flag needed"), "usage", "docent: flag needed", false},
		{"no code", &Error{Message: "odd"}, Internal, "odd", false},
		{"a Coder's kind", fmt.Errorf("call: %w", &codedErr{"model_not_found", "model x is not installed: pull it"}), "model_not_found", "model x is not installed: pull it", false},
		{"cancelled", fmt.Errorf("read: %w", context.Canceled), Canceled, "interrupted", false},
		{"deadline", context.DeadlineExceeded, Timeout, "timed out", false},
		{"a coded interruption keeps its message", Errorf(Canceled, "import interrupted; what finished is kept: %w", context.Canceled), Canceled, "import interrupted; what finished is kept: context canceled", false},
		{"internal", fmt.Errorf("write page 2: %w", cause), Internal, InternalMessage, true},
	} {
		code, msg, internal := Describe(tc.err)
		if code != tc.code || msg != tc.msg || internal != tc.internal {
			t.Errorf("%s: Describe(%v) = %q, %q, %v; want %q, %q, %v", tc.name, tc.err, code, msg, internal, tc.code, tc.msg, tc.internal)
		}
		if ErrorCode(tc.err) != tc.code || ErrorMessage(tc.err) != tc.msg {
			t.Errorf("%s: ErrorCode, ErrorMessage = %q, %q", tc.name, ErrorCode(tc.err), ErrorMessage(tc.err))
		}
	}
}

func TestErrorsIsSeesTheCodeAndTheCause(t *testing.T) {
	err := fmt.Errorf("ctx: %w", Errorf(NotFound, "gone"))
	if !errors.Is(err, NotFound) || errors.Is(err, Conflict) {
		t.Errorf("errors.Is does not see the code through wrapping")
	}
	if err.Error() != "ctx: gone" {
		t.Errorf("Error() = %q", err.Error())
	}
	cause := errors.New("password required")
	wrapped := Errorf(Invalid, "read a.pdf: %w", cause)
	if !errors.Is(wrapped, cause) || !errors.Is(wrapped, Invalid) || wrapped.Message != "read a.pdf: password required" {
		t.Errorf("Errorf with %%w = %+v: the cause or the code is lost", wrapped)
	}
}

// An internal error is logged once, with its chain and the operation, and
// whoever shows it after Report shows one sentence and logs nothing more.
func TestReportLogsAnInternalErrorOnce(t *testing.T) {
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	cause := errors.New("database is locked")
	err := fmt.Errorf("save message: %w", cause)

	reported := Report(context.Background(), logger, "chat turn", err)
	again := Report(context.Background(), logger, "docent chat", fmt.Errorf("turn: %w", reported))

	if n := strings.Count(log.String(), "internal error"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), "op=\"chat turn\"") || !strings.Contains(log.String(), "save message: database is locked") {
		t.Errorf("the log lacks the operation or the chain:\n%s", log.String())
	}
	code, msg, internal := Describe(again)
	if code != Internal || msg != InternalMessage || internal {
		t.Errorf("after Report: %q, %q, %v; want %q, the one sentence, not internal any more", code, msg, internal, Internal)
	}
	if strings.Count(msg, ".") != 1 || !strings.HasSuffix(msg, ".") || strings.Contains(msg, "locked") {
		t.Errorf("the message %q is not one sentence without the details", msg)
	}
	if !errors.Is(again, cause) {
		t.Errorf("Report lost the cause")
	}

	log.Reset()
	for _, e := range []error{nil, Errorf(Invalid, "bad"), &codedErr{"unreachable", "Ollama is not running"}, context.Canceled} {
		if got := Report(context.Background(), logger, "op", e); got != e {
			t.Errorf("Report(%v) = %v, want it unchanged", e, got)
		}
	}
	if log.Len() != 0 {
		t.Errorf("a non-internal error was logged:\n%s", log.String())
	}
}

// The field an error is about travels through wrapping, and an outer
// error with its own code, which is what is shown, decides.
func TestFieldOfNamesTheMemberTheShownErrorIsAbout(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"a field error", Errorf(Invalid, "tag name is empty").On("name"), "name"},
		{"wrapped", fmt.Errorf("create tag: %w", Errorf(Conflict, "tag %q exists", "x").On("name")), "name"},
		{"no field", Errorf(Invalid, "bad"), ""},
		{"an outer coded error speaks for the whole", Errorf(Invalid, "import: %w", Errorf(Invalid, "x").On("name")), ""},
		{"another package's Coder", &codedErr{"unreachable", "down"}, ""},
		{"not a Coder", errors.New("plain"), ""},
	} {
		if got := FieldOf(tc.err); got != tc.want {
			t.Errorf("%s: FieldOf(%v) = %q, want %q", tc.name, tc.err, got, tc.want)
		}
	}
}
