package server

import (
	"github.com/docent/docent/agent"
	"reflect"

	"github.com/docent/docent/storage"
)

// Contract is what one route takes and answers, as the web client calls
// it: each route of routeTable has one, and the client's functions
// (frontend/src/api/routes.gen.ts, written by app/internal/tsgen) are
// generated from them, so a route added without its types fails
// TestEveryRouteHasAContract and the client cannot call it.
type Contract struct {
	// Name is the client function's name.
	Name string
	// Query is a struct of the query parameters the route reads, named by
	// their json tags; nil for none.
	Query reflect.Type
	// Body is the JSON request body; nil for none.
	Body reflect.Type
	// Answer is the JSON answer's body; nil for none.
	Answer reflect.Type
	// Form says how the client reaches the route.
	Form Form
}

// Form is how the web client reaches a route.
type Form int

const (
	// Call is a JSON request answered with JSON: the client's function
	// sends it and returns the answer.
	Call Form = iota
	// Link is a route the client does not fetch as JSON (a download, an
	// event stream, an upload with progress, a streamed turn): its
	// function returns the URL, for an <a href>, an EventSource or
	// another transport.
	Link
	// External is a route of other clients (MCP): the web client has no
	// function for it.
	External
)

// none stands for no query, body or answer in call's type parameters.
type none struct{}

func typeOf[T any]() reflect.Type {
	t := reflect.TypeFor[T]()
	if t == reflect.TypeFor[none]() {
		return nil
	}
	return t
}

// call is the contract of a JSON route: its query parameters Q, its body
// In and its answer Out (none for what it lacks).
func call[Q, In, Out any](name string) Contract {
	return Contract{Name: name, Query: typeOf[Q](), Body: typeOf[In](), Answer: typeOf[Out]()}
}

// link is the contract of a route the client opens by URL, with query
// parameters Q and answer Out as they are on the wire.
func link[Q, Out any](name string) Contract {
	c := call[Q, none, Out](name)
	c.Form = Link
	return c
}

// external is the contract of a route only other clients call.
func external() Contract { return Contract{Form: External} }

// Route is one route as the generated client sees it.
type Route struct {
	Pattern string
	Contract
}

// APIRoutes is every route with its contract, in routeTable's order: what
// the client generator walks. It builds the table of a server that is
// never started, as only the contracts are read.
func APIRoutes() []Route {
	var s *Server // the handlers are method values; none is called
	table := s.routeTable()
	out := make([]Route, len(table))
	for i, rt := range table {
		out[i] = Route{Pattern: rt.pattern, Contract: rt.wire}
	}
	return out
}

// The query parameters of the routes that take some. Members are named by
// their json tags, as the client's query objects are; every one may be
// left out.

// pageQuery pages an artifact list by name.
type pageQuery struct {
	Q      string `json:"q"`
	Limit  int    `json:"limit"`
	Offset int    `json:"offset"`
}

// promptQuery is pageQuery with the prompt list's tag filter.
type promptQuery struct {
	pageQuery
	TagID []string `json:"tag_id"`
}

// documentQuery is GET /api/documents's.
type documentQuery struct {
	// Q searches the text of the documents (every word must occur).
	Q string `json:"q"`
	// TagID keeps documents that have all these tags.
	TagID  []string             `json:"tag_id"`
	Limit  int                  `json:"limit"`
	Offset int                  `json:"offset"`
	Sort   storage.DocumentSort `json:"sort"`
	Order  sortOrder            `json:"order"`
}

// SortOrderType is the type of a sort's order, for the client generator
// to name it.
func SortOrderType() reflect.Type { return reflect.TypeFor[sortOrder]() }

// sortOrder is the order of a sort; "" is the sort's own default.
type sortOrder string

const (
	orderAsc  sortOrder = "asc"
	orderDesc sortOrder = "desc"
)

// pageTextQuery asks for one page's text; without it, the whole text.
type pageTextQuery struct {
	Page int `json:"page"`
}

// rowQuery selects the data view's rows (rowSelection).
type rowQuery struct {
	// Sort is a column path or a RowKey ("document_name"); "" for the
	// document's name.
	Sort  string    `json:"sort"`
	Order sortOrder `json:"order"`
	// Filter is PATH:TEXT, one per filtered column.
	Filter []string          `json:"filter"`
	Status storage.RowStatus `json:"status"`
}

// schemaRowsQuery is the rows of a schema's data view, a page at a time.
type schemaRowsQuery struct {
	rowQuery
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
}

// exportQuery is what both export routes take (exportOptions).
type exportQuery struct {
	// Format is csv (the default), json, jsonl or xlsx.
	Format   string   `json:"format"`
	Explode  string   `json:"explode"`
	Raw      string   `json:"raw"`
	Evidence string   `json:"evidence"`
	Tag      []string `json:"tag"`
}

// schemaExportQuery is a schema's export: the data view's rows.
type schemaExportQuery struct {
	exportQuery
	rowQuery
	Prompt string `json:"prompt"`
}

// searchQuery is GET /api/search's.
type searchQuery struct {
	Q     string `json:"q"`
	Limit int    `json:"limit"`
	// Tag is a tag's id or name; a hit's document has all of them.
	Tag []string `json:"tag"`
	// Kind is a schema's id or name.
	Kind string `json:"kind"`
	// By is words, meaning or both; left out, both with an embedding
	// model set, else words.
	By string `json:"by"`
}

// searchStatusQuery narrows the embedding progress to one document.
type searchStatusQuery struct {
	DocumentID string `json:"document_id"`
}

// sqlQuery is GET /api/sql's: one read-only SELECT.
type sqlQuery struct {
	Q string `json:"q"`
}

// pageImageQuery is a page image's resolution.
type pageImageQuery struct {
	DPI int `json:"dpi"`
}

// limitQuery caps a list.
type limitQuery struct {
	Limit int `json:"limit"`
}

// historyQuery is GET /api/history's filters.
type historyQuery struct {
	Document string `json:"document"`
	Edge     string `json:"edge"`
	Actor    string `json:"actor"`
	Turn     string `json:"turn"`
	Run      string `json:"run"`
	// Call, with Turn, is one tool call's changes.
	Call   string `json:"call"`
	Limit  int    `json:"limit"`
	Before int64  `json:"before"`
}

// usageQuery is GET /api/usage's.
type usageQuery struct {
	// Since is a day, YYYY-MM-DD; left out for all.
	Since string `json:"since"`
	// By is day (the default), model, edge, run or day_model.
	By string `json:"by"`
}

// stream is the contract of a turn: body In, answered with Server-Sent
// Events (or, with stream false, agent.TurnResult) through the client's
// transport, which takes the function's URL.
func stream[In any](name string) Contract {
	c := call[none, In, agent.TurnResult](name)
	c.Form = Link
	return c
}
