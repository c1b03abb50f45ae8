package agent

import (
	"context"
	"encoding/json"

	"github.com/docent/docent/storage"
)

func schemaChange(op string) func(context.Context, *ToolEnv, json.RawMessage) ([]Change, error) {
	return artifactChange(KindSchema, op, "schema_id", func(ctx context.Context, db *storage.DB, ref string) (string, string, error) {
		s, err := db.FindSchema(ctx, ref)
		return s.SchemaID, s.Name, err
	})
}

func promptChange(op string) func(context.Context, *ToolEnv, json.RawMessage) ([]Change, error) {
	return artifactChange(KindPrompt, op, "prompt_id", func(ctx context.Context, db *storage.DB, ref string) (string, string, error) {
		p, err := db.FindPrompt(ctx, ref)
		return p.PromptID, p.Name, err
	})
}
