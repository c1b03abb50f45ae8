package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// An error about one member of a request names it in `field`, so that a
// form shows the message beside that input without reading the words; an
// error about the whole request has no `field` at all.
func TestAnErrorAboutOneMemberNamesItsField(t *testing.T) {
	f := newFixture(t)
	var tag struct{ ID string }
	f.call(http.MethodPost, "/api/tags", map[string]any{"name": "invoices"}, http.StatusCreated, &tag)
	var schema struct {
		SchemaID string `json:"schema_id"`
	}
	f.call(http.MethodPost, "/api/schemas", map[string]any{"name": "invoice", "response_format": json.RawMessage(invoiceSchema)}, http.StatusCreated, &schema)

	long := strings.Repeat("n", 101)
	for _, tc := range []struct {
		name         string
		method, path string
		body         any
		status       int
		code, field  string
	}{
		{"empty tag name", "POST", "/api/tags", map[string]any{"name": " "}, 400, "invalid", "name"},
		{"tag name taken", "POST", "/api/tags", map[string]any{"name": "Invoices"}, 409, "conflict", "name"},
		{"tag colour", "POST", "/api/tags", map[string]any{"name": "x", "color": "red"}, 400, "invalid", "color"},
		{"tag description too long", "PATCH", "/api/tags/" + tag.ID, map[string]any{"description": strings.Repeat("d", 1001)}, 400, "invalid", "description"},
		{"schema name too long", "POST", "/api/schemas", map[string]any{"name": long, "response_format": json.RawMessage(invoiceSchema)}, 400, "invalid", "name"},
		{"schema without response_format", "POST", "/api/schemas", map[string]any{"name": "x"}, 400, "invalid", "response_format"},
		{"schema name taken", "POST", "/api/schemas", map[string]any{"name": "invoice", "response_format": json.RawMessage(invoiceSchema)}, 409, "conflict", "name"},
		{"invalid schema", "PUT", "/api/schemas/" + schema.SchemaID, map[string]any{"response_format": map[string]any{"type": "strnig"}}, 400, "invalid", "response_format"},
		{"prompt content empty", "POST", "/api/prompts", map[string]any{"name": "p", "content": ""}, 400, "invalid", "content"},
		{"prompt on an unknown schema", "POST", "/api/prompts", map[string]any{"name": "p", "content": "c", "schema_id": "s_nope"}, 400, "invalid", "schema_id"},
		{"prompt on a missing schema version", "POST", "/api/prompts", map[string]any{"name": "p", "content": "c", "schema_id": schema.SchemaID, "schema_version": 9}, 400, "invalid", "schema_version"},
		{"prompt model", "POST", "/api/prompts", map[string]any{"name": "p", "content": "c", "model": "qwen3"}, 400, "invalid", "model"},
		{"prompt unknown tag", "POST", "/api/prompts", map[string]any{"name": "p", "content": "c", "tag_ids": []string{"t_nope"}}, 400, "invalid", "tag_ids"},
		{"not about a member", "GET", "/api/tags/t_nope", nil, 404, "not_found", ""},
		{"a body that is not JSON", "POST", "/api/tags", `{"name":`, 400, "invalid", ""},
	} {
		status, b := f.do(tc.method, tc.path, tc.body)
		var e map[string]any
		if err := json.Unmarshal(b, &e); err != nil {
			t.Errorf("%s: %d %s: %v", tc.name, status, b, err)
			continue
		}
		field, has := e["field"]
		if status != tc.status || e["code"] != tc.code || (tc.field != "" && field != tc.field) || (tc.field == "" && has) {
			t.Errorf("%s: %d %s, want %d with code %q and field %q", tc.name, status, b, tc.status, tc.code, tc.field)
		}
	}
}
