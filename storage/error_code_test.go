package storage

import (
	"context"
	"strings"
	"testing"
)

// A failed document's error code is stored with it, read back with it and
// replaced with what reading it again gave.
func TestDocumentErrorCodeIsStoredAndReplaced(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "locked.pdf", MediaType: "application/pdf", Status: StatusFailed,
		Error: "encrypted: password required (import it again with --password)", ErrorCode: ErrorCodePasswordRequired})
	if doc.ErrorCode != ErrorCodePasswordRequired {
		t.Fatalf("created: error_code %q, want %q", doc.ErrorCode, ErrorCodePasswordRequired)
	}
	if got, err := db.GetDocument(ctx, doc.ID); err != nil || got.ErrorCode != ErrorCodePasswordRequired {
		t.Fatalf("read back: error_code %q (%v), want %q", got.ErrorCode, err, ErrorCodePasswordRequired)
	}
	read, err := db.ReplaceDocumentContent(ctx, doc.ID, DocumentContent{Status: StatusReady, Pages: []string{"the text"}})
	if err != nil || read.ErrorCode != "" || read.Status != StatusReady {
		t.Fatalf("read again with its password: %+v (%v), want ready without an error code", read, err)
	}
	plain := mustCreateDocument(t, db, NewDocument{Name: "broken.pdf", MediaType: "application/pdf", Status: StatusFailed, Error: "malformed PDF: xref table not found"})
	if plain.ErrorCode != "" {
		t.Errorf("a failure without a known cause has error_code %q", plain.ErrorCode)
	}
}

// Migration 0013 gives the documents an older version failed for want of
// a password their code, and no other document one.
func TestMigrationClassifiesPasswordFailuresStoredBefore(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	rows := map[string]struct{ status, error, want string }{
		"required.pdf": {StatusFailed, "encrypted: password required (import it again with --password)", ErrorCodePasswordRequired},
		"wrong.pdf":    {StatusFailed, "encrypted: wrong password", ErrorCodePasswordRequired},
		"broken.pdf":   {StatusFailed, "malformed PDF: xref table not found", ""},
		"scan.pdf":     {StatusNeedsOCR, "no text layer: the pages are images (a scan?); text recognition (OCR) is needed to read them", ""},
		"notes.txt":    {StatusReady, "", ""},
	}
	ids := map[string]string{}
	for name := range rows {
		ids[name] = mustCreateDocument(t, db, NewDocument{Name: name, Pages: []string{"x"}}).ID
	}
	// The database as 0012 left it: no error_code column, rows as an older
	// version wrote them.
	mustExec(t, db, `ALTER TABLE documents DROP COLUMN error_code`)
	// Later migrations are forgotten too, so that 0013 is the next one
	// (their tables stay: only 0013 runs again).
	mustExec(t, db, `DELETE FROM migrations WHERE version >= 13`)
	for name, r := range rows {
		mustExec(t, db, `UPDATE documents SET status = ?, error = ? WHERE id = ?`, r.status, r.error, ids[name])
	}
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ms[12].name, "0013_") {
		t.Fatalf("migration 13 is %s", ms[12].name)
	}
	// Up to 0013 only: the later ones are applied already.
	if err := db.applyMigrations(ctx, ms[:13]); err != nil {
		t.Fatalf("migrating: %v", err)
	}
	for name, r := range rows {
		got, err := db.GetDocument(ctx, ids[name])
		if err != nil {
			t.Fatal(err)
		}
		if got.ErrorCode != r.want {
			t.Errorf("%s (%s: %q): error_code %q, want %q", name, r.status, r.error, got.ErrorCode, r.want)
		}
	}
}
