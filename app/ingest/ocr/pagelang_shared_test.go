package ocr

import "testing"

// TestSharedWordsAreNoSignOfAnotherLanguage: an English receipt, read with
// its spaces, whose only French words are those English has too ("Total",
// "Date"), is not taken for partly French; the French part of a page
// still is (TestGuessPageLang's cases).
func TestSharedWordsAreNoSignOfAnotherLanguage(t *testing.T) {
	receipt := "Document No : TD01167104\nDate: 25/12/2018 8:13:39 PM\nCashier : MANIS\nCASH BILL\n" +
		"Total : 9.00\nRounding Adjustment: 0.00\nRounded Total(RM): 9.00\nCash 10.00\n" +
		"GOODS SOLD ARE NOT RETURNABLE OR EXCHANGEABLE\nTHANK YOU\nPLEASE COME AGAIN !"
	installed := []string{"deu", "eng", "fra", "ita", "nld", "spa"}
	if lang, partly := guessPageLang(receipt, []string{"eng"}, installed); lang != "" {
		hits, _, words := langHits(receipt, []string{"eng"})
		t.Errorf("an English receipt: guessed %q (partly %v), hits %v of %d words", lang, partly, hits, words)
	}
}
