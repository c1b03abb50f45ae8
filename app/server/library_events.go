package server

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/docent/docent/storage"
)

// The library's stream, GET /api/documents/events: every change a list or
// the data page shows live, as named Server-Sent Events: `document` (a
// document's whole JSON, when its status, stage or kind changes), `row` (an
// extraction stored: a row appears in its kind's table) and `inbox` (a file
// of the inbox folder, when it changes).

// Library event names.
const (
	eventDocument = "document"
	eventRow      = "row"
	eventInbox    = "inbox"
)

// rowEvent is the data of a `row` event.
type rowEvent struct {
	DocumentID   string `json:"document_id"`
	SchemaID     string `json:"schema_id"`
	ExtractionID string `json:"extraction_id"`
}

// libraryEvent is one event, encoded once for every stream.
type libraryEvent struct {
	name string
	data []byte
}

// libraryHub fans the library's events out to its streams. A stream that
// does not keep up loses its oldest events, never blocks the publisher:
// each event carries the whole object, and a client that reconnects reads
// the lists again anyway.
type libraryHub struct {
	mu   sync.Mutex
	subs map[chan libraryEvent]struct{}
}

// libraryBuffer is how many events a stream holds for a slow client.
const libraryBuffer = 64

func (h *libraryHub) subscribe() (<-chan libraryEvent, func()) {
	ch := make(chan libraryEvent, libraryBuffer)
	h.mu.Lock()
	if h.subs == nil {
		h.subs = map[chan libraryEvent]struct{}{}
	}
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
	}
}

func (h *libraryHub) publish(name string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	ev := libraryEvent{name: name, data: data}
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- ev:
		default:
			select { // full: drop the oldest
			case <-ch:
			default:
			}
			select {
			case ch <- ev:
			default:
			}
		}
	}
}

// publishDocument tells the library's streams and the document's own of
// its new state.
func (s *Server) publishDocument(d storage.Document) {
	s.docWatch.publish(d)
	s.library.publish(eventDocument, d)
}

// publishRow tells the library's streams that an extraction was stored.
func (s *Server) publishRow(documentID, schemaID, extractionID string) {
	s.library.publish(eventRow, rowEvent{DocumentID: documentID, SchemaID: schemaID, ExtractionID: extractionID})
}

// libraryEvents answers GET /api/documents/events: the library's events as
// they happen, until the client leaves, with a keepalive comment when idle.
func (s *Server) libraryEvents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ch, stop := s.library.subscribe()
	defer stop()
	send := s.eventSender(w)
	if !send([]byte(":ok\n\n")) { // the client knows it is connected
		return
	}
	keepalive := time.NewTicker(s.cfg.KeepaliveInterval)
	defer keepalive.Stop()
	for {
		select {
		case ev := <-ch:
			frame := append(append(append([]byte("event: "+ev.name+"\n"), "data: "...), ev.data...), '\n', '\n')
			if !send(frame) {
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
