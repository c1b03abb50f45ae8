package storage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docent/docent/storage/fault"
)

func TestCreateDocumentStoresEverything(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	zeta, alpha := mustCreateTag(t, db, "zeta"), mustCreateTag(t, db, "Alpha")
	data := []byte("%PDF-1.7 pretend")
	sum := sha256.Sum256(data)

	doc, err := db.CreateDocument(ctx, NewDocument{
		Name:      "  report.pdf ",
		MediaType: "application/pdf",
		Data:      data,
		Pages:     []string{"First page about invoices.", "", "Third page."},
		TagIDs:    []string{zeta.ID, alpha.ID, zeta.ID},
		Metadata:  json.RawMessage(`{ "source": "scanner" }`),
	})
	if err != nil {
		t.Fatalf("CreateDocument: %v", err)
	}
	if !strings.HasPrefix(doc.ID, "doc_") || len(doc.ID) != len("doc_")+26 {
		t.Errorf("id %q is not doc_ + a ULID", doc.ID)
	}
	want := Document{
		ID: doc.ID, Name: "report.pdf", MediaType: "application/pdf", Size: int64(len(data)),
		SHA256: hex.EncodeToString(sum[:]), Pages: 3, Status: StatusReady, Error: "",
		TagIDs:   []string{alpha.ID, zeta.ID}, // by tag name, each once
		Metadata: json.RawMessage(`{"source":"scanner"}`), CreatedAt: doc.CreatedAt, UpdatedAt: doc.CreatedAt,
		AutoCreateStatus: "none",
	}
	if !reflect.DeepEqual(doc, want) {
		t.Errorf("created\n%+v\nwant\n%+v", doc, want)
	}
	got, err := db.GetDocument(ctx, doc.ID)
	if err != nil || !reflect.DeepEqual(got, doc) {
		t.Errorf("GetDocument = %+v, %v; want what CreateDocument returned", got, err)
	}
	if b, err := db.DocumentFile(ctx, doc.ID); err != nil || !bytes.Equal(b, data) {
		t.Errorf("DocumentFile = %q, %v", b, err)
	}
	if pages, err := db.DocumentText(ctx, doc.ID); err != nil || !reflect.DeepEqual(pages, []string{"First page about invoices.", "", "Third page."}) {
		t.Errorf("DocumentText = %q, %v", pages, err)
	}
	if text, err := db.PageText(ctx, doc.ID, 3); err != nil || text != "Third page." {
		t.Errorf("PageText(3) = %q, %v", text, err)
	}
	// The empty page has no chunk; the others one each.
	if n := count(t, db, "chunks", "document_id = ?", doc.ID); n != 2 {
		t.Errorf("%d chunks, want 2", n)
	}
	if hits, err := db.Search(ctx, "invoices", 5); err != nil || len(hits) != 1 || hits[0].DocumentID != doc.ID || hits[0].Page != 1 {
		t.Errorf("Search after create = %+v, %v", hits, err)
	}
}

func TestDocumentJSONHasEmptyTagListAndObjectMetadata(t *testing.T) {
	db := mustOpen(t)
	doc := mustCreateDocument(t, db, NewDocument{Name: "plain.txt"})
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"tag_ids":[]`, `"metadata":{}`, `"status":"ready"`, `"auto_create_status":"none"`, `"pages":0`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
}

func TestCreateDocumentWithSameBytesIsDuplicate(t *testing.T) {
	db := mustOpen(t)
	first := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Data: []byte("same bytes")})

	_, err := db.CreateDocument(context.Background(), NewDocument{Name: "b.txt", MediaType: "text/plain", Data: []byte("same bytes")})
	var dup *DuplicateError
	if !errors.As(err, &dup) {
		t.Fatalf("error = %v (%T), want *DuplicateError", err, err)
	}
	if dup.Existing.ID != first.ID || dup.Existing.Name != "a.txt" {
		t.Errorf("Existing = %+v, want the first document", dup.Existing)
	}
	wantCode(t, err, ErrConflict, fmt.Sprintf(`already imported as %s ("a.txt")`, first.ID))
	if fault.ErrorCode(err) != "conflict" {
		t.Errorf("ErrorCode = %q", fault.ErrorCode(err))
	}
	if n := count(t, db, "documents", ""); n != 1 {
		t.Errorf("%d documents after a duplicate, want 1", n)
	}
}

func TestCreateDocumentRejectsBadInput(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		nd   NewDocument
		msg  string
	}{
		{"empty name", NewDocument{Name: "  ", MediaType: "text/plain"}, "document name is empty"},
		{"no media type", NewDocument{Name: "a"}, `document "a" has no media type`},
		{"unknown status", NewDocument{Name: "a", MediaType: "text/plain", Status: "done"}, `unknown document status "done" (want ready, needs_ocr or failed)`},
		{"metadata array", NewDocument{Name: "a", MediaType: "text/plain", Metadata: json.RawMessage(`[1]`)}, "metadata must be a JSON object"},
		{"metadata broken", NewDocument{Name: "a", MediaType: "text/plain", Metadata: json.RawMessage(`{"a":`)}, "metadata must be a JSON object"},
		{"unknown tag", NewDocument{Name: "a", MediaType: "text/plain", TagIDs: []string{"tag_nope"}}, "unknown tag tag_nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.CreateDocument(ctx, tc.nd)
			wantCode(t, err, ErrInvalid, tc.msg)
		})
	}
}

// A failed create must leave nothing: not the row, not the bytes, not a page,
// chunk or index entry written before the failure was found.
func TestFailedCreateDocumentLeavesNoRows(t *testing.T) {
	db := mustOpen(t)
	tag := mustCreateTag(t, db, "real")
	_, err := db.CreateDocument(context.Background(), NewDocument{
		Name: "half.txt", MediaType: "text/plain", Data: []byte("x"),
		Pages:  []string{"zanzibar quokka"},
		TagIDs: []string{tag.ID, "tag_missing1", "tag_missing2"},
	})
	wantCode(t, err, ErrInvalid, "unknown tags tag_missing1, tag_missing2")
	for _, table := range []string{"documents", "document_files", "pages", "chunks", "document_tags"} {
		if n := count(t, db, table, ""); n != 0 {
			t.Errorf("%s has %d rows after a failed create", table, n)
		}
	}
	if n := indexedTerms(t, db, "zanzibar"); n != 0 {
		t.Errorf("index holds %d entries for a failed create", n)
	}
	checkIndex(t, db)
}

// The same, for a failure found only after the row, the bytes, the pages and
// the chunks were written: the transaction must take them all back.
func TestCreateDocumentFailingAtTheLastStepLeavesNoRows(t *testing.T) {
	db := mustOpen(t)
	tag := mustCreateTag(t, db, "real")
	mustExec(t, db, `CREATE TRIGGER fail_tagging BEFORE INSERT ON document_tags BEGIN SELECT RAISE(ABORT, 'boom'); END`)
	_, err := db.CreateDocument(context.Background(), NewDocument{
		Name: "half.txt", MediaType: "text/plain", Data: []byte("x"),
		Pages: []string{"zanzibar quokka", "more"}, TagIDs: []string{tag.ID},
	})
	if err == nil {
		t.Fatal("CreateDocument succeeded despite the failing trigger")
	}
	for _, table := range []string{"documents", "document_files", "pages", "chunks", "document_tags"} {
		if n := count(t, db, table, ""); n != 0 {
			t.Errorf("%s has %d rows after a failed create", table, n)
		}
	}
	if n := indexedTerms(t, db, "zanzibar"); n != 0 {
		t.Errorf("index holds %d entries for a failed create", n)
	}
	checkIndex(t, db)
}

func TestGetDocumentNotFound(t *testing.T) {
	db := mustOpen(t)
	_, err := db.GetDocument(context.Background(), "doc_x")
	wantCode(t, err, ErrNotFound, "document doc_x not found")
	if fault.ErrorCode(err) != "not_found" {
		t.Errorf("ErrorCode = %q", fault.ErrorCode(err))
	}
}

func TestDocumentBySHA256(t *testing.T) {
	db := mustOpen(t)
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Data: []byte("abc")})
	got, err := db.DocumentBySHA256(context.Background(), strings.ToUpper(doc.SHA256))
	if err != nil || got.ID != doc.ID {
		t.Errorf("DocumentBySHA256 = %+v, %v", got, err)
	}
	_, err = db.DocumentBySHA256(context.Background(), strings.Repeat("0", 64))
	wantCode(t, err, ErrNotFound, "")
}

func TestFindDocumentByIDOrExactName(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	one := mustCreateDocument(t, db, NewDocument{Name: "unique.txt"})
	twin1 := mustCreateDocument(t, db, NewDocument{Name: "twin.txt", Data: []byte("1")})
	twin2 := mustCreateDocument(t, db, NewDocument{Name: "twin.txt", Data: []byte("2")})

	if d, err := db.FindDocument(ctx, one.ID); err != nil || d.ID != one.ID {
		t.Errorf("by id: %+v, %v", d, err)
	}
	if d, err := db.FindDocument(ctx, "unique.txt"); err != nil || d.ID != one.ID {
		t.Errorf("by name: %+v, %v", d, err)
	}
	_, err := db.FindDocument(ctx, "twin.txt")
	wantCode(t, err, ErrConflict, fmt.Sprintf(`several documents are named "twin.txt" (%s, %s): use an id`, twin1.ID, twin2.ID))
	_, err = db.FindDocument(ctx, "UNIQUE.txt")
	wantCode(t, err, ErrNotFound, `document "UNIQUE.txt" not found`)
}

func TestListDocumentsNewestFirstWithTotal(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	var ids []string
	for i := range 5 {
		ids = append(ids, mustCreateDocument(t, db, NewDocument{Name: fmt.Sprintf("d%d.txt", i)}).ID)
	}
	docs, total, err := db.ListDocuments(ctx, DocumentFilter{})
	if err != nil || total != 5 || len(docs) != 5 {
		t.Fatalf("ListDocuments = %d docs, total %d, %v", len(docs), total, err)
	}
	for i, d := range docs {
		if d.ID != ids[4-i] {
			t.Errorf("position %d is %s, want %s (newest first)", i, d.Name, ids[4-i])
		}
	}
	docs, total, err = db.ListDocuments(ctx, DocumentFilter{Limit: 2, Offset: 1})
	if err != nil || total != 5 || len(docs) != 2 || docs[0].ID != ids[3] || docs[1].ID != ids[2] {
		t.Errorf("limit 2 offset 1: %v total %d, %v", names(docs), total, err)
	}
	docs, total, err = db.ListDocuments(ctx, DocumentFilter{Offset: 10})
	if err != nil || total != 5 || len(docs) != 0 || docs == nil {
		t.Errorf("offset past the end: %v (nil %v) total %d, %v; want [] and total 5", names(docs), docs == nil, total, err)
	}
}

// Documents made within one millisecond (the stored precision) still list in
// the order they were made, by their time-sortable ids.
func TestListDocumentsOrderWithEqualTimes(t *testing.T) {
	db := mustOpen(t)
	fixed := db.now()
	db.Now = func() time.Time { return fixed }
	var ids []string
	for i := range 20 {
		ids = append(ids, mustCreateDocument(t, db, NewDocument{Name: fmt.Sprint(i)}).ID)
	}
	docs, _, err := db.ListDocuments(context.Background(), DocumentFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		if d.ID != ids[len(ids)-1-i] {
			t.Fatalf("position %d is %s, want %s", i, d.Name, ids[len(ids)-1-i])
		}
	}
}

func TestListDocumentsSearchesNameAndText(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	byName := mustCreateDocument(t, db, NewDocument{Name: "Quarterly-INVOICE.pdf", Pages: []string{"nothing here"}})
	byText := mustCreateDocument(t, db, NewDocument{Name: "scan-004.pdf", Pages: []string{"", "This invoice is overdue."}})
	mustCreateDocument(t, db, NewDocument{Name: "notes.txt", Pages: []string{"groceries"}})
	percent := mustCreateDocument(t, db, NewDocument{Name: "100% done.txt"})

	for _, tc := range []struct {
		search string
		want   []string
	}{
		{"invoice", []string{byText.ID, byName.ID}},
		{"ly-inv", []string{byName.ID}},          // a substring of the name
		{"overdue invoice", []string{byText.ID}}, // every word, in any order
		{"Invoice overdue", []string{byText.ID}}, // case does not matter
		{"%", []string{percent.ID}},              // LIKE wildcards are literal
		{"_", nil},
		{"zebra", nil},
		{`"`, nil}, // no words: only the name is searched, safely
	} {
		docs, total, err := db.ListDocuments(ctx, DocumentFilter{Search: tc.search})
		if err != nil {
			t.Errorf("search %q: %v", tc.search, err)
			continue
		}
		if got := docIDs(docs); !reflect.DeepEqual(got, tc.want) || total != len(tc.want) {
			t.Errorf("search %q = %v (total %d), want %v", tc.search, names(docs), total, tc.want)
		}
	}
}

func TestListDocumentsTagsMustAllMatch(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	red, blue := mustCreateTag(t, db, "red"), mustCreateTag(t, db, "blue")
	both := mustCreateDocument(t, db, NewDocument{Name: "both", TagIDs: []string{red.ID, blue.ID}})
	onlyRed := mustCreateDocument(t, db, NewDocument{Name: "red", TagIDs: []string{red.ID}})
	mustCreateDocument(t, db, NewDocument{Name: "none"})

	for _, tc := range []struct {
		tags []string
		want []string
	}{
		{[]string{red.ID}, []string{onlyRed.ID, both.ID}},
		{[]string{red.ID, blue.ID}, []string{both.ID}},
		{[]string{blue.ID, blue.ID}, []string{both.ID}},
		{[]string{"tag_unknown"}, nil},
	} {
		docs, total, err := db.ListDocuments(ctx, DocumentFilter{TagIDs: tc.tags})
		if got := docIDs(docs); err != nil || !reflect.DeepEqual(got, tc.want) || total != len(tc.want) {
			t.Errorf("tags %v = %v total %d, %v; want %v", tc.tags, names(docs), total, err, tc.want)
		}
	}
	docs, total, err := db.ListDocuments(ctx, DocumentFilter{TagIDs: []string{red.ID}, Search: "both"})
	if got := docIDs(docs); err != nil || !reflect.DeepEqual(got, []string{both.ID}) || total != 1 {
		t.Errorf("tag and search = %v total %d, %v", names(docs), total, err)
	}
}

func TestUpdateDocument(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	a, b := mustCreateTag(t, db, "a"), mustCreateTag(t, db, "b")
	doc := mustCreateDocument(t, db, NewDocument{Name: "old.txt", TagIDs: []string{a.ID}, Metadata: json.RawMessage(`{"k":1}`)})

	name := " new.txt "
	tags := []string{b.ID}
	got, err := db.UpdateDocument(ctx, doc.ID, DocumentPatch{Name: &name, TagIDs: &tags, Metadata: json.RawMessage(`{"k": 2}`)})
	if err != nil {
		t.Fatalf("UpdateDocument: %v", err)
	}
	if got.Name != "new.txt" || !reflect.DeepEqual(got.TagIDs, []string{b.ID}) || string(got.Metadata) != `{"k":2}` {
		t.Errorf("updated = %+v", got)
	}
	if !got.CreatedAt.Equal(doc.CreatedAt) || !got.UpdatedAt.After(doc.UpdatedAt) {
		t.Errorf("created %v→%v, updated %v→%v; want created kept, updated later", doc.CreatedAt, got.CreatedAt, doc.UpdatedAt, got.UpdatedAt)
	}

	// An empty patch changes nothing, not even updated_at.
	same, err := db.UpdateDocument(ctx, doc.ID, DocumentPatch{})
	if err != nil || !reflect.DeepEqual(same, got) {
		t.Errorf("empty patch: %+v, %v", same, err)
	}
	// null metadata clears it; an empty tag list removes all tags.
	none := []string{}
	cleared, err := db.UpdateDocument(ctx, doc.ID, DocumentPatch{Metadata: json.RawMessage(`null`), TagIDs: &none})
	if err != nil || string(cleared.Metadata) != "{}" || len(cleared.TagIDs) != 0 {
		t.Errorf("clearing: %+v, %v", cleared, err)
	}

	empty := ""
	_, err = db.UpdateDocument(ctx, doc.ID, DocumentPatch{Name: &empty})
	wantCode(t, err, ErrInvalid, "document name is empty")
	_, err = db.UpdateDocument(ctx, doc.ID, DocumentPatch{Metadata: json.RawMessage(`"text"`)})
	wantCode(t, err, ErrInvalid, "metadata must be a JSON object")
	bad := []string{a.ID, "tag_gone"}
	_, err = db.UpdateDocument(ctx, doc.ID, DocumentPatch{Name: &name, TagIDs: &bad})
	wantCode(t, err, ErrInvalid, "unknown tag tag_gone")
	if after, _ := db.GetDocument(ctx, doc.ID); !reflect.DeepEqual(after, cleared) {
		t.Errorf("a refused update changed the document: %+v", after)
	}
	_, err = db.UpdateDocument(ctx, "doc_nope", DocumentPatch{Name: &name})
	wantCode(t, err, ErrNotFound, "document doc_nope not found")
}

func TestDeleteDocumentRemovesEverythingItOwns(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	tag := mustCreateTag(t, db, "kept")
	doc := mustCreateDocument(t, db, NewDocument{Name: "gone.pdf", TagIDs: []string{tag.ID},
		Pages: []string{"quokka " + strings.Repeat("filler words here ", 200), "zanzibar"}})
	other := mustCreateDocument(t, db, NewDocument{Name: "stays.txt", Pages: []string{"quokka too"}})
	insertAgentRows(t, db, doc.ID)
	insertAgentRows(t, db, other.ID)
	if indexedTerms(t, db, "zanzibar") == 0 {
		t.Fatal("test setup: zanzibar not indexed")
	}

	if err := db.DeleteDocument(ctx, doc.ID); err != nil {
		t.Fatalf("DeleteDocument: %v", err)
	}
	for table, where := range map[string]string{
		"documents": "id = ?", "document_files": "document_id = ?", "pages": "document_id = ?",
		"chunks": "document_id = ?", "document_tags": "document_id = ?", "extractions": "document_id = ?",
		"threads": "document_id = ?", "turn_states": "document_id = ?",
		"thread_messages": "thread_id IN (SELECT id FROM threads WHERE document_id = ?)",
	} {
		if n := count(t, db, table, where, doc.ID); n != 0 {
			t.Errorf("%s keeps %d rows of the deleted document", table, n)
		}
	}
	if n := count(t, db, "thread_messages", ""); n != 2 {
		t.Errorf("%d thread messages left, want the other document's 2", n)
	}
	if n := indexedTerms(t, db, "zanzibar"); n != 0 {
		t.Errorf("the index keeps %d entries of the deleted document", n)
	}
	if n := indexedTerms(t, db, "quokka"); n != 1 {
		t.Errorf("the index has %d entries for quokka, want the other document's 1", n)
	}
	checkIndex(t, db)
	if _, err := db.GetTag(ctx, tag.ID); err != nil {
		t.Errorf("the document's tag went with it: %v", err)
	}
	wantCode(t, db.DeleteDocument(ctx, doc.ID), ErrNotFound, fmt.Sprintf("document %s not found", doc.ID))
}

// insertAgentRows gives a document an extraction, a thread with two
// messages and a paused turn, with raw SQL until the store has queries for
// them.
func insertAgentRows(t testing.TB, db *DB, docID string) {
	t.Helper()
	thread := newID(prefixThread)
	mustExec(t, db, `INSERT INTO extractions (id, document_id, value, created_at, updated_at) VALUES (?, ?, '{}', 'now', 'now')`,
		newID(prefixExtraction), docID)
	mustExec(t, db, `INSERT INTO threads (id, document_id, created_at, updated_at) VALUES (?, ?, 'now', 'now')`, thread, docID)
	mustExec(t, db, `INSERT INTO thread_messages (thread_id, seq, role, content, created_at) VALUES (?, 0, 'user', 'hi', 'now'), (?, 1, 'assistant', 'hello', 'now')`, thread, thread)
	mustExec(t, db, `INSERT INTO turn_states (id, thread_id, document_id, state, created_at, expires_at) VALUES (?, ?, ?, '{}', 'now', 'later')`,
		newID(prefixTurn), thread, docID)
}

func TestPageText(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "three", Pages: []string{"one", "two", "three"}})
	if text, err := db.PageText(ctx, doc.ID, 2); err != nil || text != "two" {
		t.Errorf("page 2 = %q, %v", text, err)
	}
	_, err := db.PageText(ctx, doc.ID, 9)
	wantCode(t, err, ErrInvalid, "page 9 out of range 1-3")
	_, err = db.PageText(ctx, doc.ID, 0)
	wantCode(t, err, ErrInvalid, "page 0 out of range 1-3")
	empty := mustCreateDocument(t, db, NewDocument{Name: "scan", Status: StatusFailed, Error: "encrypted"})
	_, err = db.PageText(ctx, empty.ID, 1)
	wantCode(t, err, ErrInvalid, fmt.Sprintf("page 1 out of range: document %s has no pages", empty.ID))
	_, err = db.PageText(ctx, "doc_nope", 1)
	wantCode(t, err, ErrNotFound, "document doc_nope not found")
}

func TestDocumentTextAndFileOfMissingDocument(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	_, err := db.DocumentText(ctx, "doc_nope")
	wantCode(t, err, ErrNotFound, "document doc_nope not found")
	_, err = db.DocumentFile(ctx, "doc_nope")
	wantCode(t, err, ErrNotFound, "document doc_nope not found")

	doc := mustCreateDocument(t, db, NewDocument{Name: "empty", Data: []byte{}})
	if pages, err := db.DocumentText(ctx, doc.ID); err != nil || pages == nil || len(pages) != 0 {
		t.Errorf("DocumentText of a document without pages = %#v, %v; want []", pages, err)
	}
	if b, err := db.DocumentFile(ctx, doc.ID); err != nil || b == nil || len(b) != 0 {
		t.Errorf("DocumentFile of an empty file = %#v, %v", b, err)
	}
}

func TestReplaceDocumentContentRereadsAFailedDocument(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "locked.pdf", Status: StatusFailed, Error: "password required", Pages: []string{"stale words"}})
	got, err := db.ReplaceDocumentContent(ctx, doc.ID, DocumentContent{Status: StatusReady, Pages: []string{"fresh text", "page two"}})
	if err != nil {
		t.Fatalf("ReplaceDocumentContent: %v", err)
	}
	if got.ID != doc.ID || got.Status != StatusReady || got.Error != "" || got.Pages != 2 || !got.CreatedAt.Equal(doc.CreatedAt) {
		t.Errorf("replaced = %+v", got)
	}
	if hits, err := db.Search(ctx, "stale", 5); err != nil || len(hits) != 0 {
		t.Errorf("old text still found: %+v, %v", hits, err)
	}
	if hits, err := db.Search(ctx, "fresh", 5); err != nil || len(hits) != 1 {
		t.Errorf("new text not found: %+v, %v", hits, err)
	}
	checkIndex(t, db)
	_, err = db.ReplaceDocumentContent(ctx, "doc_nope", DocumentContent{})
	wantCode(t, err, ErrNotFound, "")
}

func docIDs(docs []Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.ID)
	}
	return out
}

func names(docs []Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.Name)
	}
	return out
}

// The importer reads files on every core and stores them as they finish:
// concurrent creates must neither fail with "database is locked" nor store
// the same bytes twice, also when a second process has the file open.
func TestConcurrentCreatesStoreEachFileOnce(t *testing.T) {
	db := mustOpen(t)
	other, err := Open(context.Background(), db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	const workers, files = 8, 20
	errs := make(chan error, workers*files)
	var wg sync.WaitGroup
	for w := range workers {
		store := []*DB{db, other}[w%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range files {
				_, err := store.CreateDocument(context.Background(), NewDocument{
					Name: fmt.Sprintf("file%d.txt", f), MediaType: "text/plain",
					Data: []byte(fmt.Sprint("content ", f)), Pages: []string{strings.Repeat(fmt.Sprint("word", f, " "), 500)},
				})
				var dup *DuplicateError
				if err != nil && !errors.As(err, &dup) {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent create: %v", err)
	}
	if n := count(t, db, "documents", ""); n != files {
		t.Errorf("%d documents, want %d", n, files)
	}
	checkIndex(t, db)
}
