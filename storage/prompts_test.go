package storage

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func mustCreatePrompt(t testing.TB, db *DB, np NewPrompt) PromptRevision {
	t.Helper()
	r, err := db.CreatePrompt(context.Background(), np)
	if err != nil {
		t.Fatalf("CreatePrompt(%q): %v", np.Name, err)
	}
	return r
}

func mustUpdatePrompt(t testing.TB, db *DB, id string, p PromptPatch) PromptRevision {
	t.Helper()
	r, same, err := db.UpdatePrompt(context.Background(), id, p)
	if err != nil || same {
		t.Fatalf("UpdatePrompt(%s): %+v, noChanges %v, %v", id, r, same, err)
	}
	return r
}

func TestCreatePromptAndVersions(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	zeta, alpha := mustCreateTag(t, db, "zeta"), mustCreateTag(t, db, "Alpha")
	s1 := mustCreateSchema(t, db, "Invoice", invoiceFormat("total"))
	s2 := mustUpdateSchema(t, db, s1.SchemaID, nil, invoiceFormat("amount"))

	v1, err := db.CreatePrompt(ctx, NewPrompt{Name: " Invoices ", Content: "Extract the total.\n", SchemaID: s1.SchemaID,
		Model: " ollama/qwen3:8b ", TagIDs: []string{zeta.ID, alpha.ID, zeta.ID}})
	if err != nil {
		t.Fatal(err)
	}
	want := PromptRevision{PromptID: v1.PromptID, PromptRevID: v1.PromptRevID, Version: 1, Name: "Invoices",
		Content: "Extract the total.\n", SchemaID: s1.SchemaID, SchemaRevID: s2.SchemaRevID, SchemaVersion: 2,
		Model: "ollama/qwen3:8b", TagIDs: []string{alpha.ID, zeta.ID}, CreatedAt: v1.CreatedAt}
	if !strings.HasPrefix(v1.PromptID, "prm_") || !strings.HasPrefix(v1.PromptRevID, "prv_") || !reflect.DeepEqual(v1, want) {
		t.Errorf("v1 =\n%+v\nwant (schema link to the latest version)\n%+v", v1, want)
	}

	// Unspecified fields carry over; the schema link stays on the same
	// revision even when the schema has a newer one.
	s3 := mustUpdateSchema(t, db, s1.SchemaID, nil, invoiceFormat("due"))
	v2 := mustUpdatePrompt(t, db, v1.PromptID, PromptPatch{Content: ptr("Extract the amount.")})
	if v2.Version != 2 || v2.PromptRevID == v1.PromptRevID || v2.Name != "Invoices" || v2.Content != "Extract the amount." ||
		v2.SchemaRevID != s2.SchemaRevID || v2.Model != v1.Model || !reflect.DeepEqual(v2.TagIDs, v1.TagIDs) {
		t.Errorf("v2 = %+v", v2)
	}
	// A version alone moves the link within the same schema.
	v3 := mustUpdatePrompt(t, db, v1.PromptID, PromptPatch{SchemaVersion: ptr(1)})
	if v3.SchemaRevID != s1.SchemaRevID || v3.SchemaVersion != 1 || v3.SchemaID != s1.SchemaID {
		t.Errorf("v3 link = %s v%d, want v1", v3.SchemaRevID, v3.SchemaVersion)
	}
	v4 := mustUpdatePrompt(t, db, v1.PromptID, PromptPatch{SchemaVersion: ptr(0)})
	if v4.SchemaRevID != s3.SchemaRevID {
		t.Errorf("v4 link = v%d, want latest v3", v4.SchemaVersion)
	}
	v5 := mustUpdatePrompt(t, db, v1.PromptID, PromptPatch{SchemaID: ptr(""), Model: ptr(""), TagIDs: &[]string{}})
	if v5.SchemaID != "" || v5.SchemaRevID != "" || v5.SchemaVersion != 0 || v5.Model != "" || len(v5.TagIDs) != 0 || v5.TagIDs == nil {
		t.Errorf("v5 = %+v, want unlinked, default model, no tags", v5)
	}

	// Old revisions are unchanged.
	if got, err := db.GetPromptRevision(ctx, v1.PromptRevID); err != nil || !reflect.DeepEqual(got, v1) {
		t.Errorf("GetPromptRevision(v1) = %+v, %v", got, err)
	}
	if got, err := db.GetPrompt(ctx, v1.PromptID); err != nil || !reflect.DeepEqual(got, v5) {
		t.Errorf("GetPrompt = %+v, %v; want v5", got, err)
	}
	revs, err := db.ListPromptRevisions(ctx, v1.PromptID)
	if err != nil || !reflect.DeepEqual(revs, []PromptRevision{v5, v4, v3, v2, v1}) {
		t.Errorf("ListPromptRevisions = %+v, %v", revs, err)
	}
	_, err = db.ListPromptRevisions(ctx, "prm_nope")
	wantCode(t, err, ErrNotFound, "prompt prm_nope not found")
	_, err = db.GetPrompt(ctx, "prm_nope")
	wantCode(t, err, ErrNotFound, "prompt prm_nope not found")
	_, err = db.GetPromptRevision(ctx, "prv_nope")
	wantCode(t, err, ErrNotFound, "prompt revision prv_nope not found")
}

func TestCreatePromptRefusals(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	s := mustCreateSchema(t, db, "Invoice", invoiceFormat("total"))
	p := mustCreatePrompt(t, db, NewPrompt{Name: "Invoices", Content: "x"})

	_, err := db.CreatePrompt(ctx, NewPrompt{Name: "INVOICES", Content: "y"})
	wantCode(t, err, ErrConflict, fmt.Sprintf(`prompt "Invoices" exists (prompt_id %s): use update_prompt to make a new version`, p.PromptID))
	for _, tt := range []struct {
		np  NewPrompt
		msg string
	}{
		{NewPrompt{Name: "", Content: "x"}, "prompt name is empty"},
		{NewPrompt{Name: "a", Content: " \n"}, "prompt content is empty"},
		{NewPrompt{Name: "a", Content: "x", SchemaID: "sch_nope"}, "unknown schema sch_nope"},
		{NewPrompt{Name: "a", Content: "x", SchemaID: "sch_nope", SchemaVersion: 2}, "unknown schema sch_nope"},
		{NewPrompt{Name: "a", Content: "x", SchemaID: s.SchemaID, SchemaVersion: 2}, fmt.Sprintf("schema %s has no version 2", s.SchemaID)},
		{NewPrompt{Name: "a", Content: "x", SchemaID: s.SchemaID, SchemaVersion: -1}, "schema_version -1 is not a version (versions count from 1)"},
		{NewPrompt{Name: "a", Content: "x", SchemaVersion: 1}, "schema_version given without schema_id"},
		{NewPrompt{Name: "a", Content: "x", TagIDs: []string{"tag_nope"}}, "unknown tag tag_nope"},
	} {
		_, err := db.CreatePrompt(ctx, tt.np)
		wantCode(t, err, ErrInvalid, tt.msg)
	}
	if n := count(t, db, "prompts", ""); n != 1 {
		t.Errorf("%d prompts after refusals, want 1", n)
	}
}

func TestUpdatePromptNoChangesRefusalsAndRenames(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	a, b := mustCreateTag(t, db, "a"), mustCreateTag(t, db, "b")
	s := mustCreateSchema(t, db, "Invoice", invoiceFormat("total"))
	p := mustCreatePrompt(t, db, NewPrompt{Name: "Invoices", Content: "x", SchemaID: s.SchemaID, Model: "m", TagIDs: []string{a.ID, b.ID}})
	q := mustCreatePrompt(t, db, NewPrompt{Name: "Receipts", Content: "y"})

	for i, patch := range []PromptPatch{
		{},
		{Name: ptr(" Invoices "), Content: ptr("x"), Model: ptr("m")},
		{TagIDs: &[]string{b.ID, a.ID, a.ID}},
		{SchemaID: ptr(s.SchemaID)},
		{SchemaVersion: ptr(1)},
	} {
		got, same, err := db.UpdatePrompt(ctx, p.PromptID, patch)
		if err != nil || !same || !reflect.DeepEqual(got, p) {
			t.Errorf("no-change update %d = %+v, %v, %v", i, got, same, err)
		}
	}
	if n := count(t, db, "prompt_revisions", "prompt_id = ?", p.PromptID); n != 1 {
		t.Errorf("%d revisions after no-change updates", n)
	}

	_, _, err := db.UpdatePrompt(ctx, p.PromptID, PromptPatch{Name: ptr("receipts")})
	wantCode(t, err, ErrConflict, fmt.Sprintf(`prompt "Receipts" exists (prompt_id %s): choose another name`, q.PromptID))
	_, _, err = db.UpdatePrompt(ctx, p.PromptID, PromptPatch{SchemaID: ptr("sch_nope")})
	wantCode(t, err, ErrInvalid, "unknown schema sch_nope")
	_, _, err = db.UpdatePrompt(ctx, p.PromptID, PromptPatch{SchemaVersion: ptr(9)})
	wantCode(t, err, ErrInvalid, fmt.Sprintf("schema %s has no version 9", s.SchemaID))
	_, _, err = db.UpdatePrompt(ctx, p.PromptID, PromptPatch{SchemaID: ptr(""), SchemaVersion: ptr(1)})
	wantCode(t, err, ErrInvalid, "schema_version given without schema_id")
	_, _, err = db.UpdatePrompt(ctx, q.PromptID, PromptPatch{SchemaVersion: ptr(1)})
	wantCode(t, err, ErrInvalid, `prompt "Receipts" links no schema: give schema_id with schema_version`)
	_, _, err = db.UpdatePrompt(ctx, p.PromptID, PromptPatch{TagIDs: &[]string{a.ID, "tag_x", "tag_y"}})
	wantCode(t, err, ErrInvalid, "unknown tags tag_x, tag_y")
	_, _, err = db.UpdatePrompt(ctx, p.PromptID, PromptPatch{Name: ptr(" ")})
	wantCode(t, err, ErrInvalid, "prompt name is empty")
	_, _, err = db.UpdatePrompt(ctx, p.PromptID, PromptPatch{Content: ptr("")})
	wantCode(t, err, ErrInvalid, "prompt content is empty")
	_, _, err = db.UpdatePrompt(ctx, "prm_nope", PromptPatch{Content: ptr("z")})
	wantCode(t, err, ErrNotFound, "prompt prm_nope not found")
	if n := count(t, db, "prompt_revisions", "prompt_id = ?", p.PromptID); n != 1 {
		t.Errorf("%d revisions after refused updates", n)
	}

	v2 := mustUpdatePrompt(t, db, p.PromptID, PromptPatch{Name: ptr("INVOICES")})
	if v2.Name != "INVOICES" || v2.Version != 2 || v2.SchemaRevID != p.SchemaRevID {
		t.Errorf("renamed = %+v", v2)
	}
	if got, err := db.FindPrompt(ctx, "invoices"); err != nil || got.PromptRevID != v2.PromptRevID {
		t.Errorf("FindPrompt after rename = %+v, %v", got, err)
	}
}

func TestFindPrompt(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	v1 := mustCreatePrompt(t, db, NewPrompt{Name: "Invoices", Content: "x"})
	v2 := mustUpdatePrompt(t, db, v1.PromptID, PromptPatch{Content: ptr("y")})
	for ref, want := range map[string]PromptRevision{
		v1.PromptID: v2, v1.PromptRevID: v1, v2.PromptRevID: v2, "Invoices": v2, "iNVOICES": v2,
	} {
		if got, err := db.FindPrompt(ctx, ref); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("FindPrompt(%q) = %+v, %v; want version %d", ref, got, err, want.Version)
		}
	}
	_, err := db.FindPrompt(ctx, "nothing")
	wantCode(t, err, ErrNotFound, `prompt "nothing" not found`)
}

func TestListPrompts(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	a, b := mustCreateTag(t, db, "a"), mustCreateTag(t, db, "b")
	got, total, err := db.ListPrompts(ctx, PromptFilter{})
	if err != nil || total != 0 || got == nil || len(got) != 0 {
		t.Fatalf("empty ListPrompts = %#v, %d, %v", got, total, err)
	}
	inv := mustCreatePrompt(t, db, NewPrompt{Name: "invoices", Content: "x", TagIDs: []string{a.ID}})
	inv2 := mustUpdatePrompt(t, db, inv.PromptID, PromptPatch{TagIDs: &[]string{a.ID, b.ID}})
	rec := mustCreatePrompt(t, db, NewPrompt{Name: "Receipts", Content: "x", TagIDs: []string{b.ID}})
	bill := mustCreatePrompt(t, db, NewPrompt{Name: "Bills", Content: "x"})

	got, total, err = db.ListPrompts(ctx, PromptFilter{})
	if err != nil || total != 3 || !reflect.DeepEqual(got, []PromptRevision{bill, inv2, rec}) {
		t.Errorf("ListPrompts = %+v, %d, %v", got, total, err)
	}
	got, total, err = db.ListPrompts(ctx, PromptFilter{Skip: 1, Limit: 1})
	if err != nil || total != 3 || len(got) != 1 || got[0].PromptID != inv.PromptID {
		t.Errorf("page = %+v, %d, %v", got, total, err)
	}
	got, total, err = db.ListPrompts(ctx, PromptFilter{TagIDs: []string{b.ID}})
	if err != nil || total != 2 || !reflect.DeepEqual(got, []PromptRevision{inv2, rec}) {
		t.Errorf("tag b = %+v, %d, %v", got, total, err)
	}
	// Tags of older revisions do not count; all tags must match.
	mustUpdatePrompt(t, db, inv.PromptID, PromptPatch{TagIDs: &[]string{b.ID}})
	got, total, err = db.ListPrompts(ctx, PromptFilter{TagIDs: []string{a.ID}})
	if err != nil || total != 0 || len(got) != 0 {
		t.Errorf("tag a = %+v, %d, %v", got, total, err)
	}
	got, total, err = db.ListPrompts(ctx, PromptFilter{NameSearch: "RE", TagIDs: []string{b.ID}})
	if err != nil || total != 1 || got[0].PromptID != rec.PromptID {
		t.Errorf("search RE with tag b = %+v, %d, %v", got, total, err)
	}
}

func TestDeletePromptKeepsExtractions(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	tag := mustCreateTag(t, db, "t")
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"text"}})
	p := mustCreatePrompt(t, db, NewPrompt{Name: "Invoices", Content: "x", TagIDs: []string{tag.ID}})
	p2 := mustUpdatePrompt(t, db, p.PromptID, PromptPatch{Content: ptr("y")})
	e1 := mustCreateExtraction(t, db, NewExtraction{DocumentID: doc.ID, PromptRevID: p.PromptRevID, Value: []byte(`{"a":1}`)})
	e2 := mustCreateExtraction(t, db, NewExtraction{DocumentID: doc.ID, PromptRevID: p2.PromptRevID, Value: []byte(`{"a":2}`)})

	if err := db.DeletePrompt(ctx, p.PromptID); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "prompt_revisions", "prompt_id = ?", p.PromptID); n != 0 {
		t.Errorf("%d revisions outlived the prompt", n)
	}
	if n := count(t, db, "prompt_revision_tags", ""); n != 0 {
		t.Errorf("%d tag links outlived the prompt", n)
	}
	for _, e := range []Extraction{e1, e2} {
		got, err := db.GetExtraction(ctx, e.ID)
		if err != nil || got.PromptRevID != "" || string(got.Value) != string(e.Value) {
			t.Errorf("extraction after prompt delete = %+v, %v", got, err)
		}
	}
	if err := db.DeleteTag(ctx, tag.ID); err != nil {
		t.Errorf("DeleteTag once the prompt is gone: %v", err)
	}
	wantCode(t, db.DeletePrompt(ctx, p.PromptID), ErrNotFound, fmt.Sprintf("prompt %s not found", p.PromptID))
}
