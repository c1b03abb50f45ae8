package evidence

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// invoice is a dense one-page invoice of about 400 words (a 24-row item
// table between an address header and a totals, bank and terms footer), and
// an extraction of it with 31 leaves.
func invoice() (Page, json.RawMessage) {
	lines := []string{
		"Acme Industrial Supplies GmbH                                  RECHNUNG / INVOICE",
		"Hauptstraße 12, 10115 Berlin, Germany                          Rechnungsnummer: INV/2023/03/0008",
		"Tel. +49 30 1234567  Fax +49 30 1234568                        Rechnungsdatum: 20.03.2023",
		"info@acme-industrial.example  www.acme-industrial.example      Lieferdatum: 17.03.2023",
		"USt-IdNr.: DE123456789  Steuernummer: 27/123/45678            Fällig am: 19. April 2023",
		"",
		"Rechnungsempfänger:                          Lieferanschrift:",
		"Globex Manufacturing Ltd                     Globex Manufacturing Ltd",
		"Attn: Accounts Payable                       Warehouse 4, Gate B",
		"221 Industrial Park Road                     221 Industrial Park Road",
		"Manchester M17 1AA, United Kingdom           Manchester M17 1AA, United Kingdom",
		"Kundennummer: 40017   Bestellung: PO-88812   Ihr Zeichen: J. Smith",
		"",
		"Pos  Art.-Nr.    Beschreibung                      Menge  Einheit  Einzelpreis  MwSt  Betrag",
	}
	type item struct {
		code, desc string
		qty        int
		price      float64
	}
	descs := []string{"Hex bolt M8x40 zinc", "Washer M8 DIN125", "Lock nut M8 nylon", "Threaded rod M8 1m",
		"Cable tie 200mm black", "Hose clamp 20-32mm", "Wood screw 4x40 TX", "Anchor plug 8mm",
		"Drill bit HSS 6mm", "Safety gloves size 9", "Cutting disc 125mm", "Masking tape 38mm",
		"Spray paint grey RAL7035", "Silicone sealant clear", "Cable lug 16mm2 M8", "Fuse 10A slow-blow",
		"Terminal block 2.5mm2", "Heat shrink tube 6mm", "Zip bag 100x150", "Label roll 50x25",
		"Pallet wrap 500mm", "Carton box 400x300", "Packing tape brown", "Bubble wrap 50cm"}
	var items []item
	subtotal := 0.0
	for i, d := range descs {
		it := item{code: fmt.Sprintf("AC-%05d", 10000+i*37), desc: d, qty: 1 + (i*7)%12, price: float64(50+(i*131)%900) / 100}
		items = append(items, it)
		amount := float64(it.qty) * it.price
		subtotal += amount
		lines = append(lines, fmt.Sprintf("%-4d %-11s %-33s %5d  Stk      %11s  19%%  %s",
			i+1, it.code, it.desc, it.qty, de(it.price), de(amount)))
	}
	tax := subtotal * 0.19
	total := subtotal + tax
	lines = append(lines,
		"",
		fmt.Sprintf("                                                     Zwischensumme netto      %s EUR", de(subtotal)),
		fmt.Sprintf("                                                     zzgl. MwSt 19%%           %s EUR", de(tax)),
		fmt.Sprintf("                                                     Gesamtbetrag             %s EUR", de(total)),
		"",
		"Zahlbar innerhalb von 30 Tagen ohne Abzug. Bitte geben Sie bei Zahlung die Rechnungsnummer an.",
		"Bankverbindung: Berliner Sparkasse  IBAN: DE88 2008 0000 0970 3757 00  BIC: DRESDEFF100",
		"Geschäftsführer: Dr. Anna Schmidt, Max Weber  Amtsgericht Charlottenburg HRB 123456 B",
		"Es gelten unsere Allgemeinen Geschäftsbedingungen. Eigentumsvorbehalt bis zur vollständigen Bezahlung.",
		"Seite 1 von 1",
	)
	value := map[string]any{
		"invoice_number":  "INV/2023/03/0008",
		"invoice_date":    "2023-03-20",
		"due_date":        "2023-04-19",
		"seller":          map[string]any{"name": "Acme Industrial Supplies GmbH", "vat_id": "DE123456789", "city": "Berlin"},
		"buyer":           map[string]any{"name": "Globex Manufacturing Ltd", "contact": "Accounts Payable", "street": "221 Industrial Park Road", "city": "Manchester"},
		"iban":            "DE88200800000970375700",
		"bic":             "DRESDEFF100",
		"customer_number": "40017",
		"subtotal":        round2(subtotal),
		"tax":             round2(tax),
		"total":           round2(total),
		"currency":        "EUR",
	}
	var ls []any
	for _, it := range items[:4] {
		ls = append(ls, map[string]any{"code": it.code, "description": it.desc, "quantity": it.qty, "unit_price": it.price})
	}
	value["lines"] = ls
	b, _ := json.Marshal(value)
	return layout(lines...), b
}

// de prints an amount the German way: 1.234,50.
func de(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(r)
	}
	return b.String() + "," + frac
}

func round2(v float64) float64 {
	s := fmt.Sprintf("%.2f", v)
	var f float64
	fmt.Sscan(s, &f)
	return f
}

// The realistic page grounds well: a check of the benchmark's input and of
// the matcher on a dense page.
func TestGroundInvoice(t *testing.T) {
	pg, value := invoice()
	m := ground(t, string(value), pg)
	for _, p := range m.Paths(Ambiguous) {
		t.Logf("ambiguous %s: %s", p, describe(m[p]))
	}
	for _, p := range m.Paths(Ungrounded) {
		t.Errorf("ungrounded %s", p)
	}
	if len(pg.Words) < 350 || len(m) < 30 {
		t.Errorf("%d words, %d leaves: not the page the benchmark means", len(pg.Words), len(m))
	}
	for path, quote := range map[string]string{
		"invoice_date":        "20.03.2023",
		"due_date":            "19. April 2023",
		"iban":                "DE88 2008 0000 0970 3757 00",
		"lines.2.quantity":    "3",
		"lines.3.description": "Threaded rod M8 1m",
		"seller.city":         "Berlin,",
		"buyer.city":          "Manchester",
	} {
		if ev := m[path]; ev.Quote != quote || ev.Status != Grounded {
			t.Errorf("%s: %s, want grounded at %q", path, describe(ev), quote)
		}
	}
	c := m.Counts()
	t.Logf("%d words, %d leaves: %+v", len(pg.Words), len(m), c)
}

// BenchmarkGroundPage grounds a whole extraction against its page,
// indexing included.
func BenchmarkGroundPage(b *testing.B) {
	pg, value := invoice()
	pages := []Page{pg}
	m, _ := Ground(value, pages)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := Ground(value, pages); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(m)), "ns/leaf")
}

// BenchmarkIndexPage indexes the page alone.
func BenchmarkIndexPage(b *testing.B) {
	pg, _ := invoice()
	pages := []Page{pg}
	b.ReportAllocs()
	for range b.N {
		NewIndex(pages)
	}
}

// BenchmarkGroundField grounds one field at a time against an indexed page,
// as when a person's edit is checked again.
func BenchmarkGroundField(b *testing.B) {
	pg, _ := invoice()
	x := NewIndex([]Page{pg})
	for _, f := range []struct{ name, value string }{
		{"text", `{"seller":{"name":"Acme Industrial Supplies GmbH"}}`},
		{"glued", `{"iban":"DE88200800000970375700"}`},
		{"amount", `{"total":1234.5}`},
		{"date", `{"invoice_date":"2023-03-20"}`},
		{"repeated", `{"lines":[{"code":"AC-10037","quantity":8}]}`},
		{"missing", `{"name":"Initech Corporation"}`},
	} {
		b.Run(f.name, func(b *testing.B) {
			v := json.RawMessage(f.value)
			b.ReportAllocs()
			for range b.N {
				if _, err := x.Ground(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
