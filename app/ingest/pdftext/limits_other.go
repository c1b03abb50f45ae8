//go:build !linux

package pdftext

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
)

// applyMemoryLimit sets the garbage collector's soft limit; there is no
// portable hard limit outside Linux, so the time limit is the backstop.
func applyMemoryLimit(limit int64) {
	debug.SetMemoryLimit(limit)
}

// isolate relies on exec.CommandContext's default: kill the child.
func isolate(cmd *exec.Cmd) {}

func isolateProcess(cmd *exec.Cmd) {}

// killGroup kills p alone: it has no process group of its own here.
func killGroup(p *os.Process) error { return p.Kill() }

// childMemory is unknown here: children are retired by count alone.
func childMemory(pid int) (resident, addressSpace int64) { return 0, 0 }

func addressSpaceLimit(pid int) int64 { return 0 }

func replyOutput() *os.File { return os.Stdout }

func execLimited(path string) int {
	fmt.Fprintf(os.Stderr, "cannot run %s: no memory limit on this system\n", path)
	return 127
}

// limitedCommand runs path itself: the time limit (ctx) is the backstop.
func limitedCommand(ctx context.Context, lim Limits, path string, args ...string) (*exec.Cmd, error) {
	return exec.CommandContext(ctx, path, args...), nil
}
