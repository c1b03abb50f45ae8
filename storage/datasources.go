package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The rows a query read, for citing it: an answer that says "you spent
// 123.40 [1]" lets a person open the receipts the sum was made of. For a
// query over one view, SQLite itself finds them: the same FROM and WHERE
// (and, for a query that is not an aggregate, the same ORDER BY and
// LIMIT) selecting each row's document and extraction instead, on the
// same guarded connection and in the same read transaction as the query.

// MaxDataSources caps the source rows listed for one query.
const MaxDataSources = 1000

// DataSources are the rows of the views that a query read.
type DataSources struct {
	Rows []DataSourceRow
	// Note says why Rows are not all the rows the query read (several
	// views, a query too involved to restate, more than MaxDataSources);
	// "" when they are exactly those.
	Note string
}

// DataSourceRow is one row a query read.
type DataSourceRow struct {
	View         string
	DocumentID   string
	Document     string
	ExtractionID string
	// Fields are the schema's field keys of the view's columns that the
	// query names (all of them for a *).
	Fields []string
	// Evidence is the extraction's stored evidence (a JSON object keyed by
	// field path), nil without an extraction.
	Evidence json.RawMessage
}

// sqlToken is a word or a character of SQL outside quotes, comments and
// parentheses (depth 0), with where it starts.
type sqlToken struct {
	text string // lower case for words
	pos  int
	word bool
}

// topLevelTokens reads text as oneSelect does (quotes, comments) and
// returns its tokens at parenthesis depth 0; names holds every word and
// quoted name at any depth, lower case, unquoted.
func topLevelTokens(text string) (top []sqlToken, names map[string]bool) {
	names = map[string]bool{}
	depth := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(text[i+1:], '\'')
			if j < 0 {
				return top, names
			}
			i += j + 1
		case c == '"' || c == '`' || c == '[':
			closing := c
			if c == '[' {
				closing = ']'
			}
			j := strings.IndexByte(text[i+1:], closing)
			if j < 0 {
				return top, names
			}
			name := strings.ToLower(text[i+1 : i+1+j])
			names[name] = true
			if depth == 0 {
				top = append(top, sqlToken{text: name, pos: i, word: true})
			}
			i += j + 1
		case strings.HasPrefix(text[i:], "--"):
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				return top, names
			}
			i += j
		case strings.HasPrefix(text[i:], "/*"):
			j := strings.Index(text[i+2:], "*/")
			if j < 0 {
				return top, names
			}
			i += j + 3
		case c == '(':
			depth++
		case c == ')':
			depth--
		case isSQLSpace(c):
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(text) && (text[j] == '_' || text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z' || text[j] >= '0' && text[j] <= '9') {
				j++
			}
			w := strings.ToLower(text[i:j])
			names[w] = true
			if depth == 0 {
				top = append(top, sqlToken{text: w, pos: i, word: true})
			}
			i = j - 1
		default:
			if depth == 0 {
				top = append(top, sqlToken{text: string(c), pos: i})
			}
		}
	}
	return top, names
}

// aggregateCall finds a call of an aggregate function.
var aggregateCall = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(count|sum|total|avg|min|max|group_concat|string_agg|json_group_array|json_group_object|jsonb_group_array|jsonb_group_object|median)\s*\(`)
})

// clauseWords end a SELECT's FROM clause.
var clauseWords = []string{"where", "group", "having", "order", "limit", "window"}

// sourceSelect restates a query over one view as the SELECT of the rows
// it read: their document_id, document and extraction_id, then whatever
// the query selected (so that names it gives in the select list still
// mean the same in its WHERE and ORDER BY). It returns the view's name as
// the query wrote it and "" when the query is not one it can restate: not
// a plain SELECT ... FROM one name, or with WITH, UNION, a join.
func sourceSelect(text string) (sel, view string) {
	top, _ := topLevelTokens(text)
	if len(top) == 0 || top[0].text != "select" {
		return "", ""
	}
	from, end := -1, len(top)
	for i, t := range top {
		switch {
		case t.word && (t.text == "union" || t.text == "intersect" || t.text == "except" || t.text == "join"):
			return "", ""
		case t.word && t.text == "from" && from < 0:
			from = i
		case from >= 0 && end == len(top) && t.word && slices.Contains(clauseWords, t.text):
			end = i
		}
	}
	if from < 0 || from+1 >= end {
		return "", ""
	}
	// FROM name [[AS] alias], nothing else (a comma is a join).
	fromClause := top[from+1 : end]
	switch {
	case len(fromClause) == 1:
	case len(fromClause) == 2 && fromClause[1].word:
	case len(fromClause) == 3 && fromClause[1].text == "as" && fromClause[2].word:
	default:
		return "", ""
	}
	if !fromClause[0].word {
		return "", ""
	}
	list := text[top[0].pos+len("select") : top[from].pos]
	if w := firstWord(list); w == "distinct" || w == "all" {
		i := strings.Index(strings.ToLower(list), w)
		list = list[i+len(w):]
	}
	aggregate := aggregateCall().MatchString(list)
	for _, t := range top[end:] {
		if t.word && (t.text == "group" || t.text == "having") {
			aggregate = true
		}
	}
	const ids = `document_id, document, extraction_id`
	if !aggregate {
		return `SELECT ` + ids + `, ` + list + text[top[from].pos:], fromClause[0].text
	}
	// An aggregate read every row its WHERE kept: its grouping, order
	// and limit are of the groups.
	rest := text[top[from].pos:]
	for _, t := range top[end:] {
		if t.word && t.text != "where" && slices.Contains(clauseWords, t.text) {
			rest = text[top[from].pos:t.pos]
			break
		}
	}
	return `SELECT ` + ids + ` ` + rest, fromClause[0].text
}

// readSources runs the source SELECT of a query on its connection and
// names the fields it used. viewsRead are the views the query read.
func readSources(ctx context.Context, dc *dataConn, text string, viewsRead []string) (DataSources, error) {
	var out DataSources
	sel, name := sourceSelect(text)
	if len(viewsRead) != 1 || sel == "" || !strings.EqualFold(name, viewsRead[0]) {
		views := strings.Join(viewsRead, ", ")
		if len(viewsRead) > 1 {
			out.Note = "the query reads several views (" + views + "): which of their rows it used is not known"
		} else {
			out.Note = "the query is not a plain SELECT over one view (WITH, a join, a compound or a subquery in FROM): which rows it used is not known"
		}
		return out, nil
	}
	var v DataView
	for _, cv := range dc.cat.views {
		if cv.Name == viewsRead[0] {
			v = cv
		}
	}
	_, names := topLevelTokens(text)
	var fields []string
	for _, c := range v.Columns {
		if c.Field != "" && (names[strings.ToLower(c.Name)] || strings.Contains(text, "*")) {
			fields = append(fields, c.Field)
		}
	}
	rows, err := dc.conn.QueryContext(ctx, sel)
	if err != nil {
		// The restatement did not compile (a name the select list gave
		// used where SQLite does not allow it once restated): no sources
		// rather than no answer.
		out.Note = "which rows the query used could not be worked out: " + dc.guard.explain(err).Error()
		return out, nil
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return DataSources{}, err
	}
	var docID, doc, extID sql.NullString
	dest := []any{&docID, &doc, &extID}
	for range cols[len(dest):] {
		dest = append(dest, new(any)) // what the query itself selected
	}
	n := 0
	for rows.Next() {
		n++
		if len(out.Rows) >= MaxDataSources {
			continue
		}
		if err := rows.Scan(dest...); err != nil {
			return DataSources{}, err
		}
		out.Rows = append(out.Rows, DataSourceRow{View: v.Name, DocumentID: docID.String, Document: doc.String,
			ExtractionID: extID.String, Fields: fields})
	}
	if err := rows.Err(); err != nil {
		return DataSources{}, err
	}
	if n > len(out.Rows) {
		out.Note = fmt.Sprintf("the query read %d rows; the first %d are listed", n, len(out.Rows))
	}
	return out, nil
}

// addSourceEvidence reads the stored evidence of the sources' extractions.
func (db *DB) addSourceEvidence(ctx context.Context, s *DataSources) error {
	var ids []string
	for _, r := range s.Rows {
		if r.ExtractionID != "" {
			ids = append(ids, r.ExtractionID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	idList, _ := json.Marshal(ids) // a list of strings always marshals
	evidence := map[string]json.RawMessage{}
	err := queryEach(ctx, db.sql, func(sc scanner) error {
		var id, ev string
		if err := sc.Scan(&id, &ev); err != nil {
			return err
		}
		evidence[id] = json.RawMessage(ev)
		return nil
	}, `SELECT id, evidence FROM extractions WHERE id IN (SELECT value FROM json_each(?))`, string(idList))
	if err != nil {
		return fmt.Errorf("read the evidence of the rows read: %w", err)
	}
	for i := range s.Rows {
		s.Rows[i].Evidence = evidence[s.Rows[i].ExtractionID]
	}
	return nil
}
