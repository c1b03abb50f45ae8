package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

func searchTools() []Tool {
	return []Tool{
		{
			Name:        "search_docs",
			Title:       "Search documents by words and meaning",
			Description: fmt.Sprintf("Search every document's text, by words and, when an embedding model is set, by meaning (any language: \"car hire\" finds \"Autovermietung\"): hits with document id and name, page, chunk id, a snippet (matched words between « and ») and matched: words, meaning or both. By words, all must occur; word* matches prefixes. search_docs and open_citation together may be called %d times per turn.", MaxSearchCalls),
			Parameters: params([]string{"query"}, map[string]string{
				"query": `{"type":"string","minLength":1,"maxLength":2000,"description":"Words or a question to look for."}`,
				"limit": `{"type":"integer","minimum":1,"maximum":20,"description":"How many hits, 1-20. Default 5."}`,
				"by":    `{"type":"string","enum":["words","meaning","both"],"description":"words: exact words only; meaning: by meaning only; both (the default when an embedding model is set)."}`,
			}),
			Access:     ReadOnly,
			CallsModel: true,
			Run:        decodeArgs(searchDocs),
			Summarize:  summarizer(searchSummary, searchWords),
		},
		{
			Name:        "open_citation",
			Title:       "Open a search hit's passage",
			Description: "Read the text of one search hit (a chunk), capped at 1,500 characters.",
			Parameters: params([]string{"document_id", "chunk_id"}, map[string]string{
				"document_id": `{"type":"string","minLength":1,"description":"The hit's document_id."}`,
				"chunk_id":    `{"type":"integer","description":"The hit's chunk_id."}`,
			}),
			Access:    ReadOnly,
			Run:       decodeArgs(openCitation),
			Summarize: summarizer(citationSummary, citationWords, citationOutcome),
		},
	}
}

// countSearch counts a search_docs or open_citation call against the turn's
// budget.
func (env *ToolEnv) countSearch() error {
	if *env.SearchCalls >= MaxSearchCalls {
		return fault.Errorf(fault.Invalid, "search limit reached: search_docs and open_citation may be called %d times per turn; answer with what you found", MaxSearchCalls)
	}
	*env.SearchCalls++
	return nil
}

const defaultSearchHits = 5

func searchDocs(ctx context.Context, env *ToolEnv, a struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
	By    string `json:"by"`
}) (any, error) {
	if err := env.countSearch(); err != nil {
		return nil, err
	}
	limit := a.Limit
	if limit <= 0 {
		limit = defaultSearchHits
	}
	res, err := env.Embedder.Search(ctx, env.DB, SearchRequest{Query: a.Query, Limit: limit, By: a.By})
	if err != nil {
		return nil, err
	}
	var hits any = res.Hits
	if env.citing() {
		cited := make([]citedHit, len(res.Hits))
		words := map[string]map[int]storage.PageWords{}
		for i, h := range res.Hits {
			cited[i] = citedHit{SearchHit: h, Cite: env.cite(passageCitation(ctx, env, h.DocumentID, h.DocumentName, h.Page, h.Snippet, words))}
		}
		hits = cited
	}
	out := map[string]any{"hits": hits, "by": res.By}
	if res.Model != "" {
		out["model"] = res.Model
	}
	if res.Note != "" {
		out["note"] = res.Note
	}
	return withPreview(out, "%d hits for %q", len(res.Hits), strings.TrimSpace(a.Query)), nil
}

func openCitation(ctx context.Context, env *ToolEnv, a struct {
	DocumentID string `json:"document_id"`
	ChunkID    int64  `json:"chunk_id"`
}) (any, error) {
	if err := env.countSearch(); err != nil {
		return nil, err
	}
	c, err := env.DB.GetChunk(ctx, strings.TrimSpace(a.DocumentID), a.ChunkID)
	if err != nil {
		return nil, err
	}
	more := fmt.Sprintf("the chunk is on page %d of document %s", c.Page, c.DocumentID)
	if c.DocumentID == env.DocumentID {
		more = fmt.Sprintf("call get_ocr_text with page_num %d for the page", c.Page)
	}
	c.Text, _ = capText(c.Text, CitationCap, more)
	if !env.citing() {
		return c, nil
	}
	doc, err := env.DB.GetDocument(ctx, c.DocumentID)
	if err != nil {
		return nil, err
	}
	quote, _, _ := strings.Cut(c.Text, "\n[truncated:")
	n := env.cite(passageCitation(ctx, env, c.DocumentID, doc.Name, c.Page, quote, map[string]map[int]storage.PageWords{}))
	return citedChunk{Chunk: c, Cite: n}, nil
}

// citedHit and citedChunk are a search hit and an opened passage with
// the number an answer cites them by.
type citedHit struct {
	storage.SearchHit
	Cite int `json:"cite"`
}

type citedChunk struct {
	storage.Chunk
	Cite int `json:"cite"`
}

func searchSummary(a args, _ names) Summary {
	if q, ok := str(a.Val("query")); ok {
		return titled("Search documents for " + quoted(q))
	}
	return titled("Search documents")
}

func searchWords(a args, _ names) string { return qname(argString(a, "query")) }

func citationSummary(a args, n names) Summary {
	if id := argString(a, "document_id"); id != "" {
		if d, ok := n.Document(id); ok {
			return titled("Open a passage of " + quoted(d.Name))
		}
	}
	return titled("Open a passage of a document")
}

func citationWords(a args, n names) string {
	chunk, _ := intArg(a.Val("chunk_id"))
	d := argString(a, "document_id")
	if doc, ok := n.Document(d); ok {
		d = doc.Name
	}
	return fmt.Sprintf("chunk %d of %s", chunk, qname(d))
}

func citationOutcome(r args) string {
	return fmt.Sprintf("page %d, %s", num(r, "page"), characters(text(r, "text")))
}
