package cli

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/docent/docent/agent"
)

// The footnotes of an answer: in the order of the numbers, an unknown one
// flagged among them, a query naming each document of the rows it read
// once (ten at most) or why they are not known, and the words of documents escaped.
func TestFootnotes(t *testing.T) {
	var rows []agent.CitedRow
	for i := range 13 {
		rows = append(rows, agent.CitedRow{View: "receipt", Document: fmt.Sprintf("r%02d.pdf", i)})
	}
	rows = append(rows, agent.CitedRow{View: "receipt", Document: "r00.pdf"})
	res := agent.TurnResult{
		Citations: []agent.Citation{
			{N: 3, Kind: agent.CiteQuery, SQL: "SELECT sum(total)\n  FROM receipt", RowCount: 1, Sources: rows[:3]},
			{N: 1, Kind: agent.CitePassage, Document: "taxi-2024-03.pdf", Page: 1, Quote: "Gesamtbetrag\n23,40 €"},
			{N: 4, Kind: agent.CiteQuery, SQL: "SELECT document FROM receipt", RowCount: 14, Sources: rows},
			{N: 5, Kind: agent.CiteQuery, SQL: "SELECT count(*) FROM documents", RowCount: 1},
			{N: 8, Kind: agent.CiteQuery, SQL: "SELECT * FROM a, b", RowCount: 2, SourcesNote: "the query reads several views (a, b): which of their rows it used is not known"},
			{N: 6, Kind: agent.CitePassage, DocumentID: "doc_1", Document: "Evil\x1b]0;PWNED\x07.pdf", Quote: "no page"},
		},
		UnknownCitations: []int{7, 2},
	}
	want := []string{
		`[1] taxi-2024-03.pdf p.1 "Gesamtbetrag 23,40 €"`,
		`[2] cites nothing the thread produced`,
		`[3] query: SELECT sum(total) FROM receipt → 1 row; from 3 rows: r00.pdf, r01.pdf, r02.pdf`,
		`[4] query: SELECT document FROM receipt → 14 rows; from 14 rows: r00.pdf, r01.pdf, r02.pdf, r03.pdf, r04.pdf, r05.pdf, r06.pdf, r07.pdf, r08.pdf, r09.pdf, and 3 more`,
		`[5] query: SELECT count(*) FROM documents → 1 row`,
		`[6] Evil\x1b]0;PWNED\x07.pdf "no page"`,
		`[7] cites nothing the thread produced`,
		`[8] query: SELECT * FROM a, b → 2 rows (the query reads several views (a, b): which of their rows it used is not known)`,
	}
	if got := footnotes(res); !slices.Equal(got, want) {
		t.Errorf("footnotes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := footnotes(agent.TurnResult{Text: "no markers"}); len(got) != 0 {
		t.Errorf("an answer that cites nothing has footnotes %q", got)
	}
}
