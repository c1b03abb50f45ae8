package server

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/docent/docent/storage"
)

// documentWatch tells the streams of GET /api/documents/{id}/events when
// a document changes in the background (OCR progress, for now).
type documentWatch struct {
	mu   sync.Mutex
	subs map[string]map[chan storage.Document]struct{}
}

// watch subscribes to a document's changes; the returned func ends it.
func (dw *documentWatch) watch(id string) (<-chan storage.Document, func()) {
	ch := make(chan storage.Document, 8)
	dw.mu.Lock()
	if dw.subs == nil {
		dw.subs = map[string]map[chan storage.Document]struct{}{}
	}
	if dw.subs[id] == nil {
		dw.subs[id] = map[chan storage.Document]struct{}{}
	}
	dw.subs[id][ch] = struct{}{}
	dw.mu.Unlock()
	return ch, func() {
		dw.mu.Lock()
		delete(dw.subs[id], ch)
		if len(dw.subs[id]) == 0 {
			delete(dw.subs, id)
		}
		dw.mu.Unlock()
	}
}

// publish tells a document's watchers of its new state. A watcher that
// has not read the last ones misses the older states, never the newest
// (it reads the store's state anyway: each frame is the whole document).
func (dw *documentWatch) publish(d storage.Document) {
	dw.mu.Lock()
	defer dw.mu.Unlock()
	for ch := range dw.subs[d.ID] {
		select {
		case ch <- d:
		default:
			select { // full: drop the oldest, keep the newest
			case <-ch:
			default:
			}
			select {
			case ch <- d:
			default:
			}
		}
	}
}

// documentEvents answers GET /api/documents/{id}/events: a stream of the
// document as it changes while OCR reads it, one `data:` frame with the
// document's JSON per change, starting with its state now; the stream
// ends once the document no longer waits for OCR (after that state's
// frame), or when the client leaves. The web UI shows OCR progress by it.
func (s *Server) documentEvents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("id")
	ch, stop := s.docWatch.watch(id) // before reading, so no change falls between
	defer stop()
	doc, err := s.cfg.DB.GetDocument(ctx, id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	send := s.eventSender(w)
	frame := func(d storage.Document) bool {
		b, err := json.Marshal(d)
		return err == nil && send(append(append([]byte("data: "), b...), '\n', '\n'))
	}
	waiting := func(d storage.Document) bool {
		return d.Status == storage.StatusNeedsOCR || d.Status == storage.StatusOCR
	}
	if !frame(doc) || !waiting(doc) {
		return
	}
	keepalive := time.NewTicker(s.cfg.KeepaliveInterval)
	defer keepalive.Stop()
	for {
		select {
		case d := <-ch:
			if !frame(d) || !waiting(d) {
				return
			}
		case <-keepalive.C:
			if !send([]byte(":keepalive\n\n")) {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}
