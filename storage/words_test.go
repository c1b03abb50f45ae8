package storage

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDocumentIsStoredWithItsTextLayerWords(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	total := &PageWords{Width: 612, Height: 792, DPI: 72, Words: []Word{{X: 72, Y: 90, W: 30, H: 10, Conf: 100, Text: "Total"}, {X: 110, Y: 90, W: 24, H: 10, Conf: 100, Text: "9.50"}}}
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.pdf", MediaType: "application/pdf",
		Pages: []string{"Total 9.50", "", "more"}, Words: []*PageWords{total, nil}})
	pw, err := db.PageWords(ctx, doc.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pw, *total) {
		t.Errorf("page 1 words = %+v, want %+v", pw, *total)
	}
	for _, page := range []int{2, 3} {
		if _, err := db.PageWords(ctx, doc.ID, page); !errors.Is(err, ErrNotFound) {
			t.Errorf("page %d words: %v, want not found", page, err)
		}
	}
	if d, _ := db.PageDetails(ctx, doc.ID); d[0].Width != 612 || d[0].Height != 792 {
		t.Errorf("page 1 details %+v, want the page size", d[0])
	}
	missing, err := db.PagesWithoutWords(ctx, doc.ID)
	if err != nil || !reflect.DeepEqual(missing, []int{3}) {
		t.Errorf("pages without words = %v, %v; want [3] (page 2 has no text)", missing, err)
	}

	// Words for a page the document lacks, or on a page without a size,
	// store nothing.
	_, err = db.CreateDocument(ctx, NewDocument{Name: "b.pdf", MediaType: "application/pdf", Data: []byte("b"),
		Pages: []string{"x"}, Words: []*PageWords{nil, total}})
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("words for page 2 of 1: %v, want invalid", err)
	}
	_, err = db.CreateDocument(ctx, NewDocument{Name: "c.pdf", MediaType: "application/pdf", Data: []byte("c"),
		Pages: []string{"x"}, Words: []*PageWords{{Width: 0, Height: 792}}})
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("words on a page 0 wide: %v, want invalid", err)
	}
	if _, n, _ := db.ListDocuments(ctx, DocumentFilter{}); n != 1 {
		t.Errorf("%d documents, want 1: a refused one was stored", n)
	}
}

func TestWordSourceStandsForWords(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	one := &PageWords{Width: 100, Height: 100, DPI: 72, Words: []Word{{X: 1, Y: 2, W: 3, H: 4, Conf: 100, Text: "one"}}}
	source := func(yield func(*PageWords, error) bool) {
		_ = yield(nil, nil) && yield(one, nil)
	}
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.pdf", MediaType: "application/pdf",
		Pages: []string{"", "one"}, WordSource: source})
	if pw, err := db.PageWords(ctx, doc.ID, 2); err != nil || !reflect.DeepEqual(pw, *one) {
		t.Errorf("page 2 words = %+v, %v; want %+v", pw, err, *one)
	}
	failing := func(yield func(*PageWords, error) bool) {
		_ = yield(one, nil) && yield(nil, errors.New("reader gone"))
	}
	_, err := db.CreateDocument(ctx, NewDocument{Name: "b.pdf", MediaType: "application/pdf", Data: []byte("b"),
		Pages: []string{"one", "two"}, WordSource: failing})
	if err == nil || !strings.Contains(err.Error(), "reader gone") {
		t.Errorf("a failing word source: %v, want its error", err)
	}
	if _, n, _ := db.ListDocuments(ctx, DocumentFilter{}); n != 1 {
		t.Errorf("%d documents, want 1: the failed one was stored", n)
	}
}

func TestSetPageWordsFillsInAndReplacesTextLayerWords(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "old.pdf", MediaType: "application/pdf",
		Pages: []string{"one", "two", "  \n", "scan"}, OCRPages: []int{4}})
	missing, err := db.PagesWithoutWords(ctx, doc.ID)
	if err != nil || !reflect.DeepEqual(missing, []int{1, 2, 4}) {
		t.Fatalf("pages without words = %v, %v; want [1 2 4] (page 3 is blank)", missing, err)
	}
	one := PageWords{Width: 100, Height: 100, DPI: 72, Words: []Word{{X: 1, Y: 2, W: 3, H: 4, Conf: 100, Text: "one"}}}
	two := PageWords{Width: 100, Height: 100, DPI: 72, Words: []Word{}}
	if err := db.SetPageWords(ctx, doc.ID, map[int]PageWords{1: one, 2: two}); err != nil {
		t.Fatal(err)
	}
	if missing, _ := db.PagesWithoutWords(ctx, doc.ID); !reflect.DeepEqual(missing, []int{4}) {
		t.Errorf("pages without words = %v, want [4]", missing)
	}
	one.Words[0].Text = "uno"
	if err := db.SetPageWords(ctx, doc.ID, map[int]PageWords{1: one}); err != nil {
		t.Fatal(err)
	}
	if pw, _ := db.PageWords(ctx, doc.ID, 1); len(pw.Words) != 1 || pw.Words[0].Text != "uno" {
		t.Errorf("page 1 words after replacing = %+v", pw)
	}
	if err := db.SetPageWords(ctx, doc.ID, map[int]PageWords{9: one}); !errors.Is(err, ErrNotFound) {
		t.Errorf("words for page 9: %v, want not found", err)
	}
	if err := db.SetPageWords(ctx, "doc_missing", map[int]PageWords{1: one}); !errors.Is(err, ErrNotFound) {
		t.Errorf("words for a missing document: %v, want not found", err)
	}

	// OCR reads page 4 (a scan with a junk text layer); a text layer's
	// words arriving late do not replace OCR's.
	job, err := db.ClaimOCR(ctx, doc.ID, true, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	ocrWords := &PageWords{Width: 2550, Height: 3300, DPI: 300, Words: []Word{{X: 10, Y: 10, W: 90, H: 30, Conf: 93, Text: "SCANNED"}}}
	if _, err := db.FinishOCR(ctx, &job, []OCRPage{{Page: 4, Text: "SCANNED", Words: ocrWords}}, StatusReady, ""); err != nil {
		t.Fatal(err)
	}
	if err := db.SetPageWords(ctx, doc.ID, map[int]PageWords{4: one}); err != nil {
		t.Fatal(err)
	}
	if pw, _ := db.PageWords(ctx, doc.ID, 4); pw.DPI != 300 || pw.Words[0].Text != "SCANNED" {
		t.Errorf("page 4 words = %+v, want OCR's kept", pw)
	}
	if missing, _ := db.PagesWithoutWords(ctx, doc.ID); len(missing) != 0 {
		t.Errorf("pages without words = %v, want none", missing)
	}
}

func TestAppendWordsIsJSONMarshal(t *testing.T) {
	words := []Word{
		{X: 1, Y: -2, W: 30, H: 10, Conf: 91.234, Text: "TOTAL"},
		{X: 0, Y: 0, W: 1, H: 1, Conf: 100, Text: `"quoted" \ back`},
		{Conf: 0, Text: "<a & b>"},
		{Conf: -1, Text: "Straße 5 €\u2028\x01\xff"},
		{Conf: 99.96, Text: "Straße"},
		{Conf: 50, Text: "del\x7f"},
		{Conf: 50, Text: "ok\u2029"},
		{Conf: 50, Text: "bad\xc3"},
		{Conf: 50, Text: "Straße \"quoted\" <b> \\ \x02"},
		{Conf: 1e-9, Text: ""},
		{Conf: 3e22, Text: "big"},
	}
	want, err := json.Marshal(words)
	if err != nil {
		t.Fatal(err)
	}
	if got := appendWords(nil, words); string(got) != string(want) {
		t.Errorf("appendWords = %s\njson.Marshal = %s", got, want)
	}
	if got := appendWords(nil, nil); string(got) != "[]" {
		t.Errorf("no words = %s, want []", got)
	}
}
