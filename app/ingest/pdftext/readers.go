package pdftext

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"
)

// Each reader child may use DefaultMemoryBytes, and nothing else bounds how
// many run at once: four hostile PDFs uploaded together made four children
// of up to 1 GiB each. Every child that reads a document (the PDF reader
// now, OCR workers later) therefore takes one of a fixed number of reader
// slots for as long as it works, and a reader child that waits idle for its
// next request (pool.go) takes the place of a free slot, so the memory of
// all of them together is at most MaxReaders() × their limit: 2 GiB on a
// 2-core machine, 4 GiB at most.
// The per-child limit stays 1 GiB rather than being divided by the number
// of slots: a legitimate 256 MiB PDF (the upload limit) needs its bytes
// plus pdfcpu's rewritten copy and the parsed objects in one child, and
// whether a file can be read must not depend on the machine's core count.

// readers holds the slots: one per core, at most 4 (more would add memory,
// not speed, on the machines Docent runs on), at least 1. It also keeps the
// idle reader children (pool.go), which count against the slots.
var readers = newSlots(max(1, min(runtime.NumCPU(), 4)))

// MaxReaders is how many reader children run at once in this process.
func MaxReaders() int { return cap(readers.ch) }

// slots is a counting semaphore whose wait ends when the context does, and
// the idle reader children of its holders.
type slots struct {
	ch chan struct{}
	// waiting, when set (by tests), is called when a caller has to wait.
	waiting func()

	// How children are reused (see pool.go).
	maxRequests int           // requests a child serves before it is retired
	maxResident int64         // resident bytes after a reply that retire it
	idleAfter   time.Duration // how long an idle child waits for a request

	mu sync.Mutex
	// idle holds children waiting for a request, the most recently used
	// last. They hold no slot, and there are never more of them than free
	// slots: idle + taken slots <= cap(ch), so that every process counts.
	idle []*child
}

func newSlots(n int) *slots {
	return &slots{
		ch:          make(chan struct{}, max(n, 1)),
		maxRequests: defaultMaxRequests,
		maxResident: defaultMaxResident,
		idleAfter:   defaultIdleAfter,
	}
}

// acquire takes a slot, waiting while all are taken, and returns the
// function that gives it back. A done context ends the wait with its error.
func (s *slots) acquire(ctx context.Context) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case s.ch <- struct{}{}:
	default:
		if s.waiting != nil {
			s.waiting()
		}
		select {
		case s.ch <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for a free reader (%d run at once): %w", cap(s.ch), ctx.Err())
		}
	}
	return func() { <-s.ch }, nil
}

// AcquireReader takes one of the MaxReaders() slots for a child process that
// reads a document, waiting while all are taken; call release when the
// child has exited. ExtractIsolated takes one itself. The wait ends with
// ctx's error if ctx is done first. An idle reader child is stopped if the
// slot taken leaves no room for it.
func AcquireReader(ctx context.Context) (release func(), err error) {
	s := readers
	release, err = s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	evicted := s.trimLocked()
	s.mu.Unlock()
	stopAll(evicted)
	return release, nil
}

// takeIdle returns an idle child started for key, the most recently used,
// or nil; the caller holds a slot, taken just before. Idle children beyond
// the free slots are stopped.
func (s *slots) takeIdle(key string) *child {
	s.mu.Lock()
	var c *child
	for i := len(s.idle) - 1; i >= 0; i-- {
		if s.idle[i].key == key {
			c = s.idle[i]
			s.idle = slices.Delete(s.idle, i, i+1)
			break
		}
	}
	evicted := s.trimLocked()
	s.mu.Unlock()
	stopAll(evicted)
	if c == nil {
		return nil
	}
	c.timer.Stop()     // if it fired, expire finds c gone from idle
	if c.hasExited() { // killed while idle (by the OOM killer, say)
		c.stop()
		return nil
	}
	return c
}

// trimLocked removes the oldest idle children while idle and busy ones
// together would be more than the slots, and returns them to be stopped.
func (s *slots) trimLocked() []*child {
	n := 0
	for n < len(s.idle) && len(s.idle)-n+len(s.ch) > cap(s.ch) {
		n++
	}
	evicted := slices.Clone(s.idle[:n])
	s.idle = slices.Delete(s.idle, 0, n)
	return evicted
}

// done takes back the child of a finished request, to wait idle for
// another, or stops it when it cannot serve again (reusable is false) or
// is due for retirement; then it gives back the request's slot.
func (s *slots) done(c *child, reusable bool, lim Limits, release func()) {
	if !reusable || s.retire(c, lim) {
		c.stop()
		release()
		return
	}
	s.mu.Lock()
	c.timer = time.AfterFunc(s.idleAfter, func() { s.expire(c) })
	s.idle = append(s.idle, c)
	// The slot goes back as the child becomes idle, in one step, so that
	// takeIdle and trimLocked never count it twice.
	release()
	s.mu.Unlock()
}

// retire reports whether a child has served its share of requests or has
// grown too large to keep.
//
// The memory limit is on address space (RLIMIT_AS, limits_linux.go), and
// the Go runtime keeps the address space of its heap when it returns the
// memory: a child that once held a large heap has less room left for what
// is not heap (PDFium's WebAssembly memory, say) than a new child. So a
// child is also retired once it has used a quarter of its limit's room.
func (s *slots) retire(c *child, lim Limits) bool {
	if c.served >= s.maxRequests {
		return true
	}
	keepResident, keepUsed := min(s.maxResident, lim.MemoryBytes/2), lim.MemoryBytes/4
	if lim.Retain > 0 {
		keepResident, keepUsed = lim.Retain, lim.Retain
	}
	pid := c.cmd.Process.Pid
	resident, size := childMemory(pid)
	if resident > keepResident {
		return true
	}
	if c.addressLimit == 0 {
		c.addressLimit = addressSpaceLimit(pid)
	}
	// addressLimit is the start's address space plus MemoryBytes.
	return c.addressLimit > 0 && c.addressLimit-size < lim.MemoryBytes-keepUsed
}

// expire stops a child that stayed idle for idleAfter.
func (s *slots) expire(c *child) {
	s.mu.Lock()
	i := slices.Index(s.idle, c)
	if i >= 0 {
		s.idle = slices.Delete(s.idle, i, i+1)
	}
	s.mu.Unlock()
	if i >= 0 {
		c.stop()
	}
}

// closeIdle stops every idle child.
func (s *slots) closeIdle() {
	s.mu.Lock()
	idle := s.idle
	s.idle = nil
	s.mu.Unlock()
	for _, c := range idle {
		c.timer.Stop()
	}
	stopAll(idle)
}

func stopAll(children []*child) {
	for _, c := range children {
		c.stop()
	}
}
