package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

const (
	pResponseFormat = `{"type":["object","string"],"description":"The response_format {type:\"json_schema\", json_schema:{name, schema, strict:true}} (a bare JSON Schema object is wrapped), as an object or a JSON string. Call help_schemas for the rules."}`
	pSchemaID       = `{"type":"string","minLength":1,"description":"Schema id (a schema_revid or the schema's name also works)."}`
	pPromptID       = `{"type":"string","minLength":1,"description":"Prompt id (a prompt_revid or the prompt's name also works)."}`
	pTagID          = `{"type":"string","minLength":1,"description":"Tag id (the tag's name also works)."}`
	pColor          = `{"type":"string","description":"Colour as #RRGGBB; empty for the default."}`
)

func artifactTools() []Tool {
	return []Tool{
		{
			Name:        "get_schema",
			Title:       "Get a schema",
			Description: "Get one schema revision: schema_id, name, version and response_format.",
			Parameters: params([]string{"schema_revid"}, map[string]string{
				"schema_revid": `{"type":"string","minLength":1,"description":"Schema revision id (a schema_id or name gives its latest revision)."}`,
			}),
			Resource: &Resource{Name: "schema", Collection: "schemas", IDParam: "schema_revid", Title: "Schema",
				Description: "A schema (its id, revision id or name): name, version and response_format."},
			Access:    ReadOnly,
			Run:       decodeArgs(getSchema),
			Summarize: summarizer(getSchemaSummary, getSchemaWords, schemaOutcome),
		},
		{
			Name:        "list_schemas",
			Title:       "List schemas",
			Description: "List schemas by name: the latest revision of each, without its response_format (get_schema has it).",
			Parameters:  params(nil, map[string]string{"skip": pSkip, "limit": pLimit, "name_search": pNameSearch}),
			Resource: &Resource{Name: "schemas", Collection: "schemas", Args: map[string]any{"limit": 100}, Title: "Schemas",
				Description: "The schemas by name (latest version of each, without the JSON Schema)."},
			Access:    ReadOnly,
			Run:       decodeArgs(listSchemas),
			Summarize: summarizer(listSummary("List schemas"), listWords, listOutcome("schemas", "schema")),
		},
		{
			Name:        "validate_schema",
			Title:       "Check a schema",
			Description: "Check a schema before create_schema or update_schema. Returns {valid:true, warnings?} or {valid:false, errors:[{path,message}]}; strict-mode problems are warnings.",
			Parameters:  params([]string{"schema"}, map[string]string{"schema": pResponseFormat}),
			Access:      ReadOnly,
			Run:         decodeArgs(validateSchema),
			Summarize:   summarizer(fixedSummary("Check a schema"), validateSchemaWords, validityOutcome),
		},
		{
			Name:        "validate_against_schema",
			Title:       "Check data against a schema",
			Description: "Validate data against a stored schema revision. Returns {valid:true} or {valid:false, errors:[{path,message}]}.",
			Parameters: params([]string{"schema_revid", "data"}, map[string]string{
				"schema_revid": `{"type":"string","minLength":1,"description":"Schema revision id (a schema_id or name uses its latest revision)."}`,
				"data":         `{"description":"The JSON value to validate (an object, or a JSON string holding it)."}`,
			}),
			Access:    ReadOnly,
			Run:       decodeArgs(validateAgainstSchema),
			Summarize: summarizer(validateAgainstSummary, validateAgainstWords, validityOutcome),
		},
		{
			Name:        "get_prompt",
			Title:       "Get a prompt",
			Description: "Get one prompt revision: name, content, linked schema (schema_id, schema_revid, schema_version), model and tags.",
			Parameters: params([]string{"prompt_revid"}, map[string]string{
				"prompt_revid": `{"type":"string","minLength":1,"description":"Prompt revision id (a prompt_id or name gives its latest revision)."}`,
			}),
			Resource: &Resource{Name: "prompt", Collection: "prompts", IDParam: "prompt_revid", Title: "Extraction prompt",
				Description: "An extraction prompt (its id, revision id or name): instructions, schema, model and tags."},
			Access:    ReadOnly,
			Run:       decodeArgs(getPrompt),
			Summarize: summarizer(getPromptSummary, getPromptWords, promptOutcome),
		},
		{
			Name:        "list_prompts",
			Title:       "List prompts",
			Description: "List prompts by name: the latest revision of each, without its content (get_prompt has it). document_id keeps prompts sharing a tag with that document; tag_ids keeps prompts having all of them.",
			Parameters: params(nil, map[string]string{
				"skip": pSkip, "limit": pLimit, "name_search": pNameSearch, "tag_ids": pTagIDs,
				"document_id": `{"type":"string","description":"Keep prompts whose tags include one of this document's tags."}`,
			}),
			Resource: &Resource{Name: "prompts", Collection: "prompts", Args: map[string]any{"limit": 100}, Title: "Extraction prompts",
				Description: "The extraction prompts by name (latest version of each, without the instructions)."},
			Access:    ReadOnly,
			Run:       decodeArgs(listPrompts),
			Summarize: summarizer(listSummary("List prompts"), listWords, listOutcome("prompts", "prompt")),
		},
		{
			Name:        "get_tag",
			Title:       "Get a tag",
			Description: "Get a tag: name, colour, description.",
			Parameters:  params([]string{"tag_id"}, map[string]string{"tag_id": pTagID}),
			Access:      ReadOnly,
			Run:         decodeArgs(getTag),
			Summarize:   summarizer(getTagSummary, tagWords, tagOutcome),
		},
		{
			Name:        "list_tags",
			Title:       "List tags",
			Description: "List tags by name.",
			Parameters:  params(nil, map[string]string{"skip": pSkip, "limit": pLimit, "name_search": pNameSearch}),
			Access:      ReadOnly,
			Run:         decodeArgs(listTags),
			Summarize:   summarizer(fixedSummary("List tags"), listWords, listOutcome("tags", "tag")),
		},
		{
			Name:        "create_schema",
			Title:       "Create a schema",
			Ops:         []string{OpCreate},
			Description: "Create a schema at version 1. Call validate_schema first. A name that exists is an error: use update_schema then.",
			Parameters: params([]string{"name", "response_format"}, map[string]string{
				"name":            `{"type":"string","minLength":1,"description":"Schema name, unique."}`,
				"response_format": pResponseFormat,
			}),
			Access:        ReadWrite,
			Changes:       creates(KindSchema),
			HeadlessLimit: 1,
			Run:           decodeArgs(createSchema),
			Summarize:     summarizer(createSchemaSummary, createSchemaWords),
		},
		{
			Name:        "update_schema",
			Title:       "Make a new version of a schema",
			Ops:         []string{OpUpdate},
			Idempotent:  true,
			Description: "Make a new version of a schema with a new name and/or response_format. Call validate_schema first. Identical content makes no new version.",
			Parameters: params([]string{"schema_id"}, map[string]string{
				"schema_id":       pSchemaID,
				"name":            `{"type":"string","minLength":1,"description":"New name."}`,
				"response_format": pResponseFormat,
			}),
			Access:        ReadWrite,
			Changes:       schemaChange(OpUpdate),
			HeadlessLimit: 2,
			Run:           decodeArgs(updateSchema),
			Summarize:     summarizer(updateSchemaSummary, updateSchemaWords),
		},
		{
			Name:        "delete_schema",
			Title:       "Delete a schema",
			Ops:         []string{OpDelete},
			Idempotent:  true,
			Description: "Delete a schema with all its versions. Refused while the latest revision of a prompt uses it.",
			Parameters:  params([]string{"schema_id"}, map[string]string{"schema_id": pSchemaID}),
			Access:      ReadWrite,
			Changes:     schemaChange(OpDelete),
			Run:         decodeArgs(deleteSchema),
			Summarize:   summarizer(deleteSchemaSummary, deleteSchemaWords),
		},
		{
			Name:        "create_prompt",
			Title:       "Create an extraction prompt",
			Ops:         []string{OpCreate, OpLink},
			Description: "Create an extraction prompt at version 1, linked to a schema. A name that exists is an error: use update_prompt then. Call help_prompts for guidance.",
			Parameters: params([]string{"name", "content"}, map[string]string{
				"name":           `{"type":"string","minLength":1,"description":"Prompt name, unique."}`,
				"content":        `{"type":"string","minLength":1,"description":"The instructions for the extraction."}`,
				"schema_id":      `{"type":"string","description":"Schema to extract with (id or name)."}`,
				"schema_version": `{"type":"integer","minimum":1,"description":"Version of that schema. Default: its latest."}`,
				"model":          `{"type":"string","description":"Model id with its provider, e.g. ollama/qwen3:8b. Default: the configured default."}`,
				"tag_ids":        `{"type":"array","items":{"type":"string"},"description":"Tags of the prompt."}`,
			}),
			Access:        ReadWrite,
			Changes:       withPromptLinks(creates(KindPrompt)),
			HeadlessLimit: 1,
			Run:           decodeArgs(createPrompt),
			Summarize:     summarizer(createPromptSummary, createPromptWords),
		},
		{
			Name:        "update_prompt",
			Title:       "Make a new version of a prompt",
			Ops:         []string{OpUpdate, OpLink},
			Idempotent:  true,
			Description: "Make a new version of a prompt; fields not given carry over. schema_id \"\" unlinks the schema.",
			Parameters: params([]string{"prompt_id"}, map[string]string{
				"prompt_id":      pPromptID,
				"name":           `{"type":"string","minLength":1,"description":"New name."}`,
				"content":        `{"type":"string","minLength":1,"description":"New instructions."}`,
				"schema_id":      `{"type":"string","description":"Schema to link (id or name); \"\" unlinks."}`,
				"schema_version": `{"type":"integer","minimum":1,"description":"Version of the schema. Default: its latest."}`,
				"model":          `{"type":"string","description":"Model id with its provider, e.g. ollama/qwen3:8b; \"\" for the default."}`,
				"tag_ids":        `{"type":"array","items":{"type":"string"},"description":"Tags from now on (replaces them)."}`,
			}),
			Access:        ReadWrite,
			Changes:       withPromptLinks(promptChange(OpUpdate)),
			HeadlessLimit: 2,
			Run:           decodeArgs(updatePrompt),
			Summarize:     summarizer(updatePromptSummary, updatePromptWords),
		},
		{
			Name:        "delete_prompt",
			Title:       "Delete a prompt",
			Ops:         []string{OpDelete},
			Idempotent:  true,
			Description: "Delete a prompt with all its versions; extractions made with it are kept.",
			Parameters:  params([]string{"prompt_id"}, map[string]string{"prompt_id": pPromptID}),
			Access:      ReadWrite,
			Changes:     promptChange(OpDelete),
			Run:         decodeArgs(deletePrompt),
			Summarize:   summarizer(deletePromptSummary, deletePromptWords),
		},
		{
			Name:        "create_tag",
			Title:       "Create a tag",
			Ops:         []string{OpCreate},
			Description: "Create a tag. A name that exists (in any case) is an error.",
			Parameters: params([]string{"name"}, map[string]string{
				"name":        `{"type":"string","minLength":1,"description":"Tag name, unique."}`,
				"color":       pColor,
				"description": `{"type":"string","description":"What the tag means."}`,
			}),
			Access:    ReadWrite,
			Changes:   creates(KindTag),
			Run:       decodeArgs(createTag),
			Summarize: summarizer(createTagSummary, createTagWords),
		},
		{
			Name:        "update_tag",
			Title:       "Change a tag",
			Ops:         []string{OpUpdate},
			Overwrites:  true,
			Idempotent:  true,
			Description: "Change a tag's name, colour or description.",
			Parameters: params([]string{"tag_id"}, map[string]string{
				"tag_id":      pTagID,
				"name":        `{"type":"string","minLength":1,"description":"New name."}`,
				"color":       pColor,
				"description": `{"type":"string","description":"New description."}`,
			}),
			Access:    ReadWrite,
			Changes:   tagChange(OpUpdate),
			Run:       decodeArgs(updateTag),
			Summarize: summarizer(updateTagSummary, updateTagWords),
		},
		{
			Name:        "delete_tag",
			Title:       "Delete a tag",
			Ops:         []string{OpDelete},
			Idempotent:  true,
			Description: "Delete a tag. Refused while documents or prompts use it; the error names them.",
			Parameters:  params([]string{"tag_id"}, map[string]string{"tag_id": pTagID}),
			Access:      ReadWrite,
			Changes:     tagChange(OpDelete),
			Run:         decodeArgs(deleteTag),
			Summarize:   summarizer(deleteTagSummary, tagWords),
		},
	}
}

// ---- schemas

func getSchema(ctx context.Context, env *ToolEnv, a struct {
	SchemaRevID string `json:"schema_revid"`
}) (any, error) {
	return env.DB.FindSchema(ctx, a.SchemaRevID)
}

type schemaSummary struct {
	SchemaID    string    `json:"schema_id"`
	SchemaRevID string    `json:"schema_revid"`
	Name        string    `json:"name"`
	Version     int       `json:"version"`
	CreatedAt   time.Time `json:"created_at"`
}

func listSchemas(ctx context.Context, env *ToolEnv, a struct {
	Skip       int    `json:"skip"`
	Limit      int    `json:"limit"`
	NameSearch string `json:"name_search"`
}) (any, error) {
	revs, total, err := env.DB.ListSchemas(ctx, storage.ListFilter{Skip: a.Skip, Limit: listLimit(a.Limit), NameSearch: a.NameSearch})
	if err != nil {
		return nil, err
	}
	out := make([]schemaSummary, len(revs))
	for i, r := range revs {
		out[i] = schemaSummary{SchemaID: r.SchemaID, SchemaRevID: r.SchemaRevID, Name: r.Name, Version: r.Version, CreatedAt: r.CreatedAt}
	}
	return map[string]any{"schemas": out, "total": total}, nil
}

func validateSchema(ctx context.Context, env *ToolEnv, a struct {
	Schema json.RawMessage `json:"schema"`
}) (any, error) {
	rf, err := schema.Normalize(a.Schema, "schema")
	if err != nil {
		return schema.Report{Valid: false, Errors: []schema.Problem{{Path: "response_format", Message: err.Error()}}}, nil
	}
	return schema.Check(rf), nil
}

func validateAgainstSchema(ctx context.Context, env *ToolEnv, a struct {
	SchemaRevID string          `json:"schema_revid"`
	Data        json.RawMessage `json:"data"`
}) (any, error) {
	srev, err := env.DB.FindSchema(ctx, a.SchemaRevID)
	if err != nil {
		return nil, err
	}
	data := a.Data
	// Models often send the object as a JSON string; the root of a schema is
	// always an object, so a string holding JSON can only mean that.
	var s string
	if json.Unmarshal(data, &s) == nil && json.Valid([]byte(s)) {
		data = json.RawMessage(s)
	}
	valid, problems, err := ValidateValue(ctx, env.DB, srev.SchemaRevID, data)
	if err != nil {
		return nil, err
	}
	if valid {
		return map[string]any{"valid": true}, nil
	}
	return map[string]any{"valid": false, "errors": problems}, nil
}

// resolveSchemaID returns the schema id of an id, revision id or name.
func resolveSchemaID(ctx context.Context, db *storage.DB, idOrName string) (storage.SchemaRevision, error) {
	return db.FindSchema(ctx, strings.TrimSpace(idOrName))
}

func createSchema(ctx context.Context, env *ToolEnv, a struct {
	Name           string          `json:"name"`
	ResponseFormat json.RawMessage `json:"response_format"`
}) (any, error) {
	res, err := CreateSchema(ctx, env.DB, a.Name, a.ResponseFormat)
	if err != nil {
		return nil, err
	}
	env.State.SchemaRevID = res.SchemaRevID
	return withPreview(res, "created schema %s v%d (%s)", res.Name, res.Version, res.SchemaRevID).made(KindSchema, res.SchemaID), nil
}

func updateSchema(ctx context.Context, env *ToolEnv, a struct {
	SchemaID       string          `json:"schema_id"`
	Name           *string         `json:"name"`
	ResponseFormat json.RawMessage `json:"response_format"`
}) (any, error) {
	if a.Name == nil && a.ResponseFormat == nil {
		return nil, fault.Errorf(fault.Invalid, "nothing to change: give name or response_format")
	}
	cur, err := resolveSchemaID(ctx, env.DB, a.SchemaID)
	if err != nil {
		return nil, err
	}
	res, err := UpdateSchema(ctx, env.DB, cur.SchemaID, a.Name, a.ResponseFormat)
	if err != nil {
		return nil, err
	}
	env.State.SchemaRevID = res.SchemaRevID
	if res.NoChanges {
		return withPreview(res, "no changes: schema %s stays at v%d (%s)", res.Name, res.Version, res.SchemaRevID), nil
	}
	return withPreview(res, "updated schema %s to v%d (%s)", res.Name, res.Version, res.SchemaRevID), nil
}

func deleteSchema(ctx context.Context, env *ToolEnv, a struct {
	SchemaID string `json:"schema_id"`
}) (any, error) {
	cur, err := resolveSchemaID(ctx, env.DB, a.SchemaID)
	if err != nil {
		return nil, err
	}
	stateRev := ""
	if env.State.SchemaRevID != "" {
		if r, err := env.DB.GetSchemaRevision(ctx, env.State.SchemaRevID); err == nil {
			stateRev = r.SchemaID
		}
	}
	if err := env.DB.DeleteSchema(ctx, cur.SchemaID); err != nil {
		return nil, err
	}
	if stateRev == cur.SchemaID {
		env.State.SchemaRevID = ""
	}
	return withPreview(map[string]any{"deleted": true, "schema_id": cur.SchemaID, "name": cur.Name},
		"deleted schema %s (%s)", cur.Name, cur.SchemaID), nil
}

// ---- prompts

func getPrompt(ctx context.Context, env *ToolEnv, a struct {
	PromptRevID string `json:"prompt_revid"`
}) (any, error) {
	rev, err := env.DB.FindPrompt(ctx, a.PromptRevID)
	if err != nil {
		return nil, err
	}
	rev.Content, _ = capText(rev.Content, TextCap, "")
	return rev, nil
}

type promptSummary struct {
	PromptID      string    `json:"prompt_id"`
	PromptRevID   string    `json:"prompt_revid"`
	Version       int       `json:"version"`
	Name          string    `json:"name"`
	SchemaID      string    `json:"schema_id,omitempty"`
	SchemaRevID   string    `json:"schema_revid,omitempty"`
	SchemaVersion int       `json:"schema_version,omitempty"`
	Model         string    `json:"model,omitempty"`
	TagIDs        []string  `json:"tag_ids"`
	CreatedAt     time.Time `json:"created_at"`
}

func summarisePrompt(r storage.PromptRevision) promptSummary {
	return promptSummary{
		PromptID: r.PromptID, PromptRevID: r.PromptRevID, Version: r.Version, Name: r.Name,
		SchemaID: r.SchemaID, SchemaRevID: r.SchemaRevID, SchemaVersion: r.SchemaVersion,
		Model: r.Model, TagIDs: r.TagIDs, CreatedAt: r.CreatedAt,
	}
}

func listPrompts(ctx context.Context, env *ToolEnv, a struct {
	Skip       int      `json:"skip"`
	Limit      int      `json:"limit"`
	NameSearch string   `json:"name_search"`
	DocumentID string   `json:"document_id"`
	TagIDs     []string `json:"tag_ids"`
}) (any, error) {
	limit := listLimit(a.Limit)
	f := storage.PromptFilter{Skip: a.Skip, Limit: limit, NameSearch: a.NameSearch, TagIDs: a.TagIDs}
	if strings.TrimSpace(a.DocumentID) == "" {
		revs, total, err := env.DB.ListPrompts(ctx, f)
		if err != nil {
			return nil, err
		}
		return promptList(revs, total), nil
	}
	// A document filter is "shares a tag with the document", which the
	// store does not do: read every match and page here.
	doc, err := env.DB.GetDocument(ctx, strings.TrimSpace(a.DocumentID))
	if err != nil {
		return nil, err
	}
	var matched []storage.PromptRevision
	for skip := 0; ; skip += 100 {
		f.Skip, f.Limit = skip, 100
		revs, total, err := env.DB.ListPrompts(ctx, f)
		if err != nil {
			return nil, err
		}
		for _, r := range revs {
			if slices.ContainsFunc(r.TagIDs, func(t string) bool { return slices.Contains(doc.TagIDs, t) }) {
				matched = append(matched, r)
			}
		}
		if skip+len(revs) >= total || len(revs) == 0 {
			break
		}
	}
	total := len(matched)
	start := min(a.Skip, total)
	end := min(start+limit, total)
	return promptList(matched[start:end], total), nil
}

func promptList(revs []storage.PromptRevision, total int) map[string]any {
	out := make([]promptSummary, len(revs))
	for i, r := range revs {
		out[i] = summarisePrompt(r)
	}
	return map[string]any{"prompts": out, "total": total}
}

func createPrompt(ctx context.Context, env *ToolEnv, a struct {
	Name          string   `json:"name"`
	Content       string   `json:"content"`
	SchemaID      string   `json:"schema_id"`
	SchemaVersion int      `json:"schema_version"`
	Model         string   `json:"model"`
	TagIDs        []string `json:"tag_ids"`
}) (any, error) {
	// A call a person approved chooses the prompt for its kind; an
	// unattended run's (env.Scope) never does: its prompt waits for the
	// proposal to be accepted.
	np := storage.NewPrompt{Name: a.Name, Content: a.Content, SchemaVersion: a.SchemaVersion, Model: strings.TrimSpace(a.Model), TagIDs: a.TagIDs,
		ForKind: env.Scope == nil}
	if strings.TrimSpace(a.SchemaID) != "" {
		s, err := resolveSchemaID(ctx, env.DB, a.SchemaID)
		if err != nil {
			return nil, err
		}
		np.SchemaID = s.SchemaID
	} else if a.SchemaVersion != 0 {
		return nil, fault.Errorf(fault.Invalid, "schema_version needs schema_id")
	}
	rev, err := CreatePrompt(ctx, env.DB, np)
	if err != nil {
		return nil, err
	}
	env.State.PromptRevID = rev.PromptRevID
	return withPreview(rev, "created prompt %s v%d (%s)", rev.Name, rev.Version, rev.PromptRevID).made(KindPrompt, rev.PromptID), nil
}

func updatePrompt(ctx context.Context, env *ToolEnv, a struct {
	PromptID      string    `json:"prompt_id"`
	Name          *string   `json:"name"`
	Content       *string   `json:"content"`
	SchemaID      *string   `json:"schema_id"`
	SchemaVersion *int      `json:"schema_version"`
	Model         *string   `json:"model"`
	TagIDs        *[]string `json:"tag_ids"`
}) (any, error) {
	if a.Name == nil && a.Content == nil && a.SchemaID == nil && a.SchemaVersion == nil && a.Model == nil && a.TagIDs == nil {
		return nil, fault.Errorf(fault.Invalid, "nothing to change: give name, content, schema_id, schema_version, model or tag_ids")
	}
	cur, err := env.DB.FindPrompt(ctx, strings.TrimSpace(a.PromptID))
	if err != nil {
		return nil, err
	}
	p := storage.PromptPatch{Name: a.Name, Content: a.Content, SchemaVersion: a.SchemaVersion, Model: a.Model, TagIDs: a.TagIDs,
		ForKind: env.Scope == nil}
	if a.SchemaID != nil {
		id := strings.TrimSpace(*a.SchemaID)
		if id != "" {
			s, err := resolveSchemaID(ctx, env.DB, id)
			if err != nil {
				return nil, err
			}
			id = s.SchemaID
		}
		p.SchemaID = &id
	}
	rev, noChanges, err := UpdatePrompt(ctx, env.DB, cur.PromptID, p)
	if err != nil {
		return nil, err
	}
	env.State.PromptRevID = rev.PromptRevID
	res := struct {
		storage.PromptRevision
		NoChanges bool `json:"no_changes,omitempty"`
	}{rev, noChanges}
	if noChanges {
		return withPreview(res, "no changes: prompt %s stays at v%d (%s)", rev.Name, rev.Version, rev.PromptRevID), nil
	}
	return withPreview(res, "updated prompt %s to v%d (%s)", rev.Name, rev.Version, rev.PromptRevID), nil
}

func deletePrompt(ctx context.Context, env *ToolEnv, a struct {
	PromptID string `json:"prompt_id"`
}) (any, error) {
	cur, err := env.DB.FindPrompt(ctx, strings.TrimSpace(a.PromptID))
	if err != nil {
		return nil, err
	}
	statePrompt := ""
	if env.State.PromptRevID != "" {
		if r, err := env.DB.GetPromptRevision(ctx, env.State.PromptRevID); err == nil {
			statePrompt = r.PromptID
		}
	}
	if err := env.DB.DeletePrompt(ctx, cur.PromptID); err != nil {
		return nil, err
	}
	if statePrompt == cur.PromptID {
		env.State.PromptRevID = ""
	}
	return withPreview(map[string]any{"deleted": true, "prompt_id": cur.PromptID, "name": cur.Name},
		"deleted prompt %s (%s)", cur.Name, cur.PromptID), nil
}

// ---- tags

func getTag(ctx context.Context, env *ToolEnv, a struct {
	TagID string `json:"tag_id"`
}) (any, error) {
	return env.DB.FindTag(ctx, strings.TrimSpace(a.TagID))
}

func listTags(ctx context.Context, env *ToolEnv, a struct {
	Skip       int    `json:"skip"`
	Limit      int    `json:"limit"`
	NameSearch string `json:"name_search"`
}) (any, error) {
	tags, err := env.DB.ListTags(ctx)
	if err != nil {
		return nil, err
	}
	if q := strings.ToLower(strings.TrimSpace(a.NameSearch)); q != "" {
		tags = slices.DeleteFunc(tags, func(t storage.Tag) bool { return !strings.Contains(strings.ToLower(t.Name), q) })
	}
	total := len(tags)
	start := min(a.Skip, total)
	end := min(start+listLimit(a.Limit), total)
	return map[string]any{"tags": tags[start:end], "total": total}, nil
}

func createTag(ctx context.Context, env *ToolEnv, a struct {
	Name        string `json:"name"`
	Color       string `json:"color"`
	Description string `json:"description"`
}) (any, error) {
	tag, err := env.DB.CreateTag(ctx, storage.NewTag{Name: a.Name, Color: a.Color, Description: a.Description})
	if err != nil {
		return nil, err
	}
	return withPreview(tag, "created tag %s (%s)", tag.Name, tag.ID).made(KindTag, tag.ID), nil
}

func updateTag(ctx context.Context, env *ToolEnv, a struct {
	TagID       string  `json:"tag_id"`
	Name        *string `json:"name"`
	Color       *string `json:"color"`
	Description *string `json:"description"`
}) (any, error) {
	if a.Name == nil && a.Color == nil && a.Description == nil {
		return nil, fault.Errorf(fault.Invalid, "nothing to change: give name, color or description")
	}
	cur, err := env.DB.FindTag(ctx, strings.TrimSpace(a.TagID))
	if err != nil {
		return nil, err
	}
	tag, err := env.DB.UpdateTag(ctx, cur.ID, storage.TagPatch{Name: a.Name, Color: a.Color, Description: a.Description})
	if err != nil {
		return nil, err
	}
	return withPreview(tag, "updated tag %s (%s)", tag.Name, tag.ID), nil
}

func deleteTag(ctx context.Context, env *ToolEnv, a struct {
	TagID string `json:"tag_id"`
}) (any, error) {
	cur, err := env.DB.FindTag(ctx, strings.TrimSpace(a.TagID))
	if err != nil {
		return nil, err
	}
	if err := env.DB.DeleteTag(ctx, cur.ID); err != nil {
		return nil, err
	}
	return withPreview(map[string]any{"deleted": true, "tag_id": cur.ID, "name": cur.Name}, "deleted tag %s (%s)", cur.Name, cur.ID), nil
}
