package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

const (
	pResponseFormat = `{"type":["object","string"],"description":"The response_format {type:\"json_schema\", json_schema:{name, schema, strict:true}} (a bare JSON Schema object is wrapped), as an object or a JSON string. Call help_schemas for the rules."}`
)

// The schema tools: read, list and check schemas, and write them (a
// versioned artifact, tools_versioned.go).
func schemaTools() []Tool {
	return []Tool{
		schemaArtifact.getter("get_schema", "Get a schema", getSchema, summarizer(getSchemaSummary, getSchemaWords, schemaOutcome),
			"Get one schema revision: schema_id, name, version and response_format.",
			"A schema (its id, revision id or name): name, version and response_format."),
		schemaArtifact.lister(params(nil, map[string]string{"skip": pSkip, "limit": pLimit, "name_search": pNameSearch}), "list_schemas",
			"List schemas by name: the latest revision of each, without its response_format (get_schema has it).",
			"The schemas by name (latest version of each, without the JSON Schema).", decodeArgs(listSchemas)),
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
		schemaArtifact.writer(OpCreate, Tool{
			Name:        "create_schema",
			Title:       "Create a schema",
			Description: "Create a schema at version 1. Call validate_schema first. A name that exists is an error: use update_schema then.",
			Parameters:  schemaArtifact.createParameters([]string{"response_format"}, map[string]string{"response_format": pResponseFormat}),
			Run:         decodeArgs(createSchema),
			Summarize:   summarizer(createSchemaSummary, createSchemaWords),
		}),
		schemaArtifact.writer(OpUpdate, Tool{
			Name:        "update_schema",
			Title:       "Make a new version of a schema",
			Description: "Make a new version of a schema with a new name and/or response_format. Call validate_schema first. Identical content makes no new version.",
			Parameters:  schemaArtifact.updateParameters(map[string]string{"response_format": pResponseFormat}),
			Run:         decodeArgs(updateSchema),
			Summarize:   summarizer(updateSchemaSummary, updateSchemaWords),
		}),
		schemaArtifact.deleter("delete_schema", "Delete a schema", summarizer(deleteSchemaSummary, deleteSchemaWords),
			"Delete a schema with all its versions. Refused while the latest revision of a prompt uses it."),
	}
}

func getSchema(ctx context.Context, db *storage.DB, ref string) (any, error) {
	return db.FindSchema(ctx, ref)
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
	return schemaArtifact.wrote(env, res, schemaRevision(res.SchemaRevision), OpCreate, false), nil
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
	return schemaArtifact.wrote(env, res, schemaRevision(res.SchemaRevision), OpUpdate, res.NoChanges), nil
}

// schemaRevision is a schema revision as a versioned artifact's.
func schemaRevision(r storage.SchemaRevision) revisionRef {
	return revisionRef{ID: r.SchemaID, RevID: r.SchemaRevID, Name: r.Name, Version: r.Version}
}

func getSchemaSummary(a args, n names) Summary {
	if r := argString(a, "schema_revid"); r != "" {
		return titled("Read schema " + n.schemaRef(r, 0))
	}
	return titled("Read a schema")
}

func getSchemaWords(a args, n names) string { return n.schemaRevWords(argString(a, "schema_revid")) }

func schemaOutcome(r args) string {
	words := refWords(text(r, "name"), num(r, "version"))
	if f := fieldCount(r.Val("response_format")); f != nil {
		words += ", " + f[0]
	}
	return words
}

func validateSchemaWords(a args, _ names) string {
	if f := fieldCount(a.Val("schema")); f != nil {
		return "(" + f[0] + ")"
	}
	return ""
}

func validityOutcome(r args) string {
	if valid, _ := r.Val("valid").(bool); !valid {
		if p := problemWords(r.Val("errors")); p != "" {
			return "invalid: " + p
		}
		return "invalid"
	}
	if p := problemWords(r.Val("warnings")); p != "" {
		return "valid, with warnings: " + p
	}
	return "valid"
}

func validateAgainstSummary(a args, n names) Summary {
	if r := argString(a, "schema_revid"); r != "" {
		return titled("Check data against schema " + n.schemaRef(r, 0))
	}
	return titled("Check data against a schema")
}

func validateAgainstWords(a args, n names) string {
	return "against " + n.schemaRevWords(argString(a, "schema_revid"))
}

func createSchemaSummary(a args, _ names) Summary {
	name := orUnnamed(a, "name")
	f, err := schema.TopFields(a.Val("response_format"))
	if err != nil {
		return Summary{Title: "Create schema " + quoted(name), Fields: &SummaryFields{Label: "Fields", Error: err.Error()}, Form: "schema"}
	}
	return Summary{
		Title:  fmt.Sprintf("Create schema %s with %s", quoted(name), textfmt.Count(len(f), "field")),
		Fields: &SummaryFields{Label: "Fields", Rows: fieldRows(f, 0, "")},
		Form:   "schema",
	}
}

func createSchemaWords(a args, _ names) string {
	return paren(qname(orUnnamed(a, "name")), fieldCount(a.Val("response_format")))
}

func updateSchemaSummary(a args, n names) Summary {
	r := argString(a, "schema_id")
	cur, known := n.latestSchema(r)
	s := Summary{Title: schemaArtifact.updateTitle(n.schemaRef(r, 0), cur.Name, cur.Version, known), Form: "schema"}
	if known {
		s.Now = &SummaryNow{Name: cur.Name, ResponseFormat: cur.ResponseFormat}
	}
	newName, hasName, _ := s.rename(a, known, cur.Name)
	if a.Val("response_format") == nil {
		s.Notes = append(s.Notes, "The fields stay as they are.")
		if known && (!hasName || newName == cur.Name) {
			s.Notes = append(s.Notes, fmt.Sprintf("Nothing changes: the schema stays at v%d.", cur.Version))
		}
		return s
	}
	after, err := schema.TopFields(a.Val("response_format"))
	if err != nil {
		s.Fields = &SummaryFields{Label: "Fields of the new version", Error: err.Error()}
		return s
	}
	var before []schema.Field
	if known {
		before, err = schema.TopFields(schema.RootOf(cur.ResponseFormat))
	}
	if !known || err != nil {
		s.Fields = &SummaryFields{Label: "Fields of the new version", Rows: fieldRows(after, 0, "")}
		return s
	}
	rows := diffFields(before, after, 0, "")
	s.Fields = &SummaryFields{Label: fmt.Sprintf("Field changes against v%d", cur.Version), Rows: rows, Diff: true}
	s.Notes = append(s.Notes, cmp.Or(changeCounts(rows), "The fields do not change."))
	return s
}

func updateSchemaWords(a args, n names) string {
	var parts []string
	if v := argString(a, "name"); v != "" {
		parts = append(parts, "new name "+qname(v))
	}
	if a.Val("response_format") != nil {
		parts = append(parts, fieldCount(a.Val("response_format"))...)
	}
	return paren(n.schemaWords(argString(a, "schema_id"), 0), parts)
}

func deleteSchemaSummary(a args, n names) Summary {
	r := argString(a, "schema_id")
	cur, known := n.latestSchema(r)
	s := titled(schemaArtifact.deleteTitle(n.schemaRef(r, 0), cur.Name, cur.Version, known))
	if prompts, ok := n.Prompts(); ok && known {
		var users []string
		for _, p := range prompts {
			if p.SchemaID == cur.SchemaID {
				users = append(users, p.Name)
			}
		}
		if len(users) > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("Used by %s: Docent refuses to delete a schema while a prompt uses it.", promptsNamed(users)))
		} else {
			s.Notes = append(s.Notes, "No prompt uses it.")
		}
	}
	return s
}

func deleteSchemaWords(a args, n names) string { return n.schemaWords(argString(a, "schema_id"), 0) }
