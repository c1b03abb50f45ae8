package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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

// extractionRun is run_extraction's change: a new extraction of the
// current document.
func extractionRun(_ context.Context, env *ToolEnv, _ json.RawMessage) ([]Change, error) {
	id, err := env.documentID("")
	if err != nil {
		return nil, err
	}
	return []Change{{Kind: KindExtraction, Op: OpCreate, DocumentID: id}}, nil
}

// extractionEdit is update_extraction_field's change: the extraction edits
// apply to.
func extractionEdit(ctx context.Context, env *ToolEnv, _ json.RawMessage) ([]Change, error) {
	x, err := env.currentExtraction(ctx)
	if err != nil {
		return nil, err
	}
	return []Change{{Kind: KindExtraction, Op: OpUpdate, ID: x.ID, DocumentID: x.DocumentID}}, nil
}

func extractionResultWords(a args, n names) string {
	if r := argString(a, "prompt_revid"); r != "" {
		return "of prompt " + n.promptWords(r, true)
	}
	return ""
}

func extractionOutcome(r args) string {
	x, ok := schema.AsObject(r.Val("extraction"))
	if !ok {
		return ""
	}
	return extractionWords(x)
}

// extractionWords says how an extraction went: its validation, and the
// values the document does not show.
func extractionWords(x args) string {
	status, _ := x.Val("validation_status").(string)
	words := cmp.Or(status, "not validated")
	if status == storage.ValidationInvalid {
		if p := problemWords(x.Val("validation_errors")); p != "" {
			words += " (" + p + ")"
		}
	}
	if x.Val("value") == nil {
		words += ", the model's output is not JSON"
	}
	if edited, _ := x.Val("edited").(bool); edited {
		words += ", edited"
	}
	paths := func(k string) (int, string) {
		items := stringItems(x.Val(k))
		shown := items
		if len(shown) > 5 {
			shown = append(shown[:5:5], "…")
		}
		return len(items), strings.Join(shown, ", ")
	}
	if n, list := paths("ungrounded"); n > 0 {
		words += fmt.Sprintf(", %s not found in the document (%s)", textfmt.Count(n, "value"), list)
	}
	if n, list := paths("ambiguous"); n > 0 {
		words += fmt.Sprintf(", %s found in several places (%s)", textfmt.Count(n, "value"), list)
	}
	return words
}

func runExtractionSummary(a args, n names) Summary {
	r := argString(a, "prompt_revid")
	cur, known := n.Prompt(r) // "" is the conversation's prompt
	s := titled("Run the conversation's prompt on this document")
	switch {
	case known:
		s.Title = fmt.Sprintf("Run prompt %s on this document", label(cur.Name, cur.Version))
	case r != "":
		s.Title = fmt.Sprintf("Run prompt %s on this document", quoted(r))
	}
	if known {
		schemaValue := "none (free-form JSON)"
		if cur.SchemaID != "" {
			schemaValue = n.schemaRef(cur.SchemaID, cur.SchemaVersion)
		}
		s.Props = append(s.Props, SummaryProp{Label: "Schema", Value: schemaValue}, SummaryProp{Label: "Model", Value: cmp.Or(cur.Model, "default")})
	}
	s.Notes = append(s.Notes, "The result becomes this document's current extraction.")
	return s
}

func runExtractionWords(a args, n names) string {
	if r := argString(a, "prompt_revid"); r != "" {
		return "with prompt " + n.promptWords(r, true)
	}
	if p, ok := n.Prompt(""); ok {
		return "with the conversation's prompt " + refWords(p.Name, p.Version)
	}
	return "with the conversation's prompt"
}

func updateFieldSummary(a args, n names) Summary {
	path, ok := str(a.Val("path"))
	if !ok {
		path = "(no path)"
	}
	value, present := a.Get("value")
	p := SummaryProp{Label: path, Value: formatValue(value, present), Mono: true}
	s := Summary{Title: fmt.Sprintf("Change %s in the extraction", path), Form: "value"}
	if x, known := n.Extraction(); known && ok {
		if root, err := schema.ParseOrdered(x.Value); err == nil || len(x.Value) == 0 {
			v, found := valueAt(root, path)
			p.From = new(formatValue(v, found))
			s.Now = &SummaryNow{Found: found}
			if found {
				s.Now.Value = json.RawMessage(schema.Compact(v))
			}
		}
	}
	s.Props = []SummaryProp{p}
	return s
}

func updateFieldWords(a args, _ names) string {
	value := "null"
	if v, ok := a.Get("value"); ok {
		value = textfmt.Shorten(schema.Compact(v), 60)
	}
	return fmt.Sprintf("%s = %s", cmp.Or(argString(a, "path"), "(no path)"), value)
}

// valueAt is the value at a path of an extraction, as
// update_extraction_field names it: dotted (line_items.0.amount) or a JSON
// pointer (/line_items/0/amount); found is false when it is not set.
func valueAt(root any, path string) (any, bool) {
	p := strings.TrimSpace(path)
	var parts []string
	if strings.HasPrefix(p, "/") {
		for _, s := range strings.Split(p[1:], "/") {
			parts = append(parts, strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~"))
		}
	} else {
		for _, s := range strings.Split(p, ".") {
			if s != "" {
				parts = append(parts, s)
			}
		}
	}
	cur := root
	for _, k := range parts {
		switch x := cur.(type) {
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) || strings.TrimLeft(k, "0123456789") != "" {
				return nil, false
			}
			cur = x[i]
		case *schema.Object:
			v, ok := x.Get(k)
			if !ok {
				return nil, false
			}
			cur = v
		default:
			return nil, false
		}
	}
	return cur, true
}
