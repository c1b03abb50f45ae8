package agent

import (
	"cmp"
	"context"
	"strings"

	"github.com/docent/docent/storage"
)

// lookup tells a summary what a call changes, as it is now. Each method
// reports false when it does not know (the summary then names things by
// the references the model gave).
type lookup interface {
	// Schema is the schema revision ref names: a schema_revid's own
	// revision, the latest revision of a schema_id or a name.
	Schema(ref string) (storage.SchemaRevision, bool)
	// Prompt is the prompt revision ref names, likewise; "" is the
	// conversation's prompt (its working state's).
	Prompt(ref string) (storage.PromptRevision, bool)
	// Tag is the tag with this id or name.
	Tag(ref string) (storage.Tag, bool)
	// Document is the document with this id; "" is the current document.
	Document(id string) (storage.Document, bool)
	// Extraction is the current extraction, whose fields
	// update_extraction_field changes: the conversation's, else the
	// current document's newest.
	Extraction() (storage.Extraction, bool)
	// Prompts are the latest revisions of every prompt (what uses a schema
	// or a tag): all of them, however many.
	Prompts() ([]storage.PromptRevision, bool)
	// TaggedDocuments is how many documents carry the tag.
	TaggedDocuments(tagID string) (int, bool)
}

// noLookup knows nothing.
type noLookup struct{}

func (noLookup) Schema(string) (storage.SchemaRevision, bool) { return storage.SchemaRevision{}, false }
func (noLookup) Prompt(string) (storage.PromptRevision, bool) { return storage.PromptRevision{}, false }
func (noLookup) Tag(string) (storage.Tag, bool)               { return storage.Tag{}, false }
func (noLookup) Document(string) (storage.Document, bool)     { return storage.Document{}, false }
func (noLookup) Extraction() (storage.Extraction, bool)       { return storage.Extraction{}, false }
func (noLookup) Prompts() ([]storage.PromptRevision, bool)    { return nil, false }
func (noLookup) TaggedDocuments(string) (int, bool)           { return 0, false }

// storeLookup answers from the store, for the conversation env is of. It
// lives for one summary, and asks the store once for each thing it names
// (a summary names a tag or schema several times: its name, its colour,
// its latest revision).
type storeLookup struct {
	ctx context.Context
	env *ToolEnv

	schemas map[string]found[storage.SchemaRevision]
	prompts map[string]found[storage.PromptRevision]
	tags    map[string]found[storage.Tag]
}

// found is what a lookup answered for one reference.
type found[T any] struct {
	v  T
	ok bool
}

// once is find's answer for ref, from m when it was asked before.
func once[T any](m *map[string]found[T], ref string, find func() (T, bool)) (T, bool) {
	if f, hit := (*m)[ref]; hit {
		return f.v, f.ok
	}
	if *m == nil {
		*m = map[string]found[T]{}
	}
	v, ok := find()
	(*m)[ref] = found[T]{v, ok}
	return v, ok
}

func (l *storeLookup) state() WorkingState {
	if l.env.State == nil {
		return WorkingState{}
	}
	return *l.env.State
}

func (l *storeLookup) Schema(ref string) (storage.SchemaRevision, bool) {
	return once(&l.schemas, ref, func() (storage.SchemaRevision, bool) { return byRef(l.ctx, ref, l.env.DB.FindSchema) })
}

func (l *storeLookup) Prompt(ref string) (storage.PromptRevision, bool) {
	ref = cmp.Or(strings.TrimSpace(ref), l.state().PromptRevID)
	return once(&l.prompts, ref, func() (storage.PromptRevision, bool) { return byRef(l.ctx, ref, l.env.DB.FindPrompt) })
}

func (l *storeLookup) Tag(ref string) (storage.Tag, bool) {
	return once(&l.tags, ref, func() (storage.Tag, bool) { return byRef(l.ctx, ref, l.env.DB.FindTag) })
}

func (l *storeLookup) Document(id string) (storage.Document, bool) {
	return byRef(l.ctx, cmp.Or(strings.TrimSpace(id), l.env.DocumentID), l.env.DB.GetDocument)
}

// byRef is what find finds for ref; nothing for a blank ref.
func byRef[T any](ctx context.Context, ref string, find func(context.Context, string) (T, error)) (T, bool) {
	var zero T
	if ref = strings.TrimSpace(ref); ref == "" {
		return zero, false
	}
	v, err := find(ctx, ref)
	if err != nil {
		return zero, false
	}
	return v, true
}

// Extraction is the one update_extraction_field edits: the working
// state's, else the document's newest.
func (l *storeLookup) Extraction() (storage.Extraction, bool) {
	if x := l.state().Extraction; x != nil {
		if cur, err := l.env.DB.GetExtraction(l.ctx, x.ID); err == nil {
			return cur, true
		}
		return *x, true
	}
	if l.env.DocumentID == "" {
		return storage.Extraction{}, false
	}
	x, err := l.env.DB.LatestExtraction(l.ctx, l.env.DocumentID, "")
	return x, err == nil
}

func (l *storeLookup) Prompts() ([]storage.PromptRevision, bool) {
	var out []storage.PromptRevision
	for {
		page, total, err := l.env.DB.ListPrompts(l.ctx, storage.PromptFilter{Skip: len(out), Limit: 100})
		if err != nil {
			return nil, false
		}
		out = append(out, page...)
		if len(page) == 0 || len(out) >= total {
			return out, true
		}
	}
}

func (l *storeLookup) TaggedDocuments(tagID string) (int, bool) {
	_, total, err := l.env.DB.ListDocuments(l.ctx, storage.DocumentFilter{TagIDs: []string{tagID}, Limit: 1})
	return total, err == nil
}

// names names what references refer to.
type names struct{ lookup }

// schemaRef is "Name vN" for a schema reference, else the reference quoted
// (with " vN" when a version is given).
func (n names) schemaRef(ref string, version int) string {
	if r, ok := n.Schema(ref); ok {
		return label(r.Name, cmp.Or(version, r.Version))
	}
	if version != 0 {
		return label(quoted(ref), version)
	}
	return quoted(ref)
}

func (n names) promptRef(ref string) string {
	if r, ok := n.Prompt(ref); ok && ref != "" {
		return label(r.Name, r.Version)
	}
	return quoted(ref)
}

func (n names) tagName(ref string) string {
	if t, ok := n.Tag(ref); ok {
		return t.Name
	}
	return ref
}

func (n names) tagColor(ref string) string {
	t, _ := n.Tag(ref)
	return t.Color
}

// latestSchema is the latest revision of the schema ref names.
func (n names) latestSchema(ref string) (storage.SchemaRevision, bool) {
	r, ok := n.Schema(ref)
	if ok && r.SchemaID != ref {
		if l, ok := n.Schema(r.SchemaID); ok {
			r = l
		}
	}
	return r, ok
}

func (n names) latestPrompt(ref string) (storage.PromptRevision, bool) {
	if ref == "" {
		return storage.PromptRevision{}, false
	}
	r, ok := n.Prompt(ref)
	if ok && r.PromptID != ref {
		if l, ok := n.Prompt(r.PromptID); ok {
			r = l
		}
	}
	return r, ok
}
