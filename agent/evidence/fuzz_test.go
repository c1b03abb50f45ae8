package evidence

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzGround grounds any value against a page made of any text, with and
// without word boxes: no panic, the same answer twice, and every place it
// names is a run of the page's words, its box their box.
func FuzzGround(f *testing.F) {
	f.Add(`{"total":279.84,"date":"2023-03-20","seller":{"name":"Acme GmbH"}}`,
		"Acme GmbH\nDatum: 20.03.2023\nTotal 279,84 EUR\nSubtotal 279.84")
	f.Add(`{"lines":[{"item":"Widget","qty":1},{"item":"Gadget","qty":1}]}`,
		"Qty Item\n1 Widget\n1 Gadget\n1")
	f.Add(`{"iban":"DE88 2008 0000","n":"INV/2023/03/0008","p":"(870)-931-0505"}`,
		"IBAN DE8820080000 INV/2023/ 03/0008 Tel (870) 931-0505")
	f.Add(`["1 234,50", 1234.5, "-", "—", "ﬁ", "March 20, 2023"]`, "1 234,50 — - ﬁ\nMarch 20, 2023\n20. März 2023")
	f.Add(`{"a":{"b":[[{"c":"x y z"}]]}}`, "x\ty  z\r\n\u00a0x y z")
	f.Add(`"2023"`, "INV/2023/03/0008 20 23")
	f.Add(`{"v":1e400,"w":-0,"x":"\u0000"}`, "0 -0 (0)")
	f.Fuzz(func(t *testing.T, value, text string) {
		leaves, lerr := Leaves(json.RawMessage(value))
		for _, pg := range []Page{layout(strings.Split(text, "\n")...), textPage(1, text)} {
			m, err := Ground(json.RawMessage(value), []Page{pg})
			if (err == nil) != (lerr == nil) {
				t.Fatalf("Ground error %v, Leaves error %v", err, lerr)
			}
			if err != nil {
				return
			}
			again, _ := Ground(json.RawMessage(value), []Page{pg})
			if !reflect.DeepEqual(m, again) {
				t.Fatalf("not deterministic:\n%v\n%v", m, again)
			}
			if _, err := json.Marshal(m); err != nil {
				t.Fatalf("marshal: %v", err)
			}
			checkMap(t, m, leaves, pg)
		}
	})
}

// placed is a word as the index sees it: trimmed text, and its box.
type placed struct {
	text string
	box  box
}

func checkMap(t *testing.T, m Map, leaves []Leaf, pg Page) {
	t.Helper()
	var words []placed
	if len(pg.Words) > 0 {
		for _, w := range pg.Words {
			if s := strings.TrimSpace(w.Text); s != "" {
				words = append(words, placed{s, box{w.X0, w.Y0, w.X1, w.Y1}})
			}
		}
	}
	if len(words) == 0 {
		for _, s := range strings.Fields(pg.Text) {
			words = append(words, placed{text: s})
		}
	}
	boxes := len(pg.Words) > 0 && len(words) > 0
	// A label glued to its value ("n°123") is two words to the index.
	var split []placed
	for _, w := range words {
		if cut := labelCut(w.text); cut > 0 {
			for _, part := range splitLabelled([]word{{text: w.text, box: w.box}}) {
				split = append(split, placed{part.text, part.box})
			}
			continue
		}
		split = append(split, w)
	}
	words = split
	for path, ev := range m {
		if !slices.ContainsFunc(leaves, func(l Leaf) bool { return l.Path == path }) {
			t.Fatalf("evidence for %q, which is no leaf", path)
		}
		switch ev.Status {
		case Ungrounded:
			if ev.Page != 0 || ev.Quote != "" || ev.BBox != nil || ev.Candidates != nil {
				t.Fatalf("%s: ungrounded with a place: %s", path, describe(ev))
			}
			continue
		case Grounded:
			// Candidates only for a value found in several places.
			if ev.Candidates != nil && (len(ev.Candidates) < 2 || len(ev.Candidates) > MaxCandidates) {
				t.Fatalf("%s: grounded with %d candidates: %s", path, len(ev.Candidates), describe(ev))
			}
		case Ambiguous:
			if len(ev.Candidates) < 2 || len(ev.Candidates) > MaxCandidates {
				t.Fatalf("%s: ambiguous with %d candidates", path, len(ev.Candidates))
			}
			if c := ev.Candidates[0]; c.Page != ev.Page || c.Quote != ev.Quote || !reflect.DeepEqual(c.BBox, ev.BBox) {
				t.Fatalf("%s: the first candidate is not the evidence: %s", path, describe(ev))
			}
		default:
			t.Fatalf("%s: status %q", path, ev.Status)
		}
		places := []Candidate{{Page: ev.Page, Quote: ev.Quote, BBox: ev.BBox}}
		places = append(places, ev.Candidates...)
		for _, c := range places {
			if c.Page != 1 || c.Quote == "" {
				t.Fatalf("%s: place %+v", path, c)
			}
			if !boxes {
				if c.BBox != nil {
					t.Fatalf("%s: a box on a page without words: %+v", path, c)
				}
			} else if len(c.BBox) != 4 || c.BBox[0] > c.BBox[2] || c.BBox[1] > c.BBox[3] || slices.Min(c.BBox) < 0 || slices.Max(c.BBox) > 1 {
				t.Fatalf("%s: box %v", path, c.BBox)
			}
			if !isRun(words, c, pg) {
				t.Fatalf("%s: %+v is no run of the page's words", path, c)
			}
		}
	}
}

// isRun reports whether c's quote is the text of a run of words whose box
// is c's box.
func isRun(words []placed, c Candidate, pg Page) bool {
	for i := range words {
		q, b := words[i].text, words[i].box
		for j := i; ; {
			if q == c.Quote && (c.BBox == nil || reflect.DeepEqual(fractions(b, pg.Width, pg.Height), c.BBox)) {
				return true
			}
			if j++; j == len(words) || len(q) >= len(c.Quote) {
				break
			}
			q += " " + words[j].text
			b = b.union(words[j].box)
		}
	}
	return false
}

// FuzzSame: no panic, and Same is reflexive and symmetric.
func FuzzSame(f *testing.F) {
	f.Add("279.84", "279,84")
	f.Add("2023-03-20", "20. März 2023")
	f.Add("1,234", "(1.234)")
	f.Add("Acme\nGmbH.", "acme gmbh")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !Same(a, a) {
			t.Fatalf("Same(%q, itself) is false", a)
		}
		if Same(a, b) != Same(b, a) {
			t.Fatalf("Same(%q, %q) is not symmetric", a, b)
		}
		n := json.Number(a)
		if _, err := n.Float64(); err == nil && !Same(n, n) {
			t.Fatalf("Same(json.Number %q, itself) is false", a)
		}
	})
}

// FuzzLeaves checks Leaves against encoding/json's own tokenizer: the same
// leaves, in the same order, and an error for the same inputs.
func FuzzLeaves(f *testing.F) {
	f.Add(`{"b":1,"a":{"y":[1.5e3,{"k":null}],"x":"s\u00e9\n"},"e":[],"o":{},"t":true}`)
	f.Add(`[1,[2,[3,"\ud83d\ude00"]],"\xff"]`)
	f.Add(` "x" `)
	f.Fuzz(func(t *testing.T, value string) {
		got, err := Leaves(json.RawMessage(value))
		want, werr := referenceLeaves(value)
		if (err == nil) != (werr == nil) {
			t.Fatalf("Leaves(%q) error %v, encoding/json %v", value, err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("Leaves(%q):\n got %#v\nwant %#v", value, got, want)
		}
	})
}

// referenceLeaves lists leaves with json.Decoder.Token.
func referenceLeaves(value string) ([]Leaf, error) {
	if !json.Valid([]byte(value)) {
		return nil, errors.New("invalid")
	}
	dec := json.NewDecoder(strings.NewReader(value))
	dec.UseNumber()
	var out []Leaf
	var path []string
	var rec func() error
	rec = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				k, _ := dec.Token()
				path = append(path, k.(string))
				if err := rec(); err != nil {
					return err
				}
				path = path[:len(path)-1]
			}
			_, err = dec.Token()
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				path = append(path, strconv.Itoa(i))
				if err := rec(); err != nil {
					return err
				}
				path = path[:len(path)-1]
			}
			_, err = dec.Token()
		default:
			out = append(out, Leaf{Path: strings.Join(path, "."), Value: tok})
		}
		return err
	}
	return out, rec()
}
