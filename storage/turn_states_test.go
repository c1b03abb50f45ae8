package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docent/docent/storage/fault"
)

// fixClock sets db's clock to a time the test moves by hand.
func fixClock(db *DB, start time.Time) *time.Time {
	now := start
	db.Now = func() time.Time { return now }
	return &now
}

func TestSaveAndClaimTurnState(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	th := mustCreateThread(t, db, doc.ID, "t")
	now := fixClock(db, time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC))

	ts, err := db.SaveTurnState(ctx, th.ID, doc.ID, json.RawMessage(`{ "round": 2, "pending": ["c1"] }`), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := TurnState{ID: ts.ID, ThreadID: th.ID, DocumentID: doc.ID, State: json.RawMessage(`{"round":2,"pending":["c1"]}`),
		CreatedAt: *now, ExpiresAt: now.Add(DefaultTurnTTL)}
	if !strings.HasPrefix(ts.ID, "turn_") || !reflect.DeepEqual(ts, want) {
		t.Errorf("saved\n%+v\nwant\n%+v", ts, want)
	}
	if b, _ := json.Marshal(ts); !strings.Contains(string(b), `"turn_id":"turn_`) || strings.Contains(string(b), "consumed_at") {
		t.Errorf("JSON of a saved turn = %s", b)
	}

	*now = now.Add(29 * time.Minute)
	claimed, err := db.ClaimTurnState(ctx, ts.ID)
	if err != nil {
		t.Fatal(err)
	}
	want.ConsumedAt = *now
	if !reflect.DeepEqual(claimed, want) {
		t.Errorf("claimed\n%+v\nwant\n%+v", claimed, want)
	}

	_, err = db.ClaimTurnState(ctx, ts.ID)
	wantCode(t, err, ErrNotFound, "turn "+ts.ID+" was already approved")
	*now = now.Add(time.Hour) // claimed, then expired: still "already approved"
	_, err = db.ClaimTurnState(ctx, ts.ID)
	wantCode(t, err, ErrNotFound, "turn "+ts.ID+" was already approved")

	_, err = db.ClaimTurnState(ctx, "turn_missing")
	wantCode(t, err, ErrNotFound, "turn turn_missing is unknown")
	if fault.ErrorCode(err) != "not_found" {
		t.Errorf("ErrorCode = %q", fault.ErrorCode(err))
	}

	// A stateless turn has no thread.
	stateless, err := db.SaveTurnState(ctx, "", doc.ID, json.RawMessage(`{"messages": []}`), time.Minute)
	if err != nil || stateless.ThreadID != "" || !stateless.ExpiresAt.Equal(now.Add(time.Minute)) {
		t.Fatalf("stateless SaveTurnState = %+v, %v", stateless, err)
	}
	if n := count(t, db, "turn_states", "id = ? AND thread_id IS NULL", stateless.ID); n != 1 {
		t.Error("a stateless turn's thread is not stored as NULL")
	}
	if got, err := db.ClaimTurnState(ctx, stateless.ID); err != nil || got.ThreadID != "" || string(got.State) != `{"messages":[]}` {
		t.Errorf("claim stateless = %+v, %v", got, err)
	}

	for _, tt := range []struct {
		thread, doc string
		state       string
		code        error
		msg         string
	}{
		{"", "doc_missing", `{}`, ErrNotFound, "document doc_missing not found"},
		{"thr_missing", doc.ID, `{}`, ErrNotFound, "document " + doc.ID + " has no thread thr_missing"},
		{"", doc.ID, `[]`, ErrInvalid, "turn state must be a JSON object"},
		{"", doc.ID, ``, ErrInvalid, "turn state must be a JSON object"},
	} {
		_, err := db.SaveTurnState(ctx, tt.thread, tt.doc, json.RawMessage(tt.state), 0)
		wantCode(t, err, tt.code, tt.msg)
	}
}

func TestClaimExpiredTurnState(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	now := fixClock(db, time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC))

	ts, err := db.SaveTurnState(ctx, "", doc.ID, json.RawMessage(`{}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	*now = ts.ExpiresAt // expiry is exclusive: at expires_at it is gone
	_, err = db.ClaimTurnState(ctx, ts.ID)
	wantCode(t, err, ErrNotFound, fmt.Sprintf("turn %s expired at %s (turns expire after 30 minutes)",
		ts.ID, ts.ExpiresAt.Local().Format("15:04")))
	if n := count(t, db, "turn_states", "id = ? AND consumed_at IS NULL", ts.ID); n != 1 {
		t.Error("a refused claim consumed the turn")
	}

	// Other TTLs are said in their own unit; another day shows the date.
	short, _ := db.SaveTurnState(ctx, "", doc.ID, json.RawMessage(`{}`), 90*time.Second)
	*now = now.Add(48 * time.Hour)
	_, err = db.ClaimTurnState(ctx, short.ID)
	wantCode(t, err, ErrNotFound, fmt.Sprintf("turn %s expired at %s (turns expire after 90 seconds)",
		short.ID, short.ExpiresAt.Local().Format("2006-01-02 15:04")))

	for d, want := range map[time.Duration]string{
		30 * time.Minute: "30 minutes", time.Minute: "1 minute", time.Hour: "1 hour", 2 * time.Hour: "2 hours",
		90 * time.Minute: "90 minutes", 90 * time.Second: "90 seconds", time.Second: "1 second", 1500 * time.Millisecond: "2 seconds",
		500 * time.Millisecond: "500ms",
	} {
		if got := humanDuration(d); got != want {
			t.Errorf("humanDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestClaimDocumentTurnState(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	a := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	b := mustCreateDocument(t, db, NewDocument{Name: "b.txt", Pages: []string{"b"}})
	ts, err := db.SaveTurnState(ctx, "", a.ID, json.RawMessage(`{}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.ClaimDocumentTurnState(ctx, b.ID, ts.ID)
	wantCode(t, err, ErrNotFound, "turn "+ts.ID+" is unknown")
	_, err = db.ClaimDocumentTurnState(ctx, "", ts.ID)
	wantCode(t, err, ErrInvalid, "")
	if got, err := db.ClaimDocumentTurnState(ctx, a.ID, ts.ID); err != nil || got.ID != ts.ID {
		t.Fatalf("claim through the right document after a wrong one = %+v, %v", got, err)
	}
	_, err = db.ClaimDocumentTurnState(ctx, b.ID, ts.ID)
	wantCode(t, err, ErrNotFound, "turn "+ts.ID+" is unknown") // says nothing of another document's turn
	_, err = db.ClaimDocumentTurnState(ctx, a.ID, ts.ID)
	wantCode(t, err, ErrNotFound, "turn "+ts.ID+" was already approved")
}

// Two handles on one file stand for two processes (or two requests): of
// eight claims at once, exactly one gets the state.
func TestClaimTurnStateOnceUnderConcurrency(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "docent.db")
	var dbs [2]*DB
	for i := range dbs {
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	doc := mustCreateDocument(t, dbs[0], NewDocument{Name: "a.txt", Pages: []string{"a"}})

	for round := 0; round < 5; round++ {
		ts, err := dbs[0].SaveTurnState(ctx, "", doc.ID, json.RawMessage(`{"round": 1}`), 0)
		if err != nil {
			t.Fatal(err)
		}
		start := make(chan struct{})
		errs := make([]error, 8)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = dbs[i%2].ClaimTurnState(ctx, ts.ID)
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case fault.ErrorMessage(err) != "turn "+ts.ID+" was already approved":
				t.Errorf("a losing claim failed with %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d claims succeeded, want exactly 1", round, won)
		}
	}
}

func TestSweepTurnStates(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	start := time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)
	now := fixClock(db, start)
	save := func(ttl time.Duration) TurnState {
		t.Helper()
		ts, err := db.SaveTurnState(ctx, "", doc.ID, json.RawMessage(`{}`), ttl)
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	expired := save(time.Minute)
	claimed := save(time.Hour)
	claimedExpired := save(time.Minute)
	live := save(time.Hour)
	for _, id := range []string{claimed.ID, claimedExpired.ID} {
		if _, err := db.ClaimTurnState(ctx, id); err != nil {
			t.Fatal(err)
		}
	}

	// Before anything happened, nothing is swept.
	*now = start.Add(-time.Second)
	if n, err := db.SweepTurnStates(ctx); err != nil || n != 0 {
		t.Errorf("early sweep = %d, %v; want 0", n, err)
	}
	*now = start.Add(10 * time.Minute)
	if n, err := db.SweepTurnStates(ctx); err != nil || n != 3 {
		t.Errorf("sweep = %d, %v; want 3 (expired, claimed, claimed and expired)", n, err)
	}
	if n, err := db.SweepTurnStates(ctx); err != nil || n != 0 {
		t.Errorf("second sweep = %d, %v; want 0", n, err)
	}
	if n := count(t, db, "turn_states", ""); n != 1 {
		t.Errorf("%d turn states left, want 1", n)
	}
	if _, err := db.ClaimTurnState(ctx, live.ID); err != nil {
		t.Errorf("the live turn was swept: %v", err)
	}
	_, err := db.ClaimTurnState(ctx, expired.ID)
	wantCode(t, err, ErrNotFound, "turn "+expired.ID+" is unknown")
}

func TestTurnStateSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "docent.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	th, err := db.CreateThread(ctx, doc.ID, "t", "")
	if err != nil {
		t.Fatal(err)
	}
	saved, err := db.SaveTurnState(ctx, th.ID, doc.ID, json.RawMessage(`{"pending": ["c1"]}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.ClaimTurnState(ctx, saved.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != saved.ID || got.ThreadID != th.ID || got.DocumentID != doc.ID || string(got.State) != `{"pending":["c1"]}` ||
		!got.ExpiresAt.Equal(saved.ExpiresAt) || got.ConsumedAt.IsZero() {
		t.Errorf("claimed after reopen = %+v, saved %+v", got, saved)
	}
	_, err = db.ClaimTurnState(ctx, saved.ID)
	wantCode(t, err, ErrNotFound, "turn "+saved.ID+" was already approved")
}
