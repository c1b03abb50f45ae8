package pdftext

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestSlotsWaitUntilOneIsFreeOrTheContextEnds(t *testing.T) {
	s := newSlots(2)
	ctx := context.Background()
	r1, err1 := s.acquire(ctx)
	r2, err2 := s.acquire(ctx)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	// Both taken: a third caller waits, and its context ends the wait.
	waitCtx, cancel := context.WithCancel(ctx)
	s.waiting = cancel
	if _, err := s.acquire(waitCtx); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "waiting for a free reader (2 run at once)") {
		t.Fatalf("third acquire: err = %v, want it to wait and end with the context", err)
	}
	// A released slot is taken again without waiting.
	r1()
	s.waiting = func() { t.Error("waited although a slot was free") }
	r3, err := s.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r2()
	r3()
	if len(s.ch) != 0 {
		t.Errorf("%d slots still taken after every release", len(s.ch))
	}
}

// TestExtractionWaitsForAFreeReader holds every reader slot and checks that
// ExtractIsolated waits instead of starting another child, and gives up
// with its context's error.
func TestExtractionWaitsForAFreeReader(t *testing.T) {
	saved := readers
	t.Cleanup(func() { readers = saved })
	readers = newSlots(1)
	release, err := readers.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	readers.waiting = cancel
	t.Setenv(faultEnv, "hang") // a child that did start would never answer
	_, err = ExtractIsolated(ctx, []byte(minimalPDF), Options{}, Limits{})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "waiting for a free reader") {
		t.Errorf("err = %v, want the wait for a reader to end with the context", err)
	}
}
