package server_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// A list route's q longer than the search limit (2,000 characters) is a
// 400 that says the limit, as /api/search's is, not a 500 from SQLite; q
// at the limit lists as usual.
func TestListRoutesHoldQToTheSearchLimit(t *testing.T) {
	f := newFixture(t)
	// A row in each list, or SQLite never evaluates the pattern.
	var schema struct {
		SchemaID string `json:"schema_id"`
	}
	f.call("POST", "/api/schemas", map[string]any{"name": "invoice", "response_format": json.RawMessage(invoiceSchema)}, 201, &schema)
	f.call("POST", "/api/prompts", map[string]any{"name": "totals", "content": "Extract.", "schema_id": schema.SchemaID}, 201, nil)
	for _, route := range []string{"/api/documents", "/api/schemas", "/api/prompts"} {
		f.call("GET", route+"?q="+strings.Repeat("a", 2000), nil, 200, nil)
		status, body := f.do("GET", route+"?q="+strings.Repeat("a", 50000), nil)
		var e struct{ Error, Code string }
		if err := json.Unmarshal(body, &e); err != nil || status != 400 || e.Code != "invalid" ||
			!strings.Contains(e.Error, "search text is 50000 characters long; at most 2000") {
			t.Errorf("GET %s with a q of 50,000 characters: %d %s, want 400 invalid saying the limit", route, status, body)
		}
	}
}
