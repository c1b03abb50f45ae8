package storage

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// dumpDocument renders every stored row that belongs to a document, read
// with queries of its own (not the journal's), so that two dumps are equal
// only when the document is back byte for byte.
func dumpDocument(t testing.TB, db *DB, id string) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT * FROM documents WHERE id = ?`,
		`SELECT * FROM document_files WHERE document_id = ?`,
		`SELECT * FROM document_file_parts WHERE document_id = ? ORDER BY part`,
		`SELECT * FROM pages WHERE document_id = ? ORDER BY page`,
		`SELECT * FROM chunks WHERE document_id = ? ORDER BY id`,
		`SELECT * FROM page_words WHERE document_id = ? ORDER BY page`,
		`SELECT * FROM document_tags WHERE document_id = ? ORDER BY tag_id`,
		`SELECT * FROM extractions WHERE document_id = ? ORDER BY id`,
		`SELECT * FROM threads WHERE document_id = ? ORDER BY id`,
		`SELECT m.* FROM thread_messages m JOIN threads t ON t.id = m.thread_id WHERE t.document_id = ? ORDER BY m.id`,
	} {
		rows, err := db.sql.QueryContext(context.Background(), q, id)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		cols, _ := rows.Columns()
		fmt.Fprintf(&b, "%s\n", q)
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				fmt.Fprintf(&b, "  %s=%T:%v", cols[i], v, v)
			}
			b.WriteString("\n")
		}
		rows.Close()
	}
	return b.String()
}

// checkIntegrity runs SQLite's and FTS5's own checks of the file.
func checkIntegrity(t testing.TB, db *DB) {
	t.Helper()
	var got string
	if err := db.sql.QueryRowContext(context.Background(), `PRAGMA integrity_check`).Scan(&got); err != nil || got != "ok" {
		t.Fatalf("integrity_check = %q, %v", got, err)
	}
	var fk int
	if err := db.sql.QueryRowContext(context.Background(), `SELECT count(*) FROM pragma_foreign_key_check`).Scan(&fk); err != nil || fk != 0 {
		t.Fatalf("foreign_key_check: %d broken keys, %v", fk, err)
	}
	checkIndex(t, db)
}

// richDocument stores a document with everything a document can have: a
// file of several parts, pages and words, tags, an extraction and a thread.
func richDocument(t testing.TB, db *DB, name string) Document {
	t.Helper()
	ctx := context.Background()
	data := make([]byte, 2*filePartSize+12345)
	rand.Read(data)
	tag := mustCreateTag(t, db, name+" tag")
	doc := mustCreateDocument(t, db, NewDocument{Name: name, Data: data, MediaType: "application/pdf",
		Pages:  []string{"Invoice 4711 from Acme", "Total 99.50 EUR"},
		Words:  []*PageWords{{Width: 612, Height: 792, Words: []Word{{X: 1, Y: 2, W: 3, H: 4, Conf: 0.9, Text: "Invoice"}}}, nil},
		TagIDs: []string{tag.ID}, Metadata: json.RawMessage(`{"source":"mail"}`)})
	if _, err := db.CreateExtraction(ctx, NewExtraction{DocumentID: doc.ID, Value: json.RawMessage(`{"total":99.5}`),
		Evidence: json.RawMessage(`{"total":{"status":"found","page":2}}`)}); err != nil {
		t.Fatal(err)
	}
	th, err := db.CreateThread(ctx, doc.ID, "questions", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendMessages(ctx, th.ID, []ThreadMessage{{Role: "user", Content: "what is the total?"}}, nil); err != nil {
		t.Fatal(err)
	}
	return doc
}

func journalFor(t testing.TB, db *DB, f JournalFilter) []JournalEntry {
	t.Helper()
	es, err := db.ListJournal(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// A deleted document comes back exactly, with the same id: row, bytes in
// all their parts, pages, index, words, tags, extractions and threads; the
// undo is an entry, and undoing it deletes the document again.
func TestUndoDeleteDocumentRestoresItExactly(t *testing.T) {
	db := mustOpen(t)
	ctx := WithActor(context.Background(), Actor{Edge: EdgeUI, Name: ActorPerson})
	doc := richDocument(t, db, "acme.pdf")
	before := dumpDocument(t, db, doc.ID)
	if err := db.DeleteDocument(ctx, doc.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "pages", "document_id = ?", doc.ID); n != 0 {
		t.Fatalf("%d pages left after delete", n)
	}
	es := journalFor(t, db, JournalFilter{DocumentID: doc.ID})
	del := es[0]
	if del.Op != "delete document" || del.Edge != "ui" || del.Actor != "person" ||
		del.Summary != `deleted document "acme.pdf" (2 pages, 1 extraction)` {
		t.Fatalf("newest entry = %+v", del)
	}
	if del.Size < 2*filePartSize {
		t.Fatalf("entry keeps %d bytes, less than the file", del.Size)
	}

	res, err := db.Undo(ctx, del.ID, false)
	if err != nil {
		t.Fatalf("Undo: %v", err)
	}
	if len(res.Undone) != 1 || res.Undone[0].UndoneBy != res.Entries[0].ID || res.Entries[0].Undoes != del.ID {
		t.Fatalf("undo result = %+v", res)
	}
	if after := dumpDocument(t, db, doc.ID); after != before {
		t.Fatalf("document after undo differs:\n%s\nwant:\n%s", after, before)
	}
	checkIntegrity(t, db)
	if hits, err := db.Search(ctx, "acme", 10); err != nil || len(hits) == 0 {
		t.Fatalf("search after undo: %v hits, %v", hits, err)
	}

	// Undo of the undo deletes it again; undo of that brings it back.
	if _, err := db.Undo(ctx, res.Entries[0].ID, false); err != nil {
		t.Fatalf("redo: %v", err)
	}
	if _, err := db.GetDocument(ctx, doc.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after redo of the delete, document: %v", err)
	}
	es = journalFor(t, db, JournalFilter{DocumentID: doc.ID})
	if !strings.HasPrefix(es[0].Summary, "redid: deleted document") {
		t.Fatalf("redo entry summary %q", es[0].Summary)
	}
	if _, err := db.Undo(ctx, es[0].ID, false); err != nil {
		t.Fatalf("undo of redo: %v", err)
	}
	if after := dumpDocument(t, db, doc.ID); after != before {
		t.Fatalf("document after second undo differs")
	}
	checkIntegrity(t, db)
}

// Unknown, undone and re-imported: each a clear refusal that changes
// nothing.
func TestUndoRefusals(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	_, err := db.Undo(ctx, 999, false)
	wantCode(t, err, ErrNotFound, "history entry 999 not found")

	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"alpha"}})
	if err := db.DeleteDocument(ctx, doc.ID); err != nil {
		t.Fatal(err)
	}
	del := journalFor(t, db, JournalFilter{})[0]
	again := mustCreateDocument(t, db, NewDocument{Name: "a copy.txt", Pages: []string{"alpha"}, Data: []byte("a.txt\x00alpha")})
	_, err = db.Undo(ctx, del.ID, false)
	wantCode(t, err, ErrConflict, fmt.Sprintf(`document "a.txt" cannot come back: the same file was imported again since as "a copy.txt" (%s); delete that copy first`, again.ID))
	if err := db.DeleteDocument(ctx, again.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Undo(ctx, del.ID, false); err != nil {
		t.Fatalf("undo once the copy is gone: %v", err)
	}
	_, err = db.Undo(ctx, del.ID, false)
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "was undone already, by entry") {
		t.Fatalf("second undo: %v", err)
	}
	checkIntegrity(t, db)
}

// Undoing a schema update adds a version equal to the one before; it is
// refused while an extraction made with the schema since stands, and with
// cascade both go, newest first, in one call.
func TestUndoSchemaUpdateAddsVersionAndRespectsLaterExtractions(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	s, err := db.CreateSchema(ctx, "Invoice", json.RawMessage(`{"type":"object","properties":{"total":{"type":"number"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := db.CreatePrompt(ctx, NewPrompt{Name: "invoices", Content: "extract", SchemaID: s.SchemaID})
	if err != nil {
		t.Fatal(err)
	}
	doc := mustCreateDocument(t, db, NewDocument{Name: "inv.txt", Pages: []string{"total 3"}})
	if _, _, err := db.UpdateSchema(ctx, s.SchemaID, nil, json.RawMessage(`{"type":"object","properties":{"total":{"type":"string"}}}`)); err != nil {
		t.Fatal(err)
	}
	upd := journalFor(t, db, JournalFilter{})[0]
	if upd.Summary != `updated schema "Invoice" to version 2` {
		t.Fatalf("summary %q", upd.Summary)
	}
	if _, _, err := db.UpdatePrompt(ctx, p.PromptID, PromptPatch{SchemaID: &s.SchemaID}); err != nil {
		t.Fatal(err)
	}
	prev, _ := db.GetPrompt(ctx, p.PromptID)
	if _, err := db.CreateExtraction(ctx, NewExtraction{DocumentID: doc.ID, PromptRevID: prev.PromptRevID, Value: json.RawMessage(`{"total":"3"}`)}); err != nil {
		t.Fatal(err)
	}
	ext := journalFor(t, db, JournalFilter{})[0]

	_, err = db.Undo(ctx, upd.ID, false)
	var refused *UndoRefusedError
	if !errors.As(err, &refused) || !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), ext.Summary) {
		t.Fatalf("undo with a later extraction: %v", err)
	}
	if got, _ := db.GetSchema(ctx, s.SchemaID); got.Version != 2 {
		t.Fatalf("refused undo changed the schema: version %d", got.Version)
	}

	res, err := db.Undo(ctx, upd.ID, true)
	if err != nil {
		t.Fatalf("cascade: %v", err)
	}
	if len(res.Undone) < 2 || res.Undone[len(res.Undone)-1].ID != upd.ID {
		t.Fatalf("cascade undid %+v", res.Undone)
	}
	got, err := db.GetSchema(ctx, s.SchemaID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 3 || string(got.ResponseFormat) != string(s.ResponseFormat) {
		t.Fatalf("after undo: version %d %s, want version 3 equal to version 1", got.Version, got.ResponseFormat)
	}
	if exts, _ := db.ListExtractions(ctx, doc.ID); len(exts) != 0 {
		t.Fatalf("the dependent extraction stayed: %d", len(exts))
	}
	checkIntegrity(t, db)
}

// A field edit comes back with its value and evidence status; an older edit
// of the same extraction waits for the newer one.
func TestUndoFieldEdit(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "r.txt", Pages: []string{"total 12"}})
	e, err := db.CreateExtraction(ctx, NewExtraction{DocumentID: doc.ID, Value: json.RawMessage(`{"total":12,"vendor":"Acme"}`),
		Evidence: json.RawMessage(`{"total":{"status":"found","page":1}}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.PatchExtractionField(ctx, e.ID, "total", json.RawMessage(`13`)); err != nil {
		t.Fatal(err)
	}
	first := journalFor(t, db, JournalFilter{})[0]
	if first.Summary != `set total of document "r.txt" to 13 (was 12)` {
		t.Fatalf("summary %q", first.Summary)
	}
	if _, err := db.PatchExtractionField(ctx, e.ID, "vendor", json.RawMessage(`"ACME"`)); err != nil {
		t.Fatal(err)
	}
	second := journalFor(t, db, JournalFilter{})[0]
	if _, err := db.Undo(ctx, first.ID, false); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), second.Summary) {
		t.Fatalf("undo of the older edit: %v", err)
	}
	if _, err := db.Undo(ctx, second.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Undo(ctx, first.ID, false); err != nil {
		t.Fatalf("older edit once the newer is undone: %v", err)
	}
	got, err := db.GetExtraction(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Value) != string(e.Value) || got.Edited || string(got.Evidence) != string(e.Evidence) {
		t.Fatalf("after undo: value %s edited %v evidence %s; want %s false %s", got.Value, got.Edited, got.Evidence, e.Value, e.Evidence)
	}
}

// Two undos of one entry at once: one undoes it, the other is told it was
// undone already.
func TestConcurrentUndosRunOnce(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	tag := mustCreateTag(t, db, "urgent")
	if err := db.DeleteTag(ctx, tag.ID); err != nil {
		t.Fatal(err)
	}
	del := journalFor(t, db, JournalFilter{})[0]
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { _, errs[i] = db.Undo(ctx, del.ID, false) })
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ErrConflict) && strings.Contains(err.Error(), "undone already"):
		default:
			t.Errorf("undo: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d undos succeeded, want 1 (errors %v)", ok, errs)
	}
	if undos := count(t, db, "journal", "undoes = ?", del.ID); undos != 1 {
		t.Fatalf("%d undo entries", undos)
	}
	if _, err := db.GetTag(ctx, tag.ID); err != nil {
		t.Fatal(err)
	}
}

// A turn's changes are undone together, newest first, and the entries say
// who made them.
func TestUndoTurn(t *testing.T) {
	db := mustOpen(t)
	base := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "t.txt", Pages: []string{"x"}})
	ctx := WithActor(base, Actor{Edge: EdgeAgent, Name: "thr_1", TurnID: "turn_1"})
	tag, err := db.CreateTag(ctx, NewTag{Name: "paid"})
	if err != nil {
		t.Fatal(err)
	}
	name := "t renamed.txt"
	if _, err := db.UpdateDocument(ctx, doc.ID, DocumentPatch{Name: &name, TagIDs: &[]string{tag.ID}}); err != nil {
		t.Fatal(err)
	}
	es := journalFor(t, db, JournalFilter{TurnID: "turn_1"})
	if len(es) != 2 || es[0].Summary != `renamed document "t.txt" to "t renamed.txt"; set the tags of "t.txt" to "paid"` || es[0].Edge != "agent" {
		t.Fatalf("turn entries = %+v", es)
	}
	// The tag's creation alone cannot go: the document carries it now.
	if _, err := db.Undo(base, es[1].ID, false); !errors.Is(err, ErrConflict) {
		t.Fatalf("undo of the tag alone: %v", err)
	}
	res, err := db.UndoTurn(base, "turn_1", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Undone) != 2 || res.Undone[0].ID != es[0].ID {
		t.Fatalf("undone %+v", res.Undone)
	}
	got, _ := db.GetDocument(base, doc.ID)
	if got.Name != "t.txt" || len(got.TagIDs) != 0 {
		t.Fatalf("document after undo: %+v", got)
	}
	if _, err := db.GetTag(base, tag.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("tag after undo: %v", err)
	}
	_, err = db.UndoTurn(base, "turn_1", false)
	wantCode(t, err, ErrConflict, "every change of turn turn_1 is undone already")
	_, err = db.UndoTurn(base, "turn_x", false)
	wantCode(t, err, ErrNotFound, "turn turn_x changed nothing in the history")
	checkIntegrity(t, db)
}

// Retention drops the kept state of old entries (they stay listed, no
// longer undoable); emptying the history drops everything.
func TestJournalRetention(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "old.txt", Pages: []string{"x"}})
	if err := db.DeleteDocument(ctx, doc.ID); err != nil {
		t.Fatal(err)
	}
	del := journalFor(t, db, JournalFilter{})[0]
	st, err := db.JournalStats(ctx)
	if err != nil || st.Entries != 2 || st.Bytes == 0 {
		t.Fatalf("stats %+v, %v", st, err)
	}
	if err := db.SetSetting(ctx, SettingJournalRetentionDays, 1); err != nil {
		t.Fatal(err)
	}
	now := db.now()
	db.Now = func() time.Time { return now.Add(49 * time.Hour) }
	if n, err := db.PruneJournal(ctx); err != nil || n != 2 {
		t.Fatalf("pruned %d, %v", n, err)
	}
	if n := count(t, db, "journal_rows", ""); n != 0 {
		t.Fatalf("%d kept rows after pruning", n)
	}
	_, err = db.Undo(ctx, del.ID, false)
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "can no longer be undone") {
		t.Fatalf("undo of a pruned entry: %v", err)
	}
	if err := db.EmptyJournal(ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := db.JournalStats(ctx); st.Entries != 0 || st.Bytes != 0 {
		t.Fatalf("after emptying: %+v", st)
	}
	checkIntegrity(t, db)
}

// Opening the store drops the kept state of entries older than the
// retention.
func TestOpenPrunesTheHistory(t *testing.T) {
	path := t.TempDir() + "/docent.db"
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustCreateDocument(t, db, NewDocument{Name: "gone.txt", Pages: []string{"x"}})
	if err := db.DeleteDocument(ctx, doc.ID); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `UPDATE journal SET at = '2000-01-01T00:00:00.000Z'`)
	db.Close()
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := count(t, db, "journal", "pruned = 1"); n != 2 {
		t.Fatalf("%d entries pruned on opening, want 2", n)
	}
	if n := count(t, db, "journal_rows", ""); n != 0 {
		t.Fatalf("%d kept rows left", n)
	}
}

// Keeping a deleted document's file for undo copies its bytes inside
// SQLite: the delete allocates a small part of the file's size, however
// large the file.
func TestDeleteKeepsTheFileWithoutHoldingIt(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	const size = 16 << 20
	data := make([]byte, size)
	rand.Read(data)
	doc := mustCreateDocument(t, db, NewDocument{Name: "big.bin", Data: data, MediaType: "application/octet-stream", Pages: []string{"x"}})
	data = nil
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := db.DeleteDocument(ctx, doc.ID); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > size/8 {
		t.Fatalf("deleting a %d MiB document allocated %.1f MiB", size>>20, float64(got)/(1<<20))
	}
	del := journalFor(t, db, JournalFilter{})[0]
	if del.Size < size {
		t.Fatalf("the entry keeps %d bytes, less than the file", del.Size)
	}
	if _, err := db.Undo(ctx, del.ID, false); err != nil {
		t.Fatal(err)
	}
	back, err := db.DocumentFile(ctx, doc.ID)
	if err != nil || len(back) != size {
		t.Fatalf("file after undo: %d bytes, %v", len(back), err)
	}
}

// Each edge's actor is recorded as given; a write with none is the
// system's. The filters select by edge and by actor.
func TestJournalRecordsTheActor(t *testing.T) {
	db := mustOpen(t)
	mcp := WithActor(context.Background(), Actor{Edge: EdgeMCP, Name: "Claude Desktop"})
	if _, err := db.CreateTag(mcp, NewTag{Name: "from mcp"}); err != nil {
		t.Fatal(err)
	}
	mustCreateTag(t, db, "from nowhere")
	es := journalFor(t, db, JournalFilter{})
	if len(es) != 2 || es[0].Edge != "system" || es[0].Actor != "" || es[1].Edge != "mcp" || es[1].Actor != "Claude Desktop" {
		t.Fatalf("entries %+v", es)
	}
	if got := journalFor(t, db, JournalFilter{Edge: "mcp"}); len(got) != 1 || got[0].Summary != `created tag "from mcp"` {
		t.Fatalf("edge filter: %+v", got)
	}
	if got := journalFor(t, db, JournalFilter{Actor: "Claude Desktop"}); len(got) != 1 {
		t.Fatalf("actor filter: %+v", got)
	}
	_, err := db.ListJournal(context.Background(), JournalFilter{Edge: "fax"})
	wantCode(t, err, ErrInvalid, `unknown edge "fax" (want agent, auto_create, ui, cli, mcp or system)`)
}

// A document read again (a PDF that failed for want of a password, say)
// is undone back to what the failed read left: status, error, pages and
// their index, words.
func TestUndoReadAgain(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "locked.pdf", Status: StatusFailed, Error: "encrypted: password required",
		ErrorCode: ErrorCodePasswordRequired})
	before := dumpDocument(t, db, doc.ID)
	if _, err := db.ReplaceDocumentContent(ctx, doc.ID, DocumentContent{Pages: []string{"Secret invoice 99", "Total 5"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetPageWords(ctx, doc.ID, map[int]PageWords{1: {Width: 10, Height: 10, Words: []Word{{W: 1, H: 1, Text: "Secret"}}}}); err != nil {
		t.Fatal(err)
	}
	read := journalFor(t, db, JournalFilter{})[0]
	if read.Summary != `read document "locked.pdf" again (failed, 0 pages → ready, 2 pages)` {
		t.Fatalf("summary %q", read.Summary)
	}
	if _, err := db.Undo(ctx, read.ID, false); err != nil {
		t.Fatal(err)
	}
	if after := dumpDocument(t, db, doc.ID); after != before {
		t.Fatalf("after undo:\n%s\nwant:\n%s", after, before)
	}
	checkIntegrity(t, db)
	if hits, _ := db.Search(ctx, "secret", 5); len(hits) != 0 {
		t.Fatalf("the undone text is still found: %+v", hits)
	}
}
