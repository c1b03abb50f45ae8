//go:build !linux

package pdftext

import (
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
