package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/docent/docent/agent/evidence"
	"github.com/docent/docent/storage"
)

// WorkingState is what a conversation last created, updated or extracted:
// tools update it as they run, it is persisted with the thread and restored
// on its next turn, and the system message shows it every round, so "run
// extraction with that prompt" works across turns.
type WorkingState struct {
	SchemaRevID string              `json:"schema_revid,omitempty"`
	PromptRevID string              `json:"prompt_revid,omitempty"`
	Extraction  *storage.Extraction `json:"extraction,omitempty"`
}

// IsZero reports whether nothing has been recorded yet.
func (s *WorkingState) IsZero() bool {
	return s == nil || (s.SchemaRevID == "" && s.PromptRevID == "" && s.Extraction == nil)
}

// setExtraction records an extraction and the prompt revision it ran with.
func (s *WorkingState) setExtraction(x storage.Extraction) {
	s.Extraction = &x
	if x.PromptRevID != "" {
		s.PromptRevID = x.PromptRevID
	}
}

// Describe renders the working state for the system message: the ids, then
// the current extraction's value. It is "" when the state is empty.
func (s *WorkingState) Describe() string {
	if s.IsZero() {
		return ""
	}
	var b strings.Builder
	b.WriteString("Working state:\n")
	if s.SchemaRevID != "" {
		fmt.Fprintf(&b, "- schema_revid: %s\n", s.SchemaRevID)
	}
	if s.PromptRevID != "" {
		fmt.Fprintf(&b, "- prompt_revid: %s\n", s.PromptRevID)
	}
	if x := s.Extraction; x != nil {
		fmt.Fprintf(&b, "- extraction: %s (document %s, validation %s", x.ID, x.DocumentID, x.ValidationStatus)
		if x.Edited {
			b.WriteString(", edited")
		}
		b.WriteString(")\n")
		value := "null"
		if len(x.Value) > 0 {
			value = string(x.Value)
		}
		value, _ = capText(value, TextCap, "call get_extraction_result for all of it")
		fmt.Fprintf(&b, "Current extraction value:\n%s\n", value)
		if x.ValidationStatus == storage.ValidationInvalid && len(x.ValidationErrors) > 0 && string(x.ValidationErrors) != "[]" {
			errs, _ := capText(string(x.ValidationErrors), TextCap/4, "")
			fmt.Fprintf(&b, "Validation errors: %s\n", errs)
		}
		if note := evidenceNote(evidenceCounts(*x)); note != "" {
			b.WriteString(note + "\n")
		}
	}
	return b.String()
}

// extractionView is an extraction as tools return it: without the raw
// model output and the original value, unless the output was not JSON.
type extractionView struct {
	ID               string          `json:"extraction_id"`
	DocumentID       string          `json:"document_id"`
	PromptRevID      string          `json:"prompt_revid"`
	Model            string          `json:"model"`
	Value            json.RawMessage `json:"value"`
	Edited           bool            `json:"edited"`
	ValidationStatus string          `json:"validation_status"`
	ValidationErrors json.RawMessage `json:"validation_errors"`
	RawOutput        string          `json:"raw_output,omitempty"`
	// Ungrounded and Ambiguous are the paths of values the document does
	// not show, or shows in several places; Check says what to do.
	Ungrounded []string `json:"ungrounded,omitempty"`
	Ambiguous  []string `json:"ambiguous,omitempty"`
	Check      string   `json:"check,omitempty"`
	CreatedAt  string   `json:"created_at"`
	UpdatedAt  string   `json:"updated_at"`
}

func viewExtraction(x storage.Extraction) extractionView {
	v := extractionView{
		ID: x.ID, DocumentID: x.DocumentID, PromptRevID: x.PromptRevID, Model: x.Model,
		Value: x.Value, Edited: x.Edited, ValidationStatus: x.ValidationStatus, ValidationErrors: x.ValidationErrors,
		CreatedAt: x.CreatedAt.Format("2006-01-02T15:04:05Z07:00"), UpdatedAt: x.UpdatedAt.Format("2006-01-02T15:04:05Z07:00"),
	}
	if len(v.Value) == 0 || string(v.Value) == "null" {
		v.Value = json.RawMessage("null")
		v.RawOutput, _ = capText(x.RawOutput, TextCap, "")
	}
	if len(v.ValidationErrors) == 0 {
		v.ValidationErrors = json.RawMessage("[]")
	}
	if m, c := evidenceCounts(x); c.Ungrounded+c.Ambiguous > 0 {
		v.Ungrounded, v.Ambiguous = m.Paths(evidence.Ungrounded), m.Paths(evidence.Ambiguous)
		v.Check = evidenceNote(m, c) + " Compare them with the document's text; fix a wrong value with update_extraction_field (give the reason), or improve the prompt."
	}
	return v
}
