package pdftext

import (
	"context"
	"os/exec"
)

// LimitedCommand returns a command that runs the program at path (an OCR
// engine, say) with args under lim's memory limit, in a process group of
// its own that is killed, with everything it started, when ctx ends. On
// Linux the limit is RLIMIT_AS, set by this executable before it becomes
// the program (main must call RunChildIfRequested first, as for
// ExtractIsolated); elsewhere ctx's deadline is the only bound. The
// environment is this process's without Docent's child variables: append
// to cmd.Env to add more. The caller holds a reader slot (AcquireReader)
// while the command runs.
func LimitedCommand(ctx context.Context, lim Limits, path string, args ...string) (*exec.Cmd, error) {
	return limitedCommand(ctx, lim.withDefaults(), path, args...)
}
