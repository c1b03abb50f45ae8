package ocr

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/storage"
)

// The texts of the language tests: pages of invoices as OCR reads them,
// with the sentences of their terms, whose function words tell their
// language.
const (
	germanInvoice = "Rechnung Nr. 4711\nRechnungsdatum: 05.03.2013\nSehr geehrte Damen und Herren, wir danken Ihnen für Ihren " +
		"Auftrag und berechnen Ihnen die folgenden Leistungen:\nMenge Preis Betrag\n20 Stk. Trennblätter für den Ordner 9,90\n" +
		"Summe netto 198,00 MwSt. 19% Gesamtbetrag brutto 235,62 €\nBitte zahlen Sie den Betrag bis zum 04.04.2013 auf das " +
		"unten genannte Konto. Die Lieferung erfolgt mit der Post."
	frenchInvoice = "Facture FA-2017-0010\nDate de facture 13/11/2017\nNous vous remercions pour votre commande et vous prions " +
		"de trouver ci-dessous le détail de la livraison.\nDésignation Quantité Prix unitaire HT\nTVA 20 % Total TTC 671,15 €\n" +
		"Conditions de paiement : règlement par virement à réception de la facture, avec les pénalités de retard prévues par la loi.\n" +
		"Date d'échéance 13/12/2017"
	englishInvoice = "INVOICE 2024-117\nDate: 2024-03-01\nBill to: ACME Ltd\nDescription Qty Unit price Amount\nSubtotal 40.00\n" +
		"VAT 2.50\nTotal due 42.50\nThank you for your order. Please pay the amount due within 30 days to the account below " +
		"and quote the invoice number with your payment."
)

// TestGuessPageLang: the function words of an invoice tell its language,
// spelt with or without accents (PP-OCR cannot spell them); a page in a
// language read, a tie, a few stray words, a page of few words or no text
// tell none, and a language whose data is not installed is not chosen.
func TestGuessPageLang(t *testing.T) {
	installed := []string{"deu", "eng", "fra"}
	for _, c := range []struct {
		name, text, read string
		candidates       []string
		want             string
	}{
		{"German read in English", germanInvoice, "eng", installed, "deu"},
		{"German as PP-OCR spells it", foldAccents(germanInvoice), "eng", installed, "deu"},
		{"French read in English", frenchInvoice, "eng", installed, "fra"},
		{"French as PP-OCR spells it", foldAccents(frenchInvoice), "eng", installed, "fra"},
		{"French read in deu+eng", frenchInvoice, "deu+eng", installed, "fra"},
		{"English read in English", englishInvoice, "eng", installed, ""},
		{"English read in German", englishInvoice, "deu", installed, "eng"},
		{"German read in deu+eng", germanInvoice, "deu+eng", installed, ""},
		{"German without its data", germanInvoice, "eng", []string{"eng", "fra"}, ""},
		{"English with a German address", englishInvoice + "\nMusterstraße 5, 80333 München, Deutschland", "eng", installed, ""},
		{"German with English terms", germanInvoice + "\nTotal due: see invoice", "eng", installed, "deu"},
		{"half German, half French", "Rechnung für die Lieferung und den Betrag. Facture pour la livraison et le montant.", "eng", installed, ""},
		{"a German sentence", "Bitte zahlen Sie den Betrag bis zum 04.04.2013 auf das Konto.", "eng", installed, ""},
		{"no text", "", "eng", installed, ""},
		{"only numbers", "4711 05.03.2013 235,62 €", "eng", installed, ""},
	} {
		if got, _ := guessPageLang(c.text, strings.Split(c.read, "+"), c.candidates); got != c.want {
			t.Errorf("%s: guessed %q, want %q (hits, distinct, words: %v)", c.name, got, c.want, fmt.Sprint(langHits(c.text, strings.Split(c.read, "+"))))
		}
	}
}

// foldAccents spells a text as PP-OCR reads it: without accents.
func foldAccents(s string) string {
	return strings.NewReplacer("ä", "a", "ö", "o", "ü", "u", "é", "e", "è", "e", "à", "a", "€", "").Replace(s)
}

// TestEnglishReceiptIsNotTakenForFrench: an English receipt whose words
// are also French, Spanish or Italian words (TOTAL five times, DATE
// twice, CLIENT, CONDITIONS, SUBTOTAL, NUMERO) is English: those words
// are words of the language read, and no evidence of another (such
// receipts were once read again in fra+eng, and worse).
func TestEnglishReceiptIsNotTakenForFrench(t *testing.T) {
	installed := []string{"deu", "eng", "fra", "ita", "nld", "spa"}
	receipt := "KEDAI RUNCIT MAJU SDN BHD\nCLIENT NUMERO 0042\nDATE 25/12/2018 TIME 8:13 PM\nINVOICE NUMERO 100231\n" +
		"ITEM QTY PRICE TOTAL\nCLAY 1 9.00 TOTAL 9.00\nGLUE 2 5.20 TOTAL 10.40\nSUBTOTAL 19.40\nTOTAL 19.40\nROUNDING 0.00\n" +
		"TOTAL 19.40 CASH 20.00 CHANGE 0.60\nDATE 25/12/2018\nCONDITIONS: GOODS SOLD ARE NOT RETURNABLE\nTHANK YOU PLEASE COME AGAIN"
	if lang, partly := guessPageLang(receipt, []string{"eng"}, installed); lang != "" {
		t.Errorf("an English receipt taken for %q (partly %v); hits, words: %v", lang, partly, fmt.Sprint(langHits(receipt, []string{"eng"})))
	}
}

// TestGuessPagePartlyInAnotherLanguage: an English page with a good part
// in French (a French seller's address and terms) is read again with
// French too; an English page with a few words that French also has
// ("date", "total") is not.
func TestGuessPagePartlyInAnotherLanguage(t *testing.T) {
	installed := []string{"deu", "eng", "fra"}
	english := englishInvoice
	frenchPart := "\nLe Moulin SARL, 1242 chemin de l'Olive, 84340 Malaucène\nConditions de paiement: par virement avec la facture, règlement à réception pour le client"
	lang, partly := guessPageLang(english+frenchPart, []string{"eng"}, installed)
	if lang != "fra" || !partly {
		t.Errorf("English with a French part: guessed %q (partly %v), want fra partly (hits, distinct, words: %v)", lang, partly, fmt.Sprint(langHits(english+frenchPart, []string{"eng"})))
	}
	if lang, _ := guessPageLang(english+frenchPart, []string{"eng"}, []string{"deu", "eng"}); lang != "" {
		t.Errorf("English with a French part, no French data: guessed %q", lang)
	}
	if lang, _ := guessPageLang(english+frenchPart, []string{"fra", "eng"}, installed); lang != "" {
		t.Errorf("English with a French part read in fra+eng: guessed %q", lang)
	}
	stray := english + "\nDate of delivery: see total"
	if lang, _ := guessPageLang(stray, []string{"eng"}, installed); lang != "" {
		t.Errorf("English with a few French words: guessed %q (hits, distinct, words: %v)", lang, fmt.Sprint(langHits(stray, []string{"eng"})))
	}
}

// readCorpusPage reads page 1 of a corpus PDF as the pipeline reads a PDF
// page without a text layer: rendered at RenderDPI, read by readPage in
// lang with Tesseract and, when it is installed, PP-OCR.
func readCorpusPage(t *testing.T, name, lang string) (storage.OCRPage, bool) {
	t.Helper()
	needTesseract(t)
	ctx := context.Background()
	forgetEngine()
	t.Cleanup(forgetEngine)
	engine, err := FindEngine(ctx)
	if err != nil {
		t.Fatal(err)
	}
	needLangs(t, engine, "deu+fra")
	forgetPPOCR()
	t.Cleanup(forgetPPOCR)
	pp, _ := findPPOCR(ctx, nil)
	imgs, err := renderAt(corpusFile(t, name), []int{1}, t.TempDir(), RenderDPI)
	if err != nil {
		t.Fatal(err)
	}
	same := func(img PageImage) (PageImage, error) { return img, nil }
	p, err := readPage(ctx, engine, pp, lang, imgs[0], nil, "", same, Options{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p, pp != nil
}

// TestGermanPageReadInEnglishIsReadAgainInGerman: a German invoice's page
// read on an English machine (lang eng: PP-OCR where it is installed,
// which cannot spell ä, ö, ß or €) is read again by Tesseract in deu+eng,
// and the page says so.
func TestGermanPageReadInEnglishIsReadAgainInGerman(t *testing.T) {
	p, _ := readCorpusPage(t, "zugferd/v1_ZUGFeRD_1p0_COMFORT_Kraftfahrversicherung_Bruttopreise.pdf", "eng")
	if p.Lang != "deu+eng" || !strings.HasPrefix(p.Engine, "tesseract ") || !strings.HasPrefix(p.Note, NoteReadInLang) {
		t.Errorf("read as %q in %q, note %q: want Tesseract in deu+eng, with a note", p.Engine, p.Lang, p.Note)
	}
	for _, want := range []string{"Fälligkeitstag", "Lösen Sie", "Änderungen", "Grüße", "100 Mio. €", "220,00 €"} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("%q not read; the text: %q", want, p.Text)
		}
	}
	if p.Words == nil || len(p.Words.Words) < 50 || p.Words.DPI < RenderDPI || !strings.Contains(wordsText(p.Words.Words), "Grüße") {
		t.Errorf("words: want Tesseract's words of the page, in its pixels, got %d", len(p.Words.Words))
	}
}

func wordsText(words []storage.Word) string {
	var b strings.Builder
	for _, w := range words {
		b.WriteString(w.Text + " ")
	}
	return b.String()
}

// TestFrenchPagesReadInEnglishAreReadAgainInFrench: a French invoice and
// credit note read in eng are read again in fra+eng and keep é, è and à.
func TestFrenchPagesReadInEnglishAreReadAgainInFrench(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		{"zugferd/v2_Facture_FR_BASICWL.pdf", []string{"République", "Malaucène", "Date d'échéance", "Quantité", "Règlement", "à l'ancienne", "671,15 €"}},
		{"zugferd/v2_Avoir_FR_type381_BASIC.pdf", []string{"République", "Date d'échéance", "Paiement immédiat", "Facture liée", "percé", "-233,47 €"}},
	} {
		p, _ := readCorpusPage(t, c.file, "eng")
		if p.Lang != "fra+eng" || !strings.HasPrefix(p.Engine, "tesseract ") || !strings.HasPrefix(p.Note, NoteReadInLang) {
			t.Errorf("%s: read as %q in %q, note %q: want Tesseract in fra+eng, with a note", c.file, p.Engine, p.Lang, p.Note)
		}
		for _, want := range c.want {
			if !strings.Contains(p.Text, want) {
				t.Errorf("%s: %q not read; the text: %q", c.file, want, p.Text)
			}
		}
	}
}

// TestEnglishPageIsNotReadAgain: an English invoice's page read in eng
// keeps its first read (PP-OCR's, where it is installed), in eng, with no
// note.
func TestEnglishPageIsNotReadAgain(t *testing.T) {
	p, withPPOCR := readCorpusPage(t, "invoice2data/AzureInterior.pdf", "eng")
	if p.Lang != "eng" || p.Note != "" || (withPPOCR && !strings.HasPrefix(p.Engine, "ppocr ")) {
		t.Errorf("read as %q in %q, note %q: want the first read kept (PP-OCR: %v), in eng", p.Engine, p.Lang, p.Note, withPPOCR)
	}
	if !strings.Contains(strings.ToLower(p.Text), "invoice") {
		t.Errorf("the text: %q", p.Text)
	}
}

// TestPageKeepsItsFirstReadWhenTheReadAgainFails: a German page whose
// read again in deu+eng fails (here a tesseract that fails with deu) keeps
// its first read, in eng, with a note that says why, and the run goes on.
func TestPageKeepsItsFirstReadWhenTheReadAgainFails(t *testing.T) {
	dir := t.TempDir()
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
	for i, w := range strings.Fields(foldAccents(germanInvoice)) {
		tsv += fmt.Sprintf("5\t1\t1\t1\t1\t%d\t%d\t10\t40\t12\t95\t%s\n", i+1, 10+50*i, w)
	}
	script := "#!/bin/sh\ncase \"$*\" in\n*deu+eng*) echo 'Error opening data file deu.traineddata' >&2; exit 1;;\nesac\nprintf '%s' '" + tsv + "'\n"
	path := filepath.Join(dir, "tesseract")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(dir, "page.png")
	if err := os.WriteFile(img, encodePNG(t, textImage(600, 100, 2, "Rechnung")), 0o644); err != nil {
		t.Fatal(err)
	}
	engine := &Engine{Path: path, Version: "5.3.0", Langs: []string{"deu", "eng", "osd"}}
	page := PageImage{Page: 1, File: img, Width: 600, Height: 100, DPI: 200, Method: "render"}
	p, err := readPage(context.Background(), engine, nil, "eng", page, nil, "", nil, Options{})
	if err != nil {
		t.Fatalf("the page failed: %v", err)
	}
	if p.Lang != "eng" || !strings.HasPrefix(p.Text, "Rechnung Nr.") || !strings.Contains(p.Note, "Error opening data file") ||
		!strings.Contains(p.Note, "the first read, in eng, is kept") {
		t.Errorf("page %q in %q, note %q: want the first read kept, with a note that says why", p.Text, p.Lang, p.Note)
	}
}
