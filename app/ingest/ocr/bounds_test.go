package ocr_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/docent/docent/app/ingest"
	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// tsvHeader is the first line of tesseract's TSV.
const tsvHeader = `printf 'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n'`

// tsvWords prints n word rows of TSV, each word w characters long, one
// line of text per 10 words.
func tsvWords(n, w int) string {
	return `awk 'BEGIN { w = sprintf("%` + strconv.Itoa(w) + `s", ""); gsub(/ /, "w", w);
	for (i = 0; i < ` + strconv.Itoa(n) + `; i++) printf "5\t1\t1\t1\t%d\t%d\t0\t0\t10\t10\t96\t%s\n", int(i/10), i, w }'`
}

// TestEngineOutputIsBounded: an engine's output is
// read up to a bound, a page past it fails saying why (not an internal
// error), and the document's message stays small whatever the engine
// printed on stderr.
func TestEngineOutputIsBounded(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		// 30 MB of stderr, the cause on its last line.
		{"floods stderr", `head -c 30000000 /dev/zero | tr '\0' x >&2; printf '\nError: the real cause\n' >&2; exit 1`, "Error: the real cause"},
		// About 40 MB of valid TSV: a million words.
		{"prints huge TSV", tsvHeader + "; " + tsvWords(1_000_000, 8), "over 16 MiB"},
		{"finds too many words", tsvHeader + "; " + tsvWords(150_000, 2), "more than 100000 words"},
		{"reads too much text", tsvHeader + "; " + tsvWords(40_000, 40), "more than the limit of 1024 KiB"},
		// One line of 1 MB: bufio.ErrTooLong was an internal error.
		{"prints one long line", tsvHeader + `; head -c 1000000 /dev/zero | tr '\0' x`, "a line over 64 KiB long"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := openDB(t)
			doc := importFile(t, db, "a.png", pngBytes(t, printed(600, 200, "HELLO")))
			fakeTesseract(t, c.body)
			got, err := ocrDocument(t, db, doc.ID, ocr.Options{})
			if err == nil || got.Status != storage.StatusFailed || !strings.Contains(got.Error, c.want) ||
				len(got.Error) > storage.MaxMessageBytes || !utf8.ValidString(got.Error) {
				t.Fatalf("got %s with a message of %d bytes: %.300q (%v); want failed with %q in at most %d bytes",
					got.Status, len(got.Error), got.Error, err, c.want, storage.MaxMessageBytes)
			}
			if strings.Contains(got.Error, fault.InternalMessage) {
				t.Errorf("the message hides the cause: %q", got.Error)
			}
			text, _ := db.PageText(context.Background(), doc.ID, 1)
			if text != "" {
				t.Errorf("the page kept %d bytes of text", len(text))
			}
			list, _, err := db.ListDocuments(context.Background(), storage.DocumentFilter{Limit: 1})
			if err != nil || len(list) != 1 || len(list[0].Error) > storage.MaxMessageBytes {
				t.Errorf("listed: %d documents (%v)", len(list), err)
			}
		})
	}
}

// png16Claiming is a 16-bit RGB PNG whose header claims w×h pixels and
// whose data is one pixel.
func png16Claiming(t *testing.T, w, h uint32) []byte {
	img := image.NewRGBA64(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA64{R: 0x1234, G: 0x5678, B: 0x9abc, A: 0xffff})
	data := pngBytes(t, img)
	if data[24] != 16 || data[25] != 2 {
		t.Fatalf("the encoder wrote bit depth %d, colour type %d; want a 16-bit RGB PNG", data[24], data[25])
	}
	binary.BigEndian.PutUint32(data[16:20], w)
	binary.BigEndian.PutUint32(data[20:24], h)
	binary.BigEndian.PutUint32(data[29:33], crc32.ChecksumIEEE(data[12:29]))
	return data
}

// TestLargeDecodedPageIsRefusedUpFront: a 100
// megapixel 16-bit page decodes to 800 MB, which with the file, its grey
// copy and the PNG OCR reads passes the image reader's 1 GiB; the child
// died part way, or not, depending on what else ran, and the document
// said "Internal error". Its decoded size is checked against the child's
// memory limit before decoding, every time, with the reason.
func TestLargeDecodedPageIsRefusedUpFront(t *testing.T) {
	data := png16Claiming(t, 10_000, 10_000)
	_, err := ocr.ProbeImage(context.Background(), bytes.NewReader(data), int64(len(data)))
	if !errors.Is(err, pdftext.ErrTooLarge) || !strings.Contains(err.Error(), "more than the image reader's memory limit of 1024 MiB") {
		t.Fatalf("probe of a 100 MP 16-bit PNG: %v; want too large for the memory limit", err)
	}

	db := openDB(t)
	o := (&ingest.Importer{DB: db}).ImportBytes(context.Background(), "huge.png", data, ingest.Options{})
	if o.Document == nil || o.Document.Status != storage.StatusFailed || !strings.Contains(o.Document.Error, "memory limit") ||
		!strings.Contains(fault.ErrorMessage(o.Err), "10000×10000 pixels of 8 bytes each") {
		t.Fatalf("import: %+v, %v", o.Document, o.Err)
	}
}

// TestOCROutOfMemoryNamesTheCause: a page whose image takes more memory
// than OCR's image reader may use fails the document with that cause, not
// "Internal error … in its log" with nothing in the log.
func TestOCROutOfMemoryNamesTheCause(t *testing.T) {
	db := openDB(t)
	doc := importFile(t, db, "big.png", pngBytes(t, blank(4000, 4000)))
	fakeTesseract(t, "exit 1") // not reached
	got, err := ocrDocument(t, db, doc.ID, ocr.Options{Limits: pdftext.Limits{MemoryBytes: 32 << 20}})
	if err == nil || got.Status != storage.StatusFailed || !strings.Contains(got.Error, "memory limit of 32 MiB") ||
		strings.Contains(got.Error, fault.InternalMessage) || fault.ErrorCode(err) != fault.Invalid {
		t.Fatalf("got %s %q (%v, code %s); want failed naming the memory limit", got.Status, got.Error, err, fault.ErrorCode(err))
	}
}

// TestWorkerLogsWhyOCRFailed: the background worker's log says why a
// document failed, as the document does.
func TestWorkerLogsWhyOCRFailed(t *testing.T) {
	db := openDB(t)
	doc := importFile(t, db, "a.png", pngBytes(t, printed(600, 200, "HELLO")))
	fakeTesseract(t, tsvHeader+"; "+tsvWords(1_000_000, 8))
	var log syncBuffer
	w := ocr.NewWorker(db, slog.New(slog.NewTextHandler(&log, nil)))
	w.Lang = func() string { return "eng" }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	w.Wake()
	got := waitFor(t, db, doc.ID, storage.StatusFailed, nil)
	if !strings.Contains(got.Error, "over 16 MiB") {
		t.Fatalf("document: %q", got.Error)
	}
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(log.String(), "over 16 MiB") {
		if time.Now().After(deadline) {
			t.Fatalf("the log does not say why: %s", log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// syncBuffer is a bytes.Buffer written by a worker and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestOCRReaderOutOfMemoryNamesTheCause: a page renderer that runs out of
// its memory limit fails the document saying so. With 16 MiB, PDFium
// cannot even map its compiled code: that was an internal error, with
// nothing in any log.
func TestOCRReaderOutOfMemoryNamesTheCause(t *testing.T) {
	dir := testcorpus.Dir(t)
	data, err := os.ReadFile(filepath.Join(dir, "invoice2data", "Amazon_EU_2014-06-04.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	db := openDB(t)
	doc := importFile(t, db, "scan.pdf", data)
	fakeTesseract(t, "exit 1") // not reached
	got, err := ocrDocument(t, db, doc.ID, ocr.Options{Limits: pdftext.Limits{MemoryBytes: 16 << 20}})
	if err == nil || got.Status != storage.StatusFailed || !strings.Contains(got.Error, "out of memory") ||
		strings.Contains(got.Error, fault.InternalMessage) {
		t.Fatalf("got %s %q (%v); want failed, out of memory", got.Status, got.Error, err)
	}
}
