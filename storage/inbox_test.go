package storage

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestInboxRowsRememberFilesAcrossOpenings(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "docent.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	mod := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"hello"}})
	if err := db.NoteInboxWaiting(ctx,
		InboxObservation{Path: "/in/travel/a.txt", Rel: "travel/a.txt", Size: 5, ModTime: mod, Tags: []string{"travel"}},
		InboxObservation{Path: "/in/b.txt", Rel: "b.txt", Size: 7, ModTime: mod},
		InboxObservation{Path: "/inbox2/c.txt", Rel: "c.txt", Size: 1, ModTime: mod},
	); err != nil {
		t.Fatal(err)
	}
	if _, err := db.FinishInboxFile(ctx, InboxResult{Path: "/in/travel/a.txt", Size: 5, ModTime: mod, DocumentID: doc.ID}); err != nil {
		t.Fatal(err)
	}
	failed, err := db.FinishInboxFile(ctx, InboxResult{Path: "/in/b.txt", Size: 7, ModTime: mod, Error: "permission denied", ErrorCode: "permission"})
	if err != nil {
		t.Fatal(err)
	}
	if failed.Status != InboxFailed || failed.Stage != StageFailed || failed.Error != "permission denied" {
		t.Errorf("failed row = %+v", failed)
	}
	db.Close()

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	marks, err := db.InboxMarks(ctx, "/in")
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) != 2 {
		t.Fatalf("marks under /in = %v, want a.txt and b.txt only (not /inbox2)", marks)
	}
	a := marks["/in/travel/a.txt"]
	if a.Status != InboxStored || !a.Matches(5, mod) || a.Matches(5, mod.Add(time.Nanosecond)) || a.Matches(6, mod) {
		t.Errorf("mark of a.txt = %+v: want stored, matching size 5 and mtime %v to the nanosecond", a, mod)
	}
	files, err := db.ListInboxFiles(ctx, "/in", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Path != "/in/b.txt" || files[1].Path != "/in/travel/a.txt" {
		t.Fatalf("list = %+v, want b.txt (newest) then a.txt", files)
	}
	got := files[1]
	if got.DocumentID != doc.ID || got.SHA256 != doc.SHA256 || got.DocumentName != "a.txt" || got.Stage != StageStored ||
		!slices.Equal(got.Tags, []string{"travel"}) || !got.Modified.Equal(mod) {
		t.Errorf("a.txt = %+v, want document %s, its sha256, stage stored, tag travel", got, doc.ID)
	}
}

func TestInboxDuplicateOfAnotherFile(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	mod := time.Unix(1700000000, 0)
	if err := db.NoteInboxWaiting(ctx, InboxObservation{Path: "/in/a.txt", Rel: "a.txt", Size: 5, ModTime: mod}); err != nil {
		t.Fatal(err)
	}
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"hello"}})
	if _, err := db.FinishInboxFile(ctx, InboxResult{Path: "/in/a.txt", Size: 5, ModTime: mod, DocumentID: doc.ID}); err != nil {
		t.Fatal(err)
	}
	if err := db.NoteInboxWaiting(ctx, InboxObservation{Path: "/in/copy.txt", Rel: "copy.txt", Size: 5, ModTime: mod}); err != nil {
		t.Fatal(err)
	}
	dup, err := db.FinishInboxFile(ctx, InboxResult{Path: "/in/copy.txt", Size: 5, ModTime: mod, DocumentID: doc.ID, Duplicate: true})
	if err != nil {
		t.Fatal(err)
	}
	if dup.Status != InboxDuplicate || dup.DuplicateOf != doc.ID || dup.DocumentID != "" || dup.SHA256 != doc.SHA256 {
		t.Errorf("copy = %+v, want a duplicate of %s", dup, doc.ID)
	}

	// A document there before the file was seen (an upload) is another's.
	other := mustCreateDocument(t, db, NewDocument{Name: "up.txt", Pages: []string{"uploaded"}})
	if err := db.NoteInboxWaiting(ctx, InboxObservation{Path: "/in/up.txt", Rel: "up.txt", Size: 8, ModTime: mod}); err != nil {
		t.Fatal(err)
	}
	dup, err = db.FinishInboxFile(ctx, InboxResult{Path: "/in/up.txt", Size: 8, ModTime: mod, DocumentID: other.ID, Duplicate: true})
	if err != nil {
		t.Fatal(err)
	}
	if dup.Status != InboxDuplicate || dup.DuplicateOf != other.ID {
		t.Errorf("up.txt = %+v, want a duplicate of the upload %s", dup, other.ID)
	}
}

func TestInboxFileStoredBeforeAStopIsNotItsOwnDuplicate(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	mod := time.Unix(1700000000, 0)
	if err := db.NoteInboxWaiting(ctx, InboxObservation{Path: "/in/a.txt", Rel: "a.txt", Size: 5, ModTime: mod}); err != nil {
		t.Fatal(err)
	}
	// The process stored the document, then stopped before writing the
	// row; the next start imports the file again and the importer finds
	// its bytes there.
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"hello"}})
	got, err := db.FinishInboxFile(ctx, InboxResult{Path: "/in/a.txt", Size: 5, ModTime: mod, DocumentID: doc.ID, Duplicate: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != InboxStored || got.DocumentID != doc.ID || got.DuplicateOf != "" {
		t.Errorf("a.txt = %+v, want stored as %s, not a duplicate of itself", got, doc.ID)
	}
}

func TestInboxBadInputChangesNothing(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t)
	err := db.NoteInboxWaiting(ctx, InboxObservation{Path: "/in/a.txt", Size: 1}, InboxObservation{Path: "", Size: 1})
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("a row without path: err = %v, want invalid", err)
	}
	if marks, _ := db.InboxMarks(ctx, "/in"); len(marks) != 0 {
		t.Errorf("marks = %v after a refused batch, want none", marks)
	}
	if _, err := db.FinishInboxFile(ctx, InboxResult{Path: "/in/none.txt"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("finish an unknown file: err = %v, want not found", err)
	}
}
