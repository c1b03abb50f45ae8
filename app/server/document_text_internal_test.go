package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"testing/synctest"

	"github.com/docent/docent/storage"
)

// gatedWriter is a client that reads nothing until its gate opens: its
// first Write says so (started) and blocks.
type gatedWriter struct {
	header  http.Header
	gate    chan struct{}
	once    sync.Once
	started atomic.Bool
	n       atomic.Int64
}

// open lets the client read on.
func (g *gatedWriter) open() { g.once.Do(func() { close(g.gate) }) }

func newGatedWriter() *gatedWriter {
	return &gatedWriter{header: http.Header{}, gate: make(chan struct{})}
}

func (g *gatedWriter) Header() http.Header { return g.header }
func (g *gatedWriter) WriteHeader(int)     {}
func (g *gatedWriter) Write(b []byte) (int, error) {
	g.started.Store(true)
	<-g.gate
	g.n.Add(int64(len(b)))
	return len(b), nil
}

// TestLargeTextsTakeTurns: while maxLargeTexts whole-text answers longer
// than a batch are being written (their clients read nothing), another
// waits for a turn, holding nothing, and is written once one ends; a
// short text does not wait.
func TestLargeTextsTakeTurns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "docent.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		page := strings.Repeat("x", textBatchBytes/2)
		large, err := db.CreateDocument(ctx, storage.NewDocument{Name: "large.txt", MediaType: "text/plain", Data: []byte("l"), Pages: []string{page, page, page}})
		if err != nil {
			t.Fatal(err)
		}
		short, err := db.CreateDocument(ctx, storage.NewDocument{Name: "short.txt", MediaType: "text/plain", Data: []byte("s"), Pages: []string{"short"}})
		if err != nil {
			t.Fatal(err)
		}
		s := New(Config{DB: db, Assets: fstest.MapFS{}})
		req := httptest.NewRequest("GET", "/api/documents/"+large.ID+"/text", nil)

		var first []*gatedWriter
		next := newGatedWriter()
		done := make(chan struct{})
		defer func() {
			// A failed check leaves no answer blocked in the bubble.
			for _, w := range append(first, next) {
				w.open()
			}
			synctest.Wait()
		}()
		for range maxLargeTexts {
			w := newGatedWriter()
			first = append(first, w)
			go s.writeWholeText(w, req, large)
		}
		synctest.Wait()
		for i, w := range first {
			if !w.started.Load() {
				t.Fatalf("large text %d of the first %d was not written", i+1, maxLargeTexts)
			}
		}
		go func() { s.writeWholeText(next, req, large); close(done) }()
		synctest.Wait()
		if next.started.Load() {
			t.Fatalf("a large text was written while %d were", maxLargeTexts)
		}

		// A short text is answered at once.
		rec := httptest.NewRecorder()
		s.writeWholeText(rec, httptest.NewRequest("GET", "/api/documents/"+short.ID+"/text", nil), short)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"text":"short"`) {
			t.Errorf("short text while large ones wait: %d %s", rec.Code, rec.Body)
		}

		first[0].open() // one client reads its answer to the end
		synctest.Wait()
		if !next.started.Load() {
			t.Fatalf("the waiting large text was not written when a turn freed")
		}
		for _, w := range append(first[1:], next) {
			w.open()
		}
		<-done
		synctest.Wait()
		if got, want := next.n.Load(), int64(3*len(page)); got < want {
			t.Errorf("the waiting text wrote %d bytes, want over %d", got, want)
		}
	})
}
