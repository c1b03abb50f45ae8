package ocr

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/docent/docent/storage"
)

func TestRepairIBANWord(t *testing.T) {
	for _, tc := range []struct {
		name, word, want string
	}{
		// Misreads seen in the corpus: the Physiotherapeut invoice read
		// with Tesseract deu+eng, coolblue2 with Tesseract eng.
		{"O for 0 in the check digits", "DEO2120300000000202051", "DE02120300000000202051"},
		{"S for 5 in the check digits", "NLSOINGB0683251309", "NL50INGB0683251309"},
		{"punctuation around kept", "(DEO2120300000000202051),", "(DE02120300000000202051),"},
		{"lower case read", "deo2120300000000202051", "DE02120300000000202051"},
		{"letter among digits", "DE0212030000OOOO202051", "DE02120300000000202051"},
		{"letter at the end", "DE0212030000000020205I", "DE02120300000000202051"},
		// The bank's letters in a Dutch IBAN stay letters even where
		// one (G, B) could be a digit.
		{"bank letters kept", "NL50INGB068325I309", "NL50INGB0683251309"},
		// A letter after the bank's letters is not among digits.
		{"letter after bank letters not guessed", "NL50INGBO683251309", "NL50INGBO683251309"},
		{"valid IBAN unchanged", "DE02120300000000202051", "DE02120300000000202051"},
		{"valid IBAN with colon unchanged", "NL50INGB0683251309:", "NL50INGB0683251309:"},
		{"invalid, no repair passes", "DE02120300000000202052", "DE02120300000000202052"},
		{"invalid, no repair passes, letters", "DEO2120300000000202052", "DEO2120300000000202052"},
		// Two repairs pass (O→0 and B→8 at the end, or B→8 and B→8):
		// which one the document printed is not proven.
		{"two repairs pass", "DE6124069056O40BS064B4", "DE6124069056O40BS064B4"},
		{"too many guesses", "DE02120300OOOOO0202051", "DE02120300OOOOO0202051"},
		{"invoice number", "INV/2023/03/0008", "INV/2023/03/0008"},
		{"GTIN", "GTIN:4012345", "GTIN:4012345"},
		{"long word of letters", "Rechnungsempfaenger", "Rechnungsempfaenger"},
		{"too short", "DEO212030000", "DEO212030000"},
		{"letter in the check digits no digit", "DEX2120300000000202051", "DEX2120300000000202051"},
		{"other character inside", "DEO21203000-00000202051", "DEO21203000-00000202051"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := repairIBANWord(tc.word)
			if !ok {
				got = tc.word
			}
			if got != tc.want {
				t.Errorf("repairIBANWord(%q) = %q, want %q", tc.word, got, tc.want)
			}
			if ok != (tc.word != tc.want) {
				t.Errorf("repairIBANWord(%q) says repaired %v", tc.word, ok)
			}
		})
	}
}

func TestValidIBAN(t *testing.T) {
	for _, s := range []string{"DE02120300000000202051", "NL50INGB0683251309", "GB29NWBK60161331926819", "DE88200800000970375700"} {
		if !validIBAN(s) {
			t.Errorf("validIBAN(%q) = false, want true", s)
		}
	}
	for _, s := range []string{"DE02120300000000202052", "DEO2120300000000202051", "GB29NWBK6016133192681", "de02120300000000202051"} {
		if validIBAN(s) {
			t.Errorf("validIBAN(%q) = true, want false", s)
		}
	}
}

// TestRepairIBANsPage repairs a page's words and its text alike, so that
// the IBAN a user copies from the text is the one its box shows.
func TestRepairIBANsPage(t *testing.T) {
	p := storage.OCRPage{
		Text: "Bankverbindung\nIBAN: DEO2120300000000202051 BIC: BYLADEM1001\nRechnung INV/2023/03/0008\n",
		Words: &storage.PageWords{Words: []storage.Word{
			{Text: "Bankverbindung"},
			{Text: "IBAN:"}, {Text: "DEO2120300000000202051"}, {Text: "BIC:"}, {Text: "BYLADEM1001"},
			{Text: "Rechnung"}, {Text: "INV/2023/03/0008"},
		}},
	}
	repairIBANs(&p)
	wantText := "Bankverbindung\nIBAN: DE02120300000000202051 BIC: BYLADEM1001\nRechnung INV/2023/03/0008\n"
	if p.Text != wantText {
		t.Errorf("text = %q, want %q", p.Text, wantText)
	}
	var words []string
	for _, w := range p.Words.Words {
		words = append(words, w.Text)
	}
	want := []string{"Bankverbindung", "IBAN:", "DE02120300000000202051", "BIC:", "BYLADEM1001", "Rechnung", "INV/2023/03/0008"}
	if !slices.Equal(words, want) {
		t.Errorf("words = %q, want %q", words, want)
	}
}

// TestIBANMisreadOnAPageIsRepaired: Tesseract reads the IBANs of two
// corpus invoices, rendered as scans, as DEO2… (Physiotherapeut, page 2,
// deu+eng) and NLSO… (coolblue2, eng); the pages keep them as printed, in
// their text and their words.
func TestIBANMisreadOnAPageIsRepaired(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: reads rendered pages with Tesseract")
	}
	needTesseract(t)
	ctx := context.Background()
	forgetEngine()
	t.Cleanup(forgetEngine)
	engine, err := FindEngine(ctx)
	if err != nil {
		t.Fatal(err)
	}
	needLangs(t, engine, "deu")
	for _, c := range []struct {
		file       string
		page       int
		lang       string
		iban, read string
	}{
		{"zugferd/v2_zugferd_2p0_EN16931_Physiotherapeut.pdf", 2, "deu+eng", "DE02120300000000202051", "DEO2"},
		{"invoice2data/coolblue2.pdf", 1, "eng", "NL50INGB0683251309", "NLSO"},
	} {
		imgs, err := renderAt(corpusFile(t, c.file), []int{c.page}, t.TempDir(), RenderDPI)
		if err != nil {
			t.Fatal(err)
		}
		p, err := readPage(ctx, engine, nil, c.lang, imgs[0], nil, "", nil, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if !strings.Contains(p.Text, c.iban) || strings.Contains(p.Text, c.read) {
			t.Errorf("%s: the IBAN %s is not read as printed; the text: %q", c.file, c.iban, p.Text)
		}
		if words := wordsText(p.Words.Words); !strings.Contains(words, c.iban) || strings.Contains(words, c.read) {
			t.Errorf("%s: the IBAN %s is not in the words as printed; the words: %q", c.file, c.iban, words)
		}
	}
}

// TestRepairIBANGroups: an IBAN printed in groups of four is repaired
// across its words, in the text as in the words, and only there.
func TestRepairIBANGroups(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"German", "IBAN: DEO2 1203 0000 0000 2020 51 BIC: BYLADEM1001", "IBAN: DE02 1203 0000 0000 2020 51 BIC: BYLADEM1001"},
		{"Dutch", "NLSO INGB 0683 2513 09", "NL50 INGB 0683 2513 09"},
		{"bar for 1 in the check digits", "DE|8 1203 0000 0000 2020 54", "DE18 1203 0000 0000 2020 54"},
		{"letter in a group", "DE02 12O3 0000 0000 2020 51", "DE02 1203 0000 0000 2020 51"},
		{"brackets kept", "(DEO2 1203 0000 0000 2020 51)", "(DE02 1203 0000 0000 2020 51)"},
		{"valid unchanged", "DE02 1203 0000 0000 2020 51 2023", "DE02 1203 0000 0000 2020 51 2023"},
		// A Belgian IBAN is four groups of four: a year after it is
		// no part of it.
		{"Belgian followed by a year", "BE6B 5390 0754 7034 2023", "BE68 5390 0754 7034 2023"},
		{"valid Belgian followed by a year", "BE68 5390 0754 7034 2023", "BE68 5390 0754 7034 2023"},
		{"split across lines", "DEO2 1203 0000\n0000 2020 51", "DEO2 1203 0000\n0000 2020 51"},
		{"no repair passes", "DEO2 1203 0000 0000 2020 52", "DEO2 1203 0000 0000 2020 52"},
		{"not an IBAN", "ABCD 1234 5678 9012 3456", "ABCD 1234 5678 9012 3456"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var words []storage.Word
			y := 0
			for _, line := range strings.Split(tc.text, "\n") {
				for _, f := range strings.Fields(line) {
					words = append(words, storage.Word{Y: y, H: 20, Text: f})
				}
				y += 30
			}
			p := storage.OCRPage{Text: tc.text, Words: &storage.PageWords{Words: words}}
			repairIBANs(&p)
			if p.Text != tc.want {
				t.Errorf("text = %q, want %q", p.Text, tc.want)
			}
			if got := strings.TrimSpace(wordsText(p.Words.Words)); got != strings.Join(strings.Fields(tc.want), " ") {
				t.Errorf("words = %q, want those of %q", got, tc.want)
			}
		})
	}
}
