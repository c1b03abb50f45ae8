package pdftext

import (
	"context"
	"fmt"
	"runtime"
)

// Each reader child may use DefaultMemoryBytes, and nothing else bounds how
// many run at once: four hostile PDFs uploaded together made four children
// of up to 1 GiB each. Every child that reads a document (the PDF reader
// now, OCR workers later) therefore takes one of a fixed number of reader
// slots for as long as it runs, so the memory of all of them together is at
// most MaxReaders() × their limit: 2 GiB on a 2-core machine, 4 GiB at most.
// The per-child limit stays 1 GiB rather than being divided by the number
// of slots: a legitimate 256 MiB PDF (the upload limit) needs its bytes
// plus pdfcpu's rewritten copy and the parsed objects in one child, and
// whether a file can be read must not depend on the machine's core count.

// readers holds the slots: one per core, at most 4 (more would add memory,
// not speed, on the machines Docent runs on), at least 1.
var readers = newSlots(max(1, min(runtime.NumCPU(), 4)))

// MaxReaders is how many reader children run at once in this process.
func MaxReaders() int { return cap(readers.ch) }

// slots is a counting semaphore whose wait ends when the context does.
type slots struct {
	ch chan struct{}
	// waiting, when set (by tests), is called when a caller has to wait.
	waiting func()
}

func newSlots(n int) *slots { return &slots{ch: make(chan struct{}, max(n, 1))} }

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
// ctx's error if ctx is done first.
func AcquireReader(ctx context.Context) (release func(), err error) {
	return readers.acquire(ctx)
}
