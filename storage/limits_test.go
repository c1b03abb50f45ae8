package storage

import (
	"context"
	"strings"
	"testing"

	"github.com/docent/docent/storage/fault"
)

func TestSchemaAndPromptNamesHaveALengthLimit(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	long := strings.Repeat("n", MaxNameLength+1)
	if _, err := db.CreateSchema(ctx, long, invoiceFormat("total")); fault.ErrorCode(err) != "invalid" || !strings.Contains(fault.ErrorMessage(err), "at most 100") {
		t.Errorf("a %d-character schema name: %v", len(long), err)
	}
	if _, err := db.CreatePrompt(ctx, NewPrompt{Name: long, Content: "x"}); fault.ErrorCode(err) != "invalid" || !strings.Contains(fault.ErrorMessage(err), "at most 100") {
		t.Errorf("a %d-character prompt name: %v", len(long), err)
	}
}

// A message an older version stored whole (an OCR engine's 100 MB of
// stderr) is cut by migration 0012 to the start, a note and the end.
func TestMigrationCapsMessagesStoredBefore(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "scan.txt", Pages: []string{"x"}})
	short := mustCreateDocument(t, db, NewDocument{Name: "short.txt", Pages: []string{"y"}})
	huge := "tesseract: " + strings.Repeat("warning ", 200_000) + "the end"
	// Written as an older version did, past the writers' cap.
	mustExec(t, db, `UPDATE documents SET error = ?, auto_create_error = ? WHERE id = ?`, huge, huge, doc.ID)
	mustExec(t, db, `UPDATE documents SET error = 'engine crashed' WHERE id = ?`, short.ID)

	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	ran := false
	for _, m := range ms {
		if strings.HasSuffix(m.name, "_cap_messages.sql") {
			mustExec(t, db, m.sql)
			ran = true
		}
	}
	if !ran {
		t.Fatal("no _cap_messages.sql migration")
	}
	for _, col := range []string{"error", "auto_create_error"} {
		var got string
		if err := db.sql.QueryRowContext(ctx, `SELECT `+col+` FROM documents WHERE id = ?`, doc.ID).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if len(got) > MaxMessageBytes+64 || !strings.HasPrefix(got, "tesseract: warning") || !strings.HasSuffix(got, "the end") || !strings.Contains(got, "characters left out") {
			t.Errorf("%s after the migration: %d bytes, starts %q, ends %q", col, len(got), got[:min(40, len(got))], got[max(0, len(got)-40):])
		}
	}
	var kept string
	if err := db.sql.QueryRowContext(ctx, `SELECT error FROM documents WHERE id = ?`, short.ID).Scan(&kept); err != nil || kept != "engine crashed" {
		t.Errorf("a short message after the migration: %q %v, want it as it was", kept, err)
	}
}
