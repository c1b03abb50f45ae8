package storage

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestDocumentMessagesAreCapped, at the store: an OCR
// engine that printed 100 MB of stderr made a document's error 100 MB, and
// every list of documents with it. Every writer of a document's message is
// bounded here: import, reading again, the end of OCR, the note that OCR
// is unavailable and the end of an auto-create run.
func TestDocumentMessagesAreCapped(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	// What failed at the start, 3 MB of noise, the cause at the end.
	huge := "tesseract failed: " + strings.Repeat("é", 1<<20) + strings.Repeat("x", 1<<20) + " the real cause"
	check := func(what, got string) {
		t.Helper()
		if len(got) > MaxMessageBytes || !utf8.ValidString(got) ||
			!strings.HasPrefix(got, "tesseract failed: ") || !strings.HasSuffix(got, " the real cause") || !strings.Contains(got, "bytes left out") {
			t.Errorf("%s: a message of %d bytes (valid UTF-8: %v), begins %.40q, ends %q; want at most %d with its beginning and end",
				what, len(got), utf8.ValidString(got), got, got[max(0, len(got)-40):], MaxMessageBytes)
		}
	}

	created := mustCreateDocument(t, db, NewDocument{Name: "a.png", MediaType: "image/png", Status: StatusFailed, Error: huge, Data: []byte("a")})
	check("CreateDocument", created.Error)

	replaced, err := db.ReplaceDocumentContent(ctx, created.ID, DocumentContent{Status: StatusFailed, Error: huge, Pages: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	check("ReplaceDocumentContent", replaced.Error)

	scan := mustCreateScan(t, db, "scan.png", 1)
	if _, err := db.NoteOCRUnavailable(ctx, huge); err != nil {
		t.Fatal(err)
	}
	noted, _ := db.GetDocument(ctx, scan.ID)
	check("NoteOCRUnavailable", noted.Error)

	job, err := db.ClaimOCR(ctx, scan.ID, false, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	failed, err := db.FailOCR(ctx, &job, StatusFailed, huge)
	if err != nil {
		t.Fatal(err)
	}
	check("FailOCR", failed.Error)

	// The whole list is small: what GET /api/documents sends.
	docs, _, err := db.ListDocuments(ctx, DocumentFilter{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(docs)
	if len(b) > 4*MaxMessageBytes {
		t.Errorf("a list of %d documents is %d bytes of JSON", len(docs), len(b))
	}

	// The auto-create error too.
	doc := mustCreateDocument(t, db, NewDocument{Name: "b.txt", Pages: []string{"text"}})
	if _, err := db.QueueAutoCreate(ctx, "", doc.ID); err != nil {
		t.Fatal(err)
	}
	claim, err := db.ClaimAutoCreate(ctx, doc.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ac, err := db.FailAutoCreate(ctx, claim, huge, nil)
	if err != nil {
		t.Fatal(err)
	}
	check("FailAutoCreate", ac.AutoCreateError)
}

func TestCapMessageKeepsShortMessages(t *testing.T) {
	for _, s := range []string{"", "page 2: tesseract failed", strings.Repeat("ü", MaxMessageBytes/2)} {
		if got := CapMessage(s); got != s {
			t.Errorf("CapMessage changed a message of %d bytes", len(s))
		}
	}
}
