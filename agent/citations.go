package agent

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/docent/docent/agent/evidence"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
)

// Citations: every result of search_docs (each hit), open_citation and
// query_data in a thread gets a number, `cite: n`, counting from 1 across
// the thread's turns. The Citation behind each number is stored in the
// data of the tool message that produced it (MessageData.Citations), so a
// later turn, after a restart too, resolves the [n] of an answer from the
// thread alone, without running anything again.

// quoteCap caps a passage citation's quote, in characters.
const quoteCap = 300

// citeBook numbers a thread's citations.
type citeBook struct {
	// byN are the thread's citations by number; last the highest number.
	byN  map[int]Citation
	last int
	// fresh are the citations made since take.
	fresh []Citation
}

// newCiteBook reads the citations a thread's tool messages hold.
func newCiteBook(stored []storage.ThreadMessage) *citeBook {
	b := &citeBook{byN: map[int]Citation{}}
	for _, m := range stored {
		if m.Role != storage.RoleTool || len(m.Data) == 0 {
			continue
		}
		for _, c := range ParseMessageData(m.Data).Citations {
			b.byN[c.N] = c
			b.last = max(b.last, c.N)
		}
	}
	return b
}

// add numbers c and returns its number.
func (b *citeBook) add(c Citation) int {
	b.last++
	c.N = b.last
	b.byN[c.N] = c
	b.fresh = append(b.fresh, c)
	return c.N
}

// take returns the citations made since the last take.
func (b *citeBook) take() []Citation {
	out := b.fresh
	b.fresh = nil
	return out
}

// cite numbers c when the tool runs in a thread that numbers citations,
// and returns 0 otherwise (MCP, a tool run outside a turn).
func (env *ToolEnv) cite(c Citation) int {
	if env.cites == nil {
		return 0
	}
	return env.cites.add(c)
}

// citing reports whether results are numbered.
func (env *ToolEnv) citing() bool { return env.cites != nil }

// citeMarker finds [n], [n, m] in an answer.
var citeMarker = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[\s*(\d{1,6}(?:\s*,\s*\d{1,6})*)\s*\]`) })

// citedNumbers are the numbers an answer cites, [1, 2] and [1][2] alike,
// then those of listed (the text protocol's FINAL citations), each once,
// in the order first cited.
func citedNumbers(text string, listed []int) []int {
	var out []int
	for _, m := range citeMarker().FindAllStringSubmatch(text, -1) {
		for _, s := range strings.Split(m[1], ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err == nil && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	for _, n := range listed {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// resolve splits the numbers an answer cites into the citations of the
// thread, in order of n, and the numbers it never produced (flagged on
// the answer, never dropped), in order.
func (b *citeBook) resolve(cited []int) (known []Citation, unknown []int) {
	for _, n := range cited {
		if c, ok := b.byN[n]; ok {
			known = append(known, c)
		} else {
			unknown = append(unknown, n)
		}
	}
	slices.SortFunc(known, func(x, y Citation) int { return x.N - y.N })
	slices.Sort(unknown)
	return known, unknown
}

// passageCitation cites a passage of a document: its quote is text made
// plain (search marks and ellipses dropped) and cut to quoteCap, and its
// box is where the quote stands on the page, when the page has positioned
// words and the quote is found there.
func passageCitation(ctx context.Context, env *ToolEnv, documentID, document string, page int, text string, words map[string]map[int]storage.PageWords) Citation {
	quote := strings.Join(strings.Fields(strings.NewReplacer("«", "", "»", "", "…", " ").Replace(text)), " ")
	if cut, long := textfmt.Cut(quote, quoteCap); long {
		if i := strings.LastIndexByte(cut, ' '); i > quoteCap/2 {
			cut = cut[:i]
		}
		quote = cut
	}
	c := Citation{Kind: CitePassage, DocumentID: documentID, Document: document, Page: page, Quote: quote}
	pages, ok := words[documentID]
	if !ok {
		var err error
		if pages, err = env.DB.DocumentWords(ctx, documentID); err != nil {
			loggerOr(env.Logger).WarnContext(ctx, "citation: read the page's words", "document", documentID, "err", err)
		}
		words[documentID] = pages
	}
	pw, ok := pages[page]
	if !ok || len(pw.Words) == 0 || quote == "" {
		return c
	}
	m, err := evidence.Ground(mustJSON(quote), []evidence.Page{evidencePage(page, "", pw)})
	if err != nil {
		return c
	}
	if e, ok := m[""]; ok && (e.Status == evidence.Grounded || e.Status == evidence.Ambiguous) && e.Page == page {
		c.BBox = e.BBox
	}
	return c
}

// queryCitation cites a query_data result: its SQL and result as the
// model saw them, and the rows of the views it read with the evidence of
// the fields it used.
func queryCitation(sql string, res storage.DataResult) Citation {
	c := Citation{Kind: CiteQuery, SQL: sql, Columns: res.Columns, Rows: res.Rows, RowCount: res.RowCount, Sources: []CitedRow{}}
	if res.Sources == nil {
		return c
	}
	c.SourcesNote = res.Sources.Note
	for _, r := range res.Sources.Rows {
		row := CitedRow{View: r.View, DocumentID: r.DocumentID, Document: r.Document, ExtractionID: r.ExtractionID, Evidence: evidence.Map{}}
		var all evidence.Map
		_ = json.Unmarshal(r.Evidence, &all)
		for path, e := range all {
			for _, f := range r.Fields {
				if path == f || strings.HasPrefix(path, f+".") {
					row.Evidence[path] = e
				}
			}
		}
		c.Sources = append(c.Sources, row)
	}
	return c
}
