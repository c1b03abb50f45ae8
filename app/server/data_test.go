package server_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
	"github.com/xuri/excelize/v2"
)

// dataFixture is a server with an invoice schema in two versions, a
// prompt on it and three extracted documents (f.doc is the first).
type dataFixture struct {
	*fixture
	schema storage.SchemaRevision
	prompt storage.PromptRevision
	docs   []storage.Document // acme.txt, beta.txt, gamma.txt
	exts   []storage.Extraction
}

func newDataFixture(t *testing.T) *dataFixture {
	t.Helper()
	ctx := context.Background()
	f := &dataFixture{fixture: newFixture(t)}
	v1, err := f.db.CreateSchema(ctx, "invoice", responseFormat("invoice", `{"type":"object","properties":{"invoice_number":{"type":"string"},"date":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if f.schema, _, err = f.db.UpdateSchema(ctx, v1.SchemaID, nil, responseFormat("invoice", invoiceSchema)); err != nil {
		t.Fatal(err)
	}
	if f.prompt, err = f.db.CreatePrompt(ctx, storage.NewPrompt{Name: "invoices", Content: "Extract the invoice.", SchemaID: v1.SchemaID}); err != nil {
		t.Fatal(err)
	}
	f.docs = []storage.Document{f.doc}
	for _, name := range []string{"beta.txt", "gamma.txt"} {
		d, err := f.db.CreateDocument(ctx, storage.NewDocument{Name: name, MediaType: "text/plain", Data: []byte(name), Pages: []string{"Invoice " + name + "\nTotal 1.00"}})
		if err != nil {
			t.Fatal(err)
		}
		f.docs = append(f.docs, d)
	}
	for i, v := range []string{
		`{"invoice_number":"A-1","total":12.5}`,
		`{"invoice_number":"b-2","total":100}`,
		`{"invoice_number":"C-3","total":null,"date":"2024-05-01"}`,
	} {
		x, err := f.db.CreateExtraction(ctx, storage.NewExtraction{DocumentID: f.docs[i].ID, PromptRevID: f.prompt.PromptRevID, Model: testModel, Value: json.RawMessage(v), ValidationStatus: storage.ValidationValid})
		if err != nil {
			t.Fatal(err)
		}
		f.exts = append(f.exts, x)
	}
	return f
}

// The rows answer is the contract the data view is built against: its
// keys, the columns of every version in order, flattened values, edited
// paths; sorting, filtering and paging are the store's.
func TestSchemaRowsAnswerTheDataViewsContract(t *testing.T) {
	f := newDataFixture(t)
	f.call("PATCH", "/api/documents/"+f.docs[1].ID+"/extractions/"+f.exts[1].ID, map[string]any{"path": "total", "value": 99}, http.StatusOK, nil)

	var raw map[string]json.RawMessage
	f.call("GET", "/api/schemas/"+f.schema.SchemaID+"/rows?sort=total&order=desc", nil, http.StatusOK, &raw)
	if keys := sortedKeys(raw); !reflect.DeepEqual(keys, []string{"columns", "rows", "total"}) {
		t.Fatalf("answer keys %q", keys)
	}
	var columns []map[string]string
	json.Unmarshal(raw["columns"], &columns)
	wantColumns := []map[string]string{
		{"path": "invoice_number", "type": "string", "title": "invoice_number"},
		{"path": "total", "type": "number", "title": "total"},
		{"path": "date", "type": "string", "title": "date"},
	}
	if !reflect.DeepEqual(columns, wantColumns) {
		t.Errorf("columns %v\nwant %v", columns, wantColumns)
	}
	var rows []map[string]json.RawMessage
	json.Unmarshal(raw["rows"], &rows)
	if len(rows) != 3 || string(raw["total"]) != "3" {
		t.Fatalf("rows %d, total %s", len(rows), raw["total"])
	}
	if keys := sortedKeys(rows[0]); !reflect.DeepEqual(keys, []string{"auto_create_status", "document_id", "document_name", "edited", "evidence", "extraction_id", "validation_errors", "validation_status", "values"}) {
		t.Errorf("row keys %q", keys)
	}
	var page struct {
		Rows  []rowJSON
		Total int
	}
	f.call("GET", "/api/schemas/"+f.schema.SchemaID+"/rows?sort=total&order=desc", nil, http.StatusOK, &page)
	first := page.Rows[0]
	if first.DocumentName != "beta.txt" || first.DocumentID != f.docs[1].ID || first.ExtractionID != f.exts[1].ID ||
		first.ValidationStatus != storage.ValidationValid || first.AutoCreateStatus != storage.AutoCreateNone ||
		!reflect.DeepEqual(first.Edited, []string{"total"}) || string(first.Values) != `{"date":null,"invoice_number":"b-2","total":99}` {
		t.Errorf("first row %+v %s", first, first.Values)
	}
	if names := rowNames(page.Rows); names != "beta.txt,acme.txt,gamma.txt" {
		t.Errorf("by total, descending, null last: %s", names)
	}

	for query, want := range map[string]string{
		"":                                "acme.txt,beta.txt,gamma.txt",
		"?sort=invoice_number&order=desc": "gamma.txt,beta.txt,acme.txt",
		"?filter=invoice_number:B":        "beta.txt",
		"?filter=invoice_number:-&filter=total:1": "acme.txt",
		"?filter=document_name:GAMMA":             "gamma.txt",
		"?status=edited":                          "beta.txt",
		"?sort=total&offset=1&limit=1":            "beta.txt",
	} {
		var got struct{ Rows []rowJSON }
		f.call("GET", "/api/schemas/"+f.schema.SchemaID+"/rows"+query, nil, http.StatusOK, &got)
		if names := rowNames(got.Rows); names != want {
			t.Errorf("rows%s: %s, want %s", query, names, want)
		}
	}
	// By name too: the schema's name finds it.
	f.call("GET", "/api/schemas/invoice/rows", nil, http.StatusOK, nil)

	for _, query := range []string{"?sort=nope", "?filter=nope:x", "?filter=total", "?order=up", "?status=pending", "?limit=1001", "?filter=invoice_number:%00"} {
		f.wantError("GET", "/api/schemas/"+f.schema.SchemaID+"/rows"+query, nil, http.StatusBadRequest, "invalid")
	}
	f.wantError("GET", "/api/schemas/sch_missing/rows", nil, http.StatusNotFound, "not_found")
}

// responseFormat wraps a bare JSON Schema as the store keeps schemas.
func responseFormat(name, schema string) json.RawMessage {
	return json.RawMessage(`{"type":"json_schema","json_schema":{"name":"` + name + `","schema":` + schema + `,"strict":false}}`)
}

// rowJSON is a row of GET /api/schemas/{schema_id}/rows.
type rowJSON struct {
	DocumentID       string          `json:"document_id"`
	DocumentName     string          `json:"document_name"`
	ExtractionID     string          `json:"extraction_id"`
	ValidationStatus string          `json:"validation_status"`
	AutoCreateStatus string          `json:"auto_create_status"`
	Edited           []string        `json:"edited"`
	Values           json.RawMessage `json:"values"`
}

func rowNames(rows []rowJSON) string {
	var names []string
	for _, r := range rows {
		names = append(names, r.DocumentName)
	}
	return strings.Join(names, ",")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The export by schema is a download in every format, XLSX a workbook;
// prompt and tag narrow it.
func TestExportBySchema(t *testing.T) {
	f := newDataFixture(t)
	ctx := context.Background()
	tag, err := f.db.CreateTag(ctx, storage.NewTag{Name: "q2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.UpdateDocument(ctx, f.docs[2].ID, storage.DocumentPatch{TagIDs: &[]string{tag.ID}}); err != nil {
		t.Fatal(err)
	}
	base := "/api/schemas/" + f.schema.SchemaID + "/export"

	b := f.call("GET", base, nil, http.StatusOK, nil)
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(recs) != 4 || strings.Join(recs[0], ",") != "document_id,document_name,extraction_id,invoice_number,total,date,_edited" {
		t.Fatalf("csv %q %v", recs, err)
	}
	b = f.call("GET", base+"?format=csv&tag=q2", nil, http.StatusOK, nil)
	if recs, _ := csv.NewReader(bytes.NewReader(b)).ReadAll(); len(recs) != 2 || recs[1][1] != "gamma.txt" || recs[1][5] != "2024-05-01" {
		t.Errorf("tagged export %q", recs)
	}
	// What the data view shows: its sort, filters and status.
	b = f.call("GET", base+"?sort=total&order=desc&filter=invoice_number:-&status=valid", nil, http.StatusOK, nil)
	if recs, _ := csv.NewReader(bytes.NewReader(b)).ReadAll(); len(recs) != 4 || recs[1][1] != "beta.txt" || recs[2][1] != "acme.txt" || recs[3][1] != "gamma.txt" {
		t.Errorf("sorted export %q", recs)
	}
	b = f.call("GET", base+"?filter=invoice_number:c-", nil, http.StatusOK, nil)
	if recs, _ := csv.NewReader(bytes.NewReader(b)).ReadAll(); len(recs) != 2 || recs[1][1] != "gamma.txt" {
		t.Errorf("filtered export %q", recs)
	}
	f.wantError("GET", base+"?sort=nope", nil, http.StatusBadRequest, "invalid")
	f.wantError("GET", base+"?filter=nope:x", nil, http.StatusBadRequest, "invalid")
	f.wantError("GET", base+"?filter=invoice_number:%00", nil, http.StatusBadRequest, "invalid")
	b = f.call("GET", base+"?format=jsonl&prompt=invoices", nil, http.StatusOK, nil)
	if n := strings.Count(string(b), "\n"); n != 3 {
		t.Errorf("jsonl narrowed to the prompt that made every row: %d lines", n)
	}

	res, err := f.ts.Client().Do(f.request(ctx, "GET", base+"?format=xlsx", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" ||
		!strings.Contains(res.Header.Get("Content-Disposition"), `filename="invoice.xlsx"`) {
		t.Errorf("xlsx headers %q %q", ct, res.Header.Get("Content-Disposition"))
	}
	book, err := excelize.OpenReader(res.Body)
	if err != nil {
		t.Fatalf("not a workbook: %v", err)
	}
	defer book.Close()
	rows, err := book.GetRows("invoice")
	if err != nil || len(rows) != 4 || rows[1][4] != "12.5" {
		t.Errorf("sheet rows %q %v", rows, err)
	}
	if typ, _ := book.GetCellType("invoice", "E2"); typ != excelize.CellTypeUnset {
		t.Errorf("total is not a number cell: %v", typ)
	}

	f.wantError("GET", base+"?format=ods", nil, http.StatusBadRequest, "invalid")
	f.wantError("GET", base+"?tag=nope", nil, http.StatusNotFound, "not_found")
	f.wantError("GET", "/api/schemas/sch_missing/export", nil, http.StatusNotFound, "not_found")
	// The prompt's export takes xlsx too.
	f.call("GET", "/api/prompts/"+f.prompt.PromptID+"/export?format=xlsx", nil, http.StatusOK, nil)
}

// A bulk re-run extracts each document again with its schema's prompt and
// the model asked for; documents it cannot run are listed, not fatal.
func TestRerunExtractsAgainWithTheGivenModel(t *testing.T) {
	f := newDataFixture(t)
	f.model.SetModels(modeltest.DefaultModel, modeltest.Model{Name: "llama3.2:1b", ContextLength: 8192, Capabilities: []string{"completion"}, Family: "llama"})
	f.model.Handle(func(modeltest.Request) modeltest.Reply {
		return modeltest.Reply{Text: `{"invoice_number":"R-1","total":7}`}
	})
	var report struct {
		DocumentIDs []string             `json:"document_ids"`
		Extractions []storage.Extraction `json:"extractions"`
		Errors      []struct {
			DocumentID string `json:"document_id"`
			Error      string `json:"error"`
		} `json:"errors"`
	}
	ids := []string{f.docs[0].ID, f.docs[2].ID, "doc_missing", f.docs[0].ID}
	f.call("POST", "/api/schemas/"+f.schema.SchemaID+"/rerun", map[string]any{"document_ids": ids, "model": "ollama/llama3.2:1b"}, http.StatusOK, &report)
	if !reflect.DeepEqual(report.DocumentIDs, []string{f.docs[0].ID, f.docs[2].ID}) || len(report.Extractions) != 2 ||
		len(report.Errors) != 1 || report.Errors[0].DocumentID != "doc_missing" || !strings.Contains(report.Errors[0].Error, "not found") {
		t.Fatalf("report %+v", report)
	}
	for i, x := range report.Extractions {
		if x.DocumentID != report.DocumentIDs[i] || x.PromptRevID != f.prompt.PromptRevID || x.Model != "ollama/llama3.2:1b" || string(x.Value) != `{"invoice_number":"R-1","total":7}` {
			t.Errorf("extraction %d: %+v %s", i, x, x.Value)
		}
	}
	for _, req := range f.model.Requests() {
		if req.Path == "/api/chat" && req.Model != "llama3.2:1b" {
			t.Errorf("the model server was asked for %q, want llama3.2:1b", req.Model)
		}
	}
	var page struct {
		Rows []struct {
			ExtractionID string `json:"extraction_id"`
		}
	}
	f.call("GET", "/api/schemas/"+f.schema.SchemaID+"/rows?filter=invoice_number:R-1", nil, http.StatusOK, &page)
	if len(page.Rows) != 2 {
		t.Errorf("rows after the re-run: %+v", page.Rows)
	}

	f.wantError("POST", "/api/schemas/"+f.schema.SchemaID+"/rerun", map[string]any{"document_ids": []string{}}, http.StatusBadRequest, "invalid")
	f.wantError("POST", "/api/schemas/"+f.schema.SchemaID+"/rerun", map[string]any{"document_ids": ids, "model": "nowhere/x"}, http.StatusBadRequest, "invalid")
	f.wantError("POST", "/api/schemas/sch_missing/rerun", map[string]any{"document_ids": ids}, http.StatusNotFound, "not_found")
}

// Accepting in bulk accepts each proposal as the single accept does and
// lists the documents that had none.
func TestAcceptManyProposals(t *testing.T) {
	f := newDataFixture(t)
	ctx := context.Background()
	for i := range 2 {
		claim, err := f.db.ClaimAutoCreate(ctx, f.docs[i].ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.db.ProposeAutoCreate(ctx, claim, storage.AutoCreateLinks{SchemaID: f.schema.SchemaID, PromptID: f.prompt.PromptID, ExtractionID: f.exts[i].ID}, nil); err != nil {
			t.Fatal(err)
		}
	}
	var report struct {
		Documents []storage.Document `json:"documents"`
		Errors    []struct {
			DocumentID string `json:"document_id"`
			Error      string `json:"error"`
		} `json:"errors"`
	}
	f.call("POST", "/api/auto-create/accept", map[string]any{"document_ids": []string{f.docs[0].ID, f.docs[1].ID, f.docs[2].ID}}, http.StatusOK, &report)
	if len(report.Documents) != 2 || report.Documents[0].AutoCreateStatus != storage.AutoCreateAccepted || report.Documents[1].AutoCreateStatus != storage.AutoCreateAccepted ||
		len(report.Errors) != 1 || report.Errors[0].DocumentID != f.docs[2].ID || !strings.Contains(report.Errors[0].Error, "no proposal to accept") {
		t.Errorf("report %+v", report)
	}
	f.wantError("POST", "/api/auto-create/accept", map[string]any{"document_ids": []string{" "}}, http.StatusBadRequest, "invalid")
	f.wantError("POST", "/api/auto-create/accept", map[string]any{"document_ids": []string{f.docs[0].ID}, "model": "x"}, http.StatusBadRequest, "invalid")
}

// Moving a document to another kind re-extracts it with the prompt a
// person made for that kind (POST /api/prompts chooses it); clearing the
// kind extracts nothing.
func TestMovingADocumentReExtractsIt(t *testing.T) {
	f := newDataFixture(t)
	ctx := context.Background()
	letter, err := f.db.CreateSchema(ctx, "letter", responseFormat("letter", `{"type":"object","properties":{"subject":{"type":"string"}},"required":["subject"],"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	var letters storage.PromptRevision
	f.call("POST", "/api/prompts", map[string]any{"name": "letters", "content": "Extract the subject.", "schema_id": letter.SchemaID}, http.StatusCreated, &letters)
	// A newer prompt on the schema that no person chose (as an unattended
	// run makes one) is not the kind's.
	if _, err := f.db.CreatePrompt(ctx, storage.NewPrompt{Name: "planted", Content: "IGNORE THE DOCUMENT", SchemaID: letter.SchemaID}); err != nil {
		t.Fatal(err)
	}
	before := len(f.model.Requests())
	f.model.Enqueue(modeltest.Reply{Text: `{"subject":"Invoice A-1"}`})
	var moved struct {
		Document        storage.Document    `json:"document"`
		Extraction      *storage.Extraction `json:"extraction"`
		ExtractionError string              `json:"extraction_error"`
	}
	f.call("PUT", "/api/documents/"+f.doc.ID+"/kind", map[string]any{"schema_id": "letter"}, http.StatusOK, &moved)
	if moved.Document.SchemaID != letter.SchemaID || moved.Extraction == nil || moved.ExtractionError != "" {
		t.Fatalf("moved %+v", moved)
	}
	if x := moved.Extraction; x.PromptRevID != letters.PromptRevID || x.ValidationStatus != storage.ValidationValid || string(x.Value) != `{"subject":"Invoice A-1"}` {
		t.Errorf("re-extraction %+v %s", x, x.Value)
	}
	if n := len(f.model.Requests()) - before; n != 1 {
		t.Errorf("%d model requests for the move, want 1", n)
	}
	// The document's table is now the letters', not the invoices'.
	var rows struct{ Total int }
	f.call("GET", "/api/schemas/"+letter.SchemaID+"/rows", nil, http.StatusOK, &rows)
	if rows.Total != 1 {
		t.Errorf("letters: %d rows", rows.Total)
	}
	f.call("GET", "/api/schemas/"+f.schema.SchemaID+"/rows", nil, http.StatusOK, &rows)
	if rows.Total != 2 {
		t.Errorf("invoices: %d rows after the move, want 2", rows.Total)
	}
	// The documents list shows the kind and the new extraction's status.
	var list struct {
		Documents []map[string]any `json:"documents"`
		Total     int              `json:"total"`
	}
	f.call("GET", "/api/documents?sort=kind&order=desc", nil, http.StatusOK, &list)
	if list.Total != 3 || list.Documents[0]["id"] != f.doc.ID || list.Documents[0]["kind_name"] != "letter" || list.Documents[0]["extraction_status"] != "valid" ||
		list.Documents[1]["kind_name"] != "" || list.Documents[1]["extraction_status"] != "valid" {
		t.Errorf("documents by kind: %v", list.Documents)
	}
	f.wantError("GET", "/api/documents?sort=size", nil, http.StatusBadRequest, "invalid")

	// A kind without a prompt: moved, not extracted, and told why.
	if _, err := f.db.CreateSchema(ctx, "receipt", responseFormat("receipt", `{"type":"object"}`)); err != nil {
		t.Fatal(err)
	}
	before = len(f.model.Requests())
	f.call("PUT", "/api/documents/"+f.doc.ID+"/kind", map[string]any{"schema_id": "receipt"}, http.StatusOK, &moved)
	if moved.Extraction != nil || !strings.Contains(moved.ExtractionError, "no prompt is chosen for schema receipt") || len(f.model.Requests()) != before {
		t.Errorf("moved to a kind without a prompt: %+v", moved)
	}
	var cleared map[string]json.RawMessage
	f.call("PUT", "/api/documents/"+f.doc.ID+"/kind", map[string]any{"schema_id": ""}, http.StatusOK, &cleared)
	if strings.Contains(string(cleared["document"]), `"schema_id"`) || string(cleared["extraction"]) != "null" || cleared["extraction_error"] != nil {
		t.Errorf("kind cleared: %s", cleared)
	}
	f.wantError("PUT", "/api/documents/"+f.doc.ID+"/kind", map[string]any{}, http.StatusBadRequest, "invalid")
	f.wantError("PUT", "/api/documents/"+f.doc.ID+"/kind", map[string]any{"schema_id": "nope"}, http.StatusNotFound, "not_found")
	f.wantError("PUT", "/api/documents/doc_missing/kind", map[string]any{"schema_id": "letter"}, http.StatusNotFound, "not_found")
}

// The extraction route runs the model the request names, not the prompt's,
// and the extraction records it.
func TestExtractionRouteUsesTheRequestedModel(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.model.SetModels(modeltest.DefaultModel, modeltest.Model{Name: "llama3.2:1b", ContextLength: 8192, Capabilities: []string{"completion"}, Family: "llama"})
	sch, err := f.db.CreateSchema(ctx, "invoice", responseFormat("invoice", invoiceSchema))
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.db.CreatePrompt(ctx, storage.NewPrompt{Name: "p", Content: "Extract.", SchemaID: sch.SchemaID, Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	f.model.Enqueue(modeltest.Reply{Text: `{"invoice_number":"A-1","total":12.5}`})
	before := len(f.model.Requests())
	var ext storage.Extraction
	f.call("POST", "/api/documents/"+f.doc.ID+"/extractions", map[string]any{"prompt_revid": p.PromptRevID, "model": "ollama/llama3.2:1b"}, http.StatusCreated, &ext)
	reqs := f.model.Requests()[before:]
	if len(reqs) == 0 || reqs[len(reqs)-1].Model != "llama3.2:1b" || ext.Model != "ollama/llama3.2:1b" {
		t.Errorf("extraction by %q; the model server was asked %+v", ext.Model, reqs)
	}
}
