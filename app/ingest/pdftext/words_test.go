package pdftext

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/docent/docent/app/internal/testcorpus"
)

// testPage is one page of pdfWithPageDicts: the entries of its dictionary
// besides /Type, /Parent, /Contents and /Resources, and its content.
type testPage struct {
	dict    string
	content string
}

// pdfWithPageDicts builds a well-formed PDF like pdfWithPages, with each
// page's own boxes and rotation, and Courier (every glyph 600/1000 of the
// size wide, so positions are easy to work out) as /F1.
func pdfWithPageDicts(pages ...testPage) []byte {
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	add("<</Type /Catalog /Pages 2 0 R>>")
	add("")
	font := add("<</Type /Font /Subtype /Type1 /BaseFont /Courier>>")
	var kids []string
	for _, p := range pages {
		stream := add(fmt.Sprintf("<</Length %d>>\nstream\n%s\nendstream", len(p.content), p.content))
		page := add(fmt.Sprintf("<</Type /Page /Parent 2 0 R %s /Contents %d 0 R /Resources <</Font <</F1 %d 0 R>>>>>>", p.dict, stream, font))
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

// TestWordsHaveBoxesOnTheDisplayedPage reads words set in 10-point Courier
// (6 points a glyph): a box runs from the first glyph's origin to the last
// one's advance, from 2 points below the baseline to 8 above, on the page
// as displayed (top-left origin, crop box, rotation).
func TestWordsHaveBoxesOnTheDisplayedPage(t *testing.T) {
	data := pdfWithPageDicts(
		// Upright: baseline at y=50 of a 100-point-high page is 50 from the top.
		testPage{"/MediaBox [0 0 200 100]", "BT /F1 10 Tf 20 50 Td (Hello world) Tj ET"},
		// Landscape: the page is turned a quarter clockwise for display,
		// and the text runs up the unturned page, so it reads left to right.
		testPage{"/MediaBox [0 0 200 100] /Rotate 90", "BT /F1 10 Tf 0 1 -1 0 50 20 Tm (Hello) Tj ET"},
		// A crop box away from the origin: positions count from its top left.
		testPage{"/MediaBox [0 0 300 300] /CropBox [100 50 250 250]", "BT /F1 10 Tf 120 200 Td (Hi there) Tj ET"},
		// Both, turned three quarters: the text runs down the unturned page.
		testPage{"/MediaBox [0 0 300 300] /CropBox [100 50 250 250] /Rotate 270", "BT /F1 10 Tf 0 -1 1 0 200 230 Tm (Hello) Tj ET"},
		// Rotate 180, a crop box larger than the media box (clipped to it).
		testPage{"/MediaBox [0 0 200 100] /CropBox [-50 -50 500 500] /Rotate 180", "BT /F1 10 Tf -1 0 0 -1 180 50 Tm (Hello) Tj ET"},
	)
	res, err := Extract(context.Background(), data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Repaired || len(res.Warnings) > 0 {
		t.Fatalf("test PDF needed repair: %q", res.Warnings)
	}
	want := []PageWords{
		NewPageWords(200, 100, []Word{{20, 42, 30, 10, "Hello"}, {56, 42, 30, 10, "world"}}),
		NewPageWords(100, 200, []Word{{20, 42, 30, 10, "Hello"}}),
		NewPageWords(150, 200, []Word{{20, 42, 12, 10, "Hi"}, {38, 42, 30, 10, "there"}}),
		NewPageWords(200, 150, []Word{{20, 42, 30, 10, "Hello"}}),
		NewPageWords(200, 100, []Word{{20, 42, 30, 10, "Hello"}}),
	}
	if len(res.Words) != len(want) {
		t.Fatalf("words for %d pages, want %d", len(res.Words), len(want))
	}
	for i, w := range want {
		if got := res.Words[i]; !reflect.DeepEqual(got, w) {
			t.Errorf("page %d (text %q): %v×%v, words %+v, want %v×%v, %+v", i+1, res.Pages[i], got.Width, got.Height, got.Words(), w.Width, w.Height, w.Words())
		}
	}

	// The words cross the process boundary unchanged.
	iso, err := ExtractIsolated(context.Background(), data, Options{}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(iso.Words, res.Words) {
		t.Errorf("isolated words %+v, want %+v", iso.Words, res.Words)
	}
}

func TestPageWithTooManyWordsKeepsItsTextAndNoWords(t *testing.T) {
	text := strings.TrimSpace(strings.Repeat("a ", MaxPageWords+1))
	data := pdfWithPageDicts(
		testPage{"/MediaBox [0 0 200 100]", "BT /F1 1 Tf 0 50 Td (" + text + ") Tj ET"},
		testPage{"/MediaBox [0 0 200 100]", "BT /F1 10 Tf 20 50 Td (fine) Tj ET"},
	)
	res, err := Extract(context.Background(), data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pages[0] != text {
		t.Errorf("page 1 text: %d chars, want %d", len(res.Pages[0]), len(text))
	}
	if w := res.Words[0]; !w.Omitted || w.Len() != 0 || w.Width != 200 {
		t.Errorf("page 1 words = %d words, omitted %v, width %v; want none, omitted, the page's size", w.Len(), w.Omitted, w.Width)
	}
	if res.Words[1].Len() != 1 {
		t.Errorf("page 2 words = %+v, want one", res.Words[1])
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "page 1: more than 50000 words") {
		t.Errorf("warnings = %q, want one about page 1", res.Warnings)
	}
}

// tokens is a text with its whitespace collapsed: what a page's words,
// joined by single spaces, must equal.
func tokens(s string) string { return strings.Join(strings.Fields(s), " ") }

func wordTexts(ws []span) string {
	texts := make([]string, len(ws))
	for i, w := range ws {
		texts[i] = w.text
	}
	return strings.Join(texts, " ")
}

// TestLayoutWordsAreTheTokensOfItsText lays out pages where the text is
// not simply the glyphs in drawing order: columns, wrapped table cells
// joined to the row above, right-to-left words and rows, sideways text,
// fake bold, ligatures and glyphs that map to several words.
func TestLayoutWordsAreTheTokensOfItsText(t *testing.T) {
	var table []glyph
	for i, cell := range []string{"Item", "Quantity", "Price"} {
		table = append(table, word(cell, 100+float64(i)*100, 700, 5, 0)...)
	}
	table = append(table, word("Blue", 100, 688, 5, 0)...)
	table = append(table, word("widget", 100, 676, 5, 0)...) // wraps under Item
	table = append(table, word("3", 200, 688, 5, 0)...)
	table = append(table, word("9.50", 300, 688, 5, 0)...)
	table = append(table, word("Total", 100, 640, 5, 0)...)

	multi := word("x", 100, 700, 5, 0)
	multi[0].text = "a b\u2003c" // one glyph, three words
	multi = append(multi, word("\ufb01ne", 112, 700, 5, 0)...)

	cases := map[string][]glyph{
		"table": table,
		"rtl": append(append(word("םולש", 100, 700, 5, 0), word("םלוע", 130, 700, 5, 0)...),
			word("42 ₪", 200, 680, 5, 0)...),
		"mixed rows": append(append(word("Total", 100, 700, 5, 0), word("םולש", 300, 700, 5, 0)...), word("םלוע 7", 400, 700, 5, 0)...),
		"sideways":   append(word("across the page", 100, 700, 5, 0), word("up the margin", 20, 100, 0, 5)...),
		"fake bold":  append(word("Bold text", 100, 700, 5, 0), word("Bold text", 100.3, 700, 5, 0)...),
		"one glyph":  multi,
	}
	for name, gs := range cases {
		text, words := layoutText(gs)
		if got, want := wordTexts(words), tokens(text); got != want {
			t.Errorf("%s: words %q, text %q", name, got, want)
		}
	}
	text, words := layoutText(table)
	if !strings.Contains(text, "Blue widget") {
		t.Errorf("table: %q, want the wrapped cell joined", text)
	}
	if len(words) != 8 || words[3].text != "Blue" || words[4].text != "widget" || words[4].y1 > 690 {
		t.Errorf("table words = %+v, want \"widget\" after \"Blue\" with its own box, a line lower", words)
	}
	_, words = layoutText(multi)
	if wordTexts(words) != "a b c fine" || words[0].x1 > words[1].x0+0.01 || words[1].x1 > words[2].x0+0.01 {
		t.Errorf("one glyph's words = %+v, want a, b, c side by side, then fine", words)
	}
}

// TestCorpusWordsMatchTheText reads every corpus PDF and checks, on every
// page with text, that the words joined by single spaces are the text
// with its whitespace collapsed, and that every box lies on the page.
func TestCorpusWordsMatchTheText(t *testing.T) {
	dir, entries := testcorpus.Manifest(t)
	if testing.Short() {
		t.Skip("skipping the whole corpus in -short mode")
	}
	outcomes := readCorpus(t, dir, entries, true)
	var pages, agree, words, edgeBoxes int
	for _, o := range outcomes {
		if o.err != nil {
			continue
		}
		if len(o.res.Words) != len(o.res.Pages) {
			t.Errorf("%s: words for %d pages, text for %d", o.entry.File, len(o.res.Words), len(o.res.Pages))
			continue
		}
		for i, text := range o.res.Pages {
			pw := o.res.Words[i]
			if pw.Width <= 0 || pw.Height <= 0 || math.IsNaN(pw.Width) || math.IsNaN(pw.Height) {
				t.Errorf("%s page %d: page size %v×%v", o.entry.File, i+1, pw.Width, pw.Height)
			}
			for _, w := range pw.All() {
				// The edges are rounded to 1/100 point, in float32.
				const tol = 0.02
				if !(w.X >= 0 && w.Y >= 0 && w.W >= 0 && w.H >= 0 &&
					float64(w.X+w.W) <= pw.Width+tol && float64(w.Y+w.H) <= pw.Height+tol) {
					t.Errorf("%s page %d: word %+v off the %v×%v page", o.entry.File, i+1, w, pw.Width, pw.Height)
				}
				if w.W == 0 || w.H == 0 {
					edgeBoxes++
				}
			}
			if tokens(text) == "" || pw.Omitted {
				continue
			}
			pages++
			words += pw.Len()
			texts := make([]string, 0, pw.Len())
			for _, w := range pw.All() {
				texts = append(texts, w.Text)
			}
			if got, want := strings.Join(texts, " "), tokens(text); got == want && pw.Text() == want {
				agree++
			} else {
				t.Logf("%s page %d: words and text differ:\n%s", o.entry.File, i+1, firstDifference(got, want))
			}
		}
	}
	share := 100 * float64(agree) / float64(max(pages, 1))
	t.Logf("words match the text on %d of %d pages with text (%.2f%%); %d words, %d of them with an empty box (drawn off the page)", agree, pages, share, words, edgeBoxes)
	if share < 99 {
		t.Errorf("words match the text on %.2f%% of pages, want at least 99%%", share)
	}
}

// firstDifference shows where two texts part.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(i-40, 0)
	return fmt.Sprintf("  words …%q…\n  text  …%q…", a[from:min(i+40, len(a))], b[from:min(i+40, len(b))])
}

func TestPageWordsJSONIsCompactAndRoundTrips(t *testing.T) {
	pw := NewPageWords(612, 792, []Word{{72.25, 100, 30.5, 12, "Total"}, {110, 100, 24, 12, "\"9.50\""}, {-1.5, 0.01, 0, 0, "<x>"}})
	b, err := json.Marshal(pw)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"width":612,"height":792,"text":"Total \"9.50\" \u003cx\u003e","boxes":"OR` // the boxes follow in base64
	if !strings.HasPrefix(string(b), want) {
		t.Errorf("json = %s, want it to begin %s", b, want)
	}
	var back PageWords
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, pw) {
		t.Errorf("round trip = %+v, %v; want %+v", back, err, pw)
	}
	for _, bad := range []string{
		`{"width":1,"height":1,"text":"a b","boxes":"AAAAAAAAAAAAAAAAAAAAAA=="}`, // 16 bytes for two words
		`{"width":1,"height":1,"boxes":"AAAAAAAAAAAAAAAAAAAAAA=="}`,              // boxes without words
	} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
	// A page without words, and one whose words were not kept.
	for _, pw := range []PageWords{{Width: 10, Height: 20}, {Width: 10, Height: 20, Omitted: true}} {
		b, _ := json.Marshal(pw)
		var back PageWords
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, pw) {
			t.Errorf("%s: round trip = %+v, %v", b, back, err)
		}
	}
	// A word that breaks the rules still travels as one word.
	b, _ = json.Marshal(NewPageWords(1, 1, []Word{{Text: "a b"}, {Text: ""}, {Text: "c"}}))
	if err := json.Unmarshal(b, &back); err != nil || back.Len() != 3 || back.Words()[2].Text != "c" {
		t.Errorf("odd words = %+v, %v; want three words, the last c", back.Words(), err)
	}
}

func TestReplyStreamsWordsAsTheResultsLastField(t *testing.T) {
	res := Result{Pages: []string{"Total 9.50", ""}, Repaired: true, Info: []PageInfo{{Images: 1}, {}},
		Words:    []PageWords{NewPageWords(612, 792, []Word{{72, 100, 30, 12, "Total"}, {110, 100, 24, 12, "9.50"}}), {Width: 612, Height: 792}},
		Warnings: []string{"a warning"}}
	var buf bytes.Buffer
	if err := writeReply(&buf, reply{Result: &res}); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(buf.Bytes(), []byte("}}\n")) || bytes.Count(buf.Bytes(), []byte("\n")) != 1 {
		t.Errorf("reply is not one line of JSON: %q", buf.String())
	}
	var back reply
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("%v: %s", err, buf.Bytes())
	}
	if !reflect.DeepEqual(*back.Result, res) {
		t.Errorf("reply = %+v, want %+v", *back.Result, res)
	}
	// The parent decodes it as it arrives, to the same result.
	streamed, err := decodeReply(bytes.NewReader(buf.Bytes()))
	if err != nil || streamed.Result == nil || !reflect.DeepEqual(*streamed.Result, res) {
		t.Errorf("streamed reply = %+v, %v; want %+v", streamed.Result, err, res)
	}
	for _, cut := range []int{1, buf.Len() / 2, buf.Len() - 3} {
		if rep, err := decodeReply(bytes.NewReader(buf.Bytes()[:cut])); err == nil {
			t.Errorf("a reply cut after %d bytes decoded: %+v", cut, rep)
		}
	}
	for _, r := range []string{`{"output":{"a":1}}`, `{"error":{"kind":"timeout","message":"slow"}}`, `{"result":{"pages":["x"]},"other":[1,{"b":2}]}`} {
		rep, err := decodeReply(strings.NewReader(r))
		var want reply
		json.Unmarshal([]byte(r), &want)
		if err != nil || !reflect.DeepEqual(rep, want) {
			t.Errorf("%s: decoded %+v, %v; want %+v", r, rep, err, want)
		}
	}
	// Replies without words are encoded as they were.
	buf.Reset()
	if err := writeReply(&buf, reply{Error: &replyError{Kind: "malformed", Message: "bad"}}); err != nil || buf.String() != `{"error":{"kind":"malformed","message":"bad"}}`+"\n" {
		t.Errorf("error reply = %q, %v", buf.String(), err)
	}
}
