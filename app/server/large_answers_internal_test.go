package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
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

func newGatedWriter() *gatedWriter {
	return &gatedWriter{header: http.Header{}, gate: make(chan struct{})}
}

// open lets the client read on.
func (g *gatedWriter) open() { g.once.Do(func() { close(g.gate) }) }

func (g *gatedWriter) Header() http.Header { return g.header }
func (g *gatedWriter) WriteHeader(int)     {}
func (g *gatedWriter) Write(b []byte) (int, error) {
	g.started.Store(true)
	<-g.gate
	g.n.Add(int64(len(b)))
	return len(b), nil
}

// TestLargeAnswersTakeTurns: while maxLargeAnswers answers larger than
// what the store hands out at once are being written (their clients read
// nothing), another — a whole text or an original file — waits for a
// turn, holding nothing, and is written once one ends; a short answer
// does not wait. It runs in a synctest bubble, so "waits" is "is blocked
// when everything else is", not a timing.
func TestLargeAnswersTakeTurns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "docent.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		page := strings.Repeat("x", textBatchBytes/2)
		file := bytes.Repeat([]byte("%PDF-1.7 "), 3<<20/9) // three parts
		sum := sha256.Sum256(file)
		large, err := db.CreateDocument(ctx, storage.NewDocument{Name: "large.txt", MediaType: "text/plain", Pages: []string{page, page, page},
			File: &storage.FileSource{R: bytes.NewReader(file), Size: int64(len(file)), SHA256: hex.EncodeToString(sum[:])}})
		if err != nil {
			t.Fatal(err)
		}
		short, err := db.CreateDocument(ctx, storage.NewDocument{Name: "short.txt", MediaType: "text/plain", Data: []byte("s"), Pages: []string{"short"}})
		if err != nil {
			t.Fatal(err)
		}
		s := New(Config{DB: db, Assets: fstest.MapFS{}})
		text := func(w http.ResponseWriter, doc storage.Document) {
			s.writeWholeText(w, httptest.NewRequest("GET", "/api/documents/"+doc.ID+"/text", nil), doc)
		}
		original := func(w http.ResponseWriter, doc storage.Document) {
			r := httptest.NewRequest("GET", "/api/documents/"+doc.ID+"/file", nil)
			r.SetPathValue("id", doc.ID)
			s.documentFile(w, r)
		}

		for _, tc := range []struct {
			name   string
			answer func(http.ResponseWriter, storage.Document)
			want   int64 // at least this many bytes for the large document
			short  string
		}{
			{"text", text, int64(3 * len(page)), `"text":"short"`},
			{"file", original, int64(len(file)), "s"},
		} {
			var first []*gatedWriter
			next := newGatedWriter()
			done := make(chan struct{})
			func() {
				defer func() {
					// A failed check leaves no answer blocked in the bubble.
					for _, w := range append(first, next) {
						w.open()
					}
					synctest.Wait()
				}()
				for range maxLargeAnswers {
					w := newGatedWriter()
					first = append(first, w)
					go tc.answer(w, large)
				}
				synctest.Wait()
				for i, w := range first {
					if !w.started.Load() {
						t.Fatalf("%s: large answer %d of the first %d was not written", tc.name, i+1, maxLargeAnswers)
					}
				}
				go func() { tc.answer(next, large); close(done) }()
				synctest.Wait()
				if next.started.Load() {
					t.Fatalf("%s: a large answer was written while %d were", tc.name, maxLargeAnswers)
				}
				rec := httptest.NewRecorder()
				tc.answer(rec, short)
				if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), tc.short) {
					t.Errorf("%s: a short answer while large ones wait: %d %s", tc.name, rec.Code, rec.Body)
				}

				first[0].open() // one client reads its answer to the end
				synctest.Wait()
				if !next.started.Load() {
					t.Fatalf("%s: the waiting large answer was not written when a turn freed", tc.name)
				}
				for _, w := range append(first[1:], next) {
					w.open()
				}
				<-done
				if got := next.n.Load(); got < tc.want {
					t.Errorf("%s: the waiting answer wrote %d bytes, want at least %d", tc.name, got, tc.want)
				}
			}()
		}
	})
}
