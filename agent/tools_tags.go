package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

const (
	pTagID = `{"type":"string","minLength":1,"description":"Tag id (the tag's name also works)."}`
	pColor = `{"type":"string","description":"Colour as #RRGGBB; empty for the default."}`
)

// The tag tools.
func tagTools() []Tool {
	return []Tool{
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

func tagChange(op string) func(context.Context, *ToolEnv, json.RawMessage) ([]Change, error) {
	return artifactChange(KindTag, op, "tag_id", func(ctx context.Context, db *storage.DB, ref string) (string, string, error) {
		t, err := db.FindTag(ctx, ref)
		return t.ID, t.Name, err
	})
}

func getTagSummary(a args, n names) Summary {
	if r := argString(a, "tag_id"); r != "" {
		return titled("Read tag " + quoted(n.tagName(r)))
	}
	return titled("Read a tag")
}

func tagWords(a args, n names) string { return n.tagWords(argString(a, "tag_id")) }

func tagOutcome(r args) string { return qname(text(r, "name")) }

func createTagSummary(a args, _ names) Summary {
	name := orUnnamed(a, "name")
	color := argString(a, "color")
	s := Summary{Title: "Create tag " + quoted(name), Chips: &SummaryChips{Label: "Tag", Chips: []SummaryChip{{Name: name, Color: color, Change: "added"}}}}
	if color != "" {
		s.Props = append(s.Props, SummaryProp{Label: "Colour", Value: color})
	}
	if d, ok := str(a.Val("description")); ok {
		s.Props = append(s.Props, SummaryProp{Label: "Description", Value: quoted(d)})
	}
	return s
}

// tagSettingWords are the words of a tag's colour and description; empty
// ones count for an update only (they reset).
func tagSettingWords(a args, update bool) []string {
	var parts []string
	if c, ok := a.Val("color").(string); ok && (c != "" || update) {
		parts = append(parts, "colour "+cmp.Or(c, "default"))
	}
	if d, ok := a.Val("description").(string); ok && (d != "" || update) {
		parts = append(parts, "description "+qname(d))
	}
	return parts
}

func createTagWords(a args, _ names) string {
	return paren(qname(orUnnamed(a, "name")), tagSettingWords(a, false))
}

func updateTagSummary(a args, n names) Summary {
	r := argString(a, "tag_id")
	cur, known := n.Tag(r)
	s := titled("Update tag " + quoted(r))
	if known {
		s.Title = "Update tag " + quoted(cur.Name)
	}
	newName, hasName, _ := s.rename(a, known, cur.Name)
	color, setsColor := a.Val("color").(string)
	if setsColor && (!known || color != cur.Color) {
		var from *string
		if known {
			from = new(cmp.Or(cur.Color, "default"))
		}
		s.Props = append(s.Props, change("Colour", from, cmp.Or(color, "default")))
	}
	if d, ok := a.Val("description").(string); ok && (!known || d != cur.Description) {
		var from *string
		if known {
			from = new(quoteOrNone(cur.Description))
		}
		s.Props = append(s.Props, change("Description", from, quoteOrNone(d)))
	}
	if known && len(s.Props) == 0 {
		s.Notes = append(s.Notes, "Nothing changes.")
	}
	chipName := newName
	if !hasName && known {
		chipName = cur.Name
	}
	if !setsColor {
		color = cur.Color
	}
	if chipName != "" {
		s.Chips = &SummaryChips{Label: "Tag", Chips: []SummaryChip{{Name: chipName, Color: color, Change: "same"}}}
	}
	return s
}

func updateTagWords(a args, n names) string {
	var parts []string
	if v := argString(a, "name"); v != "" {
		parts = append(parts, "new name "+qname(v))
	}
	return paren(n.tagWords(argString(a, "tag_id")), append(parts, tagSettingWords(a, true)...))
}

func deleteTagSummary(a args, n names) Summary {
	r := argString(a, "tag_id")
	tag, known := n.Tag(r)
	s := titled("Delete tag " + quoted(r))
	if !known {
		return s
	}
	s.Title = "Delete tag " + quoted(tag.Name)
	s.Chips = &SummaryChips{Label: "Tag", Chips: []SummaryChip{{Name: tag.Name, Color: tag.Color, Change: "removed"}}}
	docs, okDocs := n.TaggedDocuments(tag.ID)
	prompts, okPrompts := n.Prompts()
	if !okDocs || !okPrompts {
		return s
	}
	var parts, users []string
	for _, p := range prompts {
		if slices.Contains(p.TagIDs, tag.ID) {
			users = append(users, p.Name)
		}
	}
	if docs > 0 {
		parts = append(parts, textfmt.Count(docs, "document"))
	}
	if len(users) > 0 {
		parts = append(parts, promptsNamed(users))
	}
	if len(parts) > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("Used by %s: Docent refuses to delete a tag in use.", strings.Join(parts, " and ")))
	} else {
		s.Notes = append(s.Notes, "No document or prompt uses it.")
	}
	return s
}
