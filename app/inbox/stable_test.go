package inbox

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestStabilityTakesAFileOnlyAfterItStoppedChanging(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStability(5 * time.Second)
		mod := time.Unix(1700000000, 0) // an old mtime (cp -p) does not make it stable
		s.observe("/in/a.pdf", stat{Size: 100, ModTime: mod}, time.Now())
		// The scanner writes on, every 3 s, for 9 s.
		for range 3 {
			time.Sleep(3 * time.Second)
			if ready, _ := s.due(time.Now()); len(ready) != 0 {
				t.Fatalf("at %v a file still being written is due: %v", time.Now(), ready)
			}
			mod = mod.Add(time.Second)
			s.observe("/in/a.pdf", stat{Size: 100 + mod.Unix()%7, ModTime: mod}, time.Now())
		}
		written := time.Now()
		_, next := s.due(time.Now())
		if !next.Equal(written.Add(5 * time.Second)) {
			t.Errorf("next due at %v, want 5 s after the last change (%v)", next, written.Add(5*time.Second))
		}
		// Seen again unchanged: the delay does not start over.
		time.Sleep(4 * time.Second)
		s.observe("/in/a.pdf", stat{Size: 100 + mod.Unix()%7, ModTime: mod}, time.Now())
		if ready, _ := s.due(time.Now()); len(ready) != 0 {
			t.Fatalf("due 4 s after the last change: %v", ready)
		}
		time.Sleep(time.Second)
		ready, next := s.due(time.Now())
		if _, ok := ready["/in/a.pdf"]; !ok || !next.IsZero() {
			t.Fatalf("5 s after the last change: ready %v, next %v; want a.pdf and nothing after", ready, next)
		}
		s.forget("/in/a.pdf")
		if s.waiting() != 0 {
			t.Errorf("%d files wait after the only one was taken", s.waiting())
		}
	})
}

func TestStabilityNextIsTheEarliestOfSeveral(t *testing.T) {
	s := newStability(5 * time.Second)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.observe("/in/late", stat{Size: 1}, t0.Add(3*time.Second))
	s.observe("/in/early", stat{Size: 1}, t0)
	ready, next := s.due(t0.Add(time.Second))
	if len(ready) != 0 || !next.Equal(t0.Add(5*time.Second)) {
		t.Errorf("due = %v, next %v; want none, next at %v", ready, next, t0.Add(5*time.Second))
	}
	ready, next = s.due(t0.Add(5 * time.Second))
	if len(ready) != 1 || !next.Equal(t0.Add(8*time.Second)) {
		t.Errorf("due = %v, next %v; want early, next at %v", ready, next, t0.Add(8*time.Second))
	}
}
