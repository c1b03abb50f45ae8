//go:build unix

package desktop

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/docent/docent/storage"
)

// lockFile is the file in the data directory that a desktop window holds
// locked while it runs.
const lockFile = "desktop.lock"

// LockDataDir claims the data directory dir for one desktop window: two
// windows on the same data would each run the auto-create queue and show
// stale lists of what the other changed. It holds an flock on
// dir/desktop.lock until release is called or the process ends (the kernel
// drops the lock of a process that dies, so a crash leaves nothing to clean
// up). When another process holds it, LockDataDir fails with a conflict
// that says so.
func LockDataDir(dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the data directory: %w", err)
	}
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := ""
		if b, rerr := os.ReadFile(path); rerr == nil {
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
				holder = fmt.Sprintf(" (process %d)", pid)
			}
		}
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, storage.Errorf(storage.ErrConflict,
				"Docent is already open on the data folder %s%s: switch to that window, or close it first (--data-dir opens another data folder)", dir, holder)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// Who holds it, for the message above; the lock itself is the flock.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}
