package ocr_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/docent/docent/app/ocr"
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

// TestEngineOutputIsBounded is issue 21's item 2: an engine's output is
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
