package pdftext

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"syscall"
	"unsafe"
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
	return statusBytes("/proc/self/status", "VmSize:")
}

// childMemory reads a process's resident memory and address space size
// from /proc (statm, cheaper to make than status); zeros if it cannot.
func childMemory(pid int) (resident, addressSpace int64) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0, 0
	}
	f := bytes.Fields(b) // size resident shared text lib data dt, in pages
	if len(f) < 2 {
		return 0, 0
	}
	size, _ := strconv.ParseInt(string(f[0]), 10, 64)
	rss, _ := strconv.ParseInt(string(f[1]), 10, 64)
	page := int64(os.Getpagesize())
	return rss * page, size * page
}

// addressSpaceLimit reads a process's RLIMIT_AS (soft) from /proc; 0 when
// it has none or it cannot be read.
func addressSpaceLimit(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/limits")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("Max address space")); ok {
			f := bytes.Fields(rest)
			if len(f) >= 1 {
				n, _ := strconv.ParseInt(string(f[0]), 10, 64) // 0 for "unlimited"
				return n
			}
		}
	}
	return 0
}

// statusBytes reads a field given in kB from a /proc status file.
func statusBytes(path, field string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte(field)); ok {
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
	isolateProcess(cmd)
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return killGroup(cmd.Process)
	}
}

// isolateProcess is isolate for a command that is killed with killGroup
// rather than by its context.
func isolateProcess(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills the process group of p, a process started by isolate.
func killGroup(p *os.Process) error {
	return syscall.Kill(-p.Pid, syscall.SIGKILL)
}

// replyOutput is where a reader child writes its replies: its stdout, of
// which it keeps a copy, while file descriptor 1 and os.Stdout now go to
// stderr, so that a stray print in a library cannot break a reply or the
// stream of those that follow.
func replyOutput() *os.File {
	fd, err := syscall.Dup(1)
	if err != nil {
		return os.Stdout
	}
	syscall.CloseOnExec(fd)
	if err := syscall.Dup3(2, 1, 0); err != nil {
		syscall.Close(fd)
		return os.Stdout
	}
	os.Stdout = os.Stderr
	return os.NewFile(uintptr(fd), "/dev/stdout")
}

// execLimited is the child side of LimitedCommand: it sets the memory
// limit (RLIMIT_AS, which survives exec) and replaces this process with the
// program at path, passing on its arguments and an environment without
// Docent's child variables. Everything execve needs is allocated before the
// limit is set: the Go runtime here already holds more address space than
// the limit, so it could not grow its heap after it.
func execLimited(path string) int {
	argv, err := syscall.SlicePtrFromStrings(append([]string{path}, os.Args[1:]...))
	if err != nil {
		return fail127(path, err)
	}
	envv, err := syscall.SlicePtrFromStrings(childEnviron())
	if err != nil {
		return fail127(path, err)
	}
	file, err := syscall.BytePtrFromString(path)
	if err != nil {
		return fail127(path, err)
	}
	if limit, _ := strconv.ParseInt(os.Getenv(memoryEnv), 10, 64); limit > 0 {
		lim := uint64(limit)
		_ = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(file)),
		uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envv[0])))
	return fail127(path, errno)
}

func fail127(path string, err error) int {
	fmt.Fprintf(os.Stderr, "cannot run %s: %v\n", path, err)
	return 127
}

// limitedCommand runs path through this executable, which sets the memory
// limit and then becomes the program (execLimited).
func limitedCommand(ctx context.Context, lim Limits, path string, args ...string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(childEnviron(), execEnv+"="+path, memoryEnv+"="+strconv.FormatInt(lim.MemoryBytes, 10))
	isolate(cmd)
	return cmd, nil
}
