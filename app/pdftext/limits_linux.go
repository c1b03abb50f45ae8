package pdftext

import (
	"bytes"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"syscall"
)

// applyMemoryLimit bounds this process's memory. The soft limit makes the
// garbage collector work harder as the heap nears it; the hard limit
// (RLIMIT_AS) makes further allocation fail, and the Go runtime then exits
// with "out of memory", which the parent recognises. A Go program reserves
// much address space it never touches (about 1 GiB at start on amd64), so
// the hard limit is the address space in use now plus the limit: a normal
// runtime still starts, and the PDF gets the limit to grow into.
func applyMemoryLimit(limit int64) {
	debug.SetMemoryLimit(limit)
	base := vmSize()
	if base <= 0 {
		return
	}
	lim := uint64(base + limit)
	_ = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
}

// vmSize reads this process's address space size from /proc.
func vmSize() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmSize:")); ok {
			f := bytes.Fields(rest)
			if len(f) >= 1 {
				kb, _ := strconv.ParseInt(string(f[0]), 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// isolate puts the child in its own process group, so that cancelling
// kills it and anything it started, and has the kernel kill it if the
// parent dies first.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
