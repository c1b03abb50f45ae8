package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// Resources: what a client can show a person or attach to a message
// without a tool call. The lists and the items are the JSON of the
// read-only tools that declare an agent.Resource; a document is its text,
// pagesPerRead pages a read.

// pagesPerRead is how many pages of a document one read returns; the text
// ends with the URI of the next read when there are more.
const pagesPerRead = 20

func addResources(s *sdk.Server, o Options) {
	// The read-only tools that declare a resource: a collection at
	// docent://COLLECTION, an item at docent://COLLECTION/{id}.
	for _, t := range agent.Tools() {
		r := t.Resource
		if r == nil || t.Access != agent.ReadOnly {
			continue
		}
		uri := "docent://" + r.Collection
		if r.IDParam == "" {
			s.AddResource(&sdk.Resource{URI: uri, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: "application/json"},
				o.toolResource(uri, t.Name, r))
			continue
		}
		s.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: uri + "/{id}", Name: r.Name, Title: r.Title,
			Description: r.Description, MIMEType: "application/json"}, o.toolResource("", t.Name, r))
	}
	s.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "docent://documents/{id}{?page}", Name: "document",
		Title: "Document text", MIMEType: "text/plain",
		Description: fmt.Sprintf("A document's text, %d pages a read, each after a '--- page N ---' marker; ?page=N starts at page N.", pagesPerRead)},
		o.documentText)
	s.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "docent://extractions/{id}", Name: "extraction", Title: "Extraction",
		MIMEType: "application/json", Description: "A stored extraction with its evidence: where in the document each value stands (page, or that it was not found)."},
		o.extraction)
}

// resourceNotFound is the protocol's "resource not found" for uri, as
// sdk.ResourceNotFoundError makes it but with its data written as JSON: the
// SDK quotes the URI with Go's %q, which writes a control character as
// \x00, and an answer that is not JSON cannot be sent (on stdio the
// session ended; over HTTP its every later answer was an empty 200).
func resourceNotFound(uri string) error {
	data, err := json.Marshal(struct {
		URI string `json:"uri"`
	}{uri})
	if err != nil {
		data = nil // a string always marshals; no data is still an answer
	}
	return &jsonrpc.Error{Code: sdk.CodeResourceNotFound, Message: "Resource not found", Data: data}
}

// sendableErrors is the server's middleware that keeps every error answer
// JSON: the SDK answers a resources/read that no template takes with its
// own sdk.ResourceNotFoundError, which becomes resourceNotFound; any other
// error whose data is not JSON is sent without it.
func sendableErrors(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		var rpcErr *jsonrpc.Error
		if err == nil || !errors.As(err, &rpcErr) || len(rpcErr.Data) == 0 || json.Valid(rpcErr.Data) {
			return res, err
		}
		if read, ok := req.(*sdk.ReadResourceRequest); ok && rpcErr.Code == sdk.CodeResourceNotFound {
			return nil, resourceNotFound(read.Params.URI)
		}
		return nil, &jsonrpc.Error{Code: rpcErr.Code, Message: rpcErr.Message}
	}
}

// resourceID is the id a docent://KIND/{id} URI names, unescaped.
func resourceID(raw string) (string, url.Values, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "docent" {
		return "", nil, resourceNotFound(raw)
	}
	id := strings.TrimPrefix(u.Path, "/")
	if id == "" || strings.Contains(id, "/") {
		return "", nil, resourceNotFound(raw)
	}
	return id, u.Query(), nil
}

// readError is how a failed read answers: an unknown id is the protocol's
// "resource not found"; anything else says what went wrong, as the tools do.
func (o Options) readError(ctx context.Context, uri string, err error) error {
	if errors.Is(err, storage.ErrNotFound) || fault.ErrorCode(err) == fault.NotFound {
		return resourceNotFound(uri)
	}
	return errors.New(o.errorMessage(ctx, "read "+uri, err))
}

// toolResource reads a resource as a read-only tool's result: the same
// JSON the agent gets. A URI other than listURI names an id.
func (o Options) toolResource(listURI, tool string, r *agent.Resource) sdk.ResourceHandler {
	return func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		uri := req.Params.URI
		id := ""
		if uri != listURI {
			var err error
			if id, _, err = resourceID(uri); err != nil {
				return nil, err
			}
		}
		a, err := o.ready()
		if err != nil {
			return nil, err
		}
		env := o.toolEnv(a)
		res := agent.CallTool(ctx, env, tool, mustJSON(r.ResourceArgs(id)))
		if !res.Success {
			return nil, errors.New(res.Error) // what the agent would read: "schema x not found"
		}
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(res.Result)}}}, nil
	}
}

// documentText reads pagesPerRead pages of a document's text from ?page=
// (default 1), and says where the next read starts.
func (o Options) documentText(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	id, q, err := resourceID(uri)
	if err != nil {
		return nil, err
	}
	from := 1
	if p := q.Get("page"); p != "" {
		if from, err = strconv.Atoi(p); err != nil || from < 1 {
			return nil, fmt.Errorf("page=%q is not a page number (1, 2, ...)", p)
		}
	}
	a, err := o.ready()
	if err != nil {
		return nil, err
	}
	db := a.DB
	doc, err := db.GetDocument(ctx, id)
	if err != nil {
		return nil, o.readError(ctx, uri, err)
	}
	pages, err := db.DocumentText(ctx, doc.ID)
	if err != nil {
		return nil, o.readError(ctx, uri, err)
	}
	if from > max(len(pages), 1) {
		return nil, fmt.Errorf("page %d is past the end: %s has %d pages", from, doc.Name, len(pages))
	}
	to := min(from+pagesPerRead-1, len(pages))
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)\n", doc.Name, doc.ID)
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "--- page %d ---\n%s\n", i, pages[i-1])
	}
	if to < len(pages) {
		fmt.Fprintf(&b, "[pages %d-%d of %d; the next read is docent://documents/%s?page=%d]\n", from, to, len(pages), doc.ID, to+1)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: b.String()}}}, nil
}

// extraction reads a stored extraction with its evidence.
func (o Options) extraction(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	id, _, err := resourceID(uri)
	if err != nil {
		return nil, err
	}
	a, err := o.ready()
	if err != nil {
		return nil, err
	}
	x, err := a.DB.GetExtraction(ctx, id)
	if err != nil {
		return nil, o.readError(ctx, uri, err)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(mustJSON(x))}}}, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps of strings and numbers, and stored rows
	}
	return b
}
