package storage

import (
	"context"
	"testing"
)

// These tests pin down what the schema itself guarantees for the tables
// whose queries come later (schemas, prompts, extractions, threads, turn
// states, settings), with raw SQL: what a delete cascades to, clears or is
// refused by, and which values the constraints refuse.

func insertSchemaRevision(t testing.TB, db *DB, name string) (schemaID, revID string) {
	t.Helper()
	schemaID, revID = newID(prefixSchema), newID(prefixSchemaRevision)
	mustExec(t, db, `INSERT INTO schemas (id, name, created_at, updated_at) VALUES (?, ?, 'now', 'now')`, schemaID, name)
	mustExec(t, db, `INSERT INTO schema_revisions (id, schema_id, version, name, response_format, created_at)
		VALUES (?, ?, 1, ?, '{"type":"json_schema"}', 'now')`, revID, schemaID, name)
	return schemaID, revID
}

func TestDeletingSchemaCascadesRevisionsAndClearsPromptLinks(t *testing.T) {
	db := mustOpen(t)
	schemaID, revID := insertSchemaRevision(t, db, "Invoice")
	prv := insertPromptRevision(t, db, "Invoice prompt", revID)

	mustExec(t, db, `DELETE FROM schemas WHERE id = ?`, schemaID)
	if n := count(t, db, "schema_revisions", "schema_id = ?", schemaID); n != 0 {
		t.Errorf("%d revisions outlived their schema", n)
	}
	if n := count(t, db, "prompt_revisions", "id = ? AND schema_revid IS NULL", prv); n != 1 {
		t.Error("the prompt revision was not kept with its schema link cleared (ON DELETE SET NULL)")
	}
}

func TestSchemaRevisionsAreImmutable(t *testing.T) {
	db := mustOpen(t)
	_, revID := insertSchemaRevision(t, db, "Invoice")
	wantCode(t, execErr(db, `UPDATE schema_revisions SET name = 'changed' WHERE id = ?`, revID), ErrConflict, "")
	wantCode(t, execErr(db, `INSERT INTO schema_revisions (id, schema_id, version, name, response_format, created_at)
		SELECT 'srv_dup', schema_id, 1, 'x', '{}', 'now' FROM schema_revisions WHERE id = ?`, revID), ErrConflict, "")
	wantCode(t, execErr(db, `INSERT INTO schemas (id, name, created_at, updated_at) VALUES ('sch_2', 'INVOICE', 'now', 'now')`), ErrConflict, "")
	wantCode(t, execErr(db, `INSERT INTO schema_revisions (id, schema_id, version, name, response_format, created_at)
		SELECT 'srv_bad', schema_id, 2, 'x', 'not json', 'now' FROM schema_revisions WHERE id = ?`, revID), ErrInvalid, "")
}

func TestDeletingPromptCascadesRevisionsTagsAndClearsExtractionLinks(t *testing.T) {
	db := mustOpen(t)
	tag := mustCreateTag(t, db, "t")
	doc := mustCreateDocument(t, db, NewDocument{Name: "d"})
	prv := insertPromptRevision(t, db, "P", nil)
	mustExec(t, db, `INSERT INTO prompt_revision_tags (prompt_revid, tag_id) VALUES (?, ?)`, prv, tag.ID)
	ext := newID(prefixExtraction)
	mustExec(t, db, `INSERT INTO extractions (id, document_id, prompt_revid, created_at, updated_at) VALUES (?, ?, ?, 'now', 'now')`, ext, doc.ID, prv)

	// Revisions are immutable, but SET NULL from a deleted schema must still
	// be able to clear schema_revid (tested above); content cannot change.
	wantCode(t, execErr(db, `UPDATE prompt_revisions SET content = 'new' WHERE id = ?`, prv), ErrConflict, "")
	// A tag a prompt revision uses cannot be deleted behind the store's back.
	wantCode(t, execErr(db, `DELETE FROM tags WHERE id = ?`, tag.ID), ErrConflict, "")

	mustExec(t, db, `DELETE FROM prompts`)
	for _, table := range []string{"prompt_revisions", "prompt_revision_tags"} {
		if n := count(t, db, table, ""); n != 0 {
			t.Errorf("%s keeps %d rows of a deleted prompt", table, n)
		}
	}
	if n := count(t, db, "extractions", "id = ? AND prompt_revid IS NULL", ext); n != 1 {
		t.Error("the extraction was not kept with its prompt link cleared (ON DELETE SET NULL)")
	}
}

func TestExtractionConstraints(t *testing.T) {
	db := mustOpen(t)
	doc := mustCreateDocument(t, db, NewDocument{Name: "d"})
	insert := `INSERT INTO extractions (id, document_id, value, edited, validation_status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'now', 'now')`
	wantCode(t, execErr(db, insert, "ext_1", doc.ID, `{}`, 0, "maybe"), ErrInvalid, "")
	wantCode(t, execErr(db, insert, "ext_2", doc.ID, `{oops`, 0, "valid"), ErrInvalid, "")
	wantCode(t, execErr(db, insert, "ext_3", doc.ID, `{}`, 2, "valid"), ErrInvalid, "")
	wantCode(t, execErr(db, insert, "ext_4", "doc_missing", `{}`, 0, "valid"), ErrConflict, "")
	mustExec(t, db, insert, "ext_5", doc.ID, `{"total": 3}`, 1, "valid")
	if err := db.DeleteDocument(context.Background(), doc.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "extractions", ""); n != 0 {
		t.Error("extraction outlived its document")
	}
}

func TestDeletingThreadCascadesMessagesAndTurnStates(t *testing.T) {
	db := mustOpen(t)
	doc := mustCreateDocument(t, db, NewDocument{Name: "d"})
	insertAgentRows(t, db, doc.ID)
	// A paused stateless turn has no thread and stays with its document.
	mustExec(t, db, `INSERT INTO turn_states (id, thread_id, document_id, state, created_at, expires_at) VALUES ('turn_stateless', NULL, ?, '{}', 'now', 'later')`, doc.ID)

	wantCode(t, execErr(db, `INSERT INTO thread_messages (thread_id, seq, role, created_at) SELECT id, 5, 'robot', 'now' FROM threads`), ErrInvalid, "")
	wantCode(t, execErr(db, `INSERT INTO thread_messages (thread_id, seq, role, created_at) SELECT id, 0, 'user', 'now' FROM threads`), ErrConflict, "")
	wantCode(t, execErr(db, `UPDATE threads SET working_state = '[1]'`), ErrInvalid, "")

	mustExec(t, db, `DELETE FROM threads`)
	if n := count(t, db, "thread_messages", ""); n != 0 {
		t.Errorf("%d messages outlived their thread", n)
	}
	if n := count(t, db, "turn_states", ""); n != 1 || count(t, db, "turn_states", "id = 'turn_stateless'") != 1 {
		t.Errorf("turn states: %d left, want only the stateless one", n)
	}
	if err := db.DeleteDocument(context.Background(), doc.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "turn_states", ""); n != 0 {
		t.Error("a turn state outlived its document")
	}
}

func TestDocumentAutoCreateLinksAreClearedNotCascaded(t *testing.T) {
	db := mustOpen(t)
	doc := mustCreateDocument(t, db, NewDocument{Name: "d"})
	schemaID, _ := insertSchemaRevision(t, db, "S")
	prv := insertPromptRevision(t, db, "P", nil)
	thread, ext := newID(prefixThread), newID(prefixExtraction)
	mustExec(t, db, `INSERT INTO threads (id, document_id, created_at, updated_at) VALUES (?, ?, 'now', 'now')`, thread, doc.ID)
	mustExec(t, db, `INSERT INTO extractions (id, document_id, prompt_revid, created_at, updated_at) VALUES (?, ?, ?, 'now', 'now')`, ext, doc.ID, prv)
	mustExec(t, db, `UPDATE documents SET auto_create_status = 'proposed', auto_create_schema_id = ?,
		auto_create_prompt_id = (SELECT prompt_id FROM prompt_revisions WHERE id = ?), auto_create_extraction_id = ?, auto_create_thread_id = ?`,
		schemaID, prv, ext, thread)
	wantCode(t, execErr(db, `UPDATE documents SET auto_create_status = 'maybe'`), ErrInvalid, "")
	wantCode(t, execErr(db, `UPDATE documents SET auto_create_schema_id = 'sch_missing'`), ErrConflict, "")

	mustExec(t, db, `DELETE FROM schemas`)
	mustExec(t, db, `DELETE FROM prompts`)
	mustExec(t, db, `DELETE FROM extractions`)
	mustExec(t, db, `DELETE FROM threads`)
	if n := count(t, db, "documents", `id = ? AND auto_create_status = 'proposed' AND auto_create_schema_id IS NULL
		AND auto_create_prompt_id IS NULL AND auto_create_extraction_id IS NULL AND auto_create_thread_id IS NULL`, doc.ID); n != 1 {
		t.Error("the document was not kept with its auto-create links cleared")
	}
}

// A document's auto-create links usually point at its own thread and
// extraction, which its deletion cascades to: the delete must still work.
func TestDeletingDocumentWithLinksToItsOwnRows(t *testing.T) {
	db := mustOpen(t)
	doc := mustCreateDocument(t, db, NewDocument{Name: "d"})
	thread, ext := newID(prefixThread), newID(prefixExtraction)
	mustExec(t, db, `INSERT INTO threads (id, document_id, created_at, updated_at) VALUES (?, ?, 'now', 'now')`, thread, doc.ID)
	mustExec(t, db, `INSERT INTO extractions (id, document_id, created_at, updated_at) VALUES (?, ?, 'now', 'now')`, ext, doc.ID)
	mustExec(t, db, `UPDATE documents SET auto_create_status = 'running', auto_create_thread_id = ?, auto_create_extraction_id = ?`, thread, ext)
	if err := db.DeleteDocument(context.Background(), doc.ID); err != nil {
		t.Fatalf("DeleteDocument: %v", err)
	}
	for _, table := range []string{"documents", "threads", "extractions"} {
		if n := count(t, db, table, ""); n != 0 {
			t.Errorf("%s keeps %d rows", table, n)
		}
	}
}

func TestDocumentAndTagConstraints(t *testing.T) {
	db := mustOpen(t)
	doc := mustCreateDocument(t, db, NewDocument{Name: "d"})
	for _, q := range []string{
		`UPDATE documents SET status = 'done'`,
		`UPDATE documents SET metadata = '[]'`,
		`UPDATE documents SET size = 'big'`, // STRICT: no silent coercion
		`UPDATE documents SET name = ''`,
		`INSERT INTO tags (id, name, color, created_at, updated_at) VALUES ('tag_x', 'x', 'red', 'now', 'now')`,
		`INSERT INTO settings (key, value, updated_at) VALUES ('model', 'not json', 'now')`,
	} {
		wantCode(t, execErr(db, q), ErrInvalid, "")
	}
	tag := mustCreateTag(t, db, "t")
	mustExec(t, db, `INSERT INTO document_tags (document_id, tag_id) VALUES (?, ?)`, doc.ID, tag.ID)
	wantCode(t, execErr(db, `DELETE FROM tags`), ErrConflict, "")
	mustExec(t, db, `INSERT INTO settings (key, value, updated_at) VALUES ('model', '"ollama/qwen3:8b"', 'now')`)
}
