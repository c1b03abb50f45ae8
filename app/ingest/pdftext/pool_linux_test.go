package pdftext

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"
)

func init() {
	RegisterChildOp("test.reserve", func(ctx context.Context, params json.RawMessage, data []byte) (any, error) {
		// 320 MiB of address space, never touched: not resident, but no
		// longer free under the child's RLIMIT_AS, as a heap's arenas
		// stay reserved after a large file.
		if _, err := syscall.Mmap(-1, 0, 320<<20, syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON); err != nil {
			return nil, err
		}
		return map[string]int{"pid": os.Getpid()}, nil
	})
}

// TestChildThatUsedItsAddressSpaceIsRetired: a child with less than three
// quarters of its memory limit left as address space is not used again,
// however little of it is resident.
func TestChildThatUsedItsAddressSpaceIsRetired(t *testing.T) {
	s := freshReaders(t, 1)
	var out struct{ Pid int }
	if err := RunIsolated(context.Background(), "test reader", "test.reserve", nil, strings.NewReader(""), 0, Limits{}, &out); err != nil {
		t.Fatal(err)
	}
	if idleCount(s) != 0 || liveChildren.Load() != 0 {
		t.Errorf("a child that reserved 320 MiB of its 1 GiB is kept")
	}
	if pid := childPid(t, Limits{}); pid == out.Pid {
		t.Errorf("it served again")
	}
	// The same reservation under a larger limit leaves room enough.
	if err := RunIsolated(context.Background(), "test reader", "test.reserve", nil, strings.NewReader(""), 0, Limits{MemoryBytes: 2 << 30}, &out); err != nil {
		t.Fatal(err)
	}
	if idleCount(s) != 1 {
		t.Errorf("a child that reserved 320 MiB of its 2 GiB is retired")
	}
}
