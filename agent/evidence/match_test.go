package evidence

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// matchCase is one value (a JSON scalar) looked for on a page of lines.
type matchCase struct {
	name  string
	value string
	lines []string
	quote string // "" when the value must be ungrounded
}

func runMatchCases(t *testing.T, cases []matchCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := ground(t, `{"v": `+c.value+`}`, layout(c.lines...))
			ev, ok := m["v"]
			if !ok {
				t.Fatalf("no evidence for %s", c.value)
			}
			if c.quote == "" {
				if ev.Status != Ungrounded {
					t.Errorf("%s on %q: %s, want ungrounded", c.value, c.lines, describe(ev))
				}
				return
			}
			if ev.Status != Grounded || ev.Quote != c.quote {
				t.Errorf("%s on %q: %s, want grounded at %q", c.value, c.lines, describe(ev), c.quote)
			}
		})
	}
}

func TestGroundStrings(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"one word", `"Acme"`, []string{"Seller: Acme, Berlin"}, "Acme,"},
		{"case", `"ACME GMBH"`, []string{"from acme GmbH"}, "acme GmbH"},
		{"across a line break", `"Acme Trading GmbH"`, []string{"Bill from Acme Trading", "GmbH, Berlin"}, "Acme Trading GmbH,"},
		{"line break in the value", `"Acme\nTrading  GmbH"`, []string{"Acme Trading GmbH"}, "Acme Trading GmbH"},
		{"quotes and brackets", `"Widget Pro"`, []string{`("Widget Pro")`}, `("Widget Pro")`},
		{"value glued, words split", `"DE8820080000"`, []string{"IBAN DE88 2008 0000 BIC X"}, "DE88 2008 0000"},
		{"value split, word glued", `"DE88 2008 0000"`, []string{"IBAN DE8820080000 BIC X"}, "DE8820080000"},
		{"slashes, one word", `"INV/2023/03/0008"`, []string{"Invoice INV/2023/03/0008 of today"}, "INV/2023/03/0008"},
		{"slashes, words split", `"INV/2023/03/0008"`, []string{"Invoice INV/2023/ 03/0008 of today"}, "INV/2023/ 03/0008"},
		{"phone punctuation", `"(870)-931-0505"`, []string{"Tel. (870) 931-0505"}, "(870) 931-0505"},
		{"phone spaced", `"870 931 0505"`, []string{"Tel. (870)-931-0505"}, "(870)-931-0505"},
		{"dash between words", `"Acme - Berlin"`, []string{"Acme - Berlin"}, "Acme - Berlin"},
		{"ligature", `"Office"`, []string{"Main Oﬃce"}, "Oﬃce"},
		{"umlaut", `"MÜLLER"`, []string{"Herr Müller"}, "Müller"},
		{"punctuation value", `"—"`, []string{"a — b"}, "—"},
		{"short digits with punctuation", `"3/4"`, []string{"Size 3/4 inch"}, "3/4"},
		{"short digits, punctuation around", `"(870)"`, []string{"Area 870"}, "870"},
		{"time", `"10:30"`, []string{"Delivery 10:30 am"}, "10:30"},

		{"part of a longer word", `"2023"`, []string{"Invoice INV/2023/03/0008"}, ""},
		{"prefix of a word", `"Acme"`, []string{"AcmeCorp Ltd"}, ""},
		{"another document", `"Globex Corporation"`, []string{"Acme GmbH, Berlin", "Invoice 17"}, ""},
		{"short value not glued over words", `"ab12"`, []string{"ab 1 2"}, ""},
		{"one word missing", `"Acme Trading GmbH"`, []string{"Acme GmbH"}, ""},
		{"short digits lose no punctuation", `"1.2.3"`, []string{"Version 123"}, ""},
		{"time is not a number", `"10:30"`, []string{"Code 1030"}, ""},
		{"fraction", `"3/4"`, []string{"Item 34"}, ""},
	})
}

func TestGroundNumbers(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"decimal point", `279.84`, []string{"Total 279.84"}, "279.84"},
		{"decimal comma", `279.84`, []string{"Summe 279,84"}, "279,84"},
		{"trailing zero", `279.840`, []string{"Total 279.84"}, "279.84"},
		{"string value, comma", `"279,84"`, []string{"Total 279.84"}, "279.84"},
		{"string value with currency", `"$279.84"`, []string{"Total EUR 279,84"}, "279,84"},
		{"string value with currency, integer", `"$12"`, []string{"Fee 12.00"}, "12.00"},
		{"euro sign glued", `279.84`, []string{"Total 279,84€"}, "279,84€"},
		{"dollar glued", `279.84`, []string{"Total $279.84"}, "$279.84"},
		{"currency code glued", `279.84`, []string{"Total EUR279.84"}, "EUR279.84"},
		{"currency word apart", `12`, []string{"Fee $ 12.00"}, "12.00"},
		{"negative parentheses", `-279.84`, []string{"Credit (279.84)"}, "(279.84)"},
		{"negative trailing minus", `-279.84`, []string{"Credit 279.84-"}, "279.84-"},
		{"negative written positive", `-279.84`, []string{"Credit 279.84"}, "279.84"},
		{"german thousands", `1234.5`, []string{"Betrag 1.234,50"}, "1.234,50"},
		{"english thousands", `1234.5`, []string{"Amount 1,234.50"}, "1,234.50"},
		{"no thousands", `1234.5`, []string{"Amount 1234.5"}, "1234.5"},
		{"space thousands, two words", `1234.5`, []string{"Montant 1 234,50 EUR"}, "1 234,50"},
		{"space thousands, three words", `1234567`, []string{"Montant 1 234 567,00"}, "1 234 567,00"},
		{"apostrophe thousands", `1234.5`, []string{"Betrag CHF 1'234.50"}, "1'234.50"},
		{"no-break space thousands", `1234.5`, []string{"Betrag 1\u00a0234,50"}, "1\u00a0234,50"},
		{"integer as decimals", `42`, []string{"Qty 42.00 pcs"}, "42.00"},
		{"integer as decimal comma", `42`, []string{"Menge 42,00"}, "42,00"},
		{"ambiguous comma, thousands", `1234`, []string{"Total 1,234"}, "1,234"},
		{"ambiguous comma, decimal", `1.234`, []string{"Weight 1,234 kg"}, "1,234"},
		{"ambiguous point, thousands", `1234`, []string{"Summe 1.234"}, "1.234"},
		{"percent", `15`, []string{"Rabatt 15%"}, "15%"},
		{"percent spaced", `15`, []string{"Discount 15 %"}, "15"},
		{"percent with decimals", `15`, []string{"VAT 15.00%"}, "15.00%"},
		{"string percent", `"19 %"`, []string{"MwSt 19%"}, "19%"},

		{"changed digit", `279.84`, []string{"Total 279.85"}, ""},
		{"changed digit, string", `"279.84"`, []string{"Total 279,85"}, ""},
		{"decimal shifted", `27.984`, []string{"Total 279.84"}, ""},
		{"leading zeros are a code", `8`, []string{"No. 0008"}, ""},
		{"inside a longer number", `12`, []string{"Code 12345"}, ""},
		{"inside a word", `2023`, []string{"Invoice INV/2023/03/0008"}, ""},
		{"amount string not matched as text", `"12.50"`, []string{"Order 1250"}, ""},
		{"not in a date", `3`, []string{"Date 20.03.2023"}, ""},
	})
}

func TestGroundDates(t *testing.T) {
	forms := []string{
		"20.03.2023", "20/03/2023", "03/20/2023", "2023-03-20", "20-03-2023", "20.03.23",
		"20 Mar 2023", "20 March 2023", "March 20, 2023", "Mar 20 2023", "Mar. 20, 2023",
		"20. März 2023", "20 mars 2023", "20 maart 2023", "20-Mar-23", "20th March 2023",
		"March 20th, 2023", "20230320", "2023/03/20", "20. 03. 2023",
	}
	var cases []matchCase
	for _, f := range forms {
		cases = append(cases, matchCase{f, `"2023-03-20"`, []string{"Invoice date: " + f + " due soon"}, f})
	}
	cases = append(cases,
		matchCase{"value in a written form", `"March 20, 2023"`, []string{"Datum: 20.03.2023"}, "20.03.2023"},
		matchCase{"value day-first", `"20.03.2023"`, []string{"Date 2023-03-20"}, "2023-03-20"},
		matchCase{"value with time", `"2023-03-20T09:30:00Z"`, []string{"Date 20/03/2023"}, "20/03/2023"},
		matchCase{"first day, french ordinal", `"2023-03-01"`, []string{"Le 1er mars 2023"}, "1er mars 2023"},
		matchCase{"month-first reading", `"2023-04-03"`, []string{"Date 03/04/2023"}, "03/04/2023"},
		matchCase{"day-first reading", `"2023-03-04"`, []string{"Date 03/04/2023"}, "03/04/2023"},
		matchCase{"german month with dot", `"2023-10-05"`, []string{"5. Okt. 2023"}, "5. Okt. 2023"},
		matchCase{"french accents", `"2023-12-24"`, []string{"24 décembre 2023"}, "24 décembre 2023"},

		matchCase{"other day", `"2023-03-21"`, []string{"Date 20.03.2023"}, ""},
		matchCase{"other year", `"2022-03-20"`, []string{"Date 20 March 2023"}, ""},
		matchCase{"date followed by more digits", `"2023-03-20"`, []string{"Ref 20.03.2023.5"}, ""},
		matchCase{"mixed separators", `"2023-03-20"`, []string{"Ref 20.03/2023"}, ""},
	)
	runMatchCases(t, cases)
}

// A page without words is searched in its text: the evidence has the page
// and the quote, and no box.
func TestGroundTextPage(t *testing.T) {
	pages := []Page{
		textPage(1, "Acme GmbH", "Rechnung Nr. 17"),
		textPage(2, "Datum: 20.03.2023", "Gesamtbetrag:   1.234,50 EUR", "Acme\nTrading"),
	}
	m := ground(t, `{"seller":"Acme Trading","date":"2023-03-20","total":1234.5,"missing":"Globex"}`, pages...)
	want := map[string]Evidence{
		"seller":  {Page: 2, Quote: "Acme Trading", Status: Grounded},
		"date":    {Page: 2, Quote: "20.03.2023", Status: Grounded},
		"total":   {Page: 2, Quote: "1.234,50", Status: Grounded},
		"missing": {Status: Ungrounded},
	}
	for p, w := range want {
		if got := m[p]; describe(got) != describe(w) {
			t.Errorf("%s: %s, want %s", p, describe(got), describe(w))
		}
	}
}

// Pages with words that are all blank fall back to their text; blank words
// among others are skipped.
func TestBlankWords(t *testing.T) {
	pg := Page{Number: 1, Text: "Acme GmbH", Words: []Word{{Text: " "}}}
	if ev := ground(t, `{"v":"acme gmbh"}`, pg)["v"]; ev.Status != Grounded || ev.Quote != "Acme GmbH" || ev.BBox != nil {
		t.Errorf("blank words: %s", describe(ev))
	}
	pg = layout("Acme GmbH")
	pg.Words = append(pg.Words[:1], append([]Word{{Text: ""}}, pg.Words[1:]...)...)
	if ev := ground(t, `{"v":"acme gmbh"}`, pg)["v"]; ev.Status != Grounded || ev.Quote != "Acme GmbH" {
		t.Errorf("a blank word between: %s", describe(ev))
	}
}

// The box is the union of the quote's word boxes in fractions of the page.
func TestBBoxFractions(t *testing.T) {
	pg := Page{Number: 3, Width: 600, Height: 800, Words: []Word{
		{Text: "Total", X0: 60, Y0: 100, X1: 90, Y1: 110},
		{Text: "Acme", X0: 60, Y0: 200, X1: 120, Y1: 212},
		{Text: "Trading", X0: 125, Y0: 201, X1: 200, Y1: 211},
		{Text: "GmbH", X0: 30, Y0: 220, X1: 70, Y1: 232},
		{Text: "Off", X0: -10, Y0: 790, X1: 700, Y1: 810},
	}}
	m := ground(t, `{"a":"Total","b":"Acme Trading GmbH","c":"off"}`, pg)
	for path, want := range map[string][]float64{
		"a": {0.1, 0.125, 0.15, 0.1375},
		"b": {0.05, 0.25, 0.3333, 0.29},
		"c": {0, 0.9875, 1, 1},
	} {
		ev := m[path]
		if ev.Page != 3 || len(ev.BBox) != 4 {
			t.Fatalf("%s: %s", path, describe(ev))
		}
		for i := range want {
			if ev.BBox[i] != want[i] {
				t.Errorf("%s: bbox %v, want %v", path, ev.BBox, want)
				break
			}
		}
	}
	// A page without a size has no boxes to give.
	pg.Width = 0
	if ev := ground(t, `{"a":"Total"}`, pg)["a"]; ev.Status != Grounded || ev.BBox != nil {
		t.Errorf("page without size: %s", describe(ev))
	}
}

// Words are searched in reading order over all pages; a later page is found.
func TestGroundAcrossPages(t *testing.T) {
	p1 := layout("Acme GmbH")
	p2 := layout("Total 99.00")
	p2.Number = 0 // taken as its position: 2
	ev := ground(t, `{"total":99}`, p1, p2)["total"]
	if ev.Status != Grounded || ev.Page != 2 || ev.Quote != "99.00" {
		t.Errorf("%s", describe(ev))
	}
}

// Only strings and numbers are looked for. (A trivial number, "0", found
// with no label is no evidence: TestTrivialValuesNeedSupport.)
func TestGroundSkipsOtherLeaves(t *testing.T) {
	m := ground(t, `{"a":null,"b":true,"c":"","d":"  \n","e":{},"f":[],"g":[null,false],"h":42}`, layout("42"))
	if len(m) != 1 || m["h"].Status != Grounded {
		t.Errorf("entries %v, want only h", m)
	}
	if m := ground(t, `"Acme"`, layout("Acme")); m[""].Status != Grounded {
		t.Errorf("a scalar at the root: %v", m)
	}
	if m := ground(t, `{"x": 1e400, "y": "ok"}`, layout("ok")); m["x"].Status != Ungrounded || m["y"].Status != Grounded {
		t.Errorf("number out of range: %v", m)
	}
	if m := ground(t, `{"x": "a"}`); m["x"].Status != Ungrounded {
		t.Errorf("no pages: %v", m)
	}
}

func TestGroundInvalidJSON(t *testing.T) {
	for _, v := range []string{``, `{`, `{"a":}`, `[1 2]`, `{"a":1}{}`, `{"a":1} x`, `nul`, strings.Repeat("[", 20000) + strings.Repeat("]", 20000)} {
		if _, err := Ground([]byte(v), []Page{layout("a")}); err == nil {
			t.Errorf("Ground(%.40q): no error", v)
		}
	}
}

// Boxes that are not finite, reversed or empty, and pages without a size,
// give no box or a clamped one, never a panic or a NaN.
func TestOddBoxes(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	pg := Page{Number: 1, Width: inf, Height: 800, Words: []Word{
		{Text: "Total", X0: nan, Y0: 0, X1: 10, Y1: 10},
		{Text: "12.00", X0: 20, Y0: 10, X1: 10, Y1: 0},
		{Text: "12.00", X0: 0, Y0: 0, X1: 0, Y1: 0},
		{Text: "Total", X0: -inf, Y0: inf, X1: inf, Y1: nan},
	}}
	for _, w := range []float64{inf, 600, 0, -1, nan} {
		pg.Width = w
		m := ground(t, `{"total":12,"v":"total"}`, pg)
		if _, err := json.Marshal(m); err != nil {
			t.Errorf("width %v: %v", w, err)
		}
		for p, ev := range m {
			for _, v := range ev.BBox {
				if !(v >= 0 && v <= 1) {
					t.Errorf("width %v: %s: bbox %v", w, p, ev.BBox)
				}
			}
		}
	}
}

// A label glued to its value is cut off it; a time or a URL is not cut.
func TestLabelGluedToValue(t *testing.T) {
	pg := layout("Facture n°562044387 du 02 Juillet 2015", "Nr.:4711 at 10:30 on http://x.org #77")
	m := ground(t, `{"invoice":"562044387","nr":4711,"time":"30","ref":"77","site":"x.org"}`, pg)
	for path, quote := range map[string]string{"invoice": "562044387", "nr": "4711", "ref": "77"} {
		if ev := m[path]; ev.Status != Grounded || ev.Quote != quote {
			t.Errorf("%s: %s, want grounded as %q", path, describe(ev), quote)
		}
	}
	for _, path := range []string{"time", "site"} {
		if ev := m[path]; ev.Status != Ungrounded {
			t.Errorf("%s: %s, want ungrounded (not cut out of a longer word)", path, describe(ev))
		}
	}
	for in, want := range map[string]int{"n°5": len("n°"), "10:30": 0, "http://x": 0, "#7": 1, "a:": 0, "\x81#0": 2, "Date:2023": 5} {
		if got := labelCut(in); got != want {
			t.Errorf("labelCut(%q) = %d, want %d", in, got, want)
		}
	}
}

// A value of one significant digit or one letter, printed once somewhere
// with nothing naming it, is a coincidence: ungrounded. Named by a label,
// or on the line of a grounded sibling, it is grounded.
func TestTrivialValuesNeedSupport(t *testing.T) {
	pg := layout(
		"Page 1 of 2",
		"Widget Deluxe       3      12.50",
		"Discount            0.00",
	)
	m := ground(t, `{"copies":1,"discount":0,"lines":[{"name":"Widget Deluxe","qty":3}]}`, pg)
	if ev := m["copies"]; ev.Status != Ungrounded {
		t.Errorf("a 1 with no label: %s, want ungrounded", describe(ev))
	}
	wantAt(t, "discount", m["discount"], pg, 9, 9)
	wantAt(t, "lines.0.qty", m["lines.0.qty"], pg, 6, 6)
	for in, want := range map[string]bool{`0`: true, `1.0`: true, `"0,50"`: true, `-5`: true, `"A"`: true, `"—"`: false, `12`: false, `"AB"`: false, `"2023-03-20"`: false} {
		var v any
		dec := json.NewDecoder(strings.NewReader(in))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		q, _ := newQuery(v)
		if got := trivial(v, &q); got != want {
			t.Errorf("trivial(%s) = %v, want %v", in, got, want)
		}
	}
}
