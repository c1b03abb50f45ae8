package evidence

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// wantAt checks that ev is grounded at the words from..to of pg.
func wantAt(t *testing.T, path string, ev Evidence, pg Page, from, to int) {
	t.Helper()
	quote := pg.Words[from].Text
	for _, w := range pg.Words[from+1 : to+1] {
		quote += " " + w.Text
	}
	want := Evidence{Page: pg.Number, Quote: quote, BBox: bboxOf(pg, from, to), Status: Grounded}
	if !reflect.DeepEqual(ev, want) {
		t.Errorf("%s: %s, want %s", path, describe(ev), describe(want))
	}
}

// A value found twice with nothing to choose between: a weak one ("EUR",
// "1.00") could be either and is ambiguous; a distinctive one (a name, an
// amount with three significant digits, a date) is supported by both and
// is grounded at the first. Either way the candidates are listed in
// reading order, the first is the evidence's place.
func TestFoundTwiceWithoutPreference(t *testing.T) {
	pg := layout(
		"Acme GmbH     Invoice  EUR",
		"Paid to Acme GmbH in EUR",
	)
	m := ground(t, `{"v":"Acme GmbH","w":"EUR"}`, pg)
	if ev := m["w"]; ev.Status != Ambiguous || len(ev.Candidates) != 2 {
		t.Errorf("a weak value twice: %s, want ambiguous with 2 candidates", describe(ev))
	}
	ev := m["v"]
	if ev.Status != Grounded || len(ev.Candidates) != 2 {
		t.Fatalf("a distinctive value twice: %s, want grounded with 2 candidates", describe(ev))
	}
	first := Candidate{Page: 1, Quote: "Acme GmbH", BBox: bboxOf(pg, 0, 1)}
	second := Candidate{Page: 1, Quote: "Acme GmbH", BBox: bboxOf(pg, 6, 7)}
	if !reflect.DeepEqual(ev.Candidates, []Candidate{first, second}) {
		t.Errorf("candidates %+v, want %+v then %+v", ev.Candidates, first, second)
	}
	if ev.Page != first.Page || ev.Quote != first.Quote || !reflect.DeepEqual(ev.BBox, first.BBox) {
		t.Errorf("evidence %s is not its first candidate", describe(ev))
	}
}

func TestDistinctiveValues(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  bool
	}{
		{`1`, false}, {`1.0`, false}, {`0.00`, false}, {`19`, false}, {`"19.00"`, false}, {`"EUR"`, false}, {`"$"`, false},
		{`4.11`, true}, {`279.84`, true}, {`"1.234,50"`, true}, {`1999.0`, true}, {`"Acme"`, true}, {`"2023-03-20"`, true}, {`"DE 232"`, true},
	} {
		var v any
		dec := json.NewDecoder(strings.NewReader(tt.value))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		q, _ := newQuery(v)
		if got := distinctive(v, &q); got != tt.want {
			t.Errorf("distinctive(%s) = %v, want %v", tt.value, got, tt.want)
		}
	}
}

func TestAmbiguousListsAtMostFive(t *testing.T) {
	pg := layout("1 1 1", "1 1 1", "1")
	ev := ground(t, `{"v":1}`, pg)["v"]
	if ev.Status != Ambiguous || len(ev.Candidates) != MaxCandidates {
		t.Errorf("%s, want ambiguous with %d candidates", describe(ev), MaxCandidates)
	}
}

// The same word drawn twice at one spot (a bold text layer) is one place.
func TestDuplicateWordIsOnePlace(t *testing.T) {
	pg := Page{Number: 1, Width: 600, Height: 800, Words: []Word{
		{Text: "Total", X0: 10, Y0: 10, X1: 40, Y1: 20},
		{Text: "99.00", X0: 50, Y0: 10, X1: 80, Y1: 20},
		{Text: "99.00", X0: 50.4, Y0: 10.2, X1: 80.4, Y1: 20.2},
	}}
	ev := ground(t, `{"v":99}`, pg)["v"]
	if ev.Status != Grounded || ev.Quote != "99.00" {
		t.Errorf("%s, want grounded", describe(ev))
	}
	pg.Words[2].Y0, pg.Words[2].Y1 = 40, 50 // the same text on another line
	if ev := ground(t, `{"v":99}`, pg)["v"]; ev.Status != Ambiguous {
		t.Errorf("%s, want ambiguous", describe(ev))
	}
}

func TestLabelOnTheSameLine(t *testing.T) {
	pg := layout(
		"Subtotal          100.00",
		"Tax                 0.00",
		"Total             100.00",
	)
	m := ground(t, `{"total":100,"subtotal":100,"amount_total":"100.00","v":100}`, pg)
	wantAt(t, "total", m["total"], pg, 5, 5) // "Total" is the word, "Subtotal" only contains it
	wantAt(t, "subtotal", m["subtotal"], pg, 1, 1)
	wantAt(t, "amount_total", m["amount_total"], pg, 5, 5)
	if ev := m["v"]; ev.Status != Grounded || len(ev.Candidates) != 2 {
		t.Errorf("v, no label: %s, want grounded at the first of 2 candidates", describe(ev))
	}
}

func TestLabelSynonymsAndKeyWords(t *testing.T) {
	pg := layout(
		"Rechnungsnummer: 4711     Kundennummer: 4711",
		"MwSt 19%: 38.00           Rabatt: 38.00",
		"Total amount (EUR): 279.84     Due: 279.84",
	)
	m := ground(t, `{"invoiceNumber":"4711","vat_amount":38,"discount":38,"total":279.84}`, pg)
	wantAt(t, "invoiceNumber", m["invoiceNumber"], pg, 1, 1)
	wantAt(t, "vat_amount", m["vat_amount"], pg, 6, 6)
	wantAt(t, "discount", m["discount"], pg, 8, 8)
	wantAt(t, "total", m["total"], pg, 12, 12)
}

// A label just above a value labels it; more of the key's words is better.
func TestLabelJustAbove(t *testing.T) {
	pg := layout(
		"Invoice date      Due date",
		"20.03.2023        20.03.2023",
	)
	m := ground(t, `{"invoice_date":"2023-03-20","due_date":"2023-03-20","date":"2023-03-20"}`, pg)
	wantAt(t, "invoice_date", m["invoice_date"], pg, 4, 4)
	wantAt(t, "due_date", m["due_date"], pg, 5, 5)
	if ev := m["date"]; ev.Status != Grounded || len(ev.Candidates) != 2 {
		t.Errorf("date: %s, want grounded at the first of 2 candidates", describe(ev))
	}
}

// Labels work on pages without words, by lines and columns of the text.
func TestLabelOnTextPage(t *testing.T) {
	pg := textPage(1, "Subtotal   100.00", "Total      100.00")
	ev := ground(t, `{"total":100}`, pg)["total"]
	if want := (Evidence{Page: 1, Quote: "100.00", Status: Grounded}); !reflect.DeepEqual(ev, want) {
		t.Errorf("%s, want %s", describe(ev), describe(want))
	}
	if ev := ground(t, `{"v":100}`, pg)["v"]; ev.Status != Grounded || ev.BBox != nil || len(ev.Candidates) != 2 || ev.Candidates[1].BBox != nil {
		t.Errorf("%s, want grounded at the first of 2 candidates, without boxes", describe(ev))
	}
	if ev := ground(t, `{"v":1}`, textPage(1, "Qty 1", "Pages 1"))["v"]; ev.Status != Ambiguous || ev.BBox != nil {
		t.Errorf("%s, want ambiguous without boxes", describe(ev))
	}
}

// Line items: each row is fixed by a value found once (the item), then the
// column header picks among the row's equal values.
func TestSiblingsFixTheRow(t *testing.T) {
	pg := layout(
		"Pos  Item            Qty  Price    Amount",
		"1    Widget A        1    10.00    10.00",
		"2    Widget B        2    10.00    20.00",
		"3    Gadget C        1     5.00     5.00",
		"                          Total    35.00",
	)
	value := `{"lines":[
		{"item":"Widget A","qty":1,"price":10,"amount":10},
		{"item":"Widget B","qty":2,"price":10,"amount":20},
		{"item":"Gadget C","qty":1,"price":5,"amount":5}],
		"total":35}`
	m := ground(t, value, pg)
	row := func(r int, text string, n int) int { // n-th occurrence of text after the start of row r
		start := wordIndex(t, pg, []string{"1", "2", "3"}[r], 0)
		for i := start; i < len(pg.Words); i++ {
			if pg.Words[i].Text == text {
				if n == 0 {
					return i
				}
				n--
			}
		}
		t.Fatalf("no %q in row %d", text, r)
		return 0
	}
	for path, at := range map[string]int{
		"lines.0.qty":    row(0, "1", 1),
		"lines.0.price":  row(0, "10.00", 0),
		"lines.0.amount": row(0, "10.00", 1),
		"lines.1.qty":    row(1, "2", 1),
		"lines.1.price":  row(1, "10.00", 0),
		"lines.2.qty":    row(2, "1", 0),
		"lines.2.price":  row(2, "5.00", 0),
		"lines.2.amount": row(2, "5.00", 1),
		"total":          wordIndex(t, pg, "35.00", 0),
	} {
		wantAt(t, path, m[path], pg, at, at)
	}
	w := wordIndex(t, pg, "Widget", 1)
	wantAt(t, "lines.1.item", m["lines.1.item"], pg, w, w+1)

	// Alone (not a line item's), the quantity is labelled by the header just
	// above the first row.
	at := row(0, "1", 1)
	wantAt(t, "qty", ground(t, `{"qty":1}`, pg)["qty"], pg, at, at)
}

// A line item's amount equal to the total: the row wins for the line item,
// the label for the total.
func TestRowBeforeLabelForLineItems(t *testing.T) {
	pg := layout(
		"Item          Amount",
		"Widget A      279.84",
		"Total         279.84",
	)
	m := ground(t, `{"lines":[{"item":"Widget A","amount":279.84}],"total":279.84}`, pg)
	wantAt(t, "lines.0.amount", m["lines.0.amount"], pg, 4, 4)
	wantAt(t, "total", m["total"], pg, 6, 6)
}

// Fields of an object side by side with another: the siblings' column
// breaks the tie.
func TestSiblingsOfAnAddressBlock(t *testing.T) {
	pg := layout(
		"Acme GmbH              Globex Ltd",
		"Hauptstr. 1            Nebenweg 2",
		"Berlin                 Berlin",
	)
	m := ground(t, `{"seller":{"name":"Acme GmbH","street":"Hauptstr. 1","city":"Berlin"},
		"buyer":{"name":"Globex Ltd","street":"Nebenweg 2","city":"Berlin"}}`, pg)
	wantAt(t, "seller.city", m["seller.city"], pg, 8, 8)
	wantAt(t, "buyer.city", m["buyer.city"], pg, 9, 9)
}

// Without a grounded sibling, a line item's repeated value stays ambiguous.
func TestRowWithoutAnchorIsAmbiguous(t *testing.T) {
	pg := layout(
		"Qty  Item",
		"1    Bolt",
		"1    Nut",
	)
	m := ground(t, `{"lines":[{"item":"Screw","qty":1}]}`, pg)
	if m["lines.0.qty"].Status != Ambiguous || m["lines.0.item"].Status != Ungrounded {
		t.Errorf("%v", m)
	}
}

func TestLabelWords(t *testing.T) {
	for key, want := range map[string][]string{
		"amount_tax":     {"amount", "tax"},
		"invoiceNumber":  {"invoice", "number"},
		"VATRate":        {"vat", "rate"},
		"date_of_issue":  {"date", "issue"},
		"IBAN":           {"iban"},
		"line2Total":     {"line", "total"},
		"":               nil,
		"__":             nil,
		"Rechnungs-Nr.":  {"rechnungs", "nr"},
		"e-mail":         {"e", "mail"},
		"total_total":    {"total"},
		"prixUnitaireHT": {"prix", "unitaire", "ht"},
	} {
		var got []string
		for _, ws := range labelWords(key) {
			got = append(got, ws[0])
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("labelWords(%q) = %q, want %q", key, got, want)
		}
	}
	if ws := labelWords("number"); !reflect.DeepEqual(ws[0][:4], []string{"number", "no", "nr", "num"}) {
		t.Errorf("synonyms of number: %q", ws)
	}
}
