package ingest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/docent/docent/storage"
)

func collectPages(t *testing.T, text string, latin1 bool, maxChars int) []string {
	t.Helper()
	var pages []string
	// A one-byte reader: every character and CRLF straddles a read.
	for p, err := range textPages(&oneByteReader{s: text}, latin1, maxChars) {
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
	}
	return pages
}

type oneByteReader struct{ s string }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.s[0]
	r.s = r.s[1:]
	return 1, nil
}

func TestTextPagesDecodeAndSplitAsBefore(t *testing.T) {
	for _, c := range []struct {
		name, text string
		latin1     bool
		want       []string
	}{
		{"BOM, CRLF, trailing form feed", "\xef\xbb\xbfpage one\r\nline two\fpage two\f", false, []string{"page one\nline two", "page two"}},
		{"a lone CR stays", "a\rb\r", false, []string{"a\rb\r"}},
		{"empty file", "", false, []string{""}},
		{"blank page inside", "a\f\fb", false, []string{"a", "", "b"}},
		{"only the last blank page goes", "a\f\f \n", false, []string{"a", ""}},
		{"Latin-1", "Stra\xdfe\r\nK\xf6ln", true, []string{"Straße\nKöln"}},
		{"UTF-8", "Straße – Köln", false, []string{"Straße – Köln"}},
	} {
		if got := collectPages(t, c.text, c.latin1, MaxPageChars); strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("%s: pages %q, want %q", c.name, got, c.want)
		}
	}
}

func TestLongTextIsSplitAtLineBreaksNearTheLimit(t *testing.T) {
	line := strings.Repeat("é", 29) + "\n" // 30 characters, 59 bytes
	text := strings.Repeat(line, 10)       // 300 characters, no form feed
	pages := collectPages(t, text, false, 100)
	if len(pages) != 4 {
		t.Fatalf("%d pages, want 4 of at most 100 characters: %q", len(pages), pages)
	}
	for i, p := range pages {
		if n := utf8.RuneCountInString(p); n > 100 || !utf8.ValidString(p) {
			t.Errorf("page %d: %d characters (valid UTF-8: %v), want at most 100", i+1, n, utf8.ValidString(p))
		}
	}
	// Each split replaced one line break; nothing else was lost.
	if joined := strings.Join(pages, "\n"); joined != text {
		t.Errorf("pages joined = %q, want the text back", joined)
	}
	// A line longer than the limit is cut at the limit.
	long := collectPages(t, strings.Repeat("x", 250), false, 100)
	if len(long) != 3 || len(long[0]) != 100 || len(long[2]) != 50 {
		t.Errorf("one 250-character line gave pages of %d, want 100, 100, 50", len(long))
	}
}

func TestUTF8CheckFollowsCharactersAcrossWrites(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"plain ASCII", true},
		{"Straße – Köln €𝄞", true},
		{"Stra\xdfe", false}, // Latin-1
		{"ends mid-char \xe2\x82", false},
		{"\xe2\x82x", false},    // a cut character followed by ASCII
		{"\xed\xa0\x80", false}, // a surrogate
		{"\x80\x80\x80\x80", false},
	} {
		for _, step := range []int{1, 2, 3, 1000} {
			check := &utf8Check{}
			for s := c.text; s != ""; {
				n := min(step, len(s))
				check.Write([]byte(s[:n]))
				s = s[n:]
			}
			if check.valid() != c.want {
				t.Errorf("%q written %d bytes at a time: valid = %v, want %v", c.text, step, check.valid(), c.want)
			}
		}
	}
}

func TestLongTextFileImportsAsPagesOfAtMostTheLimit(t *testing.T) {
	im := newImporter(t)
	ctx := context.Background()
	line := "Stra\xdfe \xe9t\xe9 " + strings.Repeat("word ", 20) + "\r\n" // Latin-1, about 115 characters
	data := []byte(strings.Repeat(line, 2000))                            // about 230,000 characters, no form feed
	o := im.ImportBytes(ctx, "long.txt", data, Options{})
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	pages, err := im.DB.DocumentText(ctx, o.Document.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != o.Document.Pages || len(pages) < 4 {
		t.Fatalf("%d pages stored, document says %d; want at least 4", len(pages), o.Document.Pages)
	}
	for i, p := range pages {
		if n := utf8.RuneCountInString(p); n > MaxPageChars || !strings.HasPrefix(p, "Straße été ") {
			t.Errorf("page %d: %d characters starting %.20q; want at most %d, split at a line break", i+1, n, p, MaxPageChars)
		}
	}
	file, err := im.DB.DocumentFile(ctx, o.Document.ID)
	if err != nil || !bytes.Equal(file, data) {
		t.Errorf("stored file: %d bytes, %v; want the %d bytes imported", len(file), err, len(data))
	}
}

// changingFile is a file that someone rewrites after the importer's first
// pass over it (its third read from the start: the type check, the first
// pass, then the pass that stores it or reads its text).
type changingFile struct {
	before, after []byte
	starts        int
}

func (f *changingFile) ReadAt(p []byte, off int64) (int, error) {
	if off == 0 {
		f.starts++
	}
	data := f.before
	if f.starts > 2 {
		data = f.after
	}
	if off >= int64(len(data)) {
		return 0, io.EOF
	}
	n := copy(p, data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func TestFileChangedDuringImportIsNotStored(t *testing.T) {
	im := newImporter(t)
	ctx := context.Background()
	for _, name := range []string{"notes.txt", "scan.pdf"} {
		f := &changingFile{before: []byte("%PDF-1.4 first version of " + name), after: []byte("%PDF-1.4 other version of " + name)}
		o := im.ImportReader(ctx, name, f, int64(len(f.before)), Options{})
		if !errors.Is(o.Err, storage.ErrFileChanged) || o.Err.Error() != storage.ErrFileChanged.Message || o.Document != nil {
			t.Errorf("%s: outcome %+v, err %v; want storage.ErrFileChanged as it is and nothing stored", name, o.Document, o.Err)
		}
	}
	if _, total, _ := im.DB.ListDocuments(ctx, storage.DocumentFilter{}); total != 0 {
		t.Errorf("%d documents stored from a file that changed, want 0", total)
	}
}
