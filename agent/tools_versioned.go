package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
)

// Schemas and prompts are both versioned artifacts: each is kept in
// versions, named by its id, a revision's id or its name, and the
// conversation's working state points at one revision of each. What their
// tools do alike is written once here and has two instances,
// schemaArtifact and promptArtifact; what differs (a schema's
// response_format, a prompt's instructions and links) is in
// tools_schemas.go and tools_prompts.go.

// versioned is one kind of versioned artifact, as its tools name it.
type versioned struct {
	// kind is KindSchema or KindPrompt, also the word for one.
	kind string
	// title is the word for one for people choosing a resource: "Schema".
	title string
	// idParam is the argument that names one: "schema_id".
	idParam string
	// find is the revision a reference names (an id names the latest).
	find func(ctx context.Context, db *storage.DB, ref string) (revisionRef, error)
	// remove deletes one with all its versions.
	remove func(db *storage.DB, ctx context.Context, id string) error
	// current is where the working state keeps its revision of this kind.
	current func(*WorkingState) *string
}

// revisionRef is one revision of a versioned artifact.
type revisionRef struct {
	ID, RevID, Name string
	Version         int
}

var (
	schemaArtifact = versioned{kind: KindSchema, title: "Schema", idParam: "schema_id", remove: (*storage.DB).DeleteSchema,
		find: func(ctx context.Context, db *storage.DB, ref string) (revisionRef, error) {
			r, err := db.FindSchema(ctx, ref)
			return revisionRef{ID: r.SchemaID, RevID: r.SchemaRevID, Name: r.Name, Version: r.Version}, err
		},
		current: func(s *WorkingState) *string { return &s.SchemaRevID }}
	promptArtifact = versioned{kind: KindPrompt, title: "Extraction prompt", idParam: "prompt_id", remove: (*storage.DB).DeletePrompt,
		find: func(ctx context.Context, db *storage.DB, ref string) (revisionRef, error) {
			r, err := db.FindPrompt(ctx, ref)
			return revisionRef{ID: r.PromptID, RevID: r.PromptRevID, Name: r.Name, Version: r.Version}, err
		},
		current: func(s *WorkingState) *string { return &s.PromptRevID }}
)

// getter is get_<kind>: one revision as read reads it, named by its
// revision id (an id or a name gives the latest), which is also a
// resource (resource says what it holds).
func (v versioned) getter(name, title string, read func(ctx context.Context, db *storage.DB, ref string) (any, error), summarize Summarizer, description, resource string) Tool {
	rev := v.kind + "_revid"
	run := decodeArgs(func(ctx context.Context, env *ToolEnv, a map[string]string) (any, error) {
		return read(ctx, env.DB, a[rev])
	})
	return Tool{Name: name, Title: title, Description: description, Access: ReadOnly, Run: run, Summarize: summarize,
		Parameters: params([]string{rev}, map[string]string{rev: fmt.Sprintf(
			`{"type":"string","minLength":1,"description":"%s revision id (a %s or name gives its latest revision)."}`, v.word(), v.idParam)}),
		Resource: &Resource{Name: v.kind, Collection: v.kind + "s", IDParam: rev, Title: v.title, Description: resource}}
}

// lister is list_<kind>s with these parameters: the latest revision of
// each by name, paged, which is also a resource (resource says what it
// holds).
func (v versioned) lister(parameters json.RawMessage, name, description, resource string, run func(context.Context, *ToolEnv, json.RawMessage) (any, error)) Tool {
	title := "List " + v.kind + "s"
	return Tool{Name: name, Title: title, Description: description, Parameters: parameters, Access: ReadOnly, Run: run,
		Summarize: summarizer(listSummary(title), listWords, listOutcome(v.kind+"s", v.kind)),
		Resource: &Resource{Name: v.kind + "s", Collection: v.kind + "s", Args: map[string]any{"limit": 100}, Title: v.title + "s",
			Description: resource}}
}

// word is the word for one at the start of a sentence: "Schema".
func (v versioned) word() string { return strings.ToUpper(v.kind[:1]) + v.kind[1:] }

// deleter is delete_<kind>: the one its idParam names, with all its
// versions.
func (v versioned) deleter(name, title string, summarize Summarizer, description string) Tool {
	return v.writer(OpDelete, Tool{Name: name, Title: title, Description: description, Summarize: summarize})
}

// writer is t, a tool that writes this kind with op, with what every such
// tool declares: it is read-write; an unattended run may create one and
// make two new versions of one in a turn; a new version and a delete are
// idempotent (identical content makes no new version).
func (v versioned) writer(op string, t Tool) Tool {
	t.Access, t.Ops = ReadWrite, []string{op}
	t.Changes = v.change(op)
	switch op {
	case OpCreate:
		t.Changes, t.HeadlessLimit = creates(v.kind), 1
	case OpUpdate:
		t.HeadlessLimit, t.Idempotent = 2, true
	case OpDelete:
		t.Idempotent = true
		t.Parameters = params([]string{v.idParam}, map[string]string{v.idParam: v.idParameter()})
		t.Run = decodeArgs(v.delete)
	}
	return t
}

// idParameter is the parameter naming one (idParam).
func (v versioned) idParameter() string {
	return fmt.Sprintf(`{"type":"string","minLength":1,"description":"%s id (a %s_revid or the %s's name also works)."}`, v.word(), v.kind, v.kind)
}

// createParameters are a create's: a unique name, which is required, and
// these.
func (v versioned) createParameters(required []string, props map[string]string) json.RawMessage {
	props["name"] = fmt.Sprintf(`{"type":"string","minLength":1,"description":"%s name, unique."}`, v.word())
	return params(append([]string{"name"}, required...), props)
}

// updateParameters are an update's: the one to update (idParam), which is
// required, a new name, and these.
func (v versioned) updateParameters(props map[string]string) json.RawMessage {
	props[v.idParam] = v.idParameter()
	props["name"] = `{"type":"string","minLength":1,"description":"New name."}`
	return params([]string{v.idParam}, props)
}

// change is the Changes of a tool that updates or deletes the one its
// idParam names.
func (v versioned) change(op string) func(context.Context, *ToolEnv, json.RawMessage) ([]Change, error) {
	return artifactChange(v.kind, op, v.idParam, func(ctx context.Context, db *storage.DB, ref string) (string, string, error) {
		r, err := v.find(ctx, db, ref)
		return r.ID, r.Name, err
	})
}

// wrote is the result of a create or an update that made or kept rev:
// the working state points at it from now on.
func (v versioned) wrote(env *ToolEnv, res any, rev revisionRef, op string, noChanges bool) previewed {
	*v.current(env.State) = rev.RevID
	switch {
	case op == OpCreate:
		return withPreview(res, "created %s %s v%d (%s)", v.kind, rev.Name, rev.Version, rev.RevID).made(v.kind, rev.ID)
	case noChanges:
		return withPreview(res, "no changes: %s %s stays at v%d (%s)", v.kind, rev.Name, rev.Version, rev.RevID)
	}
	return withPreview(res, "updated %s %s to v%d (%s)", v.kind, rev.Name, rev.Version, rev.RevID)
}

// delete deletes the one the idParam argument names, with all its
// versions; the working state forgets its revision of it.
func (v versioned) delete(ctx context.Context, env *ToolEnv, a map[string]string) (any, error) {
	cur, err := v.find(ctx, env.DB, strings.TrimSpace(a[v.idParam]))
	if err != nil {
		return nil, err
	}
	stateOf := ""
	if rev := *v.current(env.State); rev != "" {
		if r, err := v.find(ctx, env.DB, rev); err == nil {
			stateOf = r.ID
		}
	}
	if err := v.remove(env.DB, ctx, cur.ID); err != nil {
		return nil, err
	}
	if stateOf == cur.ID {
		*v.current(env.State) = ""
	}
	return withPreview(map[string]any{"deleted": true, v.idParam: cur.ID, "name": cur.Name},
		"deleted %s %s (%s)", v.kind, cur.Name, cur.ID), nil
}

// updateTitle is the title of an update of the one ref names: to which
// version, when its latest (name, version) is known.
func (v versioned) updateTitle(ref, name string, version int, known bool) string {
	if known {
		return fmt.Sprintf("Update %s %s to v%d", v.kind, quoted(name), version+1)
	}
	return fmt.Sprintf("Update %s %s", v.kind, ref)
}

// deleteTitle is the title of a delete of the one ref names: with how
// many versions, when its latest (name, version) is known.
func (v versioned) deleteTitle(ref, name string, version int, known bool) string {
	if known {
		return fmt.Sprintf("Delete %s %s and its %s", v.kind, quoted(name), textfmt.Count(version, "version"))
	}
	return fmt.Sprintf("Delete %s %s", v.kind, ref)
}
