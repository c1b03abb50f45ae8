package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompts: the three jobs people ask for, as messages a client puts in
// its conversation (a slash command in most clients). Each says which
// tools to call, in which order, and what to show the person before a
// write; the document's text comes along as an embedded resource where
// the job is about one document.

func addPrompts(s *sdk.Server, o Options) {
	docArg := &sdk.PromptArgument{Name: "document_id", Title: "Document", Description: "The document's id (search_docs or list_documents finds it).", Required: true}
	s.AddPrompt(&sdk.Prompt{Name: "propose_schema", Title: "Propose a schema for this document",
		Description: "Read a document and propose a Docent schema for the data in it, to create after you agree.",
		Arguments:   []*sdk.PromptArgument{docArg}}, o.proposeSchema)
	s.AddPrompt(&sdk.Prompt{Name: "extract_document", Title: "Extract this document with a prompt",
		Description: "Run an extraction prompt on a document and show the result with the values the document does not show.",
		Arguments: []*sdk.PromptArgument{docArg, {Name: "prompt", Title: "Extraction prompt",
			Description: "The extraction prompt's id or name (list_prompts finds it).", Required: true}}}, o.extractDocument)
	s.AddPrompt(&sdk.Prompt{Name: "find_documents", Title: "Find documents about …",
		Description: "Search the documents' text and list the documents about a subject.",
		Arguments:   []*sdk.PromptArgument{{Name: "about", Title: "About", Description: "What the documents are about, in a few words.", Required: true}}}, o.findDocuments)
}

// argument is a prompt's required argument, trimmed.
func argument(req *sdk.GetPromptRequest, name string) (string, error) {
	v := strings.TrimSpace(req.Params.Arguments[name])
	if v == "" {
		return "", fmt.Errorf("the prompt %s needs the argument %s", req.Params.Name, name)
	}
	return v, nil
}

// withDocument is a prompt's messages: the request, then the document's
// text (its first read) as an embedded resource.
func (o Options) withDocument(ctx context.Context, id, text, description string) (*sdk.GetPromptResult, error) {
	uri := "docent://documents/" + id
	doc, err := o.documentText(ctx, &sdk.ReadResourceRequest{Params: &sdk.ReadResourceParams{URI: uri}})
	if err != nil {
		return nil, err
	}
	return &sdk.GetPromptResult{Description: description, Messages: []*sdk.PromptMessage{
		{Role: "user", Content: &sdk.TextContent{Text: text}},
		{Role: "user", Content: &sdk.EmbeddedResource{Resource: doc.Contents[0]}},
	}}, nil
}

func (o Options) proposeSchema(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	id, err := argument(req, "document_id")
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("Propose a Docent schema for the data in document %s (its text is attached; get_ocr_text with document_id %s reads more). "+
		"Call help_schemas for the rules and list_schemas to see whether one already fits. Draft the fields a person would want as table columns, "+
		"check the draft with validate_schema, then show me the fields with their types and wait for my go-ahead before create_schema.", id, id)
	return o.withDocument(ctx, id, text, "Propose a schema for document "+id)
}

func (o Options) extractDocument(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	id, err := argument(req, "document_id")
	if err != nil {
		return nil, err
	}
	prompt, err := argument(req, "prompt")
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("Extract document %s with the extraction prompt %q: call run_extraction with document_id %s and prompt_revid %q. "+
		"Then show me the extracted values as a table, and name the values the result lists as ungrounded or ambiguous "+
		"(the document does not show them, or shows them in several places), with what the document says instead. "+
		"Correct a value with update_extraction_field only after I agree.", id, prompt, id, prompt)
	return &sdk.GetPromptResult{Description: "Extract document " + id + " with " + prompt,
		Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}}}, nil
}

func (o Options) findDocuments(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	about, err := argument(req, "about")
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("Find my documents about %q. Search their text with search_docs (plain words, all must occur; word* matches prefixes; "+
		"try a few wordings), and list_documents with name_search for names. Read a hit with open_citation when the snippet is not enough. "+
		"Answer with a list of the documents (name, id, and a line on what each says about it), best first.", about)
	return &sdk.GetPromptResult{Description: "Find documents about " + about,
		Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}}}, nil
}
