package export

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

const (
	newerSchema = `{"type":"object","properties":{"total":{"type":["number","null"],"title":"Total due"},"number":{"type":"string"},"seller":{"type":"object","properties":{"name":{"type":"string"}}}}}`
	olderSchema = `{"type":"json_schema","json_schema":{"name":"inv","schema":{"type":"object","properties":{"number":{"type":"string"},"date":{"type":"string"},"lines":{"type":"array","items":{"type":"object","properties":{"amount":{"type":"number"}}}}}}}}`
)

func TestColumnsAreTheUnionOfVersionsNewestFirst(t *testing.T) {
	got := FieldsOf(json.RawMessage(newerSchema), json.RawMessage(olderSchema))
	if want := []string{"total", "number", "seller.name", "date", "lines"}; !reflect.DeepEqual(got, want) {
		t.Errorf("fields %q, want %q", got, want)
	}
	cols := Columns(json.RawMessage(newerSchema), json.RawMessage(olderSchema))
	want := []Column{
		{Path: "total", Type: "number", Title: "Total due"},
		{Path: "number", Type: "string", Title: "number"},
		{Path: "seller.name", Type: "string", Title: "seller.name"},
		{Path: "date", Type: "string", Title: "date"},
		{Path: "lines", Type: "array", Title: "lines"},
	}
	if !reflect.DeepEqual(cols, want) {
		t.Errorf("columns\n%+v\nwant\n%+v", cols, want)
	}

	d := Data{Name: "inv", Schema: json.RawMessage(newerSchema), Older: []json.RawMessage{json.RawMessage(olderSchema)}, Rows: []Row{
		{DocumentID: "doc_1", DocumentName: "new.pdf", ExtractionID: "ext_1", Value: json.RawMessage(`{"total":5,"number":"N-1","seller":{"name":"ACME"}}`)},
		{DocumentID: "doc_2", DocumentName: "old.pdf", ExtractionID: "ext_2", Value: json.RawMessage(`{"number":"O-1","date":"2024-01-02","lines":[{"amount":1}]}`)},
	}}
	tab, err := Build(d, "lines")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tab.Columns, ","); got != "document_id,document_name,extraction_id,total,number,seller.name,date,lines.amount,_edited" {
		t.Errorf("exploded columns of an older version's array: %s", got)
	}
}

func TestValuesAndEditedPathsForTheDataView(t *testing.T) {
	v, err := Values([]string{"total", "seller.name", "lines", "missing"}, json.RawMessage(`{"total":12.50,"seller":{"name":"ACME","vat":"DE1"},"lines":[{"a":1}],"extra":{"x":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(v)
	if string(raw) != `{"extra.x":true,"lines":[{"a":1}],"missing":null,"seller.name":"ACME","seller.vat":"DE1","total":12.50}` {
		t.Errorf("values %s", raw)
	}
	edited, err := EditedPaths(json.RawMessage(`{"total":1,"seller":{"name":"A"}}`), json.RawMessage(`{"total":1,"seller":{"name":"B"}}`))
	if err != nil || !reflect.DeepEqual(edited, []string{"seller.name"}) {
		t.Errorf("edited %q %v", edited, err)
	}
}

// An XLSX export is a workbook a spreadsheet opens: a frozen header row,
// numbers as numbers, text that looks like a formula as text, and a number
// a spreadsheet would round kept as text.
func TestXLSXHasTypedCellsAndAFrozenHeader(t *testing.T) {
	d := Data{Name: "inv/2024: [Q1]", Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"},"n":{"type":"number"},"big":{"type":"number"},"ok":{"type":"boolean"},"lines":{"type":"array"}}}`),
		Rows: []Row{{DocumentID: "doc_1", DocumentName: "=cmd|' /C calc'!A0", ExtractionID: "ext_1",
			Value:         json.RawMessage(`{"a":"=HYPERLINK(\"http://x\")","n":-12.5,"big":12345678901234567890,"ok":true,"lines":[1,2]}`),
			OriginalValue: json.RawMessage(`{"a":"x","n":-12.5,"big":12345678901234567890,"ok":true,"lines":[1,2]}`), Edited: true}}}
	var b bytes.Buffer
	if err := Write(&b, d, Options{Format: XLSX}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&b)
	if err != nil {
		t.Fatalf("not a workbook: %v", err)
	}
	defer f.Close()
	sheet := f.GetSheetName(0)
	if sheet != "inv_2024_ _Q1_" {
		t.Errorf("sheet %q", sheet)
	}
	rows, err := f.GetRows(sheet)
	if err != nil || len(rows) != 2 {
		t.Fatalf("rows %q %v", rows, err)
	}
	if want := []string{"document_id", "document_name", "extraction_id", "a", "n", "big", "ok", "lines", "_edited"}; !reflect.DeepEqual(rows[0], want) {
		t.Errorf("header %q", rows[0])
	}
	if want := []string{"doc_1", "=cmd|' /C calc'!A0", "ext_1", `=HYPERLINK("http://x")`, "-12.5", "12345678901234567890", "TRUE", "[1,2]", "a"}; !reflect.DeepEqual(rows[1], want) {
		t.Errorf("row %q\nwant %q", rows[1], want)
	}
	for cell, want := range map[string]excelize.CellType{"B2": excelize.CellTypeInlineString, "D2": excelize.CellTypeInlineString,
		"E2": excelize.CellTypeUnset, "F2": excelize.CellTypeInlineString, "G2": excelize.CellTypeBool} {
		if got, err := f.GetCellType(sheet, cell); err != nil || got != want {
			t.Errorf("%s: type %v, want %v (%v)", cell, got, want, err)
		}
	}
	if formula, _ := f.GetCellFormula(sheet, "D2"); formula != "" {
		t.Errorf("D2 became a formula: %q", formula)
	}
	panes, err := f.GetPanes(sheet)
	if err != nil || !panes.Freeze || panes.YSplit != 1 || panes.TopLeftCell != "A2" {
		t.Errorf("panes %+v %v; want the first row frozen", panes, err)
	}
}
