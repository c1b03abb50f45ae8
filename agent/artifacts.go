// Package agent is Docent's document agent: model providers (agent/provider),
// schema checks (agent/schema), and the use cases that the agent's tools, the
// CLI and the HTTP API share, such as saving a schema only after it has been
// checked. It emits events through interfaces and knows nothing of HTTP or
// Wails.
package agent

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// SchemaResult is a saved schema revision with what the check found.
type SchemaResult struct {
	storage.SchemaRevision
	// Warnings are strict-mode problems: the schema was saved, but models
	// may fill it less reliably.
	Warnings []schema.Problem `json:"warnings,omitempty"`
	// NoChanges is true when an update matched the latest revision, so no
	// new version was made.
	NoChanges bool `json:"no_changes,omitempty"`
}

// CreateSchema checks raw (a response_format or a bare JSON Schema) and saves
// it as version 1 of a new schema. An invalid schema is an ErrInvalid error
// listing every problem, so that a person or a model can fix them all at once.
func CreateSchema(ctx context.Context, db *storage.DB, name string, raw json.RawMessage) (SchemaResult, error) {
	rf, report, err := checkedSchema(raw, name)
	if err != nil {
		return SchemaResult{}, err
	}
	rev, err := db.CreateSchema(ctx, name, mustJSON(rf))
	if err != nil {
		return SchemaResult{}, err
	}
	return SchemaResult{SchemaRevision: rev, Warnings: report.Warnings}, nil
}

// UpdateSchema checks raw, when given, and saves a new version of the schema.
func UpdateSchema(ctx context.Context, db *storage.DB, schemaID string, name *string, raw json.RawMessage) (SchemaResult, error) {
	var warnings []schema.Problem
	if raw != nil {
		base := ""
		if name != nil {
			base = *name
		} else if cur, err := db.GetSchema(ctx, schemaID); err == nil {
			base = cur.Name
		}
		rf, report, err := checkedSchema(raw, base)
		if err != nil {
			return SchemaResult{}, err
		}
		raw, warnings = mustJSON(rf), report.Warnings
	}
	rev, noChanges, err := db.UpdateSchema(ctx, schemaID, name, raw)
	if err != nil {
		return SchemaResult{}, err
	}
	return SchemaResult{SchemaRevision: rev, Warnings: warnings, NoChanges: noChanges}, nil
}

// CreatePrompt saves a new prompt after checking its model id, as the
// settings' default model is checked: "" (the default) or a
// provider-prefixed id such as ollama/qwen3:8b. The agent's tool, the HTTP
// route and the CLI all create prompts through here.
func CreatePrompt(ctx context.Context, db *storage.DB, np storage.NewPrompt) (storage.PromptRevision, error) {
	if err := checkModel(&np.Model); err != nil {
		return storage.PromptRevision{}, err
	}
	return db.CreatePrompt(ctx, np)
}

// UpdatePrompt is CreatePrompt's counterpart for a new version.
func UpdatePrompt(ctx context.Context, db *storage.DB, promptID string, p storage.PromptPatch) (storage.PromptRevision, bool, error) {
	if err := checkModel(p.Model); err != nil {
		return storage.PromptRevision{}, false, err
	}
	return db.UpdatePrompt(ctx, promptID, p)
}

// checkModel checks the form of a model id a prompt names.
func checkModel(model *string) error {
	if model == nil || strings.TrimSpace(*model) == "" {
		return nil
	}
	if _, _, err := provider.ParseModelID(*model); err != nil {
		return fault.Errorf(fault.Invalid, "%v", err).On("model")
	}
	return nil
}

// checkedSchema normalises and checks a schema before it is saved.
func checkedSchema(raw json.RawMessage, name string) (schema.ResponseFormat, schema.Report, error) {
	rf, err := schema.Normalize(raw, name)
	if err != nil {
		return rf, schema.Report{}, fault.Errorf(fault.Invalid, "invalid schema: %v", err).On("response_format")
	}
	report := schema.Check(rf)
	if !report.Valid {
		return rf, report, fault.Errorf(fault.Invalid, "invalid schema: %s", problemList(report.Errors)).On("response_format")
	}
	return rf, report, nil
}

// problemList renders problems on one line each, for error messages.
func problemList(ps []schema.Problem) string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Path + ": " + p.Message
	}
	return strings.Join(lines, "; ")
}

// mustJSON encodes a value made of plain fields, which cannot fail.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
