package server_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/docent/docent/storage"
)

// TestPromptExportHonoursTagAndRefusesTheRest: the prompt's export takes
// tag (as `docent export --prompt --tag` does) and refuses what it cannot
// do — the data view's sort, order, filter and status, which belong to the
// schema's export, and any parameter it does not know — instead of
// silently exporting every row.
func TestPromptExportHonoursTagAndRefusesTheRest(t *testing.T) {
	f := newDataFixture(t)
	ctx := context.Background()
	tag, err := f.db.CreateTag(ctx, storage.NewTag{Name: "q2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.UpdateDocument(ctx, f.docs[2].ID, storage.DocumentPatch{TagIDs: &[]string{tag.ID}}); err != nil {
		t.Fatal(err)
	}
	base := "/api/prompts/" + f.prompt.PromptID + "/export"
	names := func(query string) string {
		t.Helper()
		b := f.call("GET", base+query, nil, http.StatusOK, nil)
		recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatalf("export%s: %v\n%s", query, err, b)
		}
		var out []string
		for _, r := range recs[1:] {
			out = append(out, r[1])
		}
		return strings.Join(out, ",")
	}
	if got := names(""); got != "acme.txt,beta.txt,gamma.txt" {
		t.Errorf("whole export: %s", got)
	}
	for _, q := range []string{"?tag=q2", "?tag=" + tag.ID, "?format=csv&tag=q2&raw=0"} {
		if got := names(q); got != "gamma.txt" {
			t.Errorf("export%s: %s, want gamma.txt alone", q, got)
		}
	}
	f.wantError("GET", base+"?tag=nope", nil, http.StatusNotFound, "not_found")
	for _, q := range []string{"?sort=total", "?order=desc", "?filter=invoice_number:B", "?status=valid", "?prompt=invoices", "?limit=1", "?format=csv&bogus=1"} {
		msg := f.wantError("GET", base+q, nil, http.StatusBadRequest, "invalid")
		if !strings.Contains(msg, "/api/schemas/") && !strings.Contains(msg, "takes") {
			t.Errorf("export%s: %q does not say what the route takes", q, msg)
		}
	}
}
