package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// Mention types, as clients send them.
const (
	MentionSchema   = "schema"
	MentionPrompt   = "prompt"
	MentionTag      = "tag"
	MentionDocument = "document"
)

// MentionTypes lists the types a Mention may have.
var MentionTypes = []string{MentionSchema, MentionPrompt, MentionTag, MentionDocument}

// ParseMention reads the CLI's TYPE:ID form of a mention.
func ParseMention(s string) (Mention, error) {
	typ, id, ok := strings.Cut(strings.TrimSpace(s), ":")
	m := Mention{Type: strings.ToLower(strings.TrimSpace(typ)), ID: strings.TrimSpace(id)}
	if !ok || m.ID == "" {
		return Mention{}, fault.Errorf(fault.Invalid, "mention %q: write it as TYPE:ID, TYPE one of %s", s, strings.Join(MentionTypes, ", "))
	}
	return m, m.check()
}

func (m Mention) check() error {
	switch m.Type {
	case MentionSchema, MentionPrompt, MentionTag, MentionDocument:
	default:
		return fault.Errorf(fault.Invalid, "mention type %q is not one of %s", m.Type, strings.Join(MentionTypes, ", "))
	}
	if strings.TrimSpace(m.ID) == "" {
		return fault.Errorf(fault.Invalid, "the %s mention has no id", m.Type)
	}
	return nil
}

// resolveMentions renders every mention in full for the system message. It
// runs before any model call: a mention that names nothing is ErrInvalid
// (the client's mistake, HTTP 400), never a failed turn.
func resolveMentions(ctx context.Context, db *storage.DB, mentions []Mention) (string, error) {
	if len(mentions) == 0 {
		return "", nil
	}
	var b strings.Builder
	b.WriteString("Mentioned by the user:\n")
	seen := map[Mention]bool{}
	for _, m := range mentions {
		m.ID = strings.TrimSpace(m.ID)
		if err := m.check(); err != nil {
			return "", err
		}
		if seen[m] {
			continue
		}
		seen[m] = true
		text, err := resolveMention(ctx, db, m)
		if errors.Is(err, storage.ErrNotFound) {
			return "", fault.Errorf(fault.Invalid, "mentioned %s %q does not exist", m.Type, m.ID)
		}
		if err != nil {
			return "", fmt.Errorf("resolve mention %s:%s: %w", m.Type, m.ID, err)
		}
		b.WriteString("\n")
		b.WriteString(text)
	}
	return b.String(), nil
}

func resolveMention(ctx context.Context, db *storage.DB, m Mention) (string, error) {
	var b strings.Builder
	switch m.Type {
	case MentionSchema:
		r, err := db.FindSchema(ctx, m.ID)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "Schema %q (schema_id %s, schema_revid %s, version %d), response_format:\n%s\n",
			r.Name, r.SchemaID, r.SchemaRevID, r.Version, indentJSON(r.ResponseFormat))
	case MentionPrompt:
		r, err := db.FindPrompt(ctx, m.ID)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "Prompt %q (prompt_id %s, prompt_revid %s, version %d", r.Name, r.PromptID, r.PromptRevID, r.Version)
		if r.SchemaRevID != "" {
			fmt.Fprintf(&b, ", schema_revid %s, schema version %d", r.SchemaRevID, r.SchemaVersion)
		}
		if r.Model != "" {
			fmt.Fprintf(&b, ", model %s", r.Model)
		}
		if len(r.TagIDs) > 0 {
			fmt.Fprintf(&b, ", tags %s", strings.Join(r.TagIDs, ", "))
		}
		fmt.Fprintf(&b, "), content:\n%s\n", strings.TrimRight(r.Content, "\n"))
	case MentionTag:
		t, err := db.FindTag(ctx, m.ID)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "Tag %q (id %s)", t.Name, t.ID)
		if t.Description != "" {
			fmt.Fprintf(&b, ": %s", t.Description)
		}
		b.WriteString("\n")
	case MentionDocument:
		d, err := db.FindDocument(ctx, m.ID)
		if err != nil {
			return "", err
		}
		// Another document is shown the way the current one is, with its
		// own excerpt, so the model can compare the two.
		dc, err := documentContext(ctx, db, d, ExcerptCap)
		if err != nil {
			return "", err
		}
		b.WriteString(strings.Replace(dc, "Current document:", "Document:", 1))
	}
	return b.String(), nil
}

// indentJSON pretty-prints a JSON value for the model to read.
func indentJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(out)
}
