// Package workpool runs a list of work items a bounded number at a time:
// the bulk re-run, imports, OCR, auto-create batches and Ollama's model
// listing each did so with their own semaphore, WaitGroup and
// cancellation. It is a leaf, so that agent/provider, which cannot import
// agent, shares it with the agent and with app/.
package workpool

import (
	"context"
	"sync"
)

// ForEach calls fn for each item, in the items' order, with at most limit
// calls under way at once (a limit below 1 is 1), and returns once every
// call it started has returned: no goroutine outlives it.
//
// No other item starts once ctx has ended or a call has returned an error;
// the calls under way are left to finish, and the ctx they were given is
// cancelled on an error so that they can stop early. Callers that want
// every item to run record per-item errors themselves and return nil.
//
// It returns the first error a call returned, else ctx's error when ctx
// ended before every item had started, else nil. An item started is one
// fn was called for.
func ForEach[T any](ctx context.Context, items []T, limit int, fn func(ctx context.Context, i int, item T) error) error {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	slots := make(chan struct{}, max(limit, 1))
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	started := 0
	for i, item := range items {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		// Both cases may be ready at once, and select picks either: the
		// end of ctx (or an error, which cancels it) wins.
		if ctx.Err() != nil {
			break
		}
		started++
		wg.Go(func() {
			// The error is recorded and ctx cancelled before the slot is
			// given back, so that the next item never starts after it.
			defer func() { <-slots }()
			if err := fn(ctx, i, item); err != nil {
				once.Do(func() {
					first = err
					cancel()
				})
			}
		})
	}
	wg.Wait()
	if first != nil {
		return first
	}
	if started < len(items) {
		return parent.Err()
	}
	return nil
}
