package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
	"modernc.org/sqlite"
)

// The data of a schema: one row per document whose latest extraction used
// a revision of the schema, for the data view (GET /api/schemas/{id}/rows)
// and the export by schema. Sorting, filtering and paging happen here, in
// SQL over the stored JSON (json_extract), so that a page of a table of
// 10,000 documents never decodes the other 9,900 in Go.

// Fixed row keys: besides field paths, a data query sorts and filters by
// these.
const (
	RowKeyDocumentName     = "document_name"
	RowKeyValidationStatus = "validation_status"
	RowKeyAutoCreateStatus = "auto_create_status"
)

// RowStatus selects the rows of a data query by their status
// (SchemaRowsQuery.Status).
type RowStatus string

// The row statuses: every row, those of a validation status (the
// Validation constants), or those edited by hand.
const (
	RowStatusAny         RowStatus = ""
	RowStatusValid       RowStatus = "valid"
	RowStatusInvalid     RowStatus = "invalid"
	RowStatusUnvalidated RowStatus = "unvalidated"
	RowStatusEdited      RowStatus = "edited"
)

// SchemaRowsQuery selects, orders and pages the rows of a schema.
type SchemaRowsQuery struct {
	// SchemaID is the schema's id.
	SchemaID string
	// PromptID, when set, keeps documents whose latest extraction was made
	// with a revision of this prompt.
	PromptID string
	// TagIDs: a document must have all of them.
	TagIDs []string
	// Sort is a dotted field path of the value or one of the RowKey
	// constants; "" sorts by document name. Numbers sort as numbers, text
	// ignoring case, nulls (and missing fields) last either way.
	Sort string
	Desc bool
	// Filters keep rows whose value at each path, as text, contains the
	// filter's text, ignoring case (all of them must match).
	Filters []RowFilter
	Status  RowStatus
	// Offset skips rows; Limit is the page size, every row when 0.
	Offset, Limit int
}

// RowFilter is one column filter of a data query.
type RowFilter struct {
	// Path is a dotted field path or a RowKey constant.
	Path string
	Text string
}

// SchemaRow is a document's latest extraction, as a row of its schema's
// table.
type SchemaRow struct {
	DocumentName     string
	AutoCreateStatus string
	Extraction       Extraction
}

func init() {
	// SQLite's lower(), LIKE and NOCASE fold ASCII only, and invoices are
	// full of Ä, É and Ø. docent_sortkey(x) is, for text, the text as a
	// person sorts it (SortKey); other values are returned as they are, so
	// numbers still sort as numbers, before any text.
	// docent_contains(x, needle) is whether x, as text and lower-cased,
	// contains needle (lower-cased already); NULL contains nothing.
	sqlite.MustRegisterDeterministicScalarFunction("docent_sortkey", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		if s, ok := args[0].(string); ok {
			return SortKey(s), nil
		}
		return args[0], nil
	})
	sqlite.MustRegisterDeterministicScalarFunction("docent_contains", 2, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		s, ok := sqlText(args[0])
		needle, _ := sqlText(args[1])
		return ok && strings.Contains(strings.ToLower(s), needle), nil
	})
}

// sqlText is a SQL value as text: ok is false for NULL.
func sqlText(v driver.Value) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		return x, true
	case []byte:
		return string(x), true
	}
	return fmt.Sprint(v), true
}

// FoldText is text lower-cased as the data filters compare it.
func FoldText(s string) string { return strings.ToLower(s) }

// SortKey is text as the data view sorts it: lower-cased, accents
// dropped ("Ärger" sorts as "arger", between "apfel" and "b"). Full
// Unicode collation (x/text/collate) would be finer, and made a data view
// sorted by a text column at 10,000 rows take about twice as long; this
// is the order of a phone book, which is what a table of invoices needs.
func SortKey(s string) string {
	ascii := true
	for i := 0; i < len(s) && ascii; i++ {
		ascii = s[i] < utf8.RuneSelf
	}
	if !ascii {
		marks := stripMarks.Get().(transform.Transformer)
		if t, _, err := transform.String(marks, s); err == nil {
			s = t
		}
		stripMarks.Put(marks)
	}
	return strings.ToLower(s)
}

// stripMarks holds transformers that decompose text and drop the combining
// marks (accents, umlauts' dots), then compose what is left. A chain keeps
// its buffers between calls, and SortKey runs on every SQLite connection
// at once: one shared chain gave a sort key of one call's text to another.
var stripMarks = sync.Pool{New: func() any {
	return transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
}}

// jsonPathOf turns a dotted field path into a SQLite JSON path with every
// key quoted ($."line_items"), so keys with spaces or dashes work. A key
// with a double quote cannot be written in SQLite's JSON path syntax.
func jsonPathOf(path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", Errorf(ErrInvalid, "empty field path")
	}
	var b strings.Builder
	b.WriteString("$")
	for _, seg := range strings.Split(path, ".") {
		// A NUL would cut the bound path short in SQLite ("$.\"a").
		if seg == "" || strings.ContainsAny(seg, "\"\x00") {
			return "", Errorf(ErrInvalid, "field path %q cannot be sorted or filtered by", path)
		}
		b.WriteString(`."`)
		b.WriteString(seg)
		b.WriteString(`"`)
	}
	return b.String(), nil
}

// latestExtractionOfDocument is the condition that extraction e is its
// document's newest. Its tables are named with their database (main.),
// as in currentRows, so that the data views (dataviews.go), TEMP views
// one of which is called documents, never stand in for them.
const latestExtractionOfDocument = `NOT EXISTS (SELECT 1 FROM main.extractions y WHERE y.document_id = e.document_id
	AND (y.created_at > e.created_at OR (y.created_at = e.created_at AND y.id > e.id)))`

// currentRows is the one definition of a schema's rows, which the data
// view, the export by schema and the data views of query_data all read:
// the extractions e (with their prompt revision p, schema revision sr
// and document d) that are their document's newest and were made with
// a revision of the schema schemaID names, an SQL expression ("?" to
// bind it). A document extracted twice is one row, its newest.
func currentRows(schemaID string) string {
	return ` FROM main.extractions e
		JOIN main.prompt_revisions p ON p.id = e.prompt_revid
		JOIN main.schema_revisions sr ON sr.id = p.schema_revid
		JOIN main.documents d ON d.id = e.document_id
		WHERE sr.schema_id = ` + schemaID + ` AND ` + latestExtractionOfDocument
}

// rowText is the SQL for the text of a row key, as a filter reads it: a
// JSON string as itself, other values as their JSON (numbers as written,
// true, [1,2]), null and missing fields NULL; args are what it binds.
func rowText(key string) (string, []any, error) {
	switch key {
	case RowKeyDocumentName:
		return `d.name`, nil, nil
	case RowKeyValidationStatus:
		return `e.validation_status`, nil, nil
	case RowKeyAutoCreateStatus:
		return `d.auto_create_status`, nil, nil
	}
	jp, err := jsonPathOf(key)
	if err != nil {
		return "", nil, err
	}
	return `(CASE json_type(e.value, ?) WHEN 'text' THEN json_extract(e.value, ?) WHEN 'null' THEN NULL
		ELSE e.value -> ? END)`, []any{jp, jp, jp}, nil
}

// rowOrder is how a data query sorts: key is the SQL of the sort key of
// a row (over e and d) with its arguments, order the ORDER BY over the
// matching rows m(id, name, k): the key (nulls last, text as SortKey has
// it, numbers as numbers and before text), then document name and id.
func rowOrder(key string, desc bool) (sortKey string, args []any, order string, err error) {
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	tail := `, name COLLATE NOCASE, id`
	switch key {
	case "", RowKeyDocumentName:
		// Names sort as the documents list sorts them.
		return `NULL`, nil, `name COLLATE NOCASE` + dir + `, id` + dir, nil
	case RowKeyValidationStatus:
		return `e.validation_status`, nil, `k` + dir + tail, nil
	case RowKeyAutoCreateStatus:
		return `d.auto_create_status`, nil, `k` + dir + tail, nil
	}
	jp, err := jsonPathOf(key)
	if err != nil {
		return "", nil, "", err
	}
	return `json_extract(e.value, ?)`, []any{jp},
		`k IS NULL, CASE typeof(k) WHEN 'text' THEN docent_sortkey(k) ELSE k END` + dir + tail, nil
}

// SchemaRows returns a page of a schema's rows, in the query's order, and
// how many rows match in all. A schema that does not exist is not found;
// one no document's latest extraction used has no rows.
func (db *DB) SchemaRows(ctx context.Context, q SchemaRowsQuery) ([]SchemaRow, int, error) {
	var conds []string
	args := []any{q.SchemaID}
	if q.PromptID != "" {
		conds = append(conds, `p.prompt_id = ?`)
		args = append(args, q.PromptID)
	}
	for _, tagID := range uniqueStrings(q.TagIDs) {
		conds = append(conds, `EXISTS (SELECT 1 FROM document_tags dt WHERE dt.document_id = d.id AND dt.tag_id = ?)`)
		args = append(args, tagID)
	}
	switch q.Status {
	case RowStatusAny:
	case RowStatusValid, RowStatusInvalid, RowStatusUnvalidated:
		conds = append(conds, `e.validation_status = ?`)
		args = append(args, string(q.Status))
	case RowStatusEdited:
		conds = append(conds, `e.edited = 1`)
	default:
		return nil, 0, Errorf(ErrInvalid, "unknown status %q (want %s, %s, %s or %s)",
			q.Status, RowStatusValid, RowStatusInvalid, RowStatusUnvalidated, RowStatusEdited)
	}
	for _, f := range q.Filters {
		if f.Text == "" {
			continue
		}
		if strings.ContainsRune(f.Text, 0) {
			// SQLite reads bound text up to its first NUL: "\x00" would
			// arrive as "" and match every row.
			return nil, 0, Errorf(ErrInvalid, "filter on %q: the text contains a NUL character", f.Path)
		}
		expr, fargs, err := rowText(f.Path)
		if err != nil {
			return nil, 0, err
		}
		conds = append(conds, `docent_contains(`+expr+`, ?)`)
		args = append(append(args, fargs...), FoldText(f.Text))
	}
	sortKey, kargs, order, err := rowOrder(q.Sort, q.Desc)
	if err != nil {
		return nil, 0, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	// The page's ids first, sorted and counted over narrow rows (id, name,
	// sort key) made once (a sort that carried whole extractions would
	// copy every value and raw output into SQLite's sorter, and a sort key
	// in the ORDER BY would parse each value again per use), then the
	// page's extractions.
	from := currentRows("?")
	for _, c := range conds {
		from += " AND " + c
	}
	pageArgs := append(append(append([]any{}, kargs...), args...), limit, max(q.Offset, 0))

	var out []SchemaRow
	total := 0
	err = db.view(ctx, "schema rows", func(tx *sql.Tx) error {
		if _, err := schemaArtifact.latest(ctx, tx, q.SchemaID); err != nil {
			return err
		}
		ids, err := queryRows(ctx, tx, func(s scanner) (any, error) {
			var id string
			err := s.Scan(&id, &total)
			return id, err
		}, `WITH m AS MATERIALIZED (SELECT e.id AS id, d.name AS name, `+sortKey+` AS k`+from+`)
			SELECT id, (SELECT count(*) FROM m) FROM m ORDER BY `+order+` LIMIT ? OFFSET ?`, pageArgs...)
		if err != nil {
			return err
		}
		if len(ids) == 0 && q.Offset > 0 {
			// Past the end: no row carried the count, so count apart.
			if err := tx.QueryRowContext(ctx, `SELECT count(*)`+from, args...).Scan(&total); err != nil {
				return err
			}
		}
		out, err = schemaRowsByID(ctx, tx, ids)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// schemaRowsByID reads the rows of these extractions, in this order.
func schemaRowsByID(ctx context.Context, tx *sql.Tx, ids []any) ([]SchemaRow, error) {
	byID := make(map[string]SchemaRow, len(ids))
	const batch = 500 // well under SQLite's limit of bound parameters
	for start := 0; start < len(ids); start += batch {
		part := ids[start:min(start+batch, len(ids))]
		err := queryEach(ctx, tx, func(s scanner) error {
			var r SchemaRow
			var err error
			if r.Extraction, err = scanExtraction(extraColumns{s, []any{&r.DocumentName, &r.AutoCreateStatus}}); err != nil {
				return err
			}
			byID[r.Extraction.ID] = r
			return nil
		}, `SELECT `+extractionColumns+`, d.name, d.auto_create_status
			FROM extractions e JOIN documents d ON d.id = e.document_id
			WHERE e.id IN (?`+strings.Repeat(", ?", len(part)-1)+`)`, part...)
		if err != nil {
			return nil, err
		}
	}
	out := make([]SchemaRow, 0, len(ids))
	for _, id := range ids {
		if r, ok := byID[id.(string)]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// extraColumns scans a row of extractionColumns followed by more columns,
// into extra.
type extraColumns struct {
	s     scanner
	extra []any
}

func (x extraColumns) Scan(dest ...any) error { return x.s.Scan(append(dest, x.extra...)...) }

// RerunPrompt returns the prompt revision to extract a document with again
// for a schema: the prompt of the document's newest extraction made with
// a revision of the schema, at its latest revision while that still links
// the schema (else the revision that ran); for a document without one,
// the kind's prompt (KindPrompt).
func (db *DB) RerunPrompt(ctx context.Context, documentID, schemaID string) (PromptRevision, error) {
	var r PromptRevision
	err := db.view(ctx, "rerun prompt", func(tx *sql.Tx) error {
		s, err := schemaArtifact.latest(ctx, tx, schemaID)
		if err != nil {
			return err
		}
		if _, err := getDocument(ctx, tx, documentID); err != nil {
			return err
		}
		var ranRev, promptID string
		err = tx.QueryRowContext(ctx, `SELECT p.id, p.prompt_id FROM extractions e
			JOIN prompt_revisions p ON p.id = e.prompt_revid
			JOIN schema_revisions sr ON sr.id = p.schema_revid
			WHERE e.document_id = ? AND sr.schema_id = ?
			ORDER BY e.created_at DESC, e.id DESC LIMIT 1`, documentID, s.SchemaID).Scan(&ranRev, &promptID)
		if errors.Is(err, sql.ErrNoRows) {
			r, err = kindPrompt(ctx, tx, s)
			return err
		}
		if err != nil {
			return err
		}
		if r, err = promptArtifact.latest(ctx, tx, promptID); err != nil {
			return err
		}
		if r.SchemaID != s.SchemaID {
			r, err = promptArtifact.revision(ctx, tx, ranRev)
		}
		return err
	})
	return r, err
}
