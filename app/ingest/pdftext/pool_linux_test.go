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

// TestRetainKeepsAChildThatHoldsMore: a request's Limits.Retain replaces
// the pool's bounds of what a child may hold and still serve: a child
// that reserved 320 MiB of its 1 GiB, or holds 64 MiB resident above a
// 48 MiB bound, serves again when the request retains 512 MiB, and is
// retired when it retains less than it holds.
func TestRetainKeepsAChildThatHoldsMore(t *testing.T) {
	s := freshReaders(t, 1)
	keep := Limits{Retain: 512 << 20}
	var out struct{ Pid int }
	if err := RunIsolated(context.Background(), "test reader", "test.reserve", nil, strings.NewReader(""), 0, keep, &out); err != nil {
		t.Fatal(err)
	}
	if idleCount(s) != 1 {
		t.Fatalf("a child that reserved 320 MiB of its 1 GiB is retired, retaining 512 MiB")
	}
	if pid := childPid(t, keep); pid != out.Pid {
		t.Errorf("the next request went to child %d, not %d", pid, out.Pid)
	}
	if err := RunIsolated(context.Background(), "test reader", "test.reserve", nil, strings.NewReader(""), 0, Limits{Retain: 256 << 20}, &out); err != nil {
		t.Fatal(err)
	}
	if idleCount(s) != 0 {
		t.Errorf("a child that reserved 640 MiB is kept, retaining 256 MiB")
	}

	// Retain bounds the address space used too, and the Go runtime in the
	// child reserves 64 to 192 MiB for the 64 MiB it holds, depending on
	// when its collector runs (seen on a loaded machine): 512 MiB keeps
	// the test about the resident bound alone.
	s.maxResident = 48 << 20
	if err := RunIsolated(context.Background(), "test reader", "test.grow", nil, strings.NewReader(""), 0, Limits{Retain: 512 << 20}, &out); err != nil {
		t.Fatal(err)
	}
	if idleCount(s) != 1 {
		t.Errorf("a child holding 64 MiB is retired, retaining 512 MiB (the pool's bound 48 MiB)")
	}
}
