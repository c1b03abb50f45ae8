package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/docent/docent/storage/fault"
)

// invoiceFormat is a response_format with a given property, for revisions
// that differ.
func invoiceFormat(prop string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{
		"type": "json_schema",
		"json_schema": {"name": "invoice", "strict": true,
			"schema": {"type": "object", "properties": {%q: {"type": "string"}}, "required": [%q], "additionalProperties": false}}}`,
		prop, prop))
}

func compact(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	c, ok := compactJSON(raw)
	if !ok {
		t.Fatalf("not JSON: %s", raw)
	}
	return string(c)
}

func mustCreateSchema(t testing.TB, db *DB, name string, rf json.RawMessage) SchemaRevision {
	t.Helper()
	r, err := db.CreateSchema(context.Background(), name, rf)
	if err != nil {
		t.Fatalf("CreateSchema(%q): %v", name, err)
	}
	return r
}

func mustUpdateSchema(t testing.TB, db *DB, id string, name *string, rf json.RawMessage) SchemaRevision {
	t.Helper()
	r, same, err := db.UpdateSchema(context.Background(), id, name, rf)
	if err != nil || same {
		t.Fatalf("UpdateSchema(%s): %+v, noChanges %v, %v", id, r, same, err)
	}
	return r
}

func ptr[T any](v T) *T { return &v }

func TestCreateSchemaAndVersions(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	v1, err := db.CreateSchema(ctx, "  Invoice ", invoiceFormat("total"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v1.SchemaID, "sch_") || !strings.HasPrefix(v1.SchemaRevID, "srv_") || v1.Version != 1 ||
		v1.Name != "Invoice" || string(v1.ResponseFormat) != compact(t, invoiceFormat("total")) || v1.CreatedAt.IsZero() {
		t.Errorf("v1 = %+v", v1)
	}

	v2 := mustUpdateSchema(t, db, v1.SchemaID, nil, invoiceFormat("amount"))
	if v2.SchemaID != v1.SchemaID || v2.SchemaRevID == v1.SchemaRevID || v2.Version != 2 || v2.Name != "Invoice" ||
		string(v2.ResponseFormat) != compact(t, invoiceFormat("amount")) || !v2.CreatedAt.After(v1.CreatedAt) {
		t.Errorf("v2 = %+v", v2)
	}
	v3 := mustUpdateSchema(t, db, v1.SchemaID, ptr("Invoice EU"), nil)
	if v3.Version != 3 || v3.Name != "Invoice EU" || string(v3.ResponseFormat) != string(v2.ResponseFormat) {
		t.Errorf("v3 = %+v", v3)
	}

	// The old revision is unchanged; the latest is v3.
	if got, err := db.GetSchemaRevision(ctx, v1.SchemaRevID); err != nil || !reflect.DeepEqual(got, v1) {
		t.Errorf("GetSchemaRevision(v1) = %+v, %v; want %+v", got, err, v1)
	}
	if got, err := db.GetSchema(ctx, v1.SchemaID); err != nil || !reflect.DeepEqual(got, v3) {
		t.Errorf("GetSchema = %+v, %v; want v3", got, err)
	}
	if got, err := db.SchemaRevisionByVersion(ctx, v1.SchemaID, 2); err != nil || !reflect.DeepEqual(got, v2) {
		t.Errorf("SchemaRevisionByVersion(2) = %+v, %v", got, err)
	}
	_, err = db.SchemaRevisionByVersion(ctx, v1.SchemaID, 4)
	wantCode(t, err, ErrNotFound, fmt.Sprintf("schema %s has no version 4", v1.SchemaID))
	_, err = db.SchemaRevisionByVersion(ctx, "sch_nope", 1)
	wantCode(t, err, ErrNotFound, "schema sch_nope not found")

	revs, err := db.ListSchemaRevisions(ctx, v1.SchemaID)
	if err != nil || !reflect.DeepEqual(revs, []SchemaRevision{v3, v2, v1}) {
		t.Errorf("ListSchemaRevisions = %+v, %v; want v3, v2, v1", revs, err)
	}
	_, err = db.ListSchemaRevisions(ctx, "sch_nope")
	wantCode(t, err, ErrNotFound, "schema sch_nope not found")
	_, err = db.GetSchema(ctx, "sch_nope")
	wantCode(t, err, ErrNotFound, "schema sch_nope not found")
	_, err = db.GetSchemaRevision(ctx, "srv_nope")
	wantCode(t, err, ErrNotFound, "schema revision srv_nope not found")
	if n := count(t, db, "schemas", "name = 'Invoice EU'"); n != 1 {
		t.Error("schemas.name is not the latest revision's name")
	}
}

func TestCreateSchemaRefusals(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	s := mustCreateSchema(t, db, "invoice", invoiceFormat("total"))

	_, err := db.CreateSchema(ctx, "Invoice", invoiceFormat("other"))
	wantCode(t, err, ErrConflict, fmt.Sprintf(`schema "invoice" exists (schema_id %s): use update_schema to make a new version`, s.SchemaID))
	_, err = db.CreateSchema(ctx, " ", invoiceFormat("x"))
	wantCode(t, err, ErrInvalid, "schema name is empty")
	for _, rf := range []string{``, `[]`, `"x"`, `null`, `{"a":`, `{} {}`} {
		_, err = db.CreateSchema(ctx, "other", json.RawMessage(rf))
		wantCode(t, err, ErrInvalid, "response_format must be a JSON object")
	}
	if n := count(t, db, "schema_revisions", ""); n != 1 {
		t.Errorf("%d revisions after refusals, want 1", n)
	}
}

func TestUpdateSchemaNoChangesAndRenames(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	a := mustCreateSchema(t, db, "Invoice", invoiceFormat("total"))
	b := mustCreateSchema(t, db, "Receipt", invoiceFormat("total"))

	// Identical to the latest (whitespace aside): nothing is written.
	for _, p := range []struct {
		name *string
		rf   json.RawMessage
	}{{nil, nil}, {ptr("Invoice"), nil}, {ptr(" Invoice "), invoiceFormat("total")}, {nil, invoiceFormat("total")}} {
		got, same, err := db.UpdateSchema(ctx, a.SchemaID, p.name, p.rf)
		if err != nil || !same || !reflect.DeepEqual(got, a) {
			t.Errorf("UpdateSchema(%v, %s) = %+v, %v, %v; want v1 unchanged", p.name, p.rf, got, same, err)
		}
	}
	if n := count(t, db, "schema_revisions", "schema_id = ?", a.SchemaID); n != 1 {
		t.Errorf("%d revisions after no-change updates, want 1", n)
	}

	_, _, err := db.UpdateSchema(ctx, a.SchemaID, ptr("receipt"), nil)
	wantCode(t, err, ErrConflict, fmt.Sprintf(`schema "Receipt" exists (schema_id %s): choose another name`, b.SchemaID))
	_, _, err = db.UpdateSchema(ctx, a.SchemaID, ptr(""), nil)
	wantCode(t, err, ErrInvalid, "schema name is empty")
	_, _, err = db.UpdateSchema(ctx, a.SchemaID, nil, json.RawMessage(`[1]`))
	wantCode(t, err, ErrInvalid, "response_format must be a JSON object")
	_, _, err = db.UpdateSchema(ctx, "sch_nope", ptr("x"), nil)
	wantCode(t, err, ErrNotFound, "schema sch_nope not found")

	// Changing the case of its own name is a rename, and a new version.
	v2 := mustUpdateSchema(t, db, a.SchemaID, ptr("INVOICE"), nil)
	if v2.Version != 2 || v2.Name != "INVOICE" {
		t.Errorf("v2 = %+v", v2)
	}
	// The old name is free once renamed away.
	mustUpdateSchema(t, db, a.SchemaID, ptr("Bill"), nil)
	if _, err := db.CreateSchema(ctx, "Invoice", invoiceFormat("x")); err != nil {
		t.Errorf("CreateSchema with a name given up: %v", err)
	}
}

func TestFindSchema(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	v1 := mustCreateSchema(t, db, "Invoice", invoiceFormat("total"))
	v2 := mustUpdateSchema(t, db, v1.SchemaID, nil, invoiceFormat("amount"))
	for ref, want := range map[string]SchemaRevision{
		v1.SchemaID: v2, v1.SchemaRevID: v1, v2.SchemaRevID: v2, "Invoice": v2, "invoice": v2,
	} {
		if got, err := db.FindSchema(ctx, ref); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("FindSchema(%q) = %+v, %v; want version %d", ref, got, err, want.Version)
		}
	}
	_, err := db.FindSchema(ctx, "Invo")
	wantCode(t, err, ErrNotFound, `schema "Invo" not found`)
}

func TestListSchemas(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	got, total, err := db.ListSchemas(ctx, ListFilter{})
	if err != nil || total != 0 || got == nil || len(got) != 0 {
		t.Fatalf("empty ListSchemas = %#v, %d, %v; want []", got, total, err)
	}
	inv := mustCreateSchema(t, db, "invoice", invoiceFormat("a"))
	inv2 := mustUpdateSchema(t, db, inv.SchemaID, nil, invoiceFormat("b"))
	rec := mustCreateSchema(t, db, "Receipt", invoiceFormat("a"))
	bill := mustCreateSchema(t, db, "Bill of lading", invoiceFormat("a"))
	pct := mustCreateSchema(t, db, "100% _done", invoiceFormat("a"))

	names := func(revs []SchemaRevision) []string {
		var out []string
		for _, r := range revs {
			out = append(out, fmt.Sprintf("%s v%d", r.Name, r.Version))
		}
		return out
	}
	got, total, err = db.ListSchemas(ctx, ListFilter{})
	if err != nil || total != 4 || !reflect.DeepEqual(got, []SchemaRevision{pct, bill, inv2, rec}) {
		t.Errorf("ListSchemas = %v, %d, %v", names(got), total, err)
	}
	got, total, err = db.ListSchemas(ctx, ListFilter{Skip: 1, Limit: 2})
	if err != nil || total != 4 || !reflect.DeepEqual(names(got), []string{"Bill of lading v1", "invoice v2"}) {
		t.Errorf("page = %v, %d, %v", names(got), total, err)
	}
	got, total, err = db.ListSchemas(ctx, ListFilter{NameSearch: "I"})
	if err != nil || total != 3 || !reflect.DeepEqual(names(got), []string{"Bill of lading v1", "invoice v2", "Receipt v1"}) {
		t.Errorf("search I = %v, %d, %v", names(got), total, err)
	}
	got, total, err = db.ListSchemas(ctx, ListFilter{NameSearch: "% _"})
	if err != nil || total != 1 || got[0].SchemaID != pct.SchemaID {
		t.Errorf("search with wildcards = %v, %d, %v", names(got), total, err)
	}
}

func TestDeleteSchemaGuardsOnLatestPromptRevisions(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	s := mustCreateSchema(t, db, "Invoice", invoiceFormat("total"))
	s2 := mustUpdateSchema(t, db, s.SchemaID, nil, invoiceFormat("amount"))
	other := mustCreateSchema(t, db, "Other", invoiceFormat("x"))

	p := mustCreatePrompt(t, db, NewPrompt{Name: "Invoices", Content: "Extract.", SchemaID: s.SchemaID, SchemaVersion: 1})
	q := mustCreatePrompt(t, db, NewPrompt{Name: "Bills", Content: "Extract.", SchemaID: s.SchemaID})
	if q.SchemaRevID != s2.SchemaRevID {
		t.Fatalf("prompt linked %s, want latest %s", q.SchemaRevID, s2.SchemaRevID)
	}

	err := db.DeleteSchema(ctx, s.SchemaID)
	wantCode(t, err, ErrConflict, fmt.Sprintf(`schema "Invoice" is used by prompt "Bills" (%s), prompt "Invoices" (%s): link those prompts to another schema or delete them first`,
		q.PromptID, p.PromptID))

	// Moving the prompts on: their older revisions still link the schema
	// but no longer block.
	mustUpdatePrompt(t, db, p.PromptID, PromptPatch{SchemaID: ptr(other.SchemaID)})
	err = db.DeleteSchema(ctx, s.SchemaID)
	wantCode(t, err, ErrConflict, fmt.Sprintf(`schema "Invoice" is used by prompt "Bills" (%s): link those prompts to another schema or delete them first`, q.PromptID))
	mustUpdatePrompt(t, db, q.PromptID, PromptPatch{SchemaID: ptr("")})

	if err := db.DeleteSchema(ctx, s.SchemaID); err != nil {
		t.Fatalf("DeleteSchema: %v", err)
	}
	if n := count(t, db, "schema_revisions", "schema_id = ?", s.SchemaID); n != 0 {
		t.Errorf("%d revisions outlived the schema", n)
	}
	old, err := db.GetPromptRevision(ctx, p.PromptRevID)
	if err != nil || old.SchemaID != "" || old.SchemaRevID != "" || old.SchemaVersion != 0 || old.Content != "Extract." {
		t.Errorf("old prompt revision = %+v, %v; want it kept with no schema", old, err)
	}
	if n := count(t, db, "prompt_revisions", "id = ? AND schema_revid IS NULL", p.PromptRevID); n != 1 {
		t.Error("the old prompt revision's schema_revid is not NULL")
	}
	wantCode(t, db.DeleteSchema(ctx, s.SchemaID), ErrNotFound, fmt.Sprintf("schema %s not found", s.SchemaID))
}

func TestDeleteSchemaNamesAtMostFivePrompts(t *testing.T) {
	db := mustOpen(t)
	s := mustCreateSchema(t, db, "Invoice", invoiceFormat("total"))
	for i := range 7 {
		mustCreatePrompt(t, db, NewPrompt{Name: fmt.Sprintf("p%d", i), Content: "x", SchemaID: s.SchemaID})
	}
	err := db.DeleteSchema(context.Background(), s.SchemaID)
	wantCode(t, err, ErrConflict, "")
	if msg := fault.ErrorMessage(err); strings.Count(msg, "prompt \"") != 5 || !strings.Contains(msg, " and 2 more:") {
		t.Errorf("message = %q", msg)
	}
}
