package storage

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/docent/docent/storage/fault"
)

func TestCreateTag(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	tag, err := db.CreateTag(ctx, NewTag{Name: " Invoices ", Color: "#aa00FF", Description: "bills"})
	if err != nil {
		t.Fatalf("CreateTag: %v", err)
	}
	if !strings.HasPrefix(tag.ID, "tag_") || tag.Name != "Invoices" || tag.Color != "#aa00FF" || tag.Description != "bills" || tag.CreatedAt.IsZero() {
		t.Errorf("tag = %+v", tag)
	}
	if got, err := db.GetTag(ctx, tag.ID); err != nil || !reflect.DeepEqual(got, tag) {
		t.Errorf("GetTag = %+v, %v", got, err)
	}

	_, err = db.CreateTag(ctx, NewTag{Name: "invoices"})
	wantCode(t, err, ErrConflict, `tag "Invoices" exists`)
	_, err = db.CreateTag(ctx, NewTag{Name: " "})
	wantCode(t, err, ErrInvalid, "tag name is empty")
	for _, c := range []string{"red", "#12345", "#1234567", "#GGGGGG", "123456"} {
		_, err = db.CreateTag(ctx, NewTag{Name: "c" + c, Color: c})
		wantCode(t, err, ErrInvalid, fmt.Sprintf("tag color %q is not of the form #RRGGBB", c))
	}
	_, err = db.GetTag(ctx, "tag_nope")
	wantCode(t, err, ErrNotFound, "tag tag_nope not found")
}

func TestFindTagByIDOrNameInAnyCase(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	tag := mustCreateTag(t, db, "Receipts")
	for _, ref := range []string{tag.ID, "Receipts", "receipts", "RECEIPTS"} {
		if got, err := db.FindTag(ctx, ref); err != nil || got.ID != tag.ID {
			t.Errorf("FindTag(%q) = %+v, %v", ref, got, err)
		}
	}
	_, err := db.FindTag(ctx, "missing")
	wantCode(t, err, ErrNotFound, `tag "missing" not found`)
}

func TestEnsureTagReturnsExistingOrCreates(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	first, err := db.EnsureTag(ctx, "travel")
	if err != nil {
		t.Fatal(err)
	}
	again, err := db.EnsureTag(ctx, "Travel")
	if err != nil || again.ID != first.ID {
		t.Errorf("EnsureTag again = %+v, %v; want %s", again, err, first.ID)
	}
	if n := count(t, db, "tags", ""); n != 1 {
		t.Errorf("%d tags, want 1", n)
	}
	_, err = db.EnsureTag(ctx, "")
	wantCode(t, err, ErrInvalid, "tag name is empty")
}

func TestListTagsByName(t *testing.T) {
	db := mustOpen(t)
	tags, err := db.ListTags(context.Background())
	if err != nil || tags == nil || len(tags) != 0 {
		t.Fatalf("ListTags on an empty store = %#v, %v; want []", tags, err)
	}
	for _, n := range []string{"beta", "Alpha", "gamma"} {
		mustCreateTag(t, db, n)
	}
	tags, err = db.ListTags(context.Background())
	var got []string
	for _, tag := range tags {
		got = append(got, tag.Name)
	}
	if err != nil || !reflect.DeepEqual(got, []string{"Alpha", "beta", "gamma"}) {
		t.Errorf("ListTags = %v, %v", got, err)
	}
}

func TestUpdateTag(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	tag := mustCreateTag(t, db, "work")
	mustCreateTag(t, db, "home")

	name, color, desc := "Work", "#123abc", "office papers"
	got, err := db.UpdateTag(ctx, tag.ID, TagPatch{Name: &name, Color: &color, Description: &desc})
	if err != nil {
		t.Fatalf("UpdateTag: %v", err)
	}
	if got.Name != "Work" || got.Color != "#123abc" || got.Description != "office papers" || !got.UpdatedAt.After(tag.UpdatedAt) || !got.CreatedAt.Equal(tag.CreatedAt) {
		t.Errorf("updated = %+v", got)
	}
	clash := "HOME"
	_, err = db.UpdateTag(ctx, tag.ID, TagPatch{Name: &clash})
	wantCode(t, err, ErrConflict, `tag "home" exists`)
	bad := "blue"
	_, err = db.UpdateTag(ctx, tag.ID, TagPatch{Color: &bad})
	wantCode(t, err, ErrInvalid, `tag color "blue" is not of the form #RRGGBB`)
	none := ""
	if got, err := db.UpdateTag(ctx, tag.ID, TagPatch{Color: &none}); err != nil || got.Color != "" {
		t.Errorf("clearing the color: %+v, %v", got, err)
	}
	_, err = db.UpdateTag(ctx, "tag_nope", TagPatch{Name: &name})
	wantCode(t, err, ErrNotFound, "tag tag_nope not found")
}

func TestDeleteTagRefusedWhileInUse(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	tag := mustCreateTag(t, db, "busy")
	doc := mustCreateDocument(t, db, NewDocument{Name: "uses it", TagIDs: []string{tag.ID}})

	err := db.DeleteTag(ctx, tag.ID)
	wantCode(t, err, ErrConflict, fmt.Sprintf(`tag "busy" is in use by document %s ("uses it"): remove the tag there first`, doc.ID))

	// Remove it from the document; a prompt revision using it still blocks.
	none := []string{}
	if _, err := db.UpdateDocument(ctx, doc.ID, DocumentPatch{TagIDs: &none}); err != nil {
		t.Fatal(err)
	}
	prv := insertPromptRevision(t, db, "Invoice prompt", nil)
	mustExec(t, db, `INSERT INTO prompt_revision_tags (prompt_revid, tag_id) VALUES (?, ?)`, prv, tag.ID)
	err = db.DeleteTag(ctx, tag.ID)
	wantCode(t, err, ErrConflict, fmt.Sprintf(`tag "busy" is in use by prompt revision %s ("Invoice prompt" v1): remove the tag there first`, prv))

	mustExec(t, db, `DELETE FROM prompt_revision_tags`)
	if err := db.DeleteTag(ctx, tag.ID); err != nil {
		t.Fatalf("DeleteTag of an unused tag: %v", err)
	}
	_, err = db.GetTag(ctx, tag.ID)
	wantCode(t, err, ErrNotFound, "")
	wantCode(t, db.DeleteTag(ctx, tag.ID), ErrNotFound, fmt.Sprintf("tag %s not found", tag.ID))
}

func TestDeleteTagNamesAtMostFiveUsers(t *testing.T) {
	db := mustOpen(t)
	tag := mustCreateTag(t, db, "popular")
	for i := range 7 {
		mustCreateDocument(t, db, NewDocument{Name: fmt.Sprintf("doc %d", i), TagIDs: []string{tag.ID}})
	}
	err := db.DeleteTag(context.Background(), tag.ID)
	wantCode(t, err, ErrConflict, "")
	msg := fault.ErrorMessage(err)
	if n := strings.Count(msg, "document doc_"); n != 5 || !strings.Contains(msg, " and 2 more:") {
		t.Errorf("message names %d documents: %s", n, msg)
	}
}

// insertPromptRevision makes a prompt with one revision (raw SQL until the
// store has prompt queries) and returns the revision id.
func insertPromptRevision(t testing.TB, db *DB, name string, schemaRevID any) string {
	t.Helper()
	prm, prv := newID(prefixPrompt), newID(prefixPromptRevision)
	mustExec(t, db, `INSERT INTO prompts (id, name, created_at, updated_at) VALUES (?, ?, 'now', 'now')`, prm, name)
	mustExec(t, db, `INSERT INTO prompt_revisions (id, prompt_id, version, name, content, schema_revid, created_at)
		VALUES (?, ?, 1, ?, 'Extract the fields.', ?, 'now')`, prv, prm, name, schemaRevID)
	return prv
}

// TestTagNameAndDescriptionHaveLengthLimits: a name fits a chip in the UI,
// counted in characters, not bytes.
func TestTagNameAndDescriptionHaveLengthLimits(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	huge := strings.Repeat("x", 500_000)
	_, err := db.CreateTag(ctx, NewTag{Name: huge})
	wantCode(t, err, ErrInvalid, "tag name is 500000 characters long: at most 100 are allowed")
	_, err = db.EnsureTag(ctx, huge)
	wantCode(t, err, ErrInvalid, "tag name is 500000 characters long: at most 100 are allowed")
	_, err = db.CreateTag(ctx, NewTag{Name: "long", Description: strings.Repeat("d", 1001)})
	wantCode(t, err, ErrInvalid, "tag description is 1001 characters long: at most 1000 are allowed")

	tag, err := db.CreateTag(ctx, NewTag{Name: strings.Repeat("ü", MaxNameLength), Description: strings.Repeat("é", MaxDescriptionLength)})
	if err != nil {
		t.Fatalf("a name of %d characters (%d bytes): %v", MaxNameLength, 2*MaxNameLength, err)
	}
	long := strings.Repeat("y", 101)
	_, err = db.UpdateTag(ctx, tag.ID, TagPatch{Name: &long})
	wantCode(t, err, ErrInvalid, "tag name is 101 characters long: at most 100 are allowed")
	_, err = db.UpdateTag(ctx, tag.ID, TagPatch{Description: &huge})
	wantCode(t, err, ErrInvalid, "tag description is 500000 characters long: at most 1000 are allowed")
}
