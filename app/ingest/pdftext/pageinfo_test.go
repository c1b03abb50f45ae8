package pdftext

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// pdfWithPages builds a well-formed PDF (with a correct cross-reference
// table, so no repair is involved) with one page per content stream. Every
// page has Helvetica as /F1 and a 1×1 grey image as /Im1 in its resources.
func pdfWithPages(contents ...string) []byte {
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	add("<</Type /Catalog /Pages 2 0 R>>")
	add("") // the page tree, once the pages are known
	font := add("<</Type /Font /Subtype /Type1 /BaseFont /Helvetica>>")
	img := add("<</Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 1>>\nstream\n@\nendstream")
	var kids []string
	for _, c := range contents {
		stream := add(fmt.Sprintf("<</Length %d>>\nstream\n%s\nendstream", len(c), c))
		page := add(fmt.Sprintf("<</Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents %d 0 R /Resources <</Font <</F1 %d 0 R>> /XObject <</Im1 %d 0 R>>>>>>", stream, font, img))
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

func TestPageInfoTellsImagesFromBlankPages(t *testing.T) {
	data := pdfWithPages(
		"",                                     // blank
		"1 1 1 rg 0 0 200 200 re f",            // a white background: blank to the eye
		"q 200 0 0 200 0 0 cm /Im1 Do Q",       // a scan
		"BI /W 1 /H 1 /CS /G /BPC 8 ID @ EI",   // an inline image
		"BT /F1 12 Tf 20 100 Td (Hello) Tj ET", // text
	)
	res, err := Extract(context.Background(), data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Repaired || len(res.Warnings) > 0 {
		t.Fatalf("test PDF needed repair: %q", res.Warnings)
	}
	// The scan covers its 200×200 page; the inline image, drawn without a
	// cm, one unit square of it.
	want := []PageInfo{{}, {PathSegments: 1}, {Images: 1, ImageCover: 1}, {Images: 1, ImageCover: 1.0 / 40000}, {}}
	if !reflect.DeepEqual(res.Info, want) {
		t.Errorf("info = %+v, want %+v", res.Info, want)
	}
	if res.Pages[4] != "Hello" {
		t.Errorf("page 5 = %q, want Hello", res.Pages[4])
	}
}

// TestBlankPDFInTestdata keeps testdata/blank.pdf (which the importer's
// tests use) what its name says: two pages without text or images.
func TestBlankPDFInTestdata(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "blank.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, pdfWithPages("", "")) {
		t.Errorf("testdata/blank.pdf is not pdfWithPages(\"\", \"\"): regenerate it")
	}
	res, err := ExtractIsolated(context.Background(), data, Options{}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Pages, []string{"", ""}) || !reflect.DeepEqual(res.Info, []PageInfo{{}, {}}) {
		t.Errorf("pages %q, info %+v; want two blank pages", res.Pages, res.Info)
	}
}

func TestMissingEndMarkerIsNamedOnce(t *testing.T) {
	for _, data := range []string{"%PDF-1.4\ntruncated", "%PDF-1.4\n" + strings.Repeat("x", 300)} {
		_, err := ExtractIsolated(context.Background(), []byte(data), Options{}, Limits{})
		want := `malformed PDF: no end-of-file marker ("%%EOF" on the last line): the file is truncated or is not a PDF`
		if err == nil || err.Error() != want {
			t.Errorf("%.20q: err = %v, want %s", data, err, want)
		}
	}
}
