package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/eventcheck"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
)

// The work that runs on its own clock (the sweep of paused turns, the
// auto-create queue, a turn's hold on its thread) runs here inside a
// testing/synctest bubble: its tickers and the model's delays pass on the
// bubble's clock, synctest.Wait says when everything has settled, and the
// bubble fails the test if a goroutine is left behind.

// storeClock is a clock a test moves by hand, for DB.Now.
type storeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *storeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *storeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// The sweep deletes the turn states that are stale by the store's clock,
// which set their expiry, and keeps the others; it goes on every interval
// and returns when its context ends.
func TestSweepTurnsRemovesWhatIsStaleByTheStoresClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixtureOn(t, modeltest.NewInMemory(t))
		ctx := context.Background()
		// Years ahead of the bubble's clock: a sweep that asked time.Now
		// would find nothing expired.
		clock := &storeClock{now: time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)}
		f.db.Now = clock.Now
		save := func(ttl time.Duration) storage.TurnState {
			ts, err := f.db.SaveTurnState(ctx, "", f.doc.ID, json.RawMessage(`{}`), ttl)
			if err != nil {
				t.Fatal(err)
			}
			return ts
		}
		stale, live := save(time.Minute), save(time.Hour)
		exists := func(ts storage.TurnState) bool {
			_, err := f.db.PeekTurnState(ctx, ts.ID)
			if err != nil && !errors.Is(err, storage.ErrNotFound) {
				t.Fatal(err)
			}
			return err == nil
		}

		sweepCtx, stop := context.WithCancel(ctx)
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			f.agent.SweepTurns(sweepCtx, time.Minute)
		}()
		synctest.Wait() // the first sweep, at once
		if !exists(stale) || !exists(live) {
			t.Fatalf("the first sweep removed a state that had not expired (stale kept %v, live kept %v)", exists(stale), exists(live))
		}

		clock.Add(2 * time.Minute) // the stale state expires; the sweep has not run since
		if !exists(stale) {
			t.Fatal("the stale state went before the next sweep")
		}
		time.Sleep(time.Minute) // the next tick
		synctest.Wait()
		if exists(stale) {
			t.Error("the sweep kept a turn state expired by the store's clock")
		}
		if !exists(live) {
			t.Error("the sweep removed a turn state that has not expired")
		}

		stop()
		synctest.Wait()
		select {
		case <-stopped:
		default:
			t.Fatal("SweepTurns still runs after its context ended")
		}
	})
}

// Serve runs the documents pending when it starts and those queued later
// as Wake says; when its context ends (the server's Close) the run under
// way goes back to pending, Serve returns and nothing else starts.
func TestSchedulerRunsQueuedWorkAndStopsOnClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixtureOn(t, modeltest.NewInMemory(t))
		ctx := context.Background()
		docs := f.moreDocuments(t, 3)
		var slow atomic.Bool
		quick := schedModel(nil)
		f.srv.Handle(func(r modeltest.Request) modeltest.Reply {
			if slow.Load() {
				return modeltest.Reply{Text: "late", Fault: modeltest.Fault{FirstTokenDelay: time.Hour}}
			}
			return quick(r)
		})
		status := func(d storage.Document) string {
			got, err := f.db.GetDocument(ctx, d.ID)
			if err != nil {
				t.Fatal(err)
			}
			return got.AutoCreateStatus
		}
		queue := func(d storage.Document) {
			if _, err := f.db.QueueAutoCreate(ctx, "", d.ID); err != nil {
				t.Fatal(err)
			}
		}
		var mu sync.Mutex
		var ended []string
		sched := &agent.AutoCreateScheduler{
			DB:          f.db,
			Creator:     func() *agent.AutoCreator { return &agent.AutoCreator{Agent: f.agent} },
			Concurrency: 1,
			Done: func(_ context.Context, d storage.Document, _ agent.AutoCreateResult, _ error) {
				mu.Lock()
				defer mu.Unlock()
				ended = append(ended, d.ID)
			},
		}

		queue(docs[0]) // pending before Serve starts
		serveCtx, closeServer := context.WithCancel(ctx)
		served := make(chan struct{})
		go func() {
			defer close(served)
			sched.Serve(serveCtx)
		}()
		synctest.Wait()
		if s := status(docs[0]); s != storage.AutoCreateProposed {
			t.Fatalf("the document pending at the start is %s, want %s", s, storage.AutoCreateProposed)
		}

		queue(docs[1])
		synctest.Wait()
		if s := status(docs[1]); s != storage.AutoCreatePending {
			t.Fatalf("a document queued without Wake is %s; want it left pending until Wake", s)
		}
		sched.Wake()
		synctest.Wait()
		if s := status(docs[1]); s != storage.AutoCreateProposed {
			t.Fatalf("the document queued later is %s after Wake, want %s", s, storage.AutoCreateProposed)
		}

		slow.Store(true)
		queue(docs[2])
		sched.Wake()
		synctest.Wait() // the run waits for the model
		if s := status(docs[2]); s != storage.AutoCreateRunning {
			t.Fatalf("the third document is %s while its model is answering, want %s", s, storage.AutoCreateRunning)
		}
		closeServer()
		synctest.Wait()
		select {
		case <-served:
		default:
			t.Fatal("Serve still runs after its context ended")
		}
		if s := status(docs[2]); s != storage.AutoCreatePending {
			t.Errorf("the interrupted document is %s, want it back to %s", s, storage.AutoCreatePending)
		}
		queue(docs[3])
		sched.Wake() // does not block, and starts nothing
		synctest.Wait()
		if s := status(docs[3]); s != storage.AutoCreatePending {
			t.Errorf("a document queued after Close is %s, want it left %s", s, storage.AutoCreatePending)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(ended) != 3 || ended[0] != docs[0].ID || ended[1] != docs[1].ID || ended[2] != docs[2].ID {
			t.Errorf("runs ended for %v, want the first three documents in order", ended)
		}
	})
}

// A turn holds its thread for as long as it runs, however long the model
// takes: the hold, which lapses two minutes after it is taken or renewed
// (by the store's clock), is renewed before it does; when the turn ends the
// hold is released and its renewal stops (the bubble would report the
// goroutine otherwise).
func TestTurnRenewsItsThreadHoldUntilItEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixtureOn(t, modeltest.NewInMemory(t))
		ctx := context.Background()
		th, err := f.db.CreateThread(ctx, f.doc.ID, "long turn", "")
		if err != nil {
			t.Fatal(err)
		}
		// Ten minutes of answer, a character every 4 s: slow, but never
		// silent for the provider's 5 s idle timeout.
		answer := strings.Repeat(".", 150) + "Finally done."
		f.srv.Enqueue(modeltest.Reply{Text: answer, ChunkRunes: 1, TokenDelay: 4 * time.Second})
		start := time.Now()
		type outcome struct {
			res agent.TurnResult
			err error
		}
		var rec eventcheck.Recorder
		done := make(chan outcome, 1)
		go func() {
			res, err := f.agent.Chat(ctx, agent.ChatRequest{DocumentID: f.doc.ID, ThreadID: th.ID, Message: "take your time"}, &rec)
			done <- outcome{res, err}
		}()

		// Well past the two minutes a hold lasts unrenewed, the thread is
		// still the turn's.
		for _, at := range []time.Duration{3 * time.Minute, 9 * time.Minute} {
			select {
			case out := <-done:
				t.Fatalf("the turn ended after %v, before the test looked: %v", time.Since(start), out.err)
			default:
			}
			time.Sleep(start.Add(at).Sub(time.Now()))
			synctest.Wait()
			if h, err := f.db.HoldThread(ctx, th.ID, time.Minute); !errors.Is(err, storage.ErrConflict) {
				_ = f.db.ReleaseThread(ctx, h)
				t.Fatalf("%v into the turn another turn could hold its thread (err %v): the hold was not renewed", at, err)
			}
		}

		out := <-done
		if out.err != nil || out.res.Text != answer {
			t.Fatalf("the turn ended with %q, %v", out.res.Text, out.err)
		}
		if err := rec.Check(); err != nil {
			t.Errorf("events: %v\n%s", err, dumpEvents(rec.Events()))
		}
		h, err := f.db.HoldThread(ctx, th.ID, time.Minute)
		if err != nil {
			t.Fatalf("the thread is still held after its turn ended: %v", err)
		}
		// A renewal still running would extend nothing now (the hold is
		// another's), so the bubble's check that no goroutine is left is
		// what shows it stopped; wait past several of its periods first.
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		if err := f.db.ReleaseThread(ctx, h); err != nil {
			t.Fatal(err)
		}
	})
}
