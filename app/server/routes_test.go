package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage"
)

func TestDocumentRoutes(t *testing.T) {
	f := newFixture(t)
	var tag storage.Tag
	f.call("POST", "/api/tags", map[string]any{"name": "invoices", "color": "#AA3300"}, http.StatusCreated, &tag)

	// Upload: two files, one unsupported; tag ids repeated and comma-separated.
	status, b := f.upload(map[string]string{"notes.txt": "Quarterly notes\fpage two", "image.png": "\x89PNG"},
		map[string][]string{"tag_ids": {tag.ID + ","}, "auto_create": {"false"}})
	var up struct {
		Documents []storage.Document
		Errors    []struct{ File, Error string }
	}
	if err := json.Unmarshal(b, &up); err != nil || status != http.StatusOK {
		t.Fatalf("upload: %d %s", status, b)
	}
	if len(up.Documents) != 1 || up.Documents[0].Name != "notes.txt" || up.Documents[0].Pages != 2 ||
		len(up.Documents[0].TagIDs) != 1 || up.Documents[0].TagIDs[0] != tag.ID {
		t.Errorf("uploaded documents %+v", up.Documents)
	}
	if len(up.Errors) != 1 || up.Errors[0].File != "image.png" || !strings.Contains(up.Errors[0].Error, "unsupported") {
		t.Errorf("upload errors %+v", up.Errors)
	}
	doc := up.Documents[0]
	// The same bytes again are the same document.
	_, b = f.upload(map[string]string{"again.txt": "Quarterly notes\fpage two"}, nil)
	if !strings.Contains(string(b), `"document_id":"`+doc.ID+`"`) {
		t.Errorf("duplicate upload: %s", b)
	}
	f.wantError("POST", "/api/documents", "not multipart", http.StatusBadRequest, "invalid")
	if status, b := f.upload(map[string]string{"x.txt": "x"}, map[string][]string{"tag_ids": {"tag_missing"}}); status != http.StatusBadRequest {
		t.Errorf("upload with an unknown tag: %d %s", status, b)
	}

	var list struct {
		Documents []storage.Document
		Total     int
	}
	f.call("GET", "/api/documents", nil, http.StatusOK, &list)
	if list.Total != 2 || len(list.Documents) != 2 {
		t.Errorf("list: %+v", list)
	}
	f.call("GET", "/api/documents?tag_id="+tag.ID+"&limit=1", nil, http.StatusOK, &list)
	if list.Total != 1 || list.Documents[0].ID != doc.ID {
		t.Errorf("list by tag: %+v", list)
	}
	f.call("GET", "/api/documents?q=Quarterly", nil, http.StatusOK, &list)
	if list.Total != 1 {
		t.Errorf("list by text: %+v", list)
	}
	f.wantError("GET", "/api/documents?limit=-1", nil, http.StatusBadRequest, "invalid")

	var got storage.Document
	f.call("GET", "/api/documents/"+doc.ID, nil, http.StatusOK, &got)
	if got.ID != doc.ID || got.Name != "notes.txt" {
		t.Errorf("get: %+v", got)
	}
	f.wantError("GET", "/api/documents/doc_missing", nil, http.StatusNotFound, "not_found")

	f.call("PATCH", "/api/documents/"+doc.ID, map[string]any{"name": "renamed.txt", "tag_ids": []string{}, "metadata": map[string]any{"k": 1}}, http.StatusOK, &got)
	if got.Name != "renamed.txt" || len(got.TagIDs) != 0 || string(got.Metadata) != `{"k":1}` {
		t.Errorf("patch: %+v %s", got, got.Metadata)
	}
	f.wantError("PATCH", "/api/documents/"+doc.ID, map[string]any{"nmae": "typo"}, http.StatusBadRequest, "invalid")
	f.wantError("PATCH", "/api/documents/"+doc.ID, `{"name": "a"} {}`, http.StatusBadRequest, "invalid")
	f.wantError("PATCH", "/api/documents/"+doc.ID, `{"name": `, http.StatusBadRequest, "invalid")
	f.wantError("PATCH", "/api/documents/"+doc.ID, ``, http.StatusBadRequest, "invalid")
	f.wantError("PATCH", "/api/documents/doc_missing", map[string]any{"name": "x"}, http.StatusNotFound, "not_found")

	// The original bytes, inline, with the stored type and name.
	res, err := f.ts.Client().Do(f.request(t.Context(), "GET", "/api/documents/"+doc.ID+"/file", nil))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/plain" ||
		res.Header.Get("Content-Disposition") != `inline; filename=renamed.txt` {
		t.Errorf("file: %d %v", res.StatusCode, res.Header)
	}
	if status, body := f.do("GET", "/api/documents/"+doc.ID+"/file", nil); status != 200 || string(body) != "Quarterly notes\fpage two" {
		t.Errorf("file bytes: %d %q", status, body)
	}
	f.wantError("GET", "/api/documents/doc_missing/file", nil, http.StatusNotFound, "not_found")

	var text struct {
		Text  string
		Page  int
		Pages int
	}
	f.call("GET", "/api/documents/"+doc.ID+"/text?page=2", nil, http.StatusOK, &text)
	if text.Text != "page two" || text.Page != 2 || text.Pages != 2 {
		t.Errorf("text page 2: %+v", text)
	}
	text.Page = 0
	f.call("GET", "/api/documents/"+doc.ID+"/text", nil, http.StatusOK, &text)
	if !strings.Contains(text.Text, "Quarterly notes") || !strings.Contains(text.Text, "page two") || text.Page != 0 {
		t.Errorf("whole text: %+v", text)
	}
	f.wantError("GET", "/api/documents/"+doc.ID+"/text?page=0", nil, http.StatusBadRequest, "invalid")
	f.wantError("GET", "/api/documents/"+doc.ID+"/text?page=9", nil, http.StatusBadRequest, "invalid")

	f.call("DELETE", "/api/documents/"+doc.ID, nil, http.StatusOK, &got)
	if got.ID != doc.ID {
		t.Errorf("delete answered %+v", got)
	}
	f.wantError("DELETE", "/api/documents/"+doc.ID, nil, http.StatusNotFound, "not_found")
}

func TestArtifactRoutes(t *testing.T) {
	f := newFixture(t)

	// Tags.
	var tag storage.Tag
	f.call("POST", "/api/tags", map[string]any{"name": "urgent", "description": "now"}, http.StatusCreated, &tag)
	f.wantError("POST", "/api/tags", map[string]any{"name": "URGENT"}, http.StatusConflict, "conflict")
	f.wantError("POST", "/api/tags", map[string]any{"name": "x", "color": "red"}, http.StatusBadRequest, "invalid")
	f.call("PATCH", "/api/tags/"+tag.ID, map[string]any{"color": "#00FF00"}, http.StatusOK, &tag)
	if tag.Color != "#00FF00" || tag.Name != "urgent" {
		t.Errorf("patched tag %+v", tag)
	}
	var tags struct{ Tags []storage.Tag }
	f.call("GET", "/api/tags", nil, http.StatusOK, &tags)
	if len(tags.Tags) != 1 {
		t.Errorf("tags %+v", tags)
	}
	f.call("GET", "/api/tags/"+tag.ID, nil, http.StatusOK, nil)
	f.wantError("GET", "/api/tags/tag_missing", nil, http.StatusNotFound, "not_found")
	f.call("PATCH", "/api/documents/"+f.doc.ID, map[string]any{"tag_ids": []string{tag.ID}}, http.StatusOK, nil)
	f.wantError("DELETE", "/api/tags/"+tag.ID, nil, http.StatusConflict, "conflict") // in use

	// Schemas, with a version per change and revisions by id.
	var sch struct {
		ID        string `json:"schema_id"`
		RevID     string `json:"schema_revid"`
		Version   int    `json:"version"`
		NoChanges bool   `json:"no_changes"`
	}
	f.call("POST", "/api/schemas", map[string]any{"name": "invoice", "response_format": json.RawMessage(invoiceSchema)}, http.StatusCreated, &sch)
	if sch.ID == "" || sch.Version != 1 {
		t.Fatalf("created schema %+v", sch)
	}
	first := sch.RevID
	f.wantError("POST", "/api/schemas", map[string]any{"name": "invoice", "response_format": json.RawMessage(invoiceSchema)}, http.StatusConflict, "conflict")
	f.wantError("POST", "/api/schemas", map[string]any{"name": "bad", "response_format": json.RawMessage(`{"type":"nonsense"}`)}, http.StatusBadRequest, "invalid")
	f.wantError("POST", "/api/schemas", map[string]any{"name": "bad"}, http.StatusBadRequest, "invalid")
	f.call("PUT", "/api/schemas/"+sch.ID, map[string]any{"name": "invoice2"}, http.StatusOK, &sch)
	if sch.Version != 2 {
		t.Errorf("updated schema %+v", sch)
	}
	f.call("PUT", "/api/schemas/"+sch.ID, map[string]any{"name": "invoice2"}, http.StatusOK, &sch)
	if sch.Version != 2 || !sch.NoChanges {
		t.Errorf("unchanged schema %+v", sch)
	}
	f.wantError("PUT", "/api/schemas/sch_missing", map[string]any{"name": "x"}, http.StatusNotFound, "not_found")
	var rev struct {
		Name    string `json:"name"`
		Version int    `json:"version"`
	}
	f.call("GET", "/api/schema-revisions/"+first, nil, http.StatusOK, &rev)
	if rev.Name != "invoice" || rev.Version != 1 {
		t.Errorf("first revision %+v", rev)
	}
	f.wantError("GET", "/api/schema-revisions/srv_missing", nil, http.StatusNotFound, "not_found")
	var srevs struct{ Revisions []json.RawMessage }
	f.call("GET", "/api/schemas/"+sch.ID+"/revisions", nil, http.StatusOK, &srevs)
	if len(srevs.Revisions) != 2 {
		t.Errorf("schema revisions: %d, want 2", len(srevs.Revisions))
	}
	f.wantError("GET", "/api/schemas/sch_missing/revisions", nil, http.StatusNotFound, "not_found")
	var schemas struct {
		Schemas []json.RawMessage
		Total   int
	}
	f.call("GET", "/api/schemas", nil, http.StatusOK, &schemas)
	if schemas.Total != 1 {
		t.Errorf("schemas %+v", schemas)
	}
	f.call("GET", "/api/schemas/"+sch.ID, nil, http.StatusOK, &rev)
	if rev.Version != 2 {
		t.Errorf("latest schema %+v", rev)
	}

	// Prompts linked to the schema, with tags.
	var prm storage.PromptRevision
	f.call("POST", "/api/prompts", map[string]any{"name": "aws", "content": "Extract the total.", "schema_id": sch.ID, "tag_ids": []string{tag.ID}, "model": testModel}, http.StatusCreated, &prm)
	if prm.PromptID == "" || prm.SchemaRevID != sch.RevID || prm.Version != 1 {
		t.Fatalf("created prompt %+v", prm)
	}
	f.wantError("POST", "/api/prompts", map[string]any{"name": "aws", "content": "again"}, http.StatusConflict, "conflict")
	f.wantError("POST", "/api/prompts", map[string]any{"name": "x", "content": "y", "schema_id": "sch_missing"}, http.StatusBadRequest, "invalid")
	f.wantError("DELETE", "/api/schemas/"+sch.ID, nil, http.StatusConflict, "conflict") // the prompt uses it
	firstPrompt := prm.PromptRevID
	f.call("PUT", "/api/prompts/"+prm.PromptID, map[string]any{"content": "Extract the total due."}, http.StatusOK, &prm)
	if prm.Version != 2 || prm.Content != "Extract the total due." || prm.Name != "aws" {
		t.Errorf("updated prompt %+v", prm)
	}
	f.call("GET", "/api/prompt-revisions/"+firstPrompt, nil, http.StatusOK, &prm)
	if prm.Version != 1 {
		t.Errorf("first prompt revision %+v", prm)
	}
	var prompts struct {
		Prompts []storage.PromptRevision
		Total   int
	}
	f.call("GET", "/api/prompts?tag_id="+tag.ID, nil, http.StatusOK, &prompts)
	if prompts.Total != 1 {
		t.Errorf("prompts by tag %+v", prompts)
	}
	f.call("GET", "/api/prompts/"+prm.PromptID, nil, http.StatusOK, &prm)
	f.wantError("GET", "/api/prompts/prm_missing", nil, http.StatusNotFound, "not_found")
	var prevs struct{ Revisions []storage.PromptRevision }
	f.call("GET", "/api/prompts/"+prm.PromptID+"/revisions", nil, http.StatusOK, &prevs)
	if len(prevs.Revisions) != 2 {
		t.Errorf("prompt revisions: %d, want 2", len(prevs.Revisions))
	}
	f.wantError("GET", "/api/prompt-revisions/prv_missing", nil, http.StatusNotFound, "not_found")

	// Extractions run by the scripted model, then edited and re-validated.
	f.model.Enqueue(modeltest.Reply{Text: `{"invoice_number": "A-1", "total": 12.5}`})
	var ext storage.Extraction
	f.call("POST", "/api/documents/"+f.doc.ID+"/extractions", map[string]any{"prompt_revid": prm.PromptRevID}, http.StatusCreated, &ext)
	if ext.ValidationStatus != storage.ValidationValid || string(ext.Value) != `{"invoice_number":"A-1","total":12.5}` {
		t.Errorf("extraction %+v %s", ext, ext.Value)
	}
	f.wantError("POST", "/api/documents/"+f.doc.ID+"/extractions", map[string]any{}, http.StatusBadRequest, "invalid")
	f.wantError("POST", "/api/documents/"+f.doc.ID+"/extractions", map[string]any{"prompt_revid": "prv_missing"}, http.StatusNotFound, "not_found")
	// An edit that breaks the schema is refused with its message, and
	// nothing is stored; a valid one is stored and marked edited.
	if msg := f.wantError("PATCH", "/api/documents/"+f.doc.ID+"/extractions/"+ext.ID, map[string]any{"path": "total", "value": "twelve"}, http.StatusBadRequest, "invalid"); !strings.Contains(msg, "expected number") {
		t.Errorf("invalid edit: %q", msg)
	}
	if x, _ := f.db.GetExtraction(t.Context(), ext.ID); x.Edited || string(x.Value) != `{"invoice_number":"A-1","total":12.5}` {
		t.Errorf("a refused edit changed the extraction: %+v %s", x, x.Value)
	}
	f.call("PATCH", "/api/documents/"+f.doc.ID+"/extractions/"+ext.ID, map[string]any{"path": "total", "value": 13.5}, http.StatusOK, &ext)
	if !ext.Edited || ext.ValidationStatus != storage.ValidationValid {
		t.Errorf("edited extraction %+v", ext)
	}
	var exts struct{ Extractions []storage.Extraction }
	f.call("GET", "/api/documents/"+f.doc.ID+"/extractions", nil, http.StatusOK, &exts)
	if len(exts.Extractions) != 1 {
		t.Errorf("extractions %+v", exts)
	}
	f.wantError("GET", "/api/documents/doc_missing/extractions", nil, http.StatusNotFound, "not_found")
	other, err := f.db.CreateDocument(t.Context(), storage.NewDocument{Name: "other.txt", MediaType: "text/plain", Data: []byte("other"), Pages: []string{"other"}})
	if err != nil {
		t.Fatal(err)
	}
	f.wantError("PATCH", "/api/documents/"+other.ID+"/extractions/"+ext.ID, map[string]any{"path": "total", "value": 1}, http.StatusNotFound, "not_found")

	// Deletions answer what went.
	f.call("DELETE", "/api/prompts/"+prm.PromptID, nil, http.StatusOK, nil)
	f.call("DELETE", "/api/schemas/"+sch.ID, nil, http.StatusOK, nil)
	f.call("PATCH", "/api/documents/"+f.doc.ID, map[string]any{"tag_ids": []string{}}, http.StatusOK, nil)
	f.call("DELETE", "/api/tags/"+tag.ID, nil, http.StatusOK, nil)
	f.wantError("DELETE", "/api/tags/"+tag.ID, nil, http.StatusNotFound, "not_found")
	f.wantError("DELETE", "/api/schemas/"+sch.ID, nil, http.StatusNotFound, "not_found")
	f.wantError("DELETE", "/api/prompts/"+prm.PromptID, nil, http.StatusNotFound, "not_found")
}

func TestSearchModelsToolsAndHealth(t *testing.T) {
	f := newFixture(t)
	var hits struct {
		Hits []struct {
			DocumentID string  `json:"document_id"`
			Page       int     `json:"page"`
			ChunkID    int64   `json:"chunk_id"`
			Snippet    string  `json:"snippet"`
			Score      float64 `json:"score"`
		}
	}
	f.call("GET", "/api/search?q=total+due&limit=5", nil, http.StatusOK, &hits)
	if len(hits.Hits) != 1 || hits.Hits[0].DocumentID != f.doc.ID || hits.Hits[0].Page != 2 || hits.Hits[0].ChunkID == 0 || hits.Hits[0].Snippet == "" {
		t.Errorf("hits %+v", hits)
	}
	f.wantError("GET", "/api/search", nil, http.StatusBadRequest, "invalid")
	f.wantError("GET", "/api/search?q=x&limit=many", nil, http.StatusBadRequest, "invalid")

	var models struct {
		Models  []struct{ ID, Provider string }
		Default string
		Errors  []string
	}
	f.call("GET", "/api/models", nil, http.StatusOK, &models)
	if models.Default != testModel || len(models.Models) == 0 || models.Models[0].ID != testModel || models.Models[0].Provider != "ollama" {
		t.Errorf("models %+v", models)
	}

	var tools struct {
		ReadOnly  []string `json:"read_only"`
		ReadWrite []string `json:"read_write"`
	}
	f.call("GET", "/api/chat/tools", nil, http.StatusOK, &tools)
	if !contains(tools.ReadOnly, "get_document") || !contains(tools.ReadWrite, "create_schema") || contains(tools.ReadOnly, "create_schema") {
		t.Errorf("tools %+v", tools)
	}

	var health struct {
		OK      bool
		Version string
	}
	status, b := f.send(mustRequest(t, "GET", f.ts.URL+"/api/health")) // no token
	if err := json.Unmarshal(b, &health); err != nil || status != 200 || !health.OK || health.Version != "test" {
		t.Errorf("health: %d %s", status, b)
	}
	f.wantError("GET", "/api/nothing-here", nil, http.StatusNotFound, "not_found")
}

// A provider that is down is reported beside the others' models, not as a
// failure of the route.
func TestModelsWithAProviderDown(t *testing.T) {
	f := newFixture(t)
	f.model.Close()
	var models struct {
		Models []json.RawMessage
		Errors []string
	}
	f.call("GET", "/api/models", nil, http.StatusOK, &models)
	if len(models.Models) != 0 || len(models.Errors) == 0 {
		t.Errorf("models with the providers down: %+v", models)
	}
}

func TestLimits(t *testing.T) {
	f := newFixture(t, func(c *server.Config) { c.MaxUploadBytes = 1 << 10; c.MaxJSONBytes = 64 })
	msg := f.wantError("POST", "/api/tags", map[string]any{"name": strings.Repeat("x", 100)}, http.StatusRequestEntityTooLarge, "too_large")
	if !strings.Contains(msg, "64 bytes") {
		t.Errorf("JSON limit message %q does not name the limit", msg)
	}
	status, b := f.upload(map[string]string{"big.txt": strings.Repeat("x", 2<<10)}, nil)
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "1 KiB") || !strings.Contains(string(b), `"too_large"`) {
		t.Errorf("upload over the limit: %d %s", status, b)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func mustRequest(t testing.TB, method, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
