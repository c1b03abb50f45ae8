package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/docent/docent/agent/evidence"
	"github.com/docent/docent/storage"
)

// groundingPages gathers what grounding reads of a document: each page's
// text and, where the store has them (text-layer PDFs, OCR'd scans), its
// positioned words.
func groundingPages(ctx context.Context, db *storage.DB, documentID string, texts []string) ([]evidence.Page, error) {
	words, err := db.DocumentWords(ctx, documentID)
	if err != nil {
		return nil, err
	}
	pages := make([]evidence.Page, len(texts))
	for i, text := range texts {
		pages[i] = evidencePage(i+1, text, words[i+1])
	}
	return pages, nil
}

// evidencePage is page number's text and stored words as grounding reads
// them; a page without words has no size either.
func evidencePage(number int, text string, pw storage.PageWords) evidence.Page {
	p := evidence.Page{Number: number, Text: text}
	if len(pw.Words) == 0 {
		return p
	}
	p.Width, p.Height = float64(pw.Width), float64(pw.Height)
	p.Words = make([]evidence.Word, len(pw.Words))
	for j, w := range pw.Words {
		p.Words[j] = evidence.Word{Text: w.Text, X0: float64(w.X), Y0: float64(w.Y), X1: float64(w.X + w.W), Y1: float64(w.Y + w.H)}
	}
	return p
}

// groundValue returns the evidence of an extracted value in its document,
// as stored with the extraction. Grounding never fails an extraction: if
// the document's words cannot be read, the extraction is stored without
// evidence ({}), and the error says why, for the caller to log.
func groundValue(ctx context.Context, db *storage.DB, documentID string, texts []string, value json.RawMessage) (json.RawMessage, error) {
	if len(value) == 0 || string(value) == "null" {
		return nil, nil
	}
	pages, err := groundingPages(ctx, db, documentID, texts)
	if err != nil {
		return nil, err
	}
	m, err := evidence.Ground(value, pages)
	if err != nil {
		return nil, err
	}
	return mustJSON(m), nil
}

// GroundExtraction computes the evidence of a stored extraction again from
// its document's current text and words (an extraction made before
// evidence existed, or after OCR read its document again) and stores it.
// Values a person edited stay "edited".
func GroundExtraction(ctx context.Context, db *storage.DB, x storage.Extraction) (storage.Extraction, error) {
	texts, err := db.DocumentText(ctx, x.DocumentID)
	if err != nil {
		return x, err
	}
	pages, err := groundingPages(ctx, db, x.DocumentID, texts)
	if err != nil {
		return x, err
	}
	m, err := evidence.Ground(x.Value, pages)
	if err != nil {
		return x, fmt.Errorf("ground extraction %s: %w", x.ID, err)
	}
	var old evidence.Map
	if json.Unmarshal(x.Evidence, &old) == nil {
		for path, e := range old {
			if e.Status == evidence.Edited {
				m = m.MarkEdited(path)
			}
		}
	}
	return db.SetExtractionEvidence(ctx, x.ID, mustJSON(m))
}

// evidenceCounts reads the stored evidence of an extraction; a missing or
// unreadable one counts nothing.
func evidenceCounts(x storage.Extraction) (evidence.Map, evidence.Counts) {
	var m evidence.Map
	if json.Unmarshal(x.Evidence, &m) != nil {
		return nil, evidence.Counts{}
	}
	return m, m.Counts()
}

// evidenceNote tells the model which values the document does not show,
// so that it checks them (and fixes them with update_extraction_field and
// a reason, or changes the prompt); "" when every value was found.
func evidenceNote(m evidence.Map, c evidence.Counts) string {
	if c.Ungrounded == 0 && c.Ambiguous == 0 {
		return ""
	}
	var parts []string
	if c.Ungrounded > 0 {
		parts = append(parts, fmt.Sprintf("not found in the document (invented, computed or misread?): %s", strings.Join(capList(m.Paths(evidence.Ungrounded), 20), ", ")))
	}
	if c.Ambiguous > 0 {
		parts = append(parts, fmt.Sprintf("found in several places: %s", strings.Join(capList(m.Paths(evidence.Ambiguous), 20), ", ")))
	}
	return "Values to check — " + strings.Join(parts, "; ") + "."
}

// capList keeps the first n items and says how many more there were.
func capList(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(items[:n:n], fmt.Sprintf("and %d more", len(items)-n))
}
