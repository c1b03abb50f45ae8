package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const testSchema = `{"type":"json_schema","json_schema":{"name":"inv","schema":{"type":"object","properties":{
 "number":{"type":"string"},
 "seller":{"type":"object","properties":{"name":{"type":"string"},"vat":{"type":"string"}}},
 "lines":{"type":"array","items":{"type":"object","properties":{"item":{"type":"string"},"amount":{"type":"number"}}}},
 "total":{"type":"number"}}}}}`

func testData() Data {
	return Data{Schema: json.RawMessage(testSchema), Rows: []Row{
		{DocumentID: "doc_1", DocumentName: "a.pdf", ExtractionID: "ext_1",
			Value:         json.RawMessage(`{"number":"A-1","seller":{"name":"ACME, Inc.","vat":null},"lines":[{"item":"x","amount":1.50},{"item":"y","amount":2}],"total":3.50,"note":"extra"}`),
			OriginalValue: json.RawMessage(`{"number":"A-1","seller":{"name":"ACME","vat":null},"lines":[{"item":"x","amount":1.50},{"item":"y","amount":2}],"total":3.50,"note":"extra"}`),
			Edited:        true},
		{DocumentID: "doc_2", DocumentName: "b.pdf", ExtractionID: "ext_2",
			Value: json.RawMessage(`{"number":"B-\"2\"\nx","seller":null,"lines":[],"total":10}`), OriginalValue: json.RawMessage(`{"number":"B-\"2\"\nx","seller":null,"lines":[],"total":10}`)},
	}}
}

func TestCSVFlattensInSchemaOrderAndParsesBack(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, testData(), Options{Format: CSV}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"document_id", "document_name", "extraction_id", "number", "seller.name", "seller.vat", "lines", "total", "note", "_edited"},
		{"doc_1", "a.pdf", "ext_1", "A-1", "ACME, Inc.", "", `[{"amount":1.50,"item":"x"},{"amount":2,"item":"y"}]`, "3.50", "extra", "seller.name"},
		{"doc_2", "b.pdf", "ext_2", "B-\"2\"\nx", "", "", "[]", "10", "", ""},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("got\n%q\nwant\n%q", recs, want)
	}
}

func TestExplodeGivesOneRowPerItem(t *testing.T) {
	tab, err := Build(testData(), "lines")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tab.Columns, ","); got != "document_id,document_name,extraction_id,number,seller.name,seller.vat,lines.item,lines.amount,total,note,_edited" {
		t.Errorf("columns %s", got)
	}
	if len(tab.Rows) != 3 || Cell(tab.Rows[1][6]) != "y" || Cell(tab.Rows[1][7]) != "2" || Cell(tab.Rows[2][6]) != "" {
		t.Errorf("rows %v", tab.Rows)
	}
	if _, err := Build(testData(), "nope"); err == nil {
		t.Error("exploding an unknown field worked")
	}
}

func TestJSONLKeepsTypes(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, testData(), Options{Format: JSONL}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"document_id":"doc_1","document_name":"a.pdf","extraction_id":"ext_1","number":"A-1","seller.name":"ACME, Inc.","seller.vat":null,"lines":[`) ||
		!strings.Contains(lines[0], `"total":3.50`) || !strings.HasSuffix(lines[0], `"_edited":["seller.name"]}`) {
		t.Errorf("jsonl:\n%s", b.String())
	}
	b.Reset()
	if err := Write(&b, testData(), Options{Format: JSON}); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(b.Bytes(), &rows); err != nil || len(rows) != 2 {
		t.Errorf("json: %v\n%s", err, b.String())
	}
}

func TestFilled(t *testing.T) {
	filled, fields := Filled(json.RawMessage(testSchema), testData().Rows[1].Value)
	if strings.Join(filled, ",") != "number,total" || len(fields) != 5 {
		t.Errorf("filled %v of %v", filled, fields)
	}
}

// formulaData is an extraction whose values a spreadsheet would run as
// formulas, in a document whose name is one too, beside a negative number.
func formulaData() Data {
	return Data{
		Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"},"d":{"type":"string"},"e":{"type":"string"},"f":{"type":"string"},"amount":{"type":"number"}}}`),
		Rows: []Row{{DocumentID: "doc_1", DocumentName: "=HYPERLINK(\"http://x\")", ExtractionID: "ext_1",
			Value: json.RawMessage(`{"a":"=1+1","b":"+A1","c":"@SUM(1)","d":"-2+3","e":"\t=1","f":"\r=2","amount":-12.5}`)}},
	}
}

func TestCSVNeutralisesFormulas(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, formulaData(), Options{Format: CSV}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"doc_1", `'=HYPERLINK("http://x")`, "ext_1", "'=1+1", "'+A1", "'@SUM(1)", "'-2+3", "'\t=1", "'\r=2", "-12.5", ""}
	if len(recs) != 2 || !reflect.DeepEqual(recs[1], want) {
		t.Errorf("row %q\nwant %q", recs[1:], want)
	}
}

func TestRawCSVKeepsCellsAsExtracted(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, formulaData(), Options{Format: CSV, Raw: true}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"doc_1", `=HYPERLINK("http://x")`, "ext_1", "=1+1", "+A1", "@SUM(1)", "-2+3", "\t=1", "\r=2", "-12.5", ""}
	if len(recs) != 2 || !reflect.DeepEqual(recs[1], want) {
		t.Errorf("row %q\nwant %q", recs[1:], want)
	}
}

// Column names come from schemas a model may have written: they are
// neutralised like any other text cell.
func TestCSVNeutralisesColumnNames(t *testing.T) {
	d := Data{Rows: []Row{{DocumentID: "doc_1", DocumentName: "a.pdf", ExtractionID: "ext_1", Value: json.RawMessage(`{"=cmd":"x"}`)}}}
	var b bytes.Buffer
	if err := Write(&b, d, Options{}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != "document_id,document_name,extraction_id,'=cmd,_edited" {
		t.Errorf("header %s", got)
	}
}

// JSON keeps the values exactly: it is read by programs, not run.
func TestJSONIsNotNeutralised(t *testing.T) {
	for _, f := range []string{JSON, JSONL} {
		var b bytes.Buffer
		if err := Write(&b, formulaData(), Options{Format: f}); err != nil {
			t.Fatal(err)
		}
		if s := b.String(); !strings.Contains(s, `"a":"=1+1"`) || !strings.Contains(s, `"d":"-2+3"`) || !strings.Contains(s, `"amount":-12.5`) || strings.Contains(s, `'`) {
			t.Errorf("%s: %s", f, s)
		}
	}
}
