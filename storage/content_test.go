package storage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"iter"
	"math/rand/v2"
	"testing"

	"github.com/docent/docent/storage/fault"
)

func fileSource(data []byte) *FileSource {
	sum := sha256.Sum256(data)
	return &FileSource{R: bytes.NewReader(data), Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
}

func TestLargeFileIsStoredInPartsAndReadBackWhole(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	// Sizes around the part size: a file that fills its last part exactly
	// must not look for one more.
	for _, size := range []int{filePartSize - 1, filePartSize, 2 * filePartSize, 2*filePartSize + 12345} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		doc, err := db.CreateDocument(ctx, NewDocument{Name: "big.bin", MediaType: "text/plain", File: fileSource(data),
			PageSource: Pages([]string{"one", "two"})})
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if doc.Size != int64(len(data)) || doc.SHA256 != fileSource(data).SHA256 || doc.Pages != 2 {
			t.Errorf("document = %+v, want size %d, its SHA-256 and 2 pages", doc, len(data))
		}
		wantParts := (size - 1) / filePartSize
		if n := count(t, db, "document_file_parts", "document_id = ?", doc.ID); n != wantParts {
			t.Errorf("%d bytes: %d parts besides the first, want %d", size, n, wantParts)
		}
		got, err := db.DocumentFile(ctx, doc.ID)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("DocumentFile: %d bytes, %v; want the %d stored", len(got), err, len(data))
		}
		if err := db.DeleteDocument(ctx, doc.ID); err != nil {
			t.Fatal(err)
		}
		if n := count(t, db, "document_file_parts", ""); n != 0 {
			t.Errorf("%d parts left after the document was deleted", n)
		}
	}
}

func TestFileThatIsNotWhatTheCallerSaidIsNotStored(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	data := bytes.Repeat([]byte("x"), filePartSize+1)
	for name, src := range map[string]*FileSource{
		"other digest": {R: bytes.NewReader(data), Size: int64(len(data)), SHA256: fileSource([]byte("y")).SHA256},
		"longer":       {R: bytes.NewReader(data), Size: int64(len(data)) - 1, SHA256: fileSource(data[1:]).SHA256},
		"shorter":      {R: bytes.NewReader(data), Size: int64(len(data)) + 1, SHA256: fileSource(data).SHA256},
	} {
		_, err := db.CreateDocument(ctx, NewDocument{Name: name, MediaType: "text/plain", File: src})
		if !errors.Is(err, ErrFileChanged) || fault.ErrorMessage(err) != ErrFileChanged.Message {
			t.Errorf("%s: err = %v, shown as %q; want ErrFileChanged, shown as its message", name, err, fault.ErrorMessage(err))
		}
	}
	for _, table := range []string{"documents", "document_files", "document_file_parts", "pages"} {
		if n := count(t, db, table, ""); n != 0 {
			t.Errorf("%s has %d rows after failed creates", table, n)
		}
	}
}

func TestPageSourceErrorStoresNothing(t *testing.T) {
	db := mustOpen(t)
	broken := errors.New("disk on fire")
	pages := func(yield func(string, error) bool) {
		if yield("page one", nil) {
			yield("", broken)
		}
	}
	_, err := db.CreateDocument(context.Background(), NewDocument{Name: "a.txt", MediaType: "text/plain",
		Data: []byte("a"), PageSource: iter.Seq2[string, error](pages)})
	if !errors.Is(err, broken) {
		t.Fatalf("err = %v, want the page source's error", err)
	}
	for _, table := range []string{"documents", "document_files", "pages", "chunks"} {
		if n := count(t, db, table, ""); n != 0 {
			t.Errorf("%s has %d rows after a failed create", table, n)
		}
	}
}
