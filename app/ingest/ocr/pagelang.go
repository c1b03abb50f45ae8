package ocr

import (
	"fmt"
	"slices"
	"strings"
	"sync"
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

// pageLangWords are, per Tesseract language, its function words: the
// articles, pronouns, prepositions, conjunctions and auxiliaries that a
// page in the language has many of whatever it is about, and a page in
// another seldom has. They are spelt case-folded and without accents
// (foldWord), as PP-OCR reads them: it cannot spell "für" or "à". The
// vocabulary of invoices is no evidence: "total", "date", "client",
// "conditions" and "numero" are English too, and an English receipt
// with TOTAL five times and DATE twice was taken for French, read again
// by Tesseract in fra+eng and read worse. Words that
// are common in several of these languages' texts ("de", "en", "in"),
// single letters, which OCR reads from specks, and words common in web
// and mail addresses ("de" of ".de") are left out as well.
var pageLangWords = map[string][]string{
	"eng": {"the", "and", "of", "to", "for", "with", "from", "your", "you", "this", "that", "our", "we", "are", "is",
		"be", "by", "on", "at", "or", "not", "all", "will", "has", "have", "was", "were", "an", "if", "can", "please",
		"thank", "which", "been", "these", "their", "any", "per", "as", "it", "its", "into", "no", "may", "must"},
	"deu": {"und", "der", "die", "das", "mit", "von", "fur", "den", "dem", "des", "ein", "eine", "einer", "eines",
		"einem", "ist", "wir", "ihre", "ihr", "ihnen", "sie", "bitte", "zu", "zum", "zur", "bei", "auf", "im", "aus",
		"nach", "uber", "oder", "nicht", "auch", "als", "werden", "wird", "sind", "haben", "hat", "unter", "bis",
		"vom", "sich", "wie", "dass", "diese", "dieser", "unsere", "unser", "uns", "noch", "nur", "bzw"},
	"fra": {"le", "la", "les", "des", "du", "et", "pour", "par", "avec", "au", "aux", "sur", "vous", "votre", "vos",
		"nous", "notre", "nos", "une", "est", "dans", "ce", "cette", "ces", "qui", "que", "pas", "ou", "sont",
		"leur", "selon", "chez", "sans", "il", "elle"},
	"nld": {"het", "een", "van", "voor", "met", "op", "te", "aan", "bij", "uw", "wij", "niet", "zijn", "naar",
		"door", "om", "tot", "ons", "onze", "deze", "dit", "worden", "wordt", "ook", "heeft"},
	"spa": {"el", "los", "las", "del", "para", "por", "con", "una", "es", "que", "se", "su", "sus", "al", "lo",
		"como", "este", "esta", "sin", "hasta", "nuestro", "usted"},
	"ita": {"il", "lo", "gli", "della", "delle", "dello", "dei", "del", "con", "di", "che", "una", "al", "alla",
		"alle", "sono", "non", "nel", "nella", "questo", "questa", "da", "ed", "si", "sul"},
}

// ownWords are, per language, more words that are no evidence of another
// language on a page read in it (langHits): the vocabulary of its
// invoices and receipts that other languages spell alike ("total",
// "date", "client", "conditions", "numero"), should a list take them up,
// and what its receipts print that is another language's function word:
// "TOT QTY" (Dutch "tot"), "non-refundable" (Italian "non").
var ownWords = map[string][]string{
	"eng": {"total", "subtotal", "date", "client", "conditions", "numero", "tot", "non"},
}

// langNames names the languages of pageLangWords in the page's note.
var langNames = map[string]string{
	"eng": "English", "deu": "German", "fra": "French", "nld": "Dutch", "spa": "Spanish", "ita": "Italian",
}

// minLangHits is the fewest function words of a language a page must
// have to be taken for it, two of them different at least, and
// minLangShare the least share of the page's words they must be:
// a line or two of a stray language (an address abroad, a Malay line on
// a receipt) must not make a page be read again, while a page of an
// invoice in that language has tens of them. minPageWords is the fewest
// words a page must have for its language to be told at all. Tuned on
// the corpus (docs/benchmarks.md, "Receipts: each page's language, and
// the product's path"): its English pages have at most one function word
// of another language, the pages of its German, French and Dutch
// invoices three to eighty of their own.
const (
	minLangHits  = 3
	minLangShare = 0.04
	minPageWords = 30
)

// guessPageLang is the language of a page whose text (of a first read in
// the languages read, "eng" or "deu+eng") is text, when it is one of
// candidates (the languages whose data is installed) and not one read;
// else "". The evidence of a language is its own function words
// (pageLangWords) that the languages read do not also have (ownWords):
// the language whose words the page has most, at least minLangHits of
// them, two different, and more than any other language's that is not
// read, on a page of at least minPageWords. Every listed language
// competes, installed or not, so that a Spanish page is not taken for
// French when only French is installed. A page read again for nothing
// costs a Tesseract read, so a tie or a page of few words is left as
// read.
//
// The page is in that language when it has more of its words than of
// the languages read, and they are at least minLangShare of its words.
// It is partly in it (partly) when the languages read have more, but no
// more than four times as many: an English invoice of a French seller,
// with its address and terms in French.
func guessPageLang(text string, read []string, candidates []string) (lang string, partly bool) {
	hits, distinct, words := langHits(text, read)
	return pageLang(hits, distinct, words, read, candidates)
}

// pageLang is guessPageLang's rule, on a page's counts (langHits).
func pageLang(hits, distinct map[string]int, words int, read, candidates []string) (lang string, partly bool) {
	if words < minPageWords {
		return "", false
	}
	var others, ours []string
	for l := range hits {
		if slices.Contains(read, l) {
			ours = append(ours, l)
		} else {
			others = append(others, l)
		}
	}
	byHits := func(a, b string) int {
		if c := hits[b] - hits[a]; c != 0 {
			return c
		}
		return strings.Compare(a, b)
	}
	slices.SortFunc(others, byHits)
	slices.SortFunc(ours, byHits)
	best := others[0]
	if hits[best] < minLangHits || distinct[best] < 2 || hits[best] == hits[others[1]] || !slices.Contains(candidates, best) {
		return "", false
	}
	if len(ours) == 0 || hits[best] > hits[ours[0]] {
		if float64(hits[best]) < minLangShare*float64(words) {
			return "", false
		}
		return best, false
	}
	if 4*hits[best] >= hits[ours[0]] {
		return best, true
	}
	return "", false
}

// pageTold is what the text of a page's first reading tells of its
// language: lang and partly as guessPageLang gives them, and tells, that
// the page has the evidence of some language, read or not (minLangHits
// of its function words, two different, minLangShare of the page's
// words, on a page of minPageWords). A page that does not tell is too
// short, or too bare (a table of terms and amounts), to say its language
// by itself.
type pageTold struct {
	lang   string
	partly bool
	tells  bool
}

// tellPageLang is what text, a page's first reading in the languages
// read, tells of its language, among candidates (guessPageLang).
func tellPageLang(text string, read, candidates []string) pageTold {
	hits, distinct, words := langHits(text, read)
	lang, partly := pageLang(hits, distinct, words, read, candidates)
	t := pageTold{lang: lang, partly: partly, tells: lang != ""}
	for l := range hits {
		if words >= minPageWords && hits[l] >= minLangHits && distinct[l] >= 2 && float64(hits[l]) >= minLangShare*float64(words) {
			t.tells = true
		}
	}
	return t
}

// docLang is what a document's pages told of its language, from their
// first readings: a page too short to tell its own is read in its
// document's (readPages), as page 2 of a German invoice, a table of 66
// words and no German function word, is read again in deu+eng as its
// page 1 is. The document has a language when every page that told one
// was wholly in it, and it is not a language read: one page in the
// languages read, or partly in another, or in another language still,
// and the document has none, so that no page of an English document is
// read again for it (TestEnglishPagesAreNotReadAgain).
type docLang struct {
	lang string
	none bool
}

// add counts what a page told.
func (d *docLang) add(t pageTold) {
	if !t.tells || d.none {
		return
	}
	if t.lang == "" || t.partly || (d.lang != "" && d.lang != t.lang) {
		d.lang, d.none = "", true
		return
	}
	d.lang = t.lang
}

// langHits counts, per language of pageLangWords, the words of text that
// are its function words, and how many different ones, and how many
// words text has. A word that the languages read also have (in their
// pageLangWords or ownWords) counts for no other language.
func langHits(text string, read []string) (hits, distinct map[string]int, words int) {
	hits, distinct = map[string]int{}, map[string]int{}
	seen := map[string]bool{}
	for lang := range pageLangWords {
		hits[lang] = 0
	}
	ours := func(w string) bool {
		for _, l := range read {
			if pageLangWordSets()[l][w] || ownWordSets()[l][w] {
				return true
			}
		}
		return false
	}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) }) {
		words++
		w = foldWord(w)
		mine := ours(w)
		for lang, set := range pageLangWordSets() {
			if set[w] && (slices.Contains(read, lang) || !mine) {
				hits[lang]++
				if !seen[lang+" "+w] {
					seen[lang+" "+w] = true
					distinct[lang]++
				}
			}
		}
	}
	return hits, distinct, words
}

// pageLangWordSets and ownWordSets are pageLangWords and ownWords as sets,
// built on first use rather than at init in every docent process.
var (
	pageLangWordSets = sync.OnceValue(func() map[string]map[string]bool { return wordSets(pageLangWords) })
	ownWordSets      = sync.OnceValue(func() map[string]map[string]bool { return wordSets(ownWords) })
)

func wordSets(lists map[string][]string) map[string]map[string]bool {
	sets := map[string]map[string]bool{}
	for lang, words := range lists {
		sets[lang] = map[string]bool{}
		for _, w := range words {
			sets[lang][w] = true
		}
	}
	return sets
}

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
// in. Without Tesseract (e nil) they are all of them, so that a page's
// note can say in which Tesseract would read it again.
func (e *Engine) installedLangs() []string {
	var out []string
	for lang := range pageLangWords {
		if e == nil || e.CheckLangs(lang) == nil {
			out = append(out, lang)
		}
	}
	slices.Sort(out)
	return out
}

// pageLangNote is the note of a page in lang that was read first by
// first in the run's languages read and then again by Tesseract with
// reread ("deu+eng"); fromDoc when lang is its document's, the page
// being too short to tell its own.
func pageLangNote(lang string, partly, fromDoc bool, first, read, reread string) string {
	return fmt.Sprintf("%s: the page %s, which %s does not hold, so Tesseract read it again with %s after %s had read it",
		NoteReadInLang, pageIn(lang, partly, fromDoc), read, reread, first)
}

// pageLangUnread is the note of a page in lang, first read in the run's
// languages read, that Tesseract, not installed, would have read again
// with reread: what to install to have it read so.
func pageLangUnread(lang string, partly, fromDoc bool, read, reread string) string {
	return fmt.Sprintf("%s: the page %s, which %s does not hold; Tesseract, which would read it again with %s, is not installed: %s",
		NoteNotReadInLang, pageIn(lang, partly, fromDoc), read, reread, installHint([]string{lang}))
}

// pageIn says what language a page is in, for its note: "is in German",
// "is partly in German", or that it is too short to tell and its
// document is in German (fromDoc).
func pageIn(lang string, partly, fromDoc bool) string {
	name := langNames[lang]
	if name == "" {
		name = lang
	}
	switch {
	case fromDoc:
		return "is too short to tell its language, and its document is in " + name
	case partly:
		return "is partly in " + name
	}
	return "is in " + name
}

// A page read again in its language replaces its first reading only when
// the second is measurably better (readsBetter): it keeps nine in ten of
// the first's letters and digits or more, its confidence is at most
// maxConfidenceDrop lower, and it is surer or spells more words with the
// letters of the page's language (ä, é, ß, €), which PP-OCR's dictionary
// lacks. Engines rate themselves differently: on the corpus's German and
// French pages PP-OCR's confidence is 0.99 and Tesseract's, reading them
// right in deu+eng or fra+eng, 0.91 to 0.94. They cut words differently
// too, so the text is weighed by its letters and digits, not its words:
// on a German table page PP-OCR read "Vollka sko" and a stray "：" as
// words of their own, and Tesseract's reading, with 97 % of its letters
// and digits and the umlauts, had 95 words to its 106.
const maxConfidenceDrop = 0.15

// readsBetter reports whether the words of a second reading of a page are
// measurably better than first's.
func readsBetter(second, first []storage.Word) bool {
	c2, c1 := confidence(second), confidence(first)
	if c2 == nil {
		return false
	}
	if c1 == nil {
		return true
	}
	return 10*wordsAlnum(second) >= 9*wordsAlnum(first) && *c2 >= *c1-maxConfidenceDrop &&
		(*c2 > *c1 || spelled(second) > spelled(first))
}

// wordsAlnum counts the letters and digits of words.
func wordsAlnum(words []storage.Word) int {
	n := 0
	for _, w := range words {
		n += alnum(w.Text)
	}
	return n
}

// spelled counts the words spelt with a letter beyond ASCII, or €.
func spelled(words []storage.Word) int {
	n := 0
	for _, w := range words {
		if strings.IndexFunc(w.Text, func(r rune) bool { return r > unicode.MaxASCII && (unicode.IsLetter(r) || r == '€') }) >= 0 {
			n++
		}
	}
	return n
}

// spelt says, for a page's note, how many of a reading's words are spelt
// with letters beyond ASCII ("", when none).
func spelt(words []storage.Word) string {
	if n := spelled(words); n > 0 {
		return fmt.Sprintf(", %d of them with accents, umlauts, ß or €", n)
	}
	return ""
}

// NoteReadInLang starts the note of a page read again in its language.
const NoteReadInLang = "read again in its language"

// NoteNotReadInLang starts the note of a page that Tesseract, not
// installed, would have read again in its language.
const NoteNotReadInLang = "not read again in its language"
