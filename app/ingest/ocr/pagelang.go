package ocr

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/docent/docent/storage"
)

// A page is read in the languages of the run (Options.Lang, by default the
// locale's: "eng" on an English machine), but a user receives invoices in
// other languages too. Read in English, a German or French page loses its
// ä, ö, ü, ß, é, è, à and € (PP-OCR's dictionary cannot spell them, and
// Tesseract's eng data seldom does), and with them the names and amounts a
// user wants. So the text of the first read tells the page's language
// (guessPageLang), and a page in a language the run did not read in, whose
// data is installed, is read again by Tesseract in that language and the
// run's (readPage).

// pageLangWords are, per Tesseract language, short words that a page in
// that language has many of and a page in another has few: function words
// and the vocabulary of invoices and receipts. They are spelt case-folded
// and without accents (foldWord), as PP-OCR reads them: it cannot spell
// "für" or "échéance". Words that are common in several of these
// languages ("de", "en", "in", "il"), single letters, which OCR
// reads from specks, or words common in web and mail addresses ("de" of
// ".de") are left out: they would count for the wrong language.
var pageLangWords = map[string][]string{
	"eng": {"the", "and", "of", "to", "for", "with", "from", "your", "this", "invoice", "date", "amount", "total", "tax",
		"vat", "price", "quantity", "qty", "customer", "payment", "due", "order", "number", "description", "subtotal",
		"bill", "ship", "balance", "paid", "please", "thank", "you", "item", "unit", "terms", "account"},
	"deu": {"und", "der", "die", "das", "mit", "von", "fur", "den", "dem", "des", "ein", "eine", "ist", "wir", "ihre",
		"bitte", "rechnung", "rechnungsnummer", "rechnungsdatum", "datum", "betrag", "gesamtbetrag", "summe",
		"zwischensumme", "gesamt", "netto", "brutto", "mwst", "ust", "umsatzsteuer", "steuer", "menge", "preis",
		"einzelpreis", "gesamtpreis", "stk", "stuck", "zahlbar", "zahlung", "lieferung", "lieferdatum", "kunde",
		"kundennummer", "bezeichnung", "artikel", "bankverbindung", "strasse", "tage", "bis", "zum"},
	"fra": {"le", "la", "les", "des", "du", "et", "pour", "par", "avec", "au", "aux", "sur", "vous", "votre", "facture",
		"montant", "tva", "ht", "ttc", "prix", "quantite", "qte", "unitaire", "client", "echeance", "paiement",
		"reglement", "adresse", "livraison", "numero", "designation", "total", "date", "remise", "payer",
		"conditions", "avoir", "rue", "siret", "euros"},
	"nld": {"het", "een", "van", "voor", "met", "op", "factuur", "factuurnummer", "factuurdatum", "bedrag",
		"totaal", "btw", "prijs", "aantal", "klant", "betaling", "vervaldatum", "omschrijving", "subtotaal",
		"levering"},
	"spa": {"el", "los", "las", "del", "para", "por", "con", "factura", "fecha", "importe", "iva", "precio",
		"cantidad", "cliente", "pago", "vencimiento", "descripcion", "subtotal", "total", "imponible",
		"numero", "direccion"},
	"ita": {"lo", "gli", "della", "del", "per", "con", "fattura", "importo", "iva", "prezzo",
		"quantita", "cliente", "pagamento", "scadenza", "descrizione", "totale", "imponibile", "numero", "indirizzo",
		"partita"},
}

// langNames names the languages of pageLangWords in the page's note.
var langNames = map[string]string{
	"eng": "English", "deu": "German", "fra": "French", "nld": "Dutch", "spa": "Spanish", "ita": "Italian",
}

// minLangHits is the fewest words of its list a page must have to be
// taken for a language: a line or two of a stray language (an address
// abroad, "Total" on a German page) must not make a page be read again,
// while a page of an invoice has tens of them.
const minLangHits = 3

// guessPageLang is the language of a page whose text (of a first read in
// the languages read, "eng" or "deu+eng") is text, when it is one of
// candidates (the languages whose data is installed) and not one read;
// else "". The rule: the language of pageLangWords whose words the text
// has most, at least minLangHits of them and more than any other
// language's. Every listed language competes, installed or not, so that a
// Spanish page is not taken for French when only French is installed. A
// page read again for nothing costs a Tesseract read and, for an English
// page PP-OCR read, some of PP-OCR's quality, so a tie or a page of few
// words is left as read.
//
// A page in a language read may be partly in another (partly): an
// English invoice of a French seller, with its address and terms in
// French. The runner-up is that language when it has at least
// minLangHits words and a quarter of the winner's, and more than the
// third: on the corpus invoices' English pages the runner-up has at
// most a sixth of English's words (stray "date", "total", "avec"), on
// the bilingual ones a third.
func guessPageLang(text string, read []string, candidates []string) (lang string, partly bool) {
	hits := langHits(text)
	langs := slices.Sorted(maps.Keys(hits))
	slices.SortStableFunc(langs, func(a, b string) int { return hits[b] - hits[a] })
	best, second, third := langs[0], langs[1], langs[2]
	if hits[best] < minLangHits || hits[best] == hits[second] {
		return "", false
	}
	if !slices.Contains(read, best) {
		if slices.Contains(candidates, best) {
			return best, false
		}
		return "", false
	}
	if hits[second] >= minLangHits && 4*hits[second] >= hits[best] && hits[second] > hits[third] &&
		!slices.Contains(read, second) && slices.Contains(candidates, second) && hitsApart(text, second, read) >= minLangHits {
		return second, true
	}
	return "", false
}

// hitsApart counts the words of text on lang's list and on no list of the
// languages read: "total" and "date" are French words, but on a page read
// in English they are no sign of French (an English receipt PP-OCR read
// with its spaces had three French words, all of them these).
func hitsApart(text, lang string, read []string) int {
	n := 0
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) }) {
		w = foldWord(w)
		if pageLangWordSets[lang][w] && !slices.ContainsFunc(read, func(l string) bool { return pageLangWordSets[l][w] }) {
			n++
		}
	}
	return n
}

// langHits counts, per language of pageLangWords, the words of text that
// are on its list.
func langHits(text string) map[string]int {
	hits := map[string]int{}
	for lang := range pageLangWords {
		hits[lang] = 0
	}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) }) {
		w = foldWord(w)
		for lang, words := range pageLangWordSets {
			if words[w] {
				hits[lang]++
			}
		}
	}
	return hits
}

// pageLangWordSets is pageLangWords as sets.
var pageLangWordSets = func() map[string]map[string]bool {
	sets := map[string]map[string]bool{}
	for lang, words := range pageLangWords {
		sets[lang] = map[string]bool{}
		for _, w := range words {
			sets[lang][w] = true
		}
	}
	return sets
}()

// foldWord is a word lower-cased and without accents, as the word lists
// spell it: "Fälligkeit" is "falligkeit", "Échéance" "echeance", "Straße"
// "strasse". The accents go as the data view drops them for sorting
// (storage.SortKey); ß, a letter of its own rather than an s with a mark,
// is spelt ss.
func foldWord(w string) string {
	return strings.ReplaceAll(storage.SortKey(w), "ß", "ss")
}

// installedLangs are the languages of pageLangWords whose Tesseract data
// is installed, the system's or best_int: those a page may be read again
// in.
func (e *Engine) installedLangs() []string {
	var out []string
	for lang := range pageLangWords {
		if e.CheckLangs(lang) == nil {
			out = append(out, lang)
		}
	}
	slices.Sort(out)
	return out
}

// pageLangNote is the note of a page in lang that was read first by
// first in the run's languages read and then again by Tesseract with
// reread ("deu+eng").
func pageLangNote(lang string, partly bool, first, read, reread string) string {
	name := langNames[lang]
	if name == "" {
		name = lang
	}
	in := "in"
	if partly {
		in = "partly in"
	}
	return fmt.Sprintf("%s: the page is %s %s, which %s does not hold, so Tesseract read it again with %s after %s had read it",
		NoteReadInLang, in, name, read, reread, first)
}

// NoteReadInLang starts the note of a page read again in its language.
const NoteReadInLang = "read again in its language"
