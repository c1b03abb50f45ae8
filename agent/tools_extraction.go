package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

func extractionTools() []Tool {
	return []Tool{
		{
			Name:        "get_extraction_result",
			Title:       "Get a document's extraction",
			OnDocument:  true,
			Description: "Get the current extraction of the current document: the working state's, else the newest stored one (made with prompt_revid when given).",
			Parameters: params(nil, map[string]string{
				"prompt_revid": `{"type":"string","description":"Prompt revision whose extraction to get. Default: the working state's extraction, else the newest."}`,
			}),
			Access:    ReadOnly,
			Run:       decodeArgs(getExtractionResult),
			Summarize: summarizer(fixedSummary("Read the current extraction"), extractionResultWords, extractionOutcome),
		},
		{
			Name:        "run_extraction",
			Title:       "Extract a document with a prompt",
			OnDocument:  true,
			Ops:         []string{OpCreate},
			Description: "Run an extraction prompt on the current document with the prompt's schema as structured output; the result is validated and stored, and becomes the current extraction.",
			Parameters: params(nil, map[string]string{
				"prompt_revid": `{"type":"string","description":"Prompt revision to run (a prompt_id or name runs its latest). Default: the working state's prompt_revid."}`,
			}),
			Access:            ReadWrite,
			Changes:           extractionRun,
			HeadlessLimit:     3,
			CallsModel:        true,
			ChangesExtraction: true,
			Run:               decodeArgs(runExtraction),
			Summarize:         summarizer(runExtractionSummary, runExtractionWords, extractionOutcome),
		},
		{
			Name:        "update_extraction_field",
			Title:       "Correct one extracted field",
			OnDocument:  true,
			Ops:         []string{OpUpdate},
			Overwrites:  true,
			Idempotent:  true,
			Description: "Set one field of the current extraction and store it as edited (the model's original output is kept); the value is validated again against the schema. Say why in reason: the person approving reads it.",
			Parameters: params([]string{"path", "value"}, map[string]string{
				"path":   `{"type":"string","minLength":1,"description":"Dot-separated path; numbers index arrays, e.g. line_items.0.amount."}`,
				"value":  `{"description":"The new value: any JSON (string, number, object, array, boolean or null)."}`,
				"reason": `{"type":"string","description":"Why the value changes, e.g. what the document shows on which page (the old value was not found in it)."}`,
			}),
			Access:            ReadWrite,
			Changes:           extractionEdit,
			ChangesExtraction: true,
			Run:               decodeArgs(updateExtractionField),
			Summarize:         summarizer(updateFieldSummary, updateFieldWords),
		},
	}
}

type extractionResult struct {
	Extraction  extractionView `json:"extraction"`
	PromptRevID string         `json:"prompt_revid"`
	SchemaRevID string         `json:"schema_revid,omitempty"`
}

func getExtractionResult(ctx context.Context, env *ToolEnv, a struct {
	PromptRevID string `json:"prompt_revid"`
}) (any, error) {
	docID, err := env.documentID("")
	if err != nil {
		return nil, err
	}
	want := strings.TrimSpace(a.PromptRevID)
	if x := env.State.Extraction; x != nil && x.DocumentID == docID && (want == "" || want == x.PromptRevID) {
		return extractionResult{Extraction: viewExtraction(*x), PromptRevID: x.PromptRevID}, nil
	}
	if want != "" {
		p, err := env.DB.FindPrompt(ctx, want)
		if err != nil {
			return nil, err
		}
		want = p.PromptRevID
	}
	x, err := env.DB.LatestExtraction(ctx, docID, want)
	if err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			if want != "" {
				return nil, fault.Errorf(fault.NotFound, "no extraction of this document with prompt revision %s; run_extraction makes one", want)
			}
			return nil, fault.Errorf(fault.NotFound, "this document has no extraction yet; run_extraction makes one")
		}
		return nil, err
	}
	return extractionResult{Extraction: viewExtraction(x), PromptRevID: x.PromptRevID}, nil
}

func runExtraction(ctx context.Context, env *ToolEnv, a struct {
	PromptRevID string `json:"prompt_revid"`
}) (any, error) {
	if env.Extractor == nil {
		return nil, fault.Errorf(fault.Invalid, "extraction is not available here: no model providers are configured")
	}
	docID, err := env.documentID("")
	if err != nil {
		return nil, err
	}
	id := strings.TrimSpace(a.PromptRevID)
	if id == "" {
		id = env.State.PromptRevID
	}
	if id == "" {
		return nil, fault.Errorf(fault.Invalid, "no prompt_revid given and none in the working state: pass prompt_revid (list_prompts finds one, create_prompt makes one)")
	}
	prompt, err := env.DB.FindPrompt(ctx, id)
	if err != nil {
		return nil, err
	}
	x, err := env.Extractor.Run(ctx, ExtractRequest{DocumentID: docID, PromptRevID: prompt.PromptRevID})
	if err != nil {
		return nil, err
	}
	env.State.setExtraction(x)
	env.State.PromptRevID = prompt.PromptRevID
	if prompt.SchemaRevID != "" {
		env.State.SchemaRevID = prompt.SchemaRevID
	}
	res := extractionResult{Extraction: viewExtraction(x), PromptRevID: prompt.PromptRevID, SchemaRevID: prompt.SchemaRevID}
	return withPreview(res, "extracted with prompt %s v%d: %s (%s)", prompt.Name, prompt.Version, x.ValidationStatus, x.ID).made(KindExtraction, x.ID), nil
}

// currentExtraction is the extraction field edits apply to: the working
// state's, else the newest of the current document.
func (env *ToolEnv) currentExtraction(ctx context.Context) (storage.Extraction, error) {
	if x := env.State.Extraction; x != nil {
		return *x, nil
	}
	docID, err := env.documentID("")
	if err != nil {
		return storage.Extraction{}, err
	}
	x, err := env.DB.LatestExtraction(ctx, docID, "")
	if errors.Is(err, storage.ErrNotFound) {
		return x, fault.Errorf(fault.NotFound, "this document has no extraction to edit; run_extraction makes one")
	}
	return x, err
}

func updateExtractionField(ctx context.Context, env *ToolEnv, a struct {
	Path   string          `json:"path"`
	Value  json.RawMessage `json:"value"`
	Reason string          `json:"reason"` // shown with the call for approval; not stored
}) (any, error) {
	cur, err := env.currentExtraction(ctx)
	if err != nil {
		return nil, err
	}
	value := a.Value
	if len(value) == 0 {
		value = json.RawMessage("null")
	}
	path := strings.TrimSpace(a.Path)
	x, schemaRevID, err := PatchExtractionField(ctx, env.DB, cur.ID, path, value)
	if err != nil {
		if errors.Is(err, storage.ErrInvalid) {
			return nil, fault.Errorf(fault.Invalid, "cannot set %s: %s", path, fault.ErrorMessage(err))
		}
		return nil, err
	}
	env.State.setExtraction(x)
	res := extractionResult{Extraction: viewExtraction(x), PromptRevID: x.PromptRevID, SchemaRevID: schemaRevID}
	return withPreview(res, "set %s = %s (%s)", a.Path, previewValue(value), x.ValidationStatus), nil
}

// previewValue shortens a JSON value for a one-line preview.
func previewValue(v json.RawMessage) string {
	return textfmt.Shorten(strings.Join(strings.Fields(string(v)), " "), 60)
}

// PatchExtractionField sets one field of an extraction (a JSON pointer or
// dotted path), keeping the original value, and validates the edited value
// against the schema of the prompt that made it, recording the outcome. It
// returns that schema revision too ("" when the prompt or its schema is
// gone and nothing was checked). The agent's update_extraction_field and
// the HTTP API's field edit both go through here.
func PatchExtractionField(ctx context.Context, db *storage.DB, extractionID, path string, value json.RawMessage) (storage.Extraction, string, error) {
	x, err := db.PatchExtractionField(ctx, extractionID, path, value)
	if err != nil {
		return x, "", err
	}
	schemaRevID := ""
	if x.PromptRevID != "" {
		if p, err := db.GetPromptRevision(ctx, x.PromptRevID); err == nil {
			schemaRevID = p.SchemaRevID
		}
	}
	if schemaRevID == "" {
		return x, "", nil
	}
	valid, problems, err := ValidateValue(ctx, db, schemaRevID, x.Value)
	if err != nil {
		return x, schemaRevID, err
	}
	status := storage.ValidationValid
	if !valid {
		status = storage.ValidationInvalid
	}
	if problems == nil {
		problems = []schema.Problem{}
	}
	x, err = db.SetExtractionValidation(ctx, x.ID, status, mustJSON(problems))
	return x, schemaRevID, err
}

// CheckExtractionField refuses a person's edit whose value does not match
// the schema of the prompt that made the extraction at the edited path
// (the data view's cell edit): the error carries the schema's message and
// nothing is stored. Problems elsewhere in the value do not refuse it.
func CheckExtractionField(ctx context.Context, db *storage.DB, x storage.Extraction, path string, value json.RawMessage) error {
	if x.PromptRevID == "" {
		return nil
	}
	p, err := db.GetPromptRevision(ctx, x.PromptRevID)
	if err != nil || p.SchemaRevID == "" {
		return nil // nothing to check against, as PatchExtractionField
	}
	next, err := storage.SetJSONPath(x.Value, path, value)
	if err != nil {
		return nil // PatchExtractionField reports a bad path
	}
	_, problems, err := ValidateValue(ctx, db, p.SchemaRevID, next)
	if err != nil {
		return err
	}
	ptr := path
	if !strings.HasPrefix(ptr, "/") {
		ptr = "/" + strings.NewReplacer("[", "/", "]", "", ".", "/").Replace(path)
	}
	var here []schema.Problem
	for _, pr := range problems {
		if pr.Path == ptr || strings.HasPrefix(pr.Path, ptr+"/") {
			here = append(here, pr)
		}
	}
	if len(here) > 0 {
		return fault.Errorf(fault.Invalid, "cannot set %s: %s", path, problemList(here))
	}
	return nil
}
