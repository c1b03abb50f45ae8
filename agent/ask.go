package agent

import (
	"context"

	"github.com/docent/docent/agent/evidence"
	"github.com/docent/docent/storage/fault"
)

// Ask Docent: a conversation about the whole library, in a thread that
// belongs to no document, with read-only tools only (nothing to approve).
// Its answers cite what the thread's tools produced as [n]; see Citation.

// AskRequest starts a turn of a library thread.
type AskRequest struct {
	// ThreadID continues a library thread; "" starts a new one.
	ThreadID string
	Message  string
	// Model is a provider-prefixed model id; "" uses the thread's model,
	// then the agent's default.
	Model string
}

// Citation kinds.
const (
	CitePassage = "passage"
	CiteQuery   = "query"
)

// Citation is one thing an answer cites as [n]: a passage of a document
// (a search hit or an opened passage) or a query over the data views.
// Every tool result that can be cited carries its number (`cite: n`),
// numbered from 1 in the order the thread produced them.
type Citation struct {
	// N is `n`: the number the answer cites it by.
	N int `json:"n"`
	// Kind is `kind`: "passage" or "query".
	Kind string `json:"kind" ts:"'passage' | 'query'"`

	// A passage's document, page (1-based), quote and box on the page
	// ([x0, y0, x1, y1] in 0..1 of the page, top-left origin) when known.
	DocumentID string    `json:"document_id,omitempty"`
	Document   string    `json:"document,omitempty"`
	Page       int       `json:"page,omitempty"`
	Quote      string    `json:"quote,omitempty"`
	BBox       []float64 `json:"bbox,omitempty"`

	// A query's SQL, its result (columns, rows as returned to the model,
	// how many there were) and the table rows it read.
	SQL      string     `json:"sql,omitempty"`
	Columns  []string   `json:"columns,omitempty"`
	Rows     [][]any    `json:"rows,omitempty"`
	RowCount int        `json:"row_count,omitempty"`
	Sources  []CitedRow `json:"sources,omitempty"`
}

// CitedRow is one row of a view a query read: its document and extraction,
// and the evidence of the values the query used (by field name).
type CitedRow struct {
	View         string       `json:"view"`
	DocumentID   string       `json:"document_id"`
	Document     string       `json:"document"`
	ExtractionID string       `json:"extraction_id"`
	Evidence     evidence.Map `json:"evidence"`
}

// Ask runs one turn of a library thread.
func (a *Agent) Ask(ctx context.Context, req AskRequest, sink Sink) (TurnResult, error) {
	return TurnResult{}, fault.Errorf(fault.Internal, "Ask: not built yet")
}
