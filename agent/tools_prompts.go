package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// The prompt tools: read and list extraction prompts, and write them (a
// versioned artifact, tools_versioned.go).
func promptTools() []Tool {
	return []Tool{
		promptArtifact.getter("get_prompt", "Get a prompt", getPrompt, summarizer(getPromptSummary, getPromptWords, promptOutcome),
			"Get one prompt revision: name, content, linked schema (schema_id, schema_revid, schema_version), model and tags.",
			"An extraction prompt (its id, revision id or name): instructions, schema, model and tags."),
		promptArtifact.lister(params(nil, map[string]string{
			"skip": pSkip, "limit": pLimit, "name_search": pNameSearch, "tag_ids": pTagIDs,
			"document_id": `{"type":"string","description":"Keep prompts whose tags include one of this document's tags."}`,
		}), "list_prompts",
			"List prompts by name: the latest revision of each, without its content (get_prompt has it). document_id keeps prompts sharing a tag with that document; tag_ids keeps prompts having all of them.",
			"The extraction prompts by name (latest version of each, without the instructions).", decodeArgs(listPrompts)),
		linking(promptArtifact.writer(OpCreate, Tool{
			Name:        "create_prompt",
			Title:       "Create an extraction prompt",
			Description: "Create an extraction prompt at version 1, linked to a schema. A name that exists is an error: use update_prompt then. Call help_prompts for guidance.",
			Parameters: promptArtifact.createParameters([]string{"content"}, map[string]string{
				"content":        `{"type":"string","minLength":1,"description":"The instructions for the extraction."}`,
				"schema_id":      `{"type":"string","description":"Schema to extract with (id or name)."}`,
				"schema_version": `{"type":"integer","minimum":1,"description":"Version of that schema. Default: its latest."}`,
				"model":          `{"type":"string","description":"Model id with its provider, e.g. ollama/qwen3:8b. Default: the configured default."}`,
				"tag_ids":        `{"type":"array","items":{"type":"string"},"description":"Tags of the prompt."}`,
			}),
			Run:       decodeArgs(createPrompt),
			Summarize: summarizer(createPromptSummary, createPromptWords),
		})),
		linking(promptArtifact.writer(OpUpdate, Tool{
			Name:        "update_prompt",
			Title:       "Make a new version of a prompt",
			Description: "Make a new version of a prompt; fields not given carry over. schema_id \"\" unlinks the schema.",
			Parameters: promptArtifact.updateParameters(map[string]string{
				"content":        `{"type":"string","minLength":1,"description":"New instructions."}`,
				"schema_id":      `{"type":"string","description":"Schema to link (id or name); \"\" unlinks."}`,
				"schema_version": `{"type":"integer","minimum":1,"description":"Version of the schema. Default: its latest."}`,
				"model":          `{"type":"string","description":"Model id with its provider, e.g. ollama/qwen3:8b; \"\" for the default."}`,
				"tag_ids":        `{"type":"array","items":{"type":"string"},"description":"Tags from now on (replaces them)."}`,
			}),
			Run:       decodeArgs(updatePrompt),
			Summarize: summarizer(updatePromptSummary, updatePromptWords),
		})),
		promptArtifact.deleter("delete_prompt", "Delete a prompt", summarizer(deletePromptSummary, deletePromptWords),
			"Delete a prompt with all its versions; extractions made with it are kept."),
	}
}

// getPrompt is a prompt revision with its instructions capped.
func getPrompt(ctx context.Context, db *storage.DB, ref string) (any, error) {
	rev, err := db.FindPrompt(ctx, ref)
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
	return promptArtifact.wrote(env, rev, promptRevision(rev), OpCreate, false), nil
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
	res := struct {
		storage.PromptRevision
		NoChanges bool `json:"no_changes,omitempty"`
	}{rev, noChanges}
	return promptArtifact.wrote(env, res, promptRevision(rev), OpUpdate, noChanges), nil
}

// promptRevision is a prompt revision as a versioned artifact's.
func promptRevision(r storage.PromptRevision) revisionRef {
	return revisionRef{ID: r.PromptID, RevID: r.PromptRevID, Name: r.Name, Version: r.Version}
}

// promptLinks are the links of a prompt's schema and tags as
// create_prompt and update_prompt name them: the schema (an id, revision
// id or name; "" links none) and the tags (ids or names).
func promptLinks(ctx context.Context, db *storage.DB, schemaRef *string, tagRefs []string) ([]Change, error) {
	var out []Change
	if schemaRef != nil && strings.TrimSpace(*schemaRef) != "" {
		s, err := db.FindSchema(ctx, strings.TrimSpace(*schemaRef))
		if err != nil {
			return nil, err
		}
		out = append(out, Change{Kind: KindSchema, Op: OpLink, ID: s.SchemaID, Name: s.Name})
	}
	for _, ref := range tagRefs {
		t, err := db.FindTag(ctx, strings.TrimSpace(ref))
		if err != nil {
			return nil, err
		}
		out = append(out, Change{Kind: KindTag, Op: OpLink, ID: t.ID, Name: t.Name})
	}
	return out, nil
}

// promptLinkArgs are the arguments of create_prompt and update_prompt that
// link a prompt to a schema and tags.
type promptLinkArgs struct {
	SchemaID *string  `json:"schema_id"`
	TagIDs   []string `json:"tag_ids"`
}

// linking is create_prompt or update_prompt (t), which also link the
// prompt to a schema and tags: its Changes are the prompt's own change,
// then the links to the schema and tags the call sets (those an update
// leaves were checked when they were set).
func linking(t Tool) Tool {
	prompt := t.Changes
	t.Ops = append(t.Ops, OpLink)
	t.Changes = func(ctx context.Context, env *ToolEnv, raw json.RawMessage) ([]Change, error) {
		changes, err := prompt(ctx, env, raw)
		if err != nil {
			return nil, err
		}
		return changesOf(func(ctx context.Context, env *ToolEnv, a promptLinkArgs) ([]Change, error) {
			links, err := promptLinks(ctx, env.DB, a.SchemaID, a.TagIDs)
			if err != nil {
				return nil, err
			}
			return append(changes, links...), nil
		})(ctx, env, raw)
	}
	return t
}

func getPromptSummary(a args, n names) Summary {
	if r := argString(a, "prompt_revid"); r != "" {
		return titled("Read prompt " + n.promptRef(r))
	}
	return titled("Read a prompt")
}

func getPromptWords(a args, n names) string { return n.promptWords(argString(a, "prompt_revid"), true) }

func promptOutcome(r args) string {
	return fmt.Sprintf("%s, %s", refWords(text(r, "name"), num(r, "version")), textfmt.Count(len(strings.Split(text(r, "content"), "\n")), "line"))
}

func createPromptSummary(a args, n names) Summary {
	s := titled("Create prompt " + quoted(orUnnamed(a, "name")))
	s.Form = "prompt"
	schemaValue := "none (free-form JSON)"
	if sid, ok := str(a.Val("schema_id")); ok {
		v, _ := intArg(a.Val("schema_version"))
		schemaValue = n.schemaRef(sid, v)
	}
	s.Props = append(s.Props, SummaryProp{Label: "Schema", Value: schemaValue}, SummaryProp{Label: "Model", Value: cmp.Or(argString(a, "model"), "default")})
	if tags := stringItems(a.Val("tag_ids")); len(tags) > 0 {
		s.Chips = &SummaryChips{Label: "Tags", Chips: n.tagChanges(nil, false, a.Val("tag_ids"))}
	}
	content, _ := a.Val("content").(string)
	s.Text = &SummaryText{Label: "Instructions", Lines: sameLines(strings.Split(content, "\n"))}
	return s
}

// promptSettingWords are the words of a prompt's schema, model and tags.
func promptSettingWords(a args, n names, update bool) []string {
	var parts []string
	version, _ := intArg(a.Val("schema_version"))
	switch hasSchema := a.Has("schema_id"); {
	case hasSchema && argString(a, "schema_id") != "":
		parts = append(parts, "schema "+n.schemaWords(argString(a, "schema_id"), version))
	case hasSchema && update:
		parts = append(parts, "no schema")
	case version != 0:
		parts = append(parts, fmt.Sprintf("schema v%d", version))
	}
	if a.Has("model") {
		parts = append(parts, "model "+cmp.Or(argString(a, "model"), "default"))
	}
	if a.Has("tag_ids") && (update || len(stringItems(a.Val("tag_ids"))) > 0) {
		parts = append(parts, n.tagList(a.Val("tag_ids")))
	}
	return parts
}

func createPromptWords(a args, n names) string {
	return paren(qname(orUnnamed(a, "name")), promptSettingWords(a, n, false))
}

func updatePromptSummary(a args, n names) Summary {
	r := argString(a, "prompt_id")
	cur, known := n.latestPrompt(r)
	s := Summary{Title: promptArtifact.updateTitle(n.promptRef(r), cur.Name, cur.Version, known), Form: "prompt"}
	if known {
		s.Now = &SummaryNow{Name: cur.Name, Content: new(cur.Content)}
	}
	changed := false
	set := func(p SummaryProp) {
		s.Props = append(s.Props, p)
		changed = true
	}
	if _, _, renamed := s.rename(a, known, cur.Name); renamed {
		changed = true
	}
	var curSchema *string
	if known {
		curSchema = new("none")
		if cur.SchemaID != "" {
			curSchema = new(n.schemaRef(cur.SchemaID, cur.SchemaVersion))
		}
	}
	version, hasVersion := intArg(a.Val("schema_version"))
	if a.Has("schema_id") {
		sid, _ := a.Val("schema_id").(string)
		next := "none"
		if sid = strings.TrimSpace(sid); sid != "" {
			next = n.schemaRef(sid, version)
		}
		if curSchema == nil || next != *curSchema {
			set(change("Schema", curSchema, next))
		}
	} else if hasVersion && (!known || cur.SchemaVersion != version) {
		var from *string
		if known && cur.SchemaVersion != 0 {
			from = new(fmt.Sprintf("v%d", cur.SchemaVersion))
		}
		set(change("Schema version", from, fmt.Sprintf("v%d", version)))
	}
	if a.Has("model") {
		next := cmp.Or(argString(a, "model"), "default")
		var before *string
		if known {
			before = new(cmp.Or(cur.Model, "default"))
		}
		if before == nil || next != *before {
			set(change("Model", before, next))
		}
	}
	if a.Has("tag_ids") {
		chips := n.tagChanges(cur.TagIDs, known, a.Val("tag_ids"))
		if !known || slices.ContainsFunc(chips, func(c SummaryChip) bool { return c.Change != "same" }) {
			s.Chips = &SummaryChips{Label: "Tags", Chips: chips}
			changed = true
		}
	}
	if content, ok := a.Val("content").(string); ok {
		switch {
		case !known:
			s.Text = &SummaryText{Label: "Instructions (new version)", Lines: sameLines(strings.Split(content, "\n"))}
			changed = true
		case cur.Content != content:
			s.Text = &SummaryText{Label: "Instructions (changes)", Lines: foldDiff(lineDiff(cur.Content, content), 2), Diff: true}
			changed = true
		}
	}
	if known && !changed {
		s.Notes = append(s.Notes, fmt.Sprintf("Nothing changes: the prompt stays at v%d.", cur.Version))
	}
	return s
}

func updatePromptWords(a args, n names) string {
	var parts []string
	if v := argString(a, "name"); v != "" {
		parts = append(parts, "new name "+qname(v))
	}
	if _, ok := a.Val("content").(string); ok {
		parts = append(parts, "new instructions")
	}
	parts = append(parts, promptSettingWords(a, n, true)...)
	return paren(n.promptWords(argString(a, "prompt_id"), false), parts)
}

func deletePromptSummary(a args, n names) Summary {
	r := argString(a, "prompt_id")
	cur, known := n.latestPrompt(r)
	return Summary{Title: promptArtifact.deleteTitle(n.promptRef(r), cur.Name, cur.Version, known), Notes: []string{"Extractions made with it are kept."}}
}

func deletePromptWords(a args, n names) string {
	return n.promptWords(argString(a, "prompt_id"), false)
}
