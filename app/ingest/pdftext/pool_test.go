package pdftext

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

// Child operations of this test binary, which is also the reader child:
// they show what a child did, or misbehave in the middle of a request, as
// the faults of TestMain do at a child's start.
func init() {
	RegisterChildOp("test.pid", func(ctx context.Context, params json.RawMessage, data []byte) (any, error) {
		return map[string]int{"pid": os.Getpid(), "bytes": len(data)}, nil
	})
	RegisterChildOp("test.stray", func(ctx context.Context, params json.RawMessage, data []byte) (any, error) {
		fmt.Println(`{"output":"a stray print"}`) // must not become a reply
		os.Stdout.WriteString("more\n")
		return map[string]int{"pid": os.Getpid()}, nil
	})
	RegisterChildOp("test.alloc", func(ctx context.Context, params json.RawMessage, data []byte) (any, error) {
		var hold [][]byte
		for {
			b := make([]byte, 16<<20)
			for i := range b {
				b[i] = 1
			}
			hold = append(hold, b)
		}
	})
	RegisterChildOp("test.crash", func(ctx context.Context, params json.RawMessage, data []byte) (any, error) {
		go func() { panic("boom in another goroutine") }() // not recovered: the child dies
		time.Sleep(time.Minute)
		return nil, nil
	})
	RegisterChildOp("test.exit", func(ctx context.Context, params json.RawMessage, data []byte) (any, error) {
		os.Exit(0) // a clean exit, but no answer
		return nil, nil
	})
	RegisterChildOp("test.hang", func(ctx context.Context, params json.RawMessage, data []byte) (any, error) {
		time.Sleep(time.Hour)
		return nil, nil
	})
	RegisterChildOp("test.gc", func(ctx context.Context, params json.RawMessage, data []byte) (any, error) {
		// 128 MB of garbage in 256 KB pieces, as a parser makes it.
		sample := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/gogc:percent"}}
		metrics.Read(sample)
		before := sample[0].Value.Uint64()
		for range 512 {
			sink = make([]byte, 256<<10)
		}
		metrics.Read(sample)
		return map[string]uint64{"cycles": sample[0].Value.Uint64() - before, "gogc": sample[1].Value.Uint64()}, nil
	})
	RegisterChildOp("test.grow", func(ctx context.Context, params json.RawMessage, data []byte) (any, error) {
		// Keeps 64 MiB resident after it answers, as a leak would.
		leak = make([]byte, 64<<20)
		for i := range leak {
			leak[i] = 1
		}
		return map[string]int{"pid": os.Getpid()}, nil
	})
}

var leak, sink []byte

// freshReaders gives the test a pool of n slots of its own, with no child
// left over from other tests, and checks when it ends that every child it
// started is gone and no goroutine stays behind.
func freshReaders(t *testing.T, n int) *slots {
	t.Helper()
	readers.closeIdle()
	waitFor(t, "children of earlier tests to be reaped", func() bool { return liveChildren.Load() == 0 })
	_ = spawn(exec.Command("")) // the spawner's goroutine lives on: start it before counting
	goroutines := runtime.NumGoroutine()
	saved := readers
	s := newSlots(n)
	readers = s
	t.Cleanup(func() {
		s.closeIdle()
		readers = saved
		waitFor(t, "every child to be reaped", func() bool { return liveChildren.Load() == 0 })
		waitFor(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= goroutines })
	})
	return s
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("still waiting for %s after 10s (%d children, %d goroutines)\n%s",
				what, liveChildren.Load(), runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// childPid runs test.pid and returns the pid of the child that answered.
func childPid(t *testing.T, lim Limits) int {
	t.Helper()
	var out struct{ Pid int }
	if err := RunIsolated(context.Background(), "test reader", "test.pid", nil, strings.NewReader("x"), 1, lim, &out); err != nil {
		t.Fatal(err)
	}
	return out.Pid
}

func idleCount(s *slots) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.idle)
}

func TestChildServesManyRequests(t *testing.T) {
	s := freshReaders(t, 2)
	first := childPid(t, Limits{})
	for range 5 {
		if pid := childPid(t, Limits{}); pid != first {
			t.Fatalf("request answered by child %d, want the idle child %d", pid, first)
		}
	}
	// PDFs and other operations share the child.
	res, err := ExtractIsolated(context.Background(), []byte(minimalPDF), Options{}, Limits{})
	if err != nil || len(res.Pages) != 1 || res.Pages[0] != "Hello world" {
		t.Fatalf("pages = %q, %v", res.Pages, err)
	}
	if pid := childPid(t, Limits{}); pid != first {
		t.Errorf("after a PDF, child %d answered, want %d", pid, first)
	}
	if n := idleCount(s); n != 1 || liveChildren.Load() != 1 {
		t.Errorf("%d idle, %d live children after requests one at a time, want 1 and 1", n, liveChildren.Load())
	}
	// Another memory limit or another environment is another child.
	if pid := childPid(t, Limits{MemoryBytes: 512 << 20}); pid == first {
		t.Errorf("a request with another memory limit went to child %d", pid)
	}
	t.Setenv("PDFTEXT_TEST_OTHER", "1")
	if pid := childPid(t, Limits{}); pid == first {
		t.Errorf("a request with another environment went to child %d", pid)
	}
	if n := liveChildren.Load(); n > 2 {
		t.Errorf("%d children alive with 2 slots", n)
	}
}

func TestRequestFramingKeepsEveryByte(t *testing.T) {
	freshReaders(t, 1)
	for _, n := range []int{0, 1, 65535, 65536, 65537, 3<<20 + 17} {
		data := bytes.Repeat([]byte{0, '\n', 0xff}, n/3+1)[:n]
		var out struct{ Pid, Bytes int }
		if err := RunIsolated(context.Background(), "test reader", "test.pid", nil, bytes.NewReader(data), int64(n), Limits{}, &out); err != nil {
			t.Fatal(err)
		}
		if out.Bytes != n {
			t.Errorf("sent %d bytes, the child got %d", n, out.Bytes)
		}
	}
	// A reader shorter than its announced size sends what it has, as a
	// pipe that ended early always did.
	var out struct{ Bytes int }
	if err := RunIsolated(context.Background(), "test reader", "test.pid", nil, strings.NewReader("abc"), 1000, Limits{}, &out); err != nil || out.Bytes != 3 {
		t.Errorf("short reader: %d bytes, %v; want 3", out.Bytes, err)
	}
}

type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

func TestInputErrorFailsTheRequestNotTheNext(t *testing.T) {
	s := freshReaders(t, 1)
	first := childPid(t, Limits{})
	cause := errors.New("disk on fire")
	r := io.MultiReader(strings.NewReader("%PDF-1.4\n"), failingReader{cause})
	_, err := ExtractIsolatedReader(context.Background(), r, 100, Options{}, Limits{})
	if !errors.Is(err, cause) || err.Error() != "running pdf reader: disk on fire" {
		t.Errorf("got %v, want the read error", err)
	}
	// The child that was left waiting for the rest is not used again.
	if pid := childPid(t, Limits{}); pid == first {
		t.Errorf("child %d served again after its request was cut", pid)
	}
	if idleCount(s) != 1 || liveChildren.Load() != 1 {
		t.Errorf("%d idle, %d live, want 1 and 1", idleCount(s), liveChildren.Load())
	}
}

// TestChildThatDiesIsReplaced has a child answer, then die in its next
// request in each way a child dies; each request reports what it always
// reported, and the next one is served by a new child.
func TestChildThatDiesIsReplaced(t *testing.T) {
	freshReaders(t, 1)
	lim := Limits{MemoryBytes: 256 << 20, Timeout: 30 * time.Second}
	for _, tc := range []struct {
		op   string
		lim  Limits
		kind error
		want string
	}{
		{"test.alloc", lim, ErrTooLarge, "test reader ran out of memory: it exceeded its 256 MiB memory limit"},
		{"test.crash", lim, ErrMalformed, "malformed PDF: test reader crashed (exit status 2): panic: boom in another goroutine"},
		{"test.exit", lim, ErrMalformed, "malformed PDF: test reader gave no answer (EOF); stderr: (empty)"},
		{"test.hang", Limits{MemoryBytes: lim.MemoryBytes, Timeout: 500 * time.Millisecond}, ErrTimeout, "test reader timed out after 500ms"},
	} {
		t.Run(tc.op, func(t *testing.T) {
			before := childPid(t, lim)
			start := time.Now()
			err := RunIsolated(context.Background(), "test reader", tc.op, nil, strings.NewReader(""), 0, tc.lim, &struct{}{})
			if !errors.Is(err, tc.kind) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %v", took)
			}
			if n := liveChildren.Load(); n != 0 {
				t.Errorf("%d children alive after the only one died", n)
			}
			if after := childPid(t, lim); after == before {
				t.Errorf("child %d answered after it died", after)
			}
		})
	}
}

func TestCancelledRequestKillsItsChild(t *testing.T) {
	freshReaders(t, 1)
	before := childPid(t, Limits{})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := RunIsolated(ctx, "test reader", "test.hang", nil, strings.NewReader(""), 0, Limits{}, &struct{}{})
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
		t.Errorf("got %v, want the context's error", err)
	}
	if liveChildren.Load() != 0 {
		t.Errorf("the cancelled request's child still runs")
	}
	if after := childPid(t, Limits{}); after == before {
		t.Errorf("child %d answered after it was killed", after)
	}
}

func TestChildKilledWhileIdleIsNotUsed(t *testing.T) {
	freshReaders(t, 1)
	before := childPid(t, Limits{})
	p, err := os.FindProcess(before)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the killed child to be reaped", func() bool { return liveChildren.Load() == 0 })
	if after := childPid(t, Limits{}); after == before {
		t.Errorf("child %d answered after it was killed", after)
	}
}

func TestStrayPrintsInTheChildDoNotBreakReplies(t *testing.T) {
	freshReaders(t, 1)
	var out struct{ Pid int }
	if err := RunIsolated(context.Background(), "test reader", "test.stray", nil, strings.NewReader(""), 0, Limits{}, &out); err != nil {
		t.Fatal(err)
	}
	if pid := childPid(t, Limits{}); pid != out.Pid {
		t.Errorf("child %d answered after the stray print, want %d", pid, out.Pid)
	}
}

func TestChildIsRetiredAfterItsRequestsOrWhenItGrows(t *testing.T) {
	s := freshReaders(t, 1)
	s.maxRequests = 3
	pids := map[int]int{}
	for range 7 {
		pids[childPid(t, Limits{})]++
	}
	if len(pids) != 3 {
		t.Errorf("7 requests, at most 3 a child, went to %d children: %v", len(pids), pids)
	}
	for pid, n := range pids {
		if n > 3 {
			t.Errorf("child %d served %d requests, at most 3", pid, n)
		}
	}

	s.maxRequests = 100
	s.maxResident = 48 << 20
	var out struct{ Pid int }
	if err := RunIsolated(context.Background(), "test reader", "test.grow", nil, strings.NewReader(""), 0, Limits{}, &out); err != nil {
		t.Fatal(err)
	}
	if idleCount(s) != 0 || liveChildren.Load() != 0 {
		t.Errorf("a child holding 64 MiB is kept (bound 48 MiB)")
	}
	if pid := childPid(t, Limits{}); pid == out.Pid {
		t.Errorf("the child that grew served again")
	}
	s.maxResident = 1 << 30
	if err := RunIsolated(context.Background(), "test reader", "test.grow", nil, strings.NewReader(""), 0, Limits{}, &out); err != nil {
		t.Fatal(err)
	}
	if idleCount(s) != 1 || liveChildren.Load() != 1 {
		t.Errorf("a child holding 64 MiB is retired (bounds 1 GiB and 512 MiB)")
	}
	// Half the memory limit bounds it too. Asked of the child that holds
	// 64 MiB rather than run under a 120 MiB limit: there the Go runtime's
	// own address space sometimes leaves no room for the 64 MiB, and the
	// child dies before it answers.
	s.mu.Lock()
	grown := s.idle[0]
	s.mu.Unlock()
	if !s.retire(grown, Limits{MemoryBytes: 120 << 20}) {
		t.Errorf("a child holding 64 MiB is kept (limit 120 MiB)")
	}
}

func TestIdleChildExits(t *testing.T) {
	s := freshReaders(t, 2)
	s.idleAfter = 200 * time.Millisecond
	childPid(t, Limits{})
	if liveChildren.Load() != 1 {
		t.Fatalf("%d children after a request", liveChildren.Load())
	}
	waitFor(t, "the idle child to exit", func() bool { return liveChildren.Load() == 0 && idleCount(s) == 0 })
}

// TestIdleChildrenLeaveRoomForOtherReaders: an OCR engine that takes a slot
// (AcquireReader) stops an idle child rather than run beside it, so that
// the slots bound every reader process.
func TestIdleChildrenLeaveRoomForOtherReaders(t *testing.T) {
	s := freshReaders(t, 1)
	childPid(t, Limits{})
	release, err := AcquireReader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if idleCount(s) != 0 || liveChildren.Load() != 0 {
		t.Errorf("%d idle, %d live children beside the slot's holder, with 1 slot", idleCount(s), liveChildren.Load())
	}
	release()
}

// TestChildrenNeverOutnumberTheSlots runs requests from more goroutines
// than slots and checks, during every request, that no more children live
// than there are slots, and that they are reused.
func TestChildrenNeverOutnumberTheSlots(t *testing.T) {
	s := freshReaders(t, 2)
	var mu sync.Mutex
	pids := map[int]bool{}
	var wg sync.WaitGroup
	for g := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 8 {
				lim := Limits{}
				if (g+i)%3 == 0 {
					lim.MemoryBytes = 512 << 20 // two kinds of child compete
				}
				var out struct{ Pid int }
				err := RunIsolated(context.Background(), "test reader", "test.pid", nil, strings.NewReader("x"), 1, lim, &out)
				if n := liveChildren.Load(); n > 2 {
					t.Errorf("%d children alive with 2 slots", n)
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				pids[out.Pid] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(pids) >= 40 {
		t.Errorf("40 requests went to %d children: none was reused", len(pids))
	}
	t.Logf("40 requests, %d children", len(pids))
	if idleCount(s) > 2 {
		t.Errorf("%d idle children with 2 slots", idleCount(s))
	}
}

func TestChildCollectsAtTheFloorOrAtTwiceTheLiveHeap(t *testing.T) {
	for _, tc := range []struct {
		live int64
		want int
	}{
		{0, 400},         // nothing known: the runtime's minimum, 4 MB × 4
		{1 << 20, 400},   // 1 MB live: 16 MB at most, not 1 + 15 × 1 MB's roots
		{4 << 20, 300},   // 4 + 12 MB
		{6 << 20, 166},   // 6 + 10 MB
		{8 << 20, 100},   // 8 + 8 MB: Go's default from here on
		{200 << 20, 100}, // a large file's heap as before
		{childHeapFloor - 1, 100},
	} {
		if got := gcPercentFor(tc.live); got != tc.want {
			t.Errorf("gcPercentFor(%d) = %d, want %d", tc.live, got, tc.want)
		}
	}
}

func TestChildCollectsLessOftenThanGoDefault(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: children keep it")
	}
	freshReaders(t, 1)
	var out struct{ Cycles, Gogc int }
	if err := RunIsolated(context.Background(), "test reader", "test.gc", nil, strings.NewReader(""), 0, Limits{}, &out); err != nil {
		t.Fatal(err)
	}
	// At Go's default pace, a collection every 4 MB: 32 of them. The GOGC
	// the child ends with is not asked: it follows the live heap the last
	// collection measured, and on a loaded machine a slow concurrent mark
	// counts the garbage allocated meanwhile as live (one CI run ended at
	// GOGC 100 after 3 collections, which is what this test wants).
	if out.Cycles > 16 {
		t.Errorf("128 MB of garbage took %d collections, GOGC %d; want a collection per 16 MB or so", out.Cycles, out.Gogc)
	}
	t.Logf("%d collections, GOGC %d", out.Cycles, out.Gogc)
}
