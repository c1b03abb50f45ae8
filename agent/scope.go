package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// What a read-write tool call changes, as its Changes function says before
// it runs. The unattended scope and the "always approve" rule of
// interactive chat decide from these, not from tool names.
// Kinds of things a call changes.
const (
	KindDocument   = "document"
	KindSchema     = "schema"
	KindPrompt     = "prompt"
	KindTag        = "tag"
	KindExtraction = "extraction"
)

// Operations on them.
const (
	OpCreate = "create"
	OpUpdate = "update"
	OpDelete = "delete"
	// OpLink is a call that makes what it creates or changes point at this
	// (a prompt's schema or tags): a prompt linked to a schema is one its
	// kind can be extracted with, so linking is a change of what is linked
	// to, not only of the prompt.
	OpLink = "link"
)

// Change is one thing a tool call would change.
type Change struct {
	Kind string
	Op   string
	// ID is what is changed (a schema's or prompt's id, not a revision's);
	// "" for OpCreate.
	ID string
	// Name is how people know it, for messages.
	Name string
	// DocumentID is the document the change belongs to: the document
	// itself, or the document of an extraction.
	DocumentID string
}

func (c Change) String() string {
	what := c.Kind
	if c.Op == OpLink {
		what = "link to " + what
	}
	if c.Name != "" {
		what += fmt.Sprintf(" %q", c.Name)
	}
	if c.ID != "" {
		what += " (" + c.ID + ")"
	}
	if c.Op == OpLink {
		return what
	}
	return c.Op + " " + what
}

// Ref names something a tool call created; tool results carry them so that
// the scope of a run (and auto-create's bookkeeping) knows what is the
// run's own without reading previews.
type Ref struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// Scope bounds what an unattended turn (auto-create: nobody approves its
// calls) may change. It may read anything, create schemas and prompts, run
// extraction on its own document, and change or delete what it
// created itself; it may not change or delete documents, or schemas,
// prompts, tags and extractions it did not create, and what it creates or
// changes may link only what it created in the same run (a prompt on the
// user's schema would become a way to extract the user's kind; a tag it
// did not make would put its prompt among the user's). A refused call is not
// run: the model is told why, and the refusal is kept for the proposal's
// review.
type Scope struct {
	// DocumentID is the run's own document.
	DocumentID string

	mu      sync.Mutex
	created map[Ref]bool
	refused []storage.Refusal
}

// NewScope returns the scope of an unattended run on one document.
func NewScope(documentID string) *Scope {
	return &Scope{DocumentID: documentID, created: map[Ref]bool{}}
}

// Refused returns what the run tried outside its scope, in order.
func (s *Scope) Refused() []storage.Refusal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]storage.Refusal(nil), s.refused...)
}

// check returns why a call with these changes is outside the scope, or ""
// when it may run.
func (s *Scope) check(changes []Change) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range changes {
		switch {
		case c.Kind == KindDocument:
			return fmt.Sprintf("an unattended run may not %s: documents are changed only by people", c)
		case c.Kind == KindExtraction && c.DocumentID != s.DocumentID:
			return fmt.Sprintf("an unattended run may not %s: it works on document %s only", c, s.DocumentID)
		case c.Kind == KindTag && c.Op == OpCreate:
			// Tags outlive a rejected proposal: nobody would take them back.
			return "an unattended run may not create tags: people tag documents"
		case c.Op == OpCreate:
		case c.Op == OpLink && !s.created[Ref{Kind: c.Kind, ID: c.ID}]:
			return fmt.Sprintf("an unattended run may not %s: it did not create it in this run; what it makes may link only what it created", c)
		case c.Op == OpLink:
		case !s.created[Ref{Kind: c.Kind, ID: c.ID}]:
			return fmt.Sprintf("an unattended run may not %s: it did not create it in this run; it may change only what it created", c)
		}
	}
	return ""
}

func (s *Scope) refuse(tool, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refused = append(s.refused, storage.Refusal{Tool: tool, Reason: reason})
}

func (s *Scope) noteCreated(refs []Ref) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range refs {
		s.created[r] = true
	}
}

// touchesOtherDocument reports whether any change belongs to a document
// other than current: "always approve" in chat was given for this
// document, not for all of them.
func touchesOtherDocument(changes []Change, current string) bool {
	for _, c := range changes {
		if c.DocumentID != "" && c.DocumentID != current {
			return true
		}
	}
	return false
}

// Changes functions of the read-write tools.

// changesOf returns a Changes function that decodes the checked arguments
// into A, as the tool's Run does.
func changesOf[A any](fn func(ctx context.Context, env *ToolEnv, a A) ([]Change, error)) func(context.Context, *ToolEnv, json.RawMessage) ([]Change, error) {
	return func(ctx context.Context, env *ToolEnv, raw json.RawMessage) ([]Change, error) {
		var a A
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fault.Errorf(fault.Invalid, "invalid arguments: %v", err)
		}
		return fn(ctx, env, a)
	}
}

// creates is the Changes of a tool that only makes a new kind.
func creates(kind string) func(context.Context, *ToolEnv, json.RawMessage) ([]Change, error) {
	return func(context.Context, *ToolEnv, json.RawMessage) ([]Change, error) {
		return []Change{{Kind: kind, Op: OpCreate}}, nil
	}
}

// artifactChange is the Changes of a tool that updates or deletes the
// schema, prompt or tag its argument key names (an id, a revision id or a
// name), looked up by find.
func artifactChange(kind, op, key string, find func(ctx context.Context, db *storage.DB, ref string) (id, name string, err error)) func(context.Context, *ToolEnv, json.RawMessage) ([]Change, error) {
	return changesOf(func(ctx context.Context, env *ToolEnv, a map[string]any) ([]Change, error) {
		ref, _ := a[key].(string)
		id, name, err := find(ctx, env.DB, strings.TrimSpace(ref))
		if err != nil {
			return nil, err
		}
		return []Change{{Kind: kind, Op: op, ID: id, Name: name}}, nil
	})
}
