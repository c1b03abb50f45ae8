package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/docent/docent/storage/fault"
)

// queryData runs a query that must succeed, with room for every row.
func queryData(t *testing.T, db *DB, q string) DataResult {
	t.Helper()
	res, err := db.QueryData(context.Background(), DataQuery{SQL: q, MaxRows: 1000})
	if err != nil {
		t.Fatalf("QueryData(%q): %v", q, err)
	}
	return res
}

// rowsJSON is a result's rows as JSON, to compare in one line.
func rowsJSON(t *testing.T, res DataResult) string {
	t.Helper()
	b, err := json.Marshal(res.Rows)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDataViewHasEachDocumentsCurrentExtractionOnce(t *testing.T) {
	ctx := context.Background()
	f := newRowsFixture(t)
	tag := mustCreateTag(t, f.db, "q1")
	a := f.doc(t, "a.pdf", tag.ID)
	b := f.doc(t, "b.pdf")
	moved := f.doc(t, "moved.pdf")
	f.doc(t, "never.pdf")
	// a is extracted twice: only its newest counts.
	f.extract(t, a, f.pInv, `{"number":"A-1","total":100,"seller":{"name":"ACME"}}`, ValidationValid)
	newest := f.extract(t, a, f.pInv, `{"number":"A-1","total":9.5,"seller":{"name":"ACME"}}`, ValidationValid)
	edited := f.extract(t, b, f.pInv, `{"number":"B-2","total":20,"seller":null}`, ValidationValid)
	if _, err := f.db.PatchExtractionField(ctx, edited.ID, "total", json.RawMessage(`21`)); err != nil {
		t.Fatal(err)
	}
	// moved's newest extraction is a letter: it is no invoice row.
	f.extract(t, moved, f.pInv, `{"number":"M-3","total":1000}`, ValidationValid)
	f.extract(t, moved, f.pLet, `{"subject":"moved to letters"}`, ValidationValid)

	res := queryData(t, f.db, `SELECT document, extraction_id = '`+newest.ID+`', total, typeof(total), number, seller, tags
		FROM invoice ORDER BY document`)
	want := `[["a.pdf",1,9.5,"real","A-1","{\"name\":\"ACME\"}","[\"q1\"]"],["b.pdf",0,21,"integer","B-2",null,"[]"]]`
	if got := rowsJSON(t, res); got != want {
		t.Errorf("invoice rows:\n got %s\nwant %s", got, want)
	}
	if want := []string{"document", "extraction_id = '" + newest.ID + "'", "total", "typeof(total)", "number", "seller", "tags"}; !reflect.DeepEqual(res.Columns, want) {
		t.Errorf("columns %q, want %q", res.Columns, want)
	}
	// The sum is SQLite's, over each document's edited, newest value.
	if got := rowsJSON(t, queryData(t, f.db, `SELECT count(*), sum(total) FROM invoice`)); got != `[[2,30.5]]` {
		t.Errorf("count and sum: %s, want [[2,30.5]]", got)
	}
	// Objects and arrays are JSON that SQLite's JSON functions read.
	if got := rowsJSON(t, queryData(t, f.db, `SELECT seller ->> 'name' FROM invoice, json_each(tags) t WHERE t.value = 'q1'`)); got != `[["ACME"]]` {
		t.Errorf("seller of the documents tagged q1: %s", got)
	}
	if got := rowsJSON(t, queryData(t, f.db, `SELECT document, subject FROM letter`)); got != `[["moved.pdf","moved to letters"]]` {
		t.Errorf("letters: %s", got)
	}
	// The documents view has every document, with the view of its row.
	got := rowsJSON(t, queryData(t, f.db, `SELECT document, data_view, tags FROM documents ORDER BY document`))
	if want := `[["a.pdf","invoice","[\"q1\"]"],["b.pdf","invoice","[]"],["moved.pdf","letter","[]"],["never.pdf",null,"[]"]]`; got != want {
		t.Errorf("documents:\n got %s\nwant %s", got, want)
	}
	// describe_data counts each view's rows in one pass over documents:
	// the same rows as the views'.
	d, err := f.db.DescribeData(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range d.Views {
		n := queryData(t, f.db, `SELECT count(*) FROM `+v.Name).Rows[0][0]
		if n != int64(v.Rows) {
			t.Errorf("describe_data says %s has %d rows; it has %v", v.Name, v.Rows, n)
		}
	}
	if len(d.Views) != 3 || d.Views[0].Rows != 4 || d.Views[1].Rows != 2 || d.Views[2].Rows != 1 {
		t.Errorf("views %+v, want documents (4 rows), invoice (2) and letter (1)", d.Views)
	}
}

func TestDataViewTypesBooleansAndArrays(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	s, err := db.CreateSchema(ctx, "Receipt", json.RawMessage(`{"type":"json_schema","json_schema":{"name":"r","strict":true,"schema":{"type":"object","properties":{
		"paid":{"type":"boolean"},"items":{"type":"array","items":{"type":"object"}},"count":{"type":["integer","null"]},"store":{"type":"string","description":"who sold"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := db.CreatePrompt(ctx, NewPrompt{Name: "r", Content: "x", SchemaID: s.SchemaID})
	if err != nil {
		t.Fatal(err)
	}
	doc := mustCreateDocument(t, db, NewDocument{Name: "r.jpg", Pages: []string{"r"}})
	if _, err := db.CreateExtraction(ctx, NewExtraction{DocumentID: doc.ID, PromptRevID: p.PromptRevID,
		Value: json.RawMessage(`{"paid":true,"items":[{"price":2},{"price":3.5}],"count":2,"store":"Spar"}`)}); err != nil {
		t.Fatal(err)
	}
	got := rowsJSON(t, queryData(t, db, `SELECT paid, typeof(paid), count, (SELECT sum(i.value ->> 'price') FROM json_each(items) i), store FROM receipt`))
	if want := `[[1,"integer",2,5.5,"Spar"]]`; got != want {
		t.Errorf("receipt: %s, want %s", got, want)
	}
	d, err := db.DescribeData(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v := d.Views[1]
	var types []string
	for _, c := range v.Columns[len(fixedDataColumns):] {
		types = append(types, c.Name+":"+c.Type)
	}
	if want := "paid:boolean items:array count:integer store:text"; strings.Join(types, " ") != want || v.Name != "receipt" || v.Rows != 1 {
		t.Errorf("receipt view %s (%d rows): %s, want %s", v.Name, v.Rows, strings.Join(types, " "), want)
	}
	if c := v.Columns[len(v.Columns)-1]; c.Description != "who sold" || !reflect.DeepEqual(c.Samples, []any{"Spar"}) {
		t.Errorf("store column: %+v", c)
	}
}

func TestDataViewNamesResolveCollisions(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	props := `{"type":"object","properties":{"order":{"type":"string"},"document":{"type":"string"},"Total €":{"type":"number"},"total":{"type":"number"},"a.b":{"type":"string"},"2024":{"type":"string"},"€":{"type":"string"}}}`
	for _, name := range []string{"Receipt", "receipt!", "Documents", "Tags", "Invoice (auto-create)", "Ärger Größe", "select"} {
		if _, err := db.CreateSchema(ctx, name, json.RawMessage(props)); err != nil {
			t.Fatal(err)
		}
	}
	d, err := db.DescribeData(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var views []string
	for _, v := range d.Views {
		views = append(views, fmt.Sprintf("%s=%s(%s)", v.Schema, v.Name, v.Note))
	}
	want := []string{
		"=documents()",
		"Receipt=receipt()",
		`receipt!=receipt_2(receipt is the view of schema "Receipt")`,
		"Documents=documents_2(documents is the view of every document)",
		"Tags=tags_2(tags is a table of the store)",
		"Invoice (auto-create)=invoice_auto_create()",
		"Ärger Größe=arger_gro_e()",
		"select=select_2(select is an SQL keyword)",
	}
	if !reflect.DeepEqual(views, want) {
		t.Errorf("views:\n got %q\nwant %q", views, want)
	}
	var cols []string
	for _, c := range d.Views[1].Columns[len(fixedDataColumns):] {
		cols = append(cols, fmt.Sprintf("%s=%s(%s)", c.Field, c.Name, c.Note))
	}
	wantCols := []string{
		"order=order_2(order is an SQL keyword)",
		"document=document_2(document is a column every view has)",
		"Total €=total()",
		`total=total_2(total is the column of field "Total €")`,
		"a.b=a_b()",
		"2024=_2024()",
		"€=field()",
	}
	if !reflect.DeepEqual(cols, wantCols) {
		t.Errorf("columns:\n got %q\nwant %q", cols, wantCols)
	}
	// Each name works in a query as describe_data gives it.
	for _, v := range d.Views[1:] {
		var names []string
		for _, c := range v.Columns {
			names = append(names, c.Name)
		}
		queryData(t, db, `SELECT `+strings.Join(names, ", ")+` FROM `+v.Name)
	}
}

func TestQueryDataRefusesAllButOneSelectOverTheViews(t *testing.T) {
	ctx := context.Background()
	f := newRowsFixture(t)
	a := f.doc(t, "a.pdf")
	f.extract(t, a, f.pInv, `{"number":"A-1","total":9.5}`, ValidationValid)
	if err := f.db.SetSetting(ctx, "model", "ollama/x"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	before := storeSnapshot(t, f.db)
	for _, tc := range []struct{ sql, want string }{
		{`INSERT INTO tags (id, name, created_at, updated_at) VALUES ('t', 't', '', '')`, "only SELECT is allowed, not INSERT"},
		{`WITH x AS (SELECT 1) DELETE FROM main.documents`, "query_data only reads"},
		{`WITH x AS (SELECT 1) DELETE FROM documents`, "cannot modify documents because it is a view"},
		{`WITH x AS (SELECT 1) UPDATE extractions SET value = '{}'`, "query_data only reads"},
		{`DROP VIEW invoice`, "only SELECT is allowed, not DROP"},
		{`CREATE TEMP TABLE x AS SELECT * FROM invoice`, "only SELECT is allowed, not CREATE"},
		{`ATTACH DATABASE '` + dir + `/x.db' AS x`, "only SELECT is allowed, not ATTACH"},
		{`VACUUM INTO '` + dir + `/copy.db'`, "only SELECT is allowed, not VACUUM"},
		{`PRAGMA query_only = 0`, "only SELECT is allowed, not PRAGMA"},
		{`SELECT * FROM pragma_table_info('settings')`, "pragma_table_info is not a data view"},
		{`SELECT load_extension('/tmp/x.so')`, "function load_extension() is not allowed"},
		{`SELECT randomblob(1000000000)`, "function randomblob() is not allowed"},
		{`SELECT * FROM settings`, "settings is not a data view: query only the views documents, invoice, letter"},
		{`SELECT * FROM main.threads`, "threads is not a data view"},
		{`SELECT summary FROM journal`, "journal is not a data view"},
		{`SELECT name FROM sqlite_schema`, "sqlite_master is not a data view"},
		{`SELECT raw_output FROM extractions`, "extractions is not a data view"},
		// A WITH named like a view reads no more than the views do.
		{`WITH invoice AS (SELECT raw_output FROM main.extractions) SELECT * FROM invoice`, "extractions is not a data view"},
		{`WITH invoice AS (SELECT value FROM main.extractions) SELECT * FROM invoice`, "extractions is not a data view"},
		{`SELECT 1; SELECT 2`, "more than one statement"},
		{`SELECT 1; DELETE FROM documents`, "more than one statement"},
		{`SELECT total FROM invoice; -- fine` + "\n; ;", ""},
		{`SELECT ';' AS "a;b" /* ; */ -- ;`, ""},
		{`SELECT totl FROM invoice`, "no such column: totl"},
		{`SELECT * FROM receipts`, "no such table: receipts"},
		{``, "the query is empty"},
		{`SELECT 'unclosed`, "never closed"},
	} {
		_, err := f.db.QueryData(ctx, DataQuery{SQL: tc.sql, MaxRows: 10})
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v, want it to run", tc.sql, err)
			}
			continue
		}
		wantInvalid(t, tc.sql, err, tc.want)
	}
	if after := storeSnapshot(t, f.db); after != before {
		t.Errorf("the store changed:\nbefore %s\nafter  %s", before, after)
	}
	for _, name := range []string{"x.db", "copy.db"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was written", name)
		}
	}
}

// wantInvalid checks that err is invalid, with a message that holds want.
func wantInvalid(t *testing.T, what string, err error, want string) {
	t.Helper()
	if !errors.Is(err, ErrInvalid) || !strings.Contains(fault.ErrorMessage(err), want) {
		t.Errorf("%s: %v (%T), want an invalid error with %q", what, err, err, want)
	}
}

// storeSnapshot is what a query must not change: the schema and every
// row count, and the settings.
func storeSnapshot(t *testing.T, db *DB) string {
	t.Helper()
	tables, err := queryRows(context.Background(), db.sql, scanValue[string], `SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, name := range tables {
		fmt.Fprintf(&b, "%s:%d ", name, count(t, db, `"`+name+`"`, ""))
	}
	var settings string
	if err := db.sql.QueryRow(`SELECT group_concat(key || '=' || value) FROM settings`).Scan(&settings); err != nil {
		t.Fatal(err)
	}
	return b.String() + settings
}

func TestQueryDataConnectionIsReadOnlyWithoutTheAuthorizer(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	err := db.withDataViews(ctx, func(dc *dataConn) error {
		conn := dc.conn
		dc.guard.setup = true // the guard would refuse the PRAGMA and the INSERT
		var on int
		if err := conn.QueryRowContext(ctx, `PRAGMA query_only`).Scan(&on); err != nil || on != 1 {
			t.Errorf("query_only = %d (%v), want 1", on, err)
		}
		if _, err := conn.ExecContext(ctx, `PRAGMA query_only = 0`); err != nil {
			t.Fatal(err)
		}
		// With query_only off, the file is still opened read-only.
		if _, err := conn.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('x', '1')`); err == nil || !strings.Contains(err.Error(), "readonly") {
			t.Errorf("insert on the data connection: %v, want a read-only database", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "settings", "key = 'x'"); n != 0 {
		t.Errorf("the insert was stored")
	}
}

func TestQueryDataCountsRowsBeyondItsCap(t *testing.T) {
	f := newRowsFixture(t)
	for i := range 5 {
		f.extract(t, f.doc(t, fmt.Sprintf("%d.pdf", i)), f.pInv, fmt.Sprintf(`{"total":%d}`, i), ValidationValid)
	}
	res, err := f.db.QueryData(context.Background(), DataQuery{SQL: `SELECT total FROM invoice ORDER BY total`, MaxRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsJSON(t, res); got != `[[0],[1]]` || res.RowCount != 5 || !res.Truncated {
		t.Errorf("rows %s, row_count %d, truncated %v; want [[0],[1]], 5, true", got, res.RowCount, res.Truncated)
	}
}

func TestQueryDataStopsARunawayQuery(t *testing.T) {
	db := mustOpen(t)
	_, err := db.QueryData(context.Background(), DataQuery{
		SQL: `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c`, MaxRows: 10})
	wantInvalid(t, "a runaway recursive WITH", err, "ran longer than 2s and was stopped")
}

func TestOneSelect(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"SELECT 1;", "SELECT 1", ""},
		{"  /* c */ (SELECT 1) ; \n -- done", "  /* c */ (SELECT 1) ", ""},
		{"with x as (select 1) select * from x", "with x as (select 1) select * from x", ""},
		{"VALUES (1)", "VALUES (1)", ""},
		{`SELECT 'it''s;' ; SELECT 2`, "", "more than one statement"},
		{`SELECT [a;b], "c;d", ` + "`e;f`" + ` FROM x`, `SELECT [a;b], "c;d", ` + "`e;f`" + ` FROM x`, ""},
		{"EXPLAIN SELECT 1", "", "not EXPLAIN"},
		{"-- only a comment", "", "empty"},
		{";", "", "empty"},
	} {
		got, err := oneSelect(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("oneSelect(%q) = %q, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("oneSelect(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestDataViewsFollowTheSchemasOnAKeptConnection(t *testing.T) {
	ctx := context.Background()
	f := newRowsFixture(t)
	a := f.doc(t, "a.pdf")
	f.extract(t, a, f.pInv, `{"number":"A-1","total":9.5,"due":"2026-01-01"}`, ValidationValid)
	queryData(t, f.db, `SELECT total FROM invoice`)
	// A refused query leaves the kept connection as it was.
	if _, err := f.db.QueryData(ctx, DataQuery{SQL: `SELECT * FROM settings`}); err == nil {
		t.Fatal("reading settings was allowed")
	}
	if _, _, err := f.db.UpdateSchema(ctx, f.invoice.SchemaID, nil, json.RawMessage(`{"type":"object","properties":{"total":{"type":"number"},"due":{"type":"string"}}}`)); err != nil {
		t.Fatal(err)
	}
	name := "Bills"
	if _, _, err := f.db.UpdateSchema(ctx, f.letter.SchemaID, &name, nil); err != nil {
		t.Fatal(err)
	}
	// The new field is a column; number, which only the older version
	// has, still is; the renamed schema's view has its new name.
	if got := rowsJSON(t, queryData(t, f.db, `SELECT number, total, due FROM invoice`)); got != `[["A-1",9.5,"2026-01-01"]]` {
		t.Errorf("invoice after the new version: %s", got)
	}
	queryData(t, f.db, `SELECT count(*) FROM bills`)
	_, err := f.db.QueryData(ctx, DataQuery{SQL: `SELECT count(*) FROM letter`})
	wantInvalid(t, "the old name", err, "no such table: letter")
	if n := len(f.db.dataConns.idle); n != 1 {
		t.Errorf("%d connections kept, want the one the queries shared", n)
	}
}
