package storage

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/storage/fault"
)

func TestThreadHoldIsExclusiveUntilReleasedOrLapsed(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"x"}})
	th := mustCreateThread(t, db, doc.ID, "one")

	h, err := db.HoldThread(ctx, th.ID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.HoldThread(ctx, th.ID, time.Minute)
	if fault.ErrorCode(err) != "conflict" || !strings.Contains(fault.ErrorMessage(err), "already running") {
		t.Fatalf("second hold while the first runs: %v, want a conflict saying a turn is running", err)
	}
	if err := db.RenewThreadHold(ctx, h, time.Minute); err != nil {
		t.Fatalf("renew of a live hold: %v", err)
	}
	if err := db.ReleaseThread(ctx, h); err != nil {
		t.Fatal(err)
	}
	h2, err := db.HoldThread(ctx, th.ID, time.Minute)
	if err != nil {
		t.Fatalf("hold after release: %v", err)
	}
	// Releasing the old hold again must not free the new one.
	if err := db.ReleaseThread(ctx, h); err != nil {
		t.Fatal(err)
	}
	if _, err := db.HoldThread(ctx, th.ID, time.Minute); fault.ErrorCode(err) != "conflict" {
		t.Fatalf("a stale release freed the new hold: %v", err)
	}

	// A holder that stops renewing (a killed process) loses the thread
	// once its lease lapses; its late renew is a conflict.
	clock := db.now().Add(2 * time.Minute)
	db.Now = func() time.Time { return clock }
	h3, err := db.HoldThread(ctx, th.ID, time.Minute)
	if err != nil {
		t.Fatalf("hold after the lease lapsed: %v", err)
	}
	if err := db.RenewThreadHold(ctx, h2, time.Minute); fault.ErrorCode(err) != "conflict" {
		t.Errorf("renew of a lapsed, taken-over hold: %v, want a conflict", err)
	}
	if err := db.RenewThreadHold(ctx, h3, time.Minute); err != nil {
		t.Errorf("renew of the new hold: %v", err)
	}
	if _, err := db.HoldThread(ctx, "thr_missing", time.Minute); fault.ErrorCode(err) != "not_found" {
		t.Errorf("hold of an unknown thread: %v, want not_found", err)
	}
}
