package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The data views: the extracted data as SQL, for questions across
// documents ("what did I spend on fuel in March?") that query_data
// answers with one SELECT (dataquery.go).
//
// There is one view per schema, named after the schema, with one row per
// document as the data view shows it (currentRows: the document's newest
// extraction, with the person's edits) and one column per top-level field
// of any of the schema's versions; and a documents view of every
// document. They are TEMP views, made on the query's own connection for
// that query and gone with it: they are always as current as the schemas
// (a field added a minute ago is a column), asking writes nothing to the
// store (no migration, nothing in the history, nothing to keep in step),
// and a query can only ever see what they show.

// Columns every schema's view has before its fields.
var fixedDataColumns = []DataColumn{
	{Name: "document_id", Type: DataText, Description: "the document's id"},
	{Name: "document", Type: DataText, Description: "the document's name"},
	{Name: "extraction_id", Type: DataText, Description: "the extraction the row shows: the document's newest, with the person's edits"},
	{Name: "kind", Type: DataText, Description: "the name of the document's kind (its schema), NULL when it has none"},
	{Name: "tags", Type: DataArray, Description: "the document's tag names, a JSON array (json_each reads it)"},
	{Name: "created_at", Type: DataText, Description: "when the document was added, UTC, 2006-01-02T15:04:05.000Z"},
}

// documentsViewName is the name of the view of every document.
const documentsViewName = "documents"

// The types of data columns, as describe_data names them. Numbers are
// SQL numbers, booleans 1 and 0, arrays and objects JSON text.
const (
	DataText    = "text"
	DataInteger = "integer"
	DataNumber  = "number"
	DataBoolean = "boolean"
	DataArray   = "array"
	DataObject  = "object"
	DataAny     = "any"
)

// DataView is one view of the data: what describe_data lists.
type DataView struct {
	// Name is the view's name in SQL.
	Name string `json:"name"`
	// Schema is the name of the schema whose rows it holds, SchemaID its
	// id; both empty for the documents view.
	Schema   string `json:"schema,omitempty"`
	SchemaID string `json:"schema_id,omitempty"`
	// Note says why the name is not the schema's name made plain (taken by
	// another schema, a table or an SQL keyword).
	Note string `json:"note,omitempty"`
	// Rows is how many rows it has.
	Rows    int          `json:"rows"`
	Columns []DataColumn `json:"columns"`

	// fields are the JSON keys of Columns past the fixed ones, in order.
	fields []string
}

// DataColumn is one column of a data view.
type DataColumn struct {
	// Name is the column's name in SQL.
	Name string `json:"name"`
	// Field is the schema's field it holds; empty for the fixed columns.
	Field string `json:"field,omitempty"`
	// Type is one of the Data type constants.
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	// Note says why the name is not the field's name made plain.
	Note string `json:"note,omitempty"`
	// Samples are a few of its values (at most three, text cut short).
	Samples []any `json:"samples"`
}

// dataCatalog is the views of one query: their names and columns, and
// the SQL that makes them.
type dataCatalog struct {
	views []DataView
	// selects are the SELECTs that make the views, one per view.
	selects []string
}

// viewNames returns the views' names.
func (c dataCatalog) viewNames() []string {
	out := make([]string, len(c.views))
	for i, v := range c.views {
		out[i] = v.Name
	}
	return out
}

// sqlName is a name made plain for SQL: accents dropped, lower case, each
// run of characters other than a-z and 0-9 one "_" (none at either end),
// so that "Invoice (auto-create)" is invoice_auto_create and a model
// writes it without quotes. A name with nothing left is fallback; one
// that starts with a digit gets a leading "_", as an SQL name may not
// start with one.
func sqlName(name, fallback string) string {
	var b strings.Builder
	gap := false
	for _, r := range SortKey(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			gap = false
			continue
		}
		gap = true
	}
	out := b.String()
	switch {
	case out == "":
		return fallback
	case out[0] >= '0' && out[0] <= '9':
		return "_" + out
	}
	return out
}

// uniqueName returns base when it is free, else the first of base_2,
// base_3... that is, and takes it; why says what had base (for the
// note), "" when base itself was free.
func uniqueName(base string, taken map[string]string) (name, why string) {
	if _, ok := taken[base]; !ok {
		taken[base] = ""
		return base, ""
	}
	why = taken[base]
	for i := 2; ; i++ {
		name = base + "_" + strconv.Itoa(i)
		if _, ok := taken[name]; !ok {
			taken[name] = ""
			return name, why
		}
	}
}

// reservedNames are names no view or column gets, with why: SQL's
// keywords (a column called order would need quotes every time).
func reservedNames() map[string]string {
	taken := make(map[string]string, len(sqlKeywords)+8)
	for _, k := range sqlKeywords {
		taken[k] = "an SQL keyword"
	}
	return taken
}

// schemaField is a top-level field of a schema.
type schemaField struct {
	key, typ, description string
}

// loadDataCatalog reads the schemas and their fields and names the views,
// in one snapshot of q. Names are given in a fixed order (schemas oldest
// first, fields in the latest version's order, then fields only older
// versions had), so the same store always gets the same names.
func loadDataCatalog(ctx context.Context, q queryer) (dataCatalog, error) {
	type schemaRow struct{ id, name string }
	schemas, err := queryRows(ctx, q, func(s scanner) (schemaRow, error) {
		var r schemaRow
		err := s.Scan(&r.id, &r.name)
		return r, err
	}, `SELECT id, name FROM main.schemas ORDER BY created_at, id`)
	if err != nil {
		return dataCatalog{}, fmt.Errorf("read schemas: %w", err)
	}
	fields := map[string][]schemaField{}
	err = queryEach(ctx, q, func(s scanner) error {
		var id, key, typ, desc string
		if err := s.Scan(&id, &key, &typ, &desc); err != nil {
			return err
		}
		for _, f := range fields[id] {
			if f.key == key {
				return nil // a newer version has it
			}
		}
		fields[id] = append(fields[id], schemaField{key: key, typ: fieldType(typ), description: desc})
		return nil
	}, `SELECT r.schema_id, f.key, coalesce(f.value -> '$.type', ''), coalesce(f.value ->> '$.description', '')
		FROM main.schema_revisions r,
			json_each(coalesce(r.response_format -> '$.json_schema.schema.properties', r.response_format -> '$.properties')) f
		WHERE f.type = 'object'
		ORDER BY r.schema_id, r.version DESC, f.id`)
	if err != nil {
		return dataCatalog{}, fmt.Errorf("read schema fields: %w", err)
	}
	// A view never takes the name of a table or view of the store: an
	// unqualified name would then mean the view, and "tags" in a query
	// would not be what it says.
	taken := reservedNames()
	tables, err := queryRows(ctx, q, scanValue[string], `SELECT name FROM main.sqlite_schema WHERE type IN ('table', 'view')`)
	if err != nil {
		return dataCatalog{}, fmt.Errorf("read table names: %w", err)
	}
	for _, t := range tables {
		taken[strings.ToLower(t)] = "a table of the store"
	}
	for _, f := range []string{"json_each", "json_tree"} {
		taken[f] = "an SQL function"
	}
	taken[documentsViewName] = "the view of every document"

	var c dataCatalog
	var cases []string // schema id -> view name, for documents.data_view
	for _, s := range schemas {
		base := sqlName(s.name, "schema")
		name, why := uniqueName(base, taken)
		taken[name] = fmt.Sprintf("the view of schema %q", s.name)
		v := DataView{Name: name, Schema: s.name, SchemaID: s.id}
		if why != "" {
			v.Note = fmt.Sprintf("%s is %s", base, why)
		}
		stmt, err := schemaViewSQL(&v, fields[s.id])
		if err != nil {
			return dataCatalog{}, err
		}
		c.views = append(c.views, v)
		c.selects = append(c.selects, stmt)
		cases = append(cases, fmt.Sprintf("WHEN %s THEN %s", sqlString(s.id), sqlString(name)))
	}
	docs, docsSQL := documentsView(cases)
	c.views = append([]DataView{docs}, c.views...)
	c.selects = append([]string{docsSQL}, c.selects...)
	return c, nil
}

// fieldType is a data column's type from a field's JSON Schema "type"
// (a JSON string, or an array of them such as ["number","null"]).
func fieldType(raw string) string {
	var types []string
	var one string
	if json.Unmarshal([]byte(raw), &one) == nil {
		types = []string{one}
	} else if json.Unmarshal([]byte(raw), &types) != nil {
		return DataAny
	}
	var found []string
	for _, t := range types {
		if t != "null" {
			found = append(found, t)
		}
	}
	if len(found) != 1 {
		return DataAny
	}
	switch found[0] {
	case "string":
		return DataText
	case "integer":
		return DataInteger
	case "number":
		return DataNumber
	case "boolean":
		return DataBoolean
	case "array":
		return DataArray
	case "object":
		return DataObject
	}
	return DataAny
}

// schemaViewSQL names a schema view's field columns and returns the
// SELECT that makes it. A field's value is json_extract's: numbers
// stay numbers, true and false are 1 and 0, arrays and objects JSON
// text; a field missing from a row, or a row whose output was not JSON,
// is NULL.
func schemaViewSQL(v *DataView, fields []schemaField) (string, error) {
	taken := reservedNames()
	cols := []string{
		`d.id AS document_id`,
		`d.name AS document`,
		`e.id AS extraction_id`,
		documentKindSQL + ` AS kind`,
		documentTagsSQL + ` AS tags`,
		`d.created_at AS created_at`,
	}
	v.Columns = append([]DataColumn{}, fixedDataColumns...)
	for _, c := range fixedDataColumns {
		taken[c.Name] = "a column every view has"
	}
	for _, f := range fields {
		if strings.ContainsRune(f.key, 0) {
			continue // SQL text cannot hold it; no schema a model writes has one
		}
		base := sqlName(f.key, "field")
		name, why := uniqueName(base, taken)
		taken[name] = fmt.Sprintf("the column of field %q", f.key)
		col := DataColumn{Name: name, Field: f.key, Type: f.typ, Description: f.description}
		if why != "" {
			col.Note = fmt.Sprintf("%s is %s", base, why)
		}
		v.Columns = append(v.Columns, col)
		v.fields = append(v.fields, f.key)
		cols = append(cols, fieldValueSQL(f.key)+` AS `+sqlIdent(name))
	}
	return `SELECT ` + strings.Join(cols, ", ") +
		currentRows(sqlString(v.SchemaID)), nil
}

// fieldValueSQL is the SQL of the value of a top-level field of e.value.
func fieldValueSQL(key string) string {
	if jp, err := jsonPathOf(key); err == nil && !strings.Contains(key, ".") {
		return `json_extract(e.value, ` + sqlString(jp) + `)`
	}
	// A key JSON paths cannot spell (a dot or a double quote in it).
	return `(SELECT j.value FROM json_each(e.value) j WHERE j.key = ` + sqlString(key) + `)`
}

// The kind and tags of document d, as the views show them.
const (
	documentKindSQL = `(SELECT k.name FROM main.schemas k WHERE k.id = d.schema_id)`
	documentTagsSQL = `(SELECT json_group_array(t.name) FROM (SELECT t.name FROM main.document_tags dt
		JOIN main.tags t ON t.id = dt.tag_id WHERE dt.document_id = d.id ORDER BY t.name COLLATE NOCASE) t)`
)

// documentsView is the view of every document, with its newest
// extraction and the view that holds its row (cases map a schema id to
// its view's name).
func documentsView(cases []string) (DataView, string) {
	v := DataView{Name: documentsViewName, Columns: []DataColumn{
		fixedDataColumns[0], fixedDataColumns[1],
		{Name: "extraction_id", Type: DataText, Description: "the document's newest extraction, NULL when it has none"},
		{Name: "data_view", Type: DataText, Description: "the view that has the document's row (its newest extraction's schema), NULL when none does"},
		fixedDataColumns[3], fixedDataColumns[4], fixedDataColumns[5],
		{Name: "media_type", Type: DataText, Description: "the file's type, e.g. application/pdf"},
		{Name: "pages", Type: DataInteger, Description: "how many pages it has"},
		{Name: "size", Type: DataInteger, Description: "the file's size in bytes"},
		{Name: "status", Type: DataText, Description: "ready, needs_ocr or failed"},
	}}
	dataView := `NULL`
	if len(cases) > 0 {
		dataView = `CASE sr.schema_id ` + strings.Join(cases, " ") + ` END`
	}
	return v, `SELECT d.id AS document_id, d.name AS document,
		e.id AS extraction_id, ` + dataView + ` AS data_view, ` + documentKindSQL + ` AS kind, ` + documentTagsSQL + ` AS tags,
		d.created_at AS created_at, d.media_type AS media_type, d.pages AS pages, d.size AS size, d.status AS status
		FROM main.documents d
		LEFT JOIN main.extractions e ON e.document_id = d.id AND ` + latestExtractionOfDocument + `
		LEFT JOIN main.prompt_revisions p ON p.id = e.prompt_revid
		LEFT JOIN main.schema_revisions sr ON sr.id = p.schema_revid`
}

// sqlString is s as an SQL string literal.
func sqlString(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

// sqlIdent is s as a quoted SQL name.
func sqlIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
