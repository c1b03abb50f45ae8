package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage/fault"
)

// Each code maps to its exit status, and stderr says the error's own
// message, the same one the HTTP API and the model see.
func TestReportErrorMapsEachCodeToAnExitStatus(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		stderr string
	}{
		{nil, ExitOK, ""},
		{fmt.Errorf("rm: %w", errPartial), ExitFailure, ""},
		{usagef("rm needs at least one document"), ExitUsage, "docent: rm needs at least one document\n"},
		{fault.Errorf(fault.NotFound, "no document named %q", "x"), ExitFailure, "docent: no document named \"x\"\n"},
		{fmt.Errorf("tag %q: %w", "x", fault.Errorf(fault.Conflict, `tag "x" exists`)), ExitFailure, "docent: tag \"x\" exists\n"},
		{fault.Errorf(fault.Invalid, "the message is empty"), ExitFailure, "docent: the message is empty\n"},
		{fault.Errorf(fault.Unavailable, "listen on :1: address in use"), ExitFailure, "docent: listen on :1: address in use\n"},
		{context.Canceled, ExitFailure, "docent: interrupted\n"},
		{fault.Errorf(fault.Canceled, "import interrupted after 1 of 2 files; what finished is kept: %w", context.Canceled), ExitFailure, "docent: import interrupted after 1 of 2 files; what finished is kept: context canceled\n"},
		{context.DeadlineExceeded, ExitFailure, "docent: timed out\n"},
		{&provider.Error{Kind: provider.KindModelNotFound, Message: `model "x" is not installed: ollama pull x`}, ExitFailure, "docent: model \"x\" is not installed: ollama pull x\n"},
		{errors.New("disk on fire"), ExitFailure, "docent: " + fault.InternalMessage + "\n"},
	} {
		var stderr bytes.Buffer
		status := reportError(context.Background(), &stderr, slog.New(slog.DiscardHandler), "docent test", tc.err)
		if status != tc.status || stderr.String() != tc.stderr {
			t.Errorf("%v → exit %d, stderr %q; want %d, %q", tc.err, status, stderr.String(), tc.status, tc.stderr)
		}
	}
}

// An internal error is logged once, with the command and its chain, and
// shown as one sentence; one the agent already reported is not logged again.
func TestReportErrorLogsAnInternalErrorOnce(t *testing.T) {
	var stderr, log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	err := fmt.Errorf("close the database: %w", errors.New("disk I/O error"))
	if status := reportError(context.Background(), &stderr, logger, "docent import", err); status != ExitFailure {
		t.Errorf("exit %d", status)
	}
	if stderr.String() != "docent: "+fault.InternalMessage+"\n" {
		t.Errorf("stderr = %q, want the one sentence", stderr.String())
	}
	if n := strings.Count(log.String(), "level=ERROR"); n != 1 || !strings.Contains(log.String(), "close the database: disk I/O error") || !strings.Contains(log.String(), `op="docent import"`) {
		t.Errorf("logged %d times, want once with the command and the chain:\n%s", n, log.String())
	}

	log.Reset()
	stderr.Reset()
	reported := fault.Report(context.Background(), slog.New(slog.DiscardHandler), "chat turn", err)
	reportError(context.Background(), &stderr, logger, "docent chat", fmt.Errorf("chat: %w", reported))
	if log.Len() != 0 || stderr.String() != "docent: "+fault.InternalMessage+"\n" {
		t.Errorf("a reported error: stderr %q, log:\n%s", stderr.String(), log.String())
	}
}
