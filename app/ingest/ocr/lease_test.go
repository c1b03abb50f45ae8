package ocr

import (
	"context"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/docent/docent/storage"
)

// TestLeaseIsRenewedWhileWorkingAndTakenOverSoonAfter: a document being read at a kill -9 showed "ocr" for five
// minutes after a restart, since the lease was five minutes, renewed only
// when a page finished. A run renews its lease while it works, however
// long a page takes; once it stops renewing (killed), the next worker
// takes the document over a Lease later, a minute. Time is synctest's.
func TestLeaseIsRenewedWhileWorkingAndTakenOverSoonAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "docent.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		doc, err := db.CreateDocument(ctx, storage.NewDocument{Name: "scan.png", MediaType: "image/png", Data: []byte("scan"),
			Status: storage.StatusNeedsOCR, Pages: []string{""}, OCRPages: []int{1}})
		if err != nil {
			t.Fatal(err)
		}
		job, err := db.ClaimOCR(ctx, doc.ID, false, Lease)
		if err != nil {
			t.Fatal(err)
		}
		stop := renewLease(ctx, db, &job, func() int { return 0 })
		// A page that takes ten minutes (a wait for a reader slot, a
		// vision model): nobody takes the document meanwhile.
		for range 20 {
			time.Sleep(30 * time.Second)
			if other, ok, err := db.NextOCR(ctx, Lease); err != nil || ok {
				t.Fatalf("after %v of work another worker took the document (%v, %v)", time.Since(job.Document.UpdatedAt), other.Document.ID, err)
			}
		}
		// Killed: no renewal from now on. A minute and a second later
		// another worker takes it over (it took five minutes).
		stop()
		killed := time.Now()
		time.Sleep(time.Minute + time.Second)
		next, ok, err := db.NextOCR(ctx, Lease)
		if err != nil || !ok || next.Document.ID != doc.ID {
			t.Fatalf("%v after the run stopped, NextOCR = %v, %v; want the document taken over", time.Since(killed), ok, err)
		}
	})
}
