package server_test

import (
	"context"
	"crypto/rand"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"testing"

	"github.com/docent/docent/storage"
)

// storeOnDisk is the store's database file and WAL as the disk has them.
func (f *fixture) storeOnDisk() int64 {
	f.t.Helper()
	var total int64
	for _, name := range []string{f.path, f.path + "-wal"} {
		fi, err := os.Stat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			f.t.Fatal(err)
		}
		total += fi.Size()
	}
	return total
}

// The history settings say how large the store is on disk, the figure the
// disk has; emptying the history gives a deleted document's kept bytes
// back to the disk, and the figure shows it.
func TestEmptyingTheHistoryShrinksTheStore(t *testing.T) {
	f := newFixture(t)
	const size = 8 << 20
	data := make([]byte, size)
	rand.Read(data)
	doc, err := f.db.CreateDocument(context.Background(), storage.NewDocument{
		Name: "big.bin", MediaType: "application/octet-stream", Data: data, Pages: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	f.call("DELETE", "/api/documents/"+doc.ID, nil, http.StatusOK, nil)

	var hs struct {
		Bytes     int64 `json:"bytes"`
		FileBytes int64 `json:"file_bytes"`
	}
	f.call("GET", "/api/history/settings", nil, http.StatusOK, &hs)
	if disk := f.storeOnDisk(); hs.FileBytes != disk || hs.Bytes < size {
		t.Fatalf("with the deleted document kept: file_bytes %d (disk %d), bytes %d", hs.FileBytes, disk, hs.Bytes)
	}
	kept := hs.FileBytes
	f.call("DELETE", "/api/history", nil, http.StatusOK, &hs)
	if disk := f.storeOnDisk(); hs.FileBytes != disk || hs.FileBytes > kept-size || hs.Bytes != 0 {
		t.Fatalf("after emptying the history: file_bytes %d (disk %d), was %d with the %d MiB document kept; bytes %d",
			hs.FileBytes, disk, kept, size>>20, hs.Bytes)
	}
}
