package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/docent/docent/storage"
)

// TestOriginalFileIsWrittenPartByPart: the file route answers the stored
// bytes exactly, with their length, whether they are one part, several
// (written one after another), or none; HEAD answers the length alone.
func TestOriginalFileIsWrittenPartByPart(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, size := range []int{0, 10, 1 << 20, 2<<20 + 12345} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*7 + i/1000)
		}
		sum := sha256.Sum256(data)
		doc, err := f.db.CreateDocument(ctx, storage.NewDocument{Name: "f" + strconv.Itoa(size) + ".pdf", MediaType: "application/pdf", Pages: []string{"x"},
			File: &storage.FileSource{R: bytes.NewReader(data), Size: int64(size), SHA256: hex.EncodeToString(sum[:])}})
		if err != nil {
			t.Fatal(err)
		}
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			res, err := f.ts.Client().Do(f.request(ctx, method, "/api/documents/"+doc.ID+"/file", nil))
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			want := data
			if method == http.MethodHead {
				want = nil
			}
			if err != nil || res.StatusCode != http.StatusOK || res.ContentLength != int64(size) || !bytes.Equal(body, want) ||
				res.Header.Get("Content-Type") != "application/pdf" || res.Header.Get("Content-Security-Policy") != "sandbox" {
				t.Errorf("%s file of %d bytes: %d, length %d, %d bytes read (%v), headers %v", method, size, res.StatusCode, res.ContentLength, len(body), err, res.Header)
			}
		}
	}
	f.wantError("GET", "/api/documents/doc_missing/file", nil, http.StatusNotFound, "not_found")
}
