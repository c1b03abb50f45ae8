package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/docent/docent/storage"
)

// wholeTextJSON is the whole-text answer as it was built in memory
// before it was streamed: the contract the stream must keep byte for byte.
func wholeTextJSON(t *testing.T, pages []string) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Text  string `json:"text"`
		Pages int    `json:"pages"`
	}{strings.Join(pages, "\n\f"), len(pages)}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// textPages makes n pages of about size bytes each, with what JSON must
// escape (quotes, backslashes, control characters, U+2028, <>&) and
// characters beyond ASCII.
func textPages(n, size int) []string {
	line := "Rechnung \"A-1\" für Müller & Söhne <GmbH>\tC:\\temp\u2028 € 12,50\x01\n"
	pages := make([]string, n)
	for i := range pages {
		head := fmt.Sprintf("page %d\n", i+1)
		pages[i] = head + strings.Repeat(line, max(1, (size-len(head))/len(line)))
	}
	return pages
}

// TestWholeTextIsStreamed: the whole text of a document is the same JSON
// as before, for a short text and for one of many batches, but is
// written as it is read: serving a text of about 8 MiB allocates less
// than twice the text (9 MiB; built in memory it allocated 75 MiB: the
// pages, their join, the encoder's doubling buffer, all held at once).
func TestWholeTextIsStreamed(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	get := func(id string) []byte {
		t.Helper()
		return f.call("GET", "/api/documents/"+id+"/text", nil, http.StatusOK, nil)
	}
	if got, want := get(f.doc.ID), wholeTextJSON(t, []string{"ACME Corporation\nInvoice A-1\n", "Widgets 10.00\nTotal due: 12.50 EUR\n"}); !bytes.Equal(got, want) {
		t.Errorf("short text:\n%s\nwant\n%s", got, want)
	}
	empty, err := f.db.CreateDocument(ctx, storage.NewDocument{Name: "empty.txt", MediaType: "text/plain", Data: []byte{}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := get(empty.ID), wholeTextJSON(t, nil); !bytes.Equal(got, want) {
		t.Errorf("no pages: %s, want %s", got, want)
	}

	pages := textPages(128, 64<<10) // 8 MiB, eight batches
	size := 0
	for _, p := range pages {
		size += len(p)
	}
	big, err := f.db.CreateDocument(ctx, storage.NewDocument{Name: "big.txt", MediaType: "text/plain", Data: []byte("big"), Pages: pages})
	if err != nil {
		t.Fatal(err)
	}
	want := wholeTextJSON(t, pages)
	if got := get(big.ID); !bytes.Equal(got, want) {
		at := 0
		for at < min(len(got), len(want)) && got[at] == want[at] {
			at++
		}
		t.Fatalf("8 MiB text: %d bytes, want %d; first difference at byte %d: %.80q", len(got), len(want), at, got[at:])
	}

	req := f.request(ctx, "GET", "/api/documents/"+big.ID+"/text", nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, res.Body)
	res.Body.Close()
	runtime.ReadMemStats(&after)
	if err != nil || n != int64(len(want)) {
		t.Fatalf("read %d bytes, %v; want %d", n, err, len(want))
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("serving %d MiB of text allocated %d MiB", size>>20, alloc>>20)
	if alloc > uint64(2*size) {
		t.Errorf("serving a %d MiB text allocated %d MiB: the text is held whole, not streamed", size>>20, alloc>>20)
	}
}
