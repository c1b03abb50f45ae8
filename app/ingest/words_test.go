package ingest

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/storage"
)

// textPDF builds a well-formed PDF with one page per content stream, each
// with its own page dictionary entries (boxes, rotation) and Helvetica as
// /F1.
func textPDF(pages ...[2]string) []byte {
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	add("<</Type /Catalog /Pages 2 0 R>>")
	add("")
	font := add("<</Type /Font /Subtype /Type1 /BaseFont /Helvetica>>")
	var kids []string
	for _, p := range pages {
		stream := add(fmt.Sprintf("<</Length %d>>\nstream\n%s\nendstream", len(p[1]), p[1]))
		page := add(fmt.Sprintf("<</Type /Page /Parent 2 0 R %s /Contents %d 0 R /Resources <</Font <</F1 %d 0 R>>>>>>", p[0], stream, font))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	objs[1] = fmt.Sprintf("<</Type /Pages /Kids [%s] /Count %d>>", strings.Join(kids, " "), len(kids))
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<</Size %d /Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

var invoicePDF = textPDF(
	[2]string{"/MediaBox [0 0 612 792]", "BT /F1 12 Tf 72 720 Td (Invoice no. 42) Tj 0 -14 Td (Total due: 9.50 EUR) Tj ET"},
	[2]string{"/MediaBox [0 0 612 792]", ""},
	[2]string{"/MediaBox [0 0 612 792] /Rotate 90", "BT /F1 12 Tf 0 1 -1 0 100 72 Tm (Landscape page) Tj ET"},
)

// checkWords checks that a page's stored words are its text's tokens, in
// points at DPI 72, each box on the page.
func checkWords(t *testing.T, db *storage.DB, id string, page, width, height int) storage.PageWords {
	t.Helper()
	ctx := context.Background()
	text, err := db.PageText(ctx, id, page)
	if err != nil {
		t.Fatal(err)
	}
	pw, err := db.PageWords(ctx, id, page)
	if err != nil {
		t.Fatalf("page %d: %v", page, err)
	}
	if pw.Width != width || pw.Height != height || pw.DPI != 72 {
		t.Errorf("page %d: %d×%d at DPI %v, want %d×%d at 72", page, pw.Width, pw.Height, pw.DPI, width, height)
	}
	texts := make([]string, len(pw.Words))
	for i, w := range pw.Words {
		texts[i] = w.Text
		if w.X < 0 || w.Y < 0 || w.W < 1 || w.H < 1 || w.X+w.W > pw.Width || w.Y+w.H > pw.Height || w.Conf != 100 {
			t.Errorf("page %d: word %+v off the page or without confidence 100", page, w)
		}
	}
	if got, want := strings.Join(texts, " "), strings.Join(strings.Fields(text), " "); got != want {
		t.Errorf("page %d: words %q, text %q", page, got, want)
	}
	return pw
}

func TestImportStoresTextLayerWords(t *testing.T) {
	im := newImporter(t)
	ctx := context.Background()
	o := im.ImportBytes(ctx, "invoice.pdf", invoicePDF, Options{})
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	id := o.Document.ID
	pw := checkWords(t, im.DB, id, 1, 612, 792)
	// "Invoice" at x=72, baseline 720: 72 from the top, 12-point type.
	if w := pw.Words[0]; w.Text != "Invoice" || w.X != 72 || w.Y != 62 || w.H != 12 || w.W < 35 || w.W > 45 {
		t.Errorf("first word %+v, want Invoice at (72, 62), 12 high, about 40 wide", w)
	}
	if _, err := im.DB.PageWords(ctx, id, 2); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("blank page 2 words: %v, want none stored", err)
	}
	pw = checkWords(t, im.DB, id, 3, 792, 612)
	if w := pw.Words[0]; w.X != 72 || w.Y != 90 {
		t.Errorf("landscape word %+v, want it at (72, 90) of the turned page", w)
	}
}

// countingExtract reads PDFs with the isolated reader and counts the reads.
func countingExtract(n *int) ExtractFunc {
	return func(ctx context.Context, r io.Reader, size int64, opts pdftext.Options) (pdftext.Result, error) {
		*n++
		return pdftext.ExtractIsolatedReader(ctx, r, size, opts, pdftext.Limits{})
	}
}

func TestEnsureWordsRestoresMissingWordsOnce(t *testing.T) {
	im := newImporter(t)
	ctx := context.Background()
	o := im.ImportBytes(ctx, "invoice.pdf", invoicePDF, Options{})
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	id := o.Document.ID
	before1, _ := im.DB.PageWords(ctx, id, 1)
	before3, _ := im.DB.PageWords(ctx, id, 3)

	// A document imported before words were stored.
	raw, err := sql.Open("sqlite", "file:"+im.DB.Path()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, `DELETE FROM page_words WHERE document_id = ?`, id); err != nil {
		t.Fatal(err)
	}
	if missing, err := im.DB.PagesWithoutWords(ctx, id); err != nil || !reflect.DeepEqual(missing, []int{1, 3}) {
		t.Fatalf("pages without words = %v, %v; want [1 3]", missing, err)
	}

	reads := 0
	if err := EnsureWords(ctx, im.DB, id, countingExtract(&reads)); err != nil {
		t.Fatal(err)
	}
	if reads != 1 {
		t.Errorf("%d reads, want 1", reads)
	}
	after1 := checkWords(t, im.DB, id, 1, 612, 792)
	after3 := checkWords(t, im.DB, id, 3, 792, 612)
	if !reflect.DeepEqual(after1, before1) || !reflect.DeepEqual(after3, before3) {
		t.Errorf("restored words differ from the imported ones:\n%+v\n%+v", after1, before1)
	}
	if _, err := im.DB.PageWords(ctx, id, 2); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("blank page 2 words: %v, want none stored", err)
	}

	// Nothing missing: nothing read.
	if err := EnsureWords(ctx, im.DB, id, countingExtract(&reads)); err != nil || reads != 1 {
		t.Errorf("second call: %v, %d reads; want nothing done", err, reads)
	}

	// A text document has no words to read.
	txt := im.ImportBytes(ctx, "notes.txt", []byte("some notes"), Options{})
	if err := EnsureWords(ctx, im.DB, txt.Document.ID, countingExtract(&reads)); err != nil || reads != 1 {
		t.Errorf("text document: %v, %d reads; want nothing done", err, reads)
	}
	if err := EnsureWords(ctx, im.DB, "doc_missing", nil); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("missing document: %v, want not found", err)
	}
}

func TestEnsureWordsStoresAnEmptyListWhereTheReaderGivesNone(t *testing.T) {
	im := newImporter(t)
	ctx := context.Background()
	// An extractor without words: the document is stored without them.
	im.Extract = func(ctx context.Context, r io.Reader, size int64, opts pdftext.Options) (pdftext.Result, error) {
		_, err := io.Copy(io.Discard, r)
		return pdftext.Result{Pages: []string{"Hello"}, Info: []pdftext.PageInfo{{}}}, err
	}
	o := im.ImportBytes(ctx, "x.pdf", []byte("%PDF-1.4 words"), Options{})
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if err := EnsureWords(ctx, im.DB, o.Document.ID, im.Extract); err != nil {
		t.Fatal(err)
	}
	pw, err := im.DB.PageWords(ctx, o.Document.ID, 1)
	if err != nil || len(pw.Words) != 0 || pw.Width != 612 {
		t.Errorf("page 1 words = %+v, %v; want an empty list on a Letter page", pw, err)
	}
	if missing, _ := im.DB.PagesWithoutWords(ctx, o.Document.ID); len(missing) != 0 {
		t.Errorf("pages without words = %v, want none: the page is not read again", missing)
	}
}

func TestStorageWordsRoundEdgesOntoThePage(t *testing.T) {
	pw := storageWords(pdftext.NewPageWords(595.28, 841.89, []pdftext.Word{
		{X: 72.4, Y: 100.6, W: 30.2, H: 9.8, Text: "a"},  // edges 72.4-102.6, 100.6-110.4
		{X: 595.28, Y: 0, W: 0, H: 0, Text: "off"},       // squeezed onto the corner
		{X: 10.2, Y: 10.2, W: 0.1, H: 0.1, Text: "tiny"}, // less than a point
	}))
	want := &storage.PageWords{Width: 595, Height: 842, DPI: 72, Words: []storage.Word{
		{X: 72, Y: 101, W: 31, H: 9, Conf: 100, Text: "a"},
		{X: 594, Y: 0, W: 1, H: 1, Conf: 100, Text: "off"},
		{X: 10, Y: 10, W: 1, H: 1, Conf: 100, Text: "tiny"},
	}}
	if !reflect.DeepEqual(pw, want) {
		t.Errorf("got %+v\nwant %+v", pw, want)
	}
	if pw := storageWords(pdftext.NewPageWords(0.3, 2, nil)); pw.Width != 1 || pw.Words == nil {
		t.Errorf("a page 0.3 points wide = %+v, want 1 point and an empty list", pw)
	}
}
