package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

func documentTools() []Tool {
	return []Tool{
		{
			Name:        "get_ocr_text",
			Title:       "Read a document's text",
			OnDocument:  true,
			Description: "Read the current document's text. Without page_num: all pages, each after a '--- page N ---' marker, capped at 4,000 characters. With page_num: that page only.",
			Parameters: params(nil, map[string]string{
				"page_num": `{"type":"integer","minimum":1,"description":"1-based page number. Default: the whole document."}`,
			}),
			Access:    ReadOnly,
			Run:       decodeArgs(getOCRText),
			Summarize: summarizer(ocrTextSummary, ocrTextWords, ocrTextOutcome),
		},
		{
			Name:        "get_document",
			Title:       "Get a document",
			OnDocument:  true,
			Description: "Get a document's metadata, tags, page count, status and auto-create status.",
			Parameters:  params(nil, map[string]string{"document_id": pDocumentID}),
			Access:      ReadOnly,
			Run:         decodeArgs(getDocument),
			Summarize:   summarizer(getDocumentSummary, getDocumentWords, documentOutcome),
		},
		{
			Name:        "list_documents",
			Title:       "List documents",
			Description: "List documents, newest first. name_search matches the name or the text; tag_ids keeps documents having all of them.",
			Parameters: params(nil, map[string]string{
				"skip": pSkip, "limit": pLimit, "name_search": pNameSearch, "tag_ids": pTagIDs,
			}),
			Resource: &Resource{Name: "documents", Collection: "documents", Args: map[string]any{"limit": 100}, Title: "Documents",
				Description: "The newest 100 documents: id, name, pages, status, tags."},
			Access:    ReadOnly,
			Run:       decodeArgs(listDocuments),
			Summarize: summarizer(listSummary("List documents"), listWords, listOutcome("documents", "document")),
		},
		{
			Name:        "update_document",
			Title:       "Rename, tag or describe a document",
			OnDocument:  true,
			Ops:         []string{OpUpdate},
			Overwrites:  true,
			Idempotent:  true,
			Description: "Change a document's name, tags (tag_ids replaces them all) or metadata (a JSON object replacing the old one).",
			Parameters: params(nil, map[string]string{
				"document_id": pDocumentID,
				"name":        `{"type":"string","minLength":1,"description":"New name."}`,
				"tag_ids":     `{"type":"array","items":{"type":"string"},"description":"The document's tags from now on (replaces the current ones)."}`,
				"metadata":    `{"type":"object","description":"Metadata from now on (replaces the current metadata)."}`,
			}),
			Access:    ReadWrite,
			Changes:   documentChange(OpUpdate),
			Run:       decodeArgs(updateDocument),
			Summarize: summarizer(updateDocumentSummary, updateDocumentWords),
		},
		{
			Name:        "delete_document",
			Title:       "Delete a document",
			OnDocument:  true,
			Ops:         []string{OpDelete},
			Idempotent:  true,
			Description: "Delete a document with its pages, extractions and conversations. Default: the current document.",
			Parameters:  params(nil, map[string]string{"document_id": pDocumentID}),
			Access:      ReadWrite,
			Changes:     documentChange(OpDelete),
			Run:         decodeArgs(deleteDocument),
			Summarize:   summarizer(deleteDocumentSummary, deleteDocumentWords),
		},
	}
}

type ocrTextResult struct {
	Text  string `json:"text"`
	Page  int    `json:"page,omitempty"`
	Pages int    `json:"pages"`
}

func getOCRText(ctx context.Context, env *ToolEnv, a struct {
	PageNum *int `json:"page_num"`
}) (any, error) {
	id, err := env.documentID("")
	if err != nil {
		return nil, err
	}
	doc, err := env.DB.GetDocument(ctx, id)
	if err != nil {
		return nil, err
	}
	if a.PageNum != nil {
		p := *a.PageNum
		if p < 1 || p > doc.Pages {
			if doc.Pages == 0 {
				return nil, fault.Errorf(fault.Invalid, "page %d out of range: document %s has no pages", p, doc.Name)
			}
			return nil, fault.Errorf(fault.Invalid, "page %d out of range: document %s has pages 1-%d", p, doc.Name, doc.Pages)
		}
		text, err := env.DB.PageText(ctx, id, p)
		if err != nil {
			return nil, err
		}
		text, _ = capText(text, TextCap, fmt.Sprintf("the rest of page %d is not available to tools", p))
		return ocrTextResult{Text: text, Page: p, Pages: doc.Pages}, nil
	}
	pages, err := env.DB.DocumentText(ctx, id)
	if err != nil {
		return nil, err
	}
	text, _ := pagesText(pages)
	text, _ = capText(text, TextCap, fmt.Sprintf("call get_ocr_text with page_num (1-%d)", doc.Pages))
	return ocrTextResult{Text: text, Pages: doc.Pages}, nil
}

// tagRef names a tag in results.
type tagRef struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color,omitempty"`
}

type documentResult struct {
	storage.Document
	Tags []tagRef `json:"tags"`
}

func tagRefs(ctx context.Context, db *storage.DB, ids []string) ([]tagRef, error) {
	out := make([]tagRef, 0, len(ids))
	for _, id := range ids {
		t, err := db.GetTag(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, tagRef{ID: t.ID, Name: t.Name, Color: t.Color})
	}
	return out, nil
}

func getDocument(ctx context.Context, env *ToolEnv, a struct {
	DocumentID string `json:"document_id"`
}) (any, error) {
	id, err := env.documentID(a.DocumentID)
	if err != nil {
		return nil, err
	}
	doc, err := env.DB.GetDocument(ctx, id)
	if err != nil {
		return nil, err
	}
	tags, err := tagRefs(ctx, env.DB, doc.TagIDs)
	if err != nil {
		return nil, err
	}
	return documentResult{Document: doc, Tags: tags}, nil
}

// documentSummary is a document in lists.
type documentSummary struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Pages     int       `json:"pages"`
	Status    string    `json:"status"`
	TagIDs    []string  `json:"tag_ids"`
	CreatedAt time.Time `json:"created_at"`
}

func listDocuments(ctx context.Context, env *ToolEnv, a struct {
	Skip       int      `json:"skip"`
	Limit      int      `json:"limit"`
	NameSearch string   `json:"name_search"`
	TagIDs     []string `json:"tag_ids"`
}) (any, error) {
	docs, total, err := env.DB.ListDocuments(ctx, storage.DocumentFilter{
		Search: a.NameSearch, TagIDs: a.TagIDs, Limit: listLimit(a.Limit), Offset: a.Skip,
	})
	if err != nil {
		return nil, err
	}
	out := make([]documentSummary, len(docs))
	for i, d := range docs {
		out[i] = documentSummary{ID: d.ID, Name: d.Name, Pages: d.Pages, Status: d.Status, TagIDs: d.TagIDs, CreatedAt: d.CreatedAt}
	}
	return map[string]any{"documents": out, "total": total}, nil
}

func updateDocument(ctx context.Context, env *ToolEnv, a struct {
	DocumentID string          `json:"document_id"`
	Name       *string         `json:"name"`
	TagIDs     *[]string       `json:"tag_ids"`
	Metadata   json.RawMessage `json:"metadata"`
}) (any, error) {
	id, err := env.documentID(a.DocumentID)
	if err != nil {
		return nil, err
	}
	if a.Name == nil && a.TagIDs == nil && a.Metadata == nil {
		return nil, fault.Errorf(fault.Invalid, "nothing to change: give name, tag_ids or metadata")
	}
	doc, err := env.DB.UpdateDocument(ctx, id, storage.DocumentPatch{Name: a.Name, TagIDs: a.TagIDs, Metadata: a.Metadata})
	if err != nil {
		return nil, err
	}
	tags, err := tagRefs(ctx, env.DB, doc.TagIDs)
	if err != nil {
		return nil, err
	}
	return withPreview(documentResult{Document: doc, Tags: tags}, "updated document %s (%s)", doc.Name, doc.ID), nil
}

func deleteDocument(ctx context.Context, env *ToolEnv, a struct {
	DocumentID string `json:"document_id"`
}) (any, error) {
	id, err := env.documentID(a.DocumentID)
	if err != nil {
		return nil, err
	}
	doc, err := env.DB.GetDocument(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := env.DB.DeleteDocument(ctx, id); err != nil {
		return nil, err
	}
	if x := env.State.Extraction; x != nil && x.DocumentID == id {
		env.State.Extraction = nil
	}
	return withPreview(map[string]any{"deleted": true, "document_id": id, "name": doc.Name}, "deleted document %s (%s)", doc.Name, id), nil
}

type documentArg struct {
	DocumentID string `json:"document_id"`
}

func documentChange(op string) func(context.Context, *ToolEnv, json.RawMessage) ([]Change, error) {
	return changesOf(func(ctx context.Context, env *ToolEnv, a documentArg) ([]Change, error) {
		id, err := env.documentID(a.DocumentID)
		if err != nil {
			return nil, err
		}
		doc, err := env.DB.GetDocument(ctx, id)
		if err != nil {
			return nil, err
		}
		return []Change{{Kind: KindDocument, Op: op, ID: doc.ID, Name: doc.Name, DocumentID: doc.ID}}, nil
	})
}

// docRef is the document a call names: current when it names none or the
// current one.
func (n names) docRef(a args) (current bool, name string) {
	id := argString(a, "document_id")
	cur, hasCur := n.Document("")
	current = id == "" || (hasCur && cur.ID == id)
	switch {
	case current && hasCur:
		name = cur.Name
	case !current:
		if d, ok := n.Document(id); ok {
			name = d.Name
		}
	}
	return current, name
}

func (n names) docWords(a args) string {
	current, docName := n.docRef(a)
	switch {
	case docName != "":
		return qname(docName)
	case current:
		return "this document"
	}
	return qname(argString(a, "document_id"))
}

func ocrTextSummary(a args, _ names) Summary {
	if p, ok := a.Val("page_num").(json.Number); ok {
		return titled("Read page " + schema.Number(p))
	}
	return titled("Read the document text")
}

func ocrTextWords(a args, _ names) string {
	if p, ok := intArg(a.Val("page_num")); ok {
		return fmt.Sprintf("page %d", p)
	}
	return "all pages"
}

func ocrTextOutcome(r args) string {
	if p := num(r, "page"); p > 0 {
		return fmt.Sprintf("page %d of %d, %s", p, num(r, "pages"), characters(text(r, "text")))
	}
	return fmt.Sprintf("%s, %s", textfmt.Count(num(r, "pages"), "page"), characters(text(r, "text")))
}

func getDocumentSummary(a args, n names) Summary {
	current, name := n.docRef(a)
	switch {
	case current:
		return titled("Look up this document")
	case name != "":
		return titled("Look up document " + quoted(name))
	}
	return titled("Look up document " + quoted(argString(a, "document_id")))
}

func getDocumentWords(a args, n names) string {
	if d := n.docWords(a); d != "this document" {
		return d
	}
	return ""
}

func documentOutcome(r args) string {
	return fmt.Sprintf("%s, %s, %s", qname(text(r, "name")), textfmt.Count(num(r, "pages"), "page"), cmp.Or(text(r, "status"), "ready"))
}

func updateDocumentSummary(a args, n names) Summary {
	current, name := n.docRef(a)
	newName, hasName := str(a.Val("name"))
	onlyName := hasName && !a.Has("tag_ids") && !a.Has("metadata")
	var title string
	switch {
	case onlyName && name != "":
		title = fmt.Sprintf("Rename %s to %s", quoted(name), quoted(newName))
	case onlyName && current:
		title = "Rename this document to " + quoted(newName)
	case onlyName:
		title = "Rename the document to " + quoted(newName)
	case name != "":
		title = "Update document " + quoted(name)
	case current:
		title = "Update this document"
	default:
		title = "Update document " + quoted(argString(a, "document_id"))
	}
	s := titled(title)
	if hasName {
		var from *string
		if name != "" {
			from = new(quoted(name))
		}
		s.Props = append(s.Props, change("Name", from, quoted(newName)))
	}
	if a.Has("tag_ids") {
		var before []string
		known := false
		if current {
			if d, ok := n.Document(""); ok {
				before, known = d.TagIDs, true
			}
		}
		s.Chips = &SummaryChips{Label: "Tags from now on", Chips: n.tagChanges(before, known, a.Val("tag_ids"))}
		if known {
			s.Chips.Label = "Tags"
		}
	}
	if a.Has("metadata") {
		s.Props = append(s.Props, SummaryProp{Label: "Metadata", Value: "replaced with " + formatValue(a.Val("metadata"), true)})
	}
	return s
}

func updateDocumentWords(a args, n names) string {
	var parts []string
	if v := argString(a, "name"); v != "" {
		parts = append(parts, "new name "+qname(v))
	}
	if a.Has("tag_ids") {
		parts = append(parts, n.tagList(a.Val("tag_ids")))
	}
	if a.Has("metadata") {
		parts = append(parts, "new metadata")
	}
	return paren(n.docWords(a), parts)
}

func deleteDocumentSummary(a args, n names) Summary {
	current, name := n.docRef(a)
	title := "Delete document " + quoted(argString(a, "document_id"))
	switch {
	case name != "":
		title = "Delete document " + quoted(name)
	case current:
		title = "Delete this document"
	}
	return Summary{Title: title, Notes: []string{"Its pages, extractions and conversations are deleted with it."}}
}

func deleteDocumentWords(a args, n names) string { return n.docWords(a) }
