package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/docent/docent/app/internal/teststore"
	"github.com/docent/docent/storage"
)

// seedDocuments stores n small one-page documents (teststore.Documents),
// saying how long it took.
func seedDocuments(b *testing.B, db *storage.DB, n int) {
	b.Helper()
	start := time.Now()
	teststore.Documents(b, db, n)
	b.Logf("seeded %d documents in %v", n, time.Since(start).Round(time.Millisecond))
}

// BenchmarkListDocumentsHTTP measures GET /api/documents (the first page
// of 50, with the total) over loopback HTTP with 10,000 documents stored:
// one client after another, then as many clients as GOMAXPROCS at once.
func BenchmarkListDocumentsHTTP(b *testing.B) {
	f := newFixture(b)
	seedDocuments(b, f.db, 10_000-1) // the fixture stored one
	get := func(client *http.Client) error {
		req := f.request(context.Background(), "GET", "/api/documents", nil)
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if err == nil && res.StatusCode != http.StatusOK {
			err = fmt.Errorf("status %d", res.StatusCode)
		}
		return err
	}
	b.Run("serial", func(b *testing.B) {
		start := time.Now()
		for b.Loop() {
			if err := get(f.ts.Client()); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	})
	b.Run("parallel", func(b *testing.B) {
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := get(f.ts.Client()); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	})
}
