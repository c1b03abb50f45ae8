package workpool

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// gate is a work function whose calls each wait for a release from the
// test, counting the calls under way and the most seen at once.
type gate struct {
	release        chan struct{}
	running, most  atomic.Int32
	mu             sync.Mutex
	started, ended []int
}

func newGate() *gate { return &gate{release: make(chan struct{})} }

func (g *gate) fn(ctx context.Context, i int, _ string) error {
	n := g.running.Add(1)
	for {
		m := g.most.Load()
		if n <= m || g.most.CompareAndSwap(m, n) {
			break
		}
	}
	g.mu.Lock()
	g.started = append(g.started, i)
	g.mu.Unlock()
	<-g.release
	g.mu.Lock()
	g.ended = append(g.ended, i)
	g.mu.Unlock()
	g.running.Add(-1)
	return nil
}

func (g *gate) seen() (started, ended []int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.started), slices.Clone(g.ended)
}

func items(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('a' + i))
	}
	return out
}

func TestForEachRunsEveryItemAtMostLimitAtOnce(t *testing.T) {
	for _, tc := range []struct{ n, limit, want int }{
		{10, 3, 3},
		{2, 5, 2},  // fewer items than the limit
		{4, 0, 1},  // a limit below 1 is 1
		{4, -2, 1}, // likewise
		{1, 1, 1},
	} {
		synctest.Test(t, func(t *testing.T) {
			g := newGate()
			done := make(chan error, 1)
			go func() { done <- ForEach(t.Context(), items(tc.n), tc.limit, g.fn) }()
			for k := range tc.n {
				synctest.Wait() // every goroutine is blocked: the pool is as full as it gets
				if got, want := g.running.Load(), int32(min(tc.want, tc.n-k)); got != want {
					t.Fatalf("n=%d limit=%d: %d calls under way after %d ended, want %d", tc.n, tc.limit, got, k, want)
				}
				g.release <- struct{}{}
			}
			if err := <-done; err != nil {
				t.Fatalf("n=%d limit=%d: ForEach = %v, want nil", tc.n, tc.limit, err)
			}
			if got := g.most.Load(); got != int32(tc.want) {
				t.Errorf("n=%d limit=%d: at most %d at once, want %d", tc.n, tc.limit, got, tc.want)
			}
			started, ended := g.seen()
			slices.Sort(started)
			if want := indexes(tc.n); !slices.Equal(started, want) || len(ended) != tc.n {
				t.Errorf("n=%d limit=%d: started %v and %d ended, want %v and all ended", tc.n, tc.limit, started, len(ended), want)
			}
		})
	}
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestForEachStartsItemsInOrder(t *testing.T) {
	var seen []string
	err := ForEach(t.Context(), items(5), 1, func(_ context.Context, i int, item string) error {
		if want := items(5)[i]; item != want {
			t.Errorf("item %d is %q, want %q", i, item, want)
		}
		seen = append(seen, item)
		return nil
	})
	if err != nil || !slices.Equal(seen, items(5)) {
		t.Fatalf("ForEach = %v and ran %v, want nil and %v", err, seen, items(5))
	}
}

func TestForEachStartsNothingAfterCtxEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		g := newGate()
		done := make(chan error, 1)
		go func() { done <- ForEach(ctx, items(6), 2, g.fn) }()
		synctest.Wait()
		cancel()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("ForEach returned %v while two calls were under way", err)
		default:
		}
		g.release <- struct{}{}
		g.release <- struct{}{}
		err := <-done
		if !errors.Is(err, context.Canceled) {
			t.Errorf("ForEach = %v, want context.Canceled", err)
		}
		if started, ended := g.seen(); len(started) != 2 || len(ended) != 2 {
			t.Errorf("started %v and ended %v after the cancel, want items 0 and 1 only, both ended", started, ended)
		}
	})
}

func TestForEachCtxEndedBeforeStartRunsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	calls := 0
	err := ForEach(ctx, items(3), 2, func(context.Context, int, string) error { calls++; return nil })
	if !errors.Is(err, context.Canceled) || calls != 0 {
		t.Fatalf("ForEach = %v with %d calls, want context.Canceled and none", err, calls)
	}
}

func TestForEachCtxEndingAfterTheLastStartIsNoError(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	err := ForEach(ctx, items(3), 1, func(_ context.Context, i int, _ string) error {
		if i == 2 {
			cancel() // every item has started
		}
		return nil
	})
	if err != nil {
		t.Fatalf("ForEach = %v, want nil: every item ran", err)
	}
}

func TestForEachErrorStopsNewStartsAndCancelsTheRest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		var mu sync.Mutex
		var started []int
		var sawCancel atomic.Bool
		fail := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- ForEach(t.Context(), items(6), 2, func(ctx context.Context, i int, _ string) error {
				mu.Lock()
				started = append(started, i)
				mu.Unlock()
				if i == 0 {
					<-fail
					return boom
				}
				<-ctx.Done() // only the error ends it
				sawCancel.Store(true)
				return errors.New("second error, not reported")
			})
		}()
		synctest.Wait()
		close(fail)
		err := <-done
		if !errors.Is(err, boom) {
			t.Errorf("ForEach = %v, want the first error, boom", err)
		}
		if !sawCancel.Load() {
			t.Errorf("the call under way did not see its ctx cancelled")
		}
		mu.Lock()
		defer mu.Unlock()
		slices.Sort(started)
		if !slices.Equal(started, []int{0, 1}) {
			t.Errorf("started %v, want [0 1]: nothing starts after an error", started)
		}
	})
}

func TestForEachNoItems(t *testing.T) {
	if err := ForEach(t.Context(), []string(nil), 3, func(context.Context, int, string) error {
		t.Error("fn called with no items")
		return nil
	}); err != nil {
		t.Fatalf("ForEach = %v, want nil", err)
	}
}
