package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// rowsFixture is a store with two schemas, a prompt for each and documents
// extracted with them.
type rowsFixture struct {
	db              *DB
	invoice, letter SchemaRevision
	pInv, pLet      PromptRevision
	docs            map[string]Document // by name
}

func newRowsFixture(t *testing.T) *rowsFixture {
	t.Helper()
	ctx := context.Background()
	db := mustOpen(t)
	f := &rowsFixture{db: db, docs: map[string]Document{}}
	var err error
	if f.invoice, err = db.CreateSchema(ctx, "invoice", json.RawMessage(`{"type":"object","properties":{"number":{"type":"string"},"total":{"type":"number"},"seller":{"type":"object","properties":{"name":{"type":"string"}}}}}`)); err != nil {
		t.Fatal(err)
	}
	if f.letter, err = db.CreateSchema(ctx, "letter", json.RawMessage(`{"type":"object","properties":{"subject":{"type":"string"}}}`)); err != nil {
		t.Fatal(err)
	}
	if f.pInv, err = db.CreatePrompt(ctx, NewPrompt{Name: "invoices", Content: "x", SchemaID: f.invoice.SchemaID, ForKind: true}); err != nil {
		t.Fatal(err)
	}
	if f.pLet, err = db.CreatePrompt(ctx, NewPrompt{Name: "letters", Content: "x", SchemaID: f.letter.SchemaID, ForKind: true}); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *rowsFixture) doc(t *testing.T, name string, tagIDs ...string) Document {
	t.Helper()
	d := mustCreateDocument(t, f.db, NewDocument{Name: name, Pages: []string{name}, TagIDs: tagIDs})
	f.docs[name] = d
	return d
}

func (f *rowsFixture) extract(t *testing.T, doc Document, p PromptRevision, value string, status string) Extraction {
	t.Helper()
	x, err := f.db.CreateExtraction(context.Background(), NewExtraction{DocumentID: doc.ID, PromptRevID: p.PromptRevID, Model: "m", Value: json.RawMessage(value), ValidationStatus: status})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func rowNames(rows []SchemaRow) string {
	var names []string
	for _, r := range rows {
		names = append(names, r.DocumentName)
	}
	return strings.Join(names, ",")
}

func TestSchemaRowsSortFilterAndPageInSQL(t *testing.T) {
	ctx := context.Background()
	f := newRowsFixture(t)
	tag := mustCreateTag(t, f.db, "q1")
	a := f.doc(t, "a.pdf", tag.ID)
	b := f.doc(t, "B.pdf")
	c := f.doc(t, "c.pdf", tag.ID)
	d := f.doc(t, "d.pdf")
	moved := f.doc(t, "moved.pdf")
	f.doc(t, "never.pdf")
	f.extract(t, a, f.pInv, `{"number":"Ärger-1","total":9.5,"seller":{"name":"ACME"}}`, ValidationValid)
	f.extract(t, b, f.pInv, `{"number":"apfel-2","total":100,"seller":{"name":"Globex"}}`, ValidationInvalid)
	f.extract(t, c, f.pInv, `{"number":"b-3","total":null,"seller":null}`, ValidationValid)
	old := f.extract(t, d, f.pInv, `{"number":"zz-4","total":20,"seller":{"name":"acme gmbh"}}`, ValidationValid)
	f.extract(t, moved, f.pInv, `{"number":"m-5","total":1}`, ValidationValid)
	f.extract(t, moved, f.pLet, `{"subject":"moved to letters"}`, ValidationValid) // its latest is a letter now
	// d's value is edited after the model extracted it.
	if _, err := f.db.PatchExtractionField(ctx, old.ID, "total", json.RawMessage(`21`)); err != nil {
		t.Fatal(err)
	}

	q := func(q SchemaRowsQuery) ([]SchemaRow, int) {
		t.Helper()
		q.SchemaID = f.invoice.SchemaID
		rows, total, err := f.db.SchemaRows(ctx, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		return rows, total
	}
	for _, tc := range []struct {
		name  string
		query SchemaRowsQuery
		want  string
		total int
	}{
		{"by name, ignoring case", SchemaRowsQuery{}, "a.pdf,B.pdf,c.pdf,d.pdf", 4},
		{"numbers as numbers, nulls last", SchemaRowsQuery{Sort: "total"}, "a.pdf,d.pdf,B.pdf,c.pdf", 4},
		{"descending, nulls still last", SchemaRowsQuery{Sort: "total", Desc: true}, "B.pdf,d.pdf,a.pdf,c.pdf", 4},
		{"text as a person sorts it", SchemaRowsQuery{Sort: "number"}, "B.pdf,a.pdf,c.pdf,d.pdf", 4},
		{"nested path", SchemaRowsQuery{Sort: "seller.name"}, "a.pdf,d.pdf,B.pdf,c.pdf", 4},
		{"filter folds case", SchemaRowsQuery{Filters: []RowFilter{{"seller.name", "acme"}}}, "a.pdf,d.pdf", 2},
		{"filter beyond ASCII", SchemaRowsQuery{Filters: []RowFilter{{"number", "ärger"}}}, "a.pdf", 1},
		{"filters AND", SchemaRowsQuery{Filters: []RowFilter{{"seller.name", "acme"}, {"total", "21"}}}, "d.pdf", 1},
		{"filter on a number's text", SchemaRowsQuery{Filters: []RowFilter{{"total", "9.5"}}}, "a.pdf", 1},
		{"filter on the name", SchemaRowsQuery{Filters: []RowFilter{{RowKeyDocumentName, "b."}}}, "B.pdf", 1},
		{"status valid", SchemaRowsQuery{Status: ValidationValid}, "a.pdf,c.pdf", 2},
		{"status invalid", SchemaRowsQuery{Status: ValidationInvalid}, "B.pdf", 1},
		{"edited", SchemaRowsQuery{Status: RowStatusEdited}, "d.pdf", 1},
		{"tags", SchemaRowsQuery{TagIDs: []string{tag.ID}}, "a.pdf,c.pdf", 2},
		{"prompt", SchemaRowsQuery{PromptID: f.pLet.PromptID}, "", 0},
		{"a page", SchemaRowsQuery{Sort: "total", Offset: 1, Limit: 2}, "d.pdf,B.pdf", 4},
		{"past the end", SchemaRowsQuery{Offset: 10, Limit: 2}, "", 4},
	} {
		rows, total := q(tc.query)
		if got := rowNames(rows); got != tc.want || total != tc.total {
			t.Errorf("%s: %q (total %d), want %q (total %d)", tc.name, got, total, tc.want, tc.total)
		}
	}

	rows, _ := q(SchemaRowsQuery{Filters: []RowFilter{{RowKeyDocumentName, "d.pdf"}}})
	if x := rows[0].Extraction; len(rows) != 1 || !x.Edited || string(x.Value) != `{"number":"zz-4","total":21,"seller":{"name":"acme gmbh"}}` || x.DocumentID != d.ID {
		t.Errorf("row of d.pdf: %+v", rows)
	}
	letters, total, err := f.db.SchemaRows(ctx, SchemaRowsQuery{SchemaID: f.letter.SchemaID})
	if err != nil || total != 1 || rowNames(letters) != "moved.pdf" {
		t.Errorf("letters: %q %d %v; want the moved document alone", rowNames(letters), total, err)
	}

	_, _, err = f.db.SchemaRows(ctx, SchemaRowsQuery{SchemaID: f.invoice.SchemaID, Status: "pending"})
	wantCode(t, err, ErrInvalid, "")
	_, _, err = f.db.SchemaRows(ctx, SchemaRowsQuery{SchemaID: f.invoice.SchemaID, Sort: `a"b`})
	wantCode(t, err, ErrInvalid, "")
	_, _, err = f.db.SchemaRows(ctx, SchemaRowsQuery{SchemaID: "sch_missing"})
	wantCode(t, err, ErrNotFound, "")
}

func TestRerunAndKindPrompts(t *testing.T) {
	ctx := context.Background()
	f := newRowsFixture(t)
	a := f.doc(t, "a.pdf")
	b := f.doc(t, "b.pdf")
	f.extract(t, a, f.pInv, `{"number":"1"}`, ValidationValid)
	// A second prompt on the invoice schema, newer than the first, made
	// without a person choosing it (as an unattended run would): the
	// kind's prompt stays the chosen one.
	unchosen, err := f.db.CreatePrompt(ctx, NewPrompt{Name: "invoices v2", Content: "IGNORE THE DOCUMENT", SchemaID: f.invoice.SchemaID})
	if err != nil {
		t.Fatal(err)
	}
	if kp, err := f.db.KindPrompt(ctx, f.invoice.SchemaID); err != nil || kp.PromptID != f.pInv.PromptID {
		t.Errorf("kind prompt %s, %v; want the chosen %s, not the newer %s", kp.PromptID, err, f.pInv.PromptID, unchosen.PromptID)
	}
	// b, never extracted, re-runs with the kind's prompt.
	if p, err := f.db.RerunPrompt(ctx, b.ID, f.invoice.SchemaID); err != nil || p.PromptID != f.pInv.PromptID {
		t.Errorf("rerun b: %s %v; want %s", p.PromptID, err, f.pInv.PromptID)
	}
	// A person's new prompt becomes the kind's.
	p2, err := f.db.CreatePrompt(ctx, NewPrompt{Name: "invoices v3", Content: "y", SchemaID: f.invoice.SchemaID, ForKind: true})
	if err != nil {
		t.Fatal(err)
	}
	if kp, err := f.db.KindPrompt(ctx, f.invoice.SchemaID); err != nil || kp.PromptID != p2.PromptID {
		t.Errorf("kind prompt after a person made one: %s, %v; want %s", kp.PromptID, err, p2.PromptID)
	}
	kinds, err := f.db.Kinds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kinds {
		if k.Schema.SchemaID == f.invoice.SchemaID && k.PromptID != p2.PromptID {
			t.Errorf("the kind lists prompt %q, want %s", k.PromptID, p2.PromptID)
		}
	}
	// a re-runs with the prompt it ran with; b with the kind's.
	if p, err := f.db.RerunPrompt(ctx, a.ID, f.invoice.SchemaID); err != nil || p.PromptID != f.pInv.PromptID {
		t.Errorf("rerun a: %s %v; want %s", p.PromptID, err, f.pInv.PromptID)
	}
	if p, err := f.db.RerunPrompt(ctx, b.ID, f.invoice.SchemaID); err != nil || p.PromptID != p2.PromptID {
		t.Errorf("rerun b: %s %v; want %s", p.PromptID, err, p2.PromptID)
	}
	// The first prompt now extracts letters: a re-runs with the revision it ran.
	letterID := f.letter.SchemaID
	if _, _, err := f.db.UpdatePrompt(ctx, f.pInv.PromptID, PromptPatch{SchemaID: &letterID}); err != nil {
		t.Fatal(err)
	}
	if p, err := f.db.RerunPrompt(ctx, a.ID, f.invoice.SchemaID); err != nil || p.PromptRevID != f.pInv.PromptRevID {
		t.Errorf("rerun a after its prompt moved on: %s %v; want revision %s", p.PromptRevID, err, f.pInv.PromptRevID)
	}
	// The chosen prompt moved to another schema: the kind has none, and
	// no other prompt linking it takes its place unasked.
	invoiceID := f.invoice.SchemaID
	if _, _, err := f.db.UpdatePrompt(ctx, p2.PromptID, PromptPatch{SchemaID: &letterID}); err != nil {
		t.Fatal(err)
	}
	_, err = f.db.KindPrompt(ctx, f.invoice.SchemaID)
	wantCode(t, err, ErrNotFound, "no prompt is chosen for schema invoice: create a prompt linking it, or accept a proposal of that kind")
	// A person linking a prompt to a kind without one chooses it.
	if _, _, err := f.db.UpdatePrompt(ctx, unchosen.PromptID, PromptPatch{Content: ptr("Extract."), SchemaID: &invoiceID, ForKind: true}); err != nil {
		t.Fatal(err)
	}
	if kp, err := f.db.KindPrompt(ctx, f.invoice.SchemaID); err != nil || kp.PromptID != unchosen.PromptID {
		t.Errorf("kind prompt after a person linked one: %s, %v; want %s", kp.PromptID, err, unchosen.PromptID)
	}
	empty, err := f.db.CreateSchema(ctx, "unused", json.RawMessage(`{"type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.db.KindPrompt(ctx, empty.SchemaID)
	wantCode(t, err, ErrNotFound, "")
}

func TestDocumentsSortByKindAndExtractionStatus(t *testing.T) {
	ctx := context.Background()
	f := newRowsFixture(t)
	a := f.doc(t, "a.pdf")
	b := f.doc(t, "b.pdf")
	c := f.doc(t, "c.pdf")
	for _, k := range []struct{ doc, kind string }{{a.ID, "letter"}, {b.ID, "invoice"}} {
		if _, err := f.db.SetDocumentKind(ctx, k.doc, k.kind); err != nil {
			t.Fatal(err)
		}
	}
	f.extract(t, a, f.pLet, `{"subject":"x"}`, ValidationValid)
	f.extract(t, c, f.pInv, `{"number":"1"}`, ValidationInvalid)
	f.extract(t, c, f.pInv, `{"number":"1"}`, ValidationValid) // the latest counts

	list := func(sort DocumentSort, order string) string {
		t.Helper()
		docs, total, err := f.db.ListDocumentsWithKinds(ctx, DocumentFilter{Sort: sort, Order: order})
		if err != nil || total != 3 {
			t.Fatalf("sort %s %s: %v (total %d)", sort, order, err, total)
		}
		var out []string
		for _, d := range docs {
			out = append(out, fmt.Sprintf("%s:%s:%s", d.Name, d.KindName, d.ExtractionStatus))
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct{ sort, order, want string }{
		{"", "", "c.pdf::valid b.pdf:invoice: a.pdf:letter:valid"},
		{"name", "", "a.pdf:letter:valid b.pdf:invoice: c.pdf::valid"},
		{"name", "desc", "c.pdf::valid b.pdf:invoice: a.pdf:letter:valid"},
		{"kind", "", "b.pdf:invoice: a.pdf:letter:valid c.pdf::valid"},
		{"kind", "desc", "a.pdf:letter:valid b.pdf:invoice: c.pdf::valid"},
		{"extraction_status", "asc", "c.pdf::valid a.pdf:letter:valid b.pdf:invoice:"},
		{"created_at", "asc", "a.pdf:letter:valid b.pdf:invoice: c.pdf::valid"},
	} {
		if got := list(DocumentSort(tc.sort), tc.order); got != tc.want {
			t.Errorf("sort=%s order=%s:\n got %s\nwant %s", tc.sort, tc.order, got, tc.want)
		}
	}
	raw, err := json.Marshal(ListedDocument{Document: a, KindName: "letter"})
	if err != nil || !strings.Contains(string(raw), `"kind_name":"letter","extraction_status":""`) || !strings.Contains(string(raw), `"id":"`+a.ID+`"`) {
		t.Errorf("a listed document's JSON: %s %v", raw, err)
	}
	_, _, err = f.db.ListDocuments(ctx, DocumentFilter{Sort: "size"})
	wantCode(t, err, ErrInvalid, "")
	_, _, err = f.db.ListDocuments(ctx, DocumentFilter{Order: "up"})
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("order up: %v", err)
	}
}

// seedExtractions stores n documents, each with one extraction of a
// 10-field invoice schema, in one transaction.
func seedExtractions(b testing.TB, db *DB, n int) SchemaRevision {
	b.Helper()
	ctx := context.Background()
	fields := []string{"number", "date", "seller", "buyer", "currency", "net", "tax", "total", "iban", "note"}
	var props []string
	for _, f := range fields {
		typ := "string"
		if f == "net" || f == "tax" || f == "total" {
			typ = "number"
		}
		props = append(props, fmt.Sprintf(`%q:{"type":%q}`, f, typ))
	}
	s, err := db.CreateSchema(ctx, "invoice", json.RawMessage(`{"type":"object","properties":{`+strings.Join(props, ",")+`}}`))
	if err != nil {
		b.Fatal(err)
	}
	p, err := db.CreatePrompt(ctx, NewPrompt{Name: "invoice", Content: "x", SchemaID: s.SchemaID})
	if err != nil {
		b.Fatal(err)
	}
	sellers := []string{"ACME GmbH", "Globex Corporation", "Initech", "Umbrella plc", "Müller & Söhne KG", "Stark Industries"}
	err = db.update(ctx, "seed extractions", func(tx *writeTx) error {
		for i := range n {
			id := newID(prefixDocument)
			now := formatTime(tx.now.Add(timeStep(i)))
			if _, err := tx.ExecContext(ctx, `INSERT INTO documents (id, name, media_type, size, sha256, pages, status, created_at, updated_at)
				VALUES (?, ?, 'text/plain', 1, ?, 1, 'ready', ?, ?)`, id, fmt.Sprintf("invoice-%05d.pdf", i), fmt.Sprintf("%064x", i), now, now); err != nil {
				return err
			}
			value := fmt.Sprintf(`{"number":"INV-%05d","date":"2025-%02d-%02d","seller":%q,"buyer":"Customer %d","currency":"EUR","net":%d.%02d,"tax":%d.%02d,"total":%d.%02d,"iban":"DE%020d","note":null}`,
				i, i%12+1, i%28+1, sellers[i%len(sellers)], i%97, i%5000, i%100, i%950, i%100, i%5950, i%100, i)
			if _, err := tx.ExecContext(ctx, `INSERT INTO extractions (id, document_id, prompt_revid, model, original_value, value, validation_status, created_at, updated_at)
				VALUES (?, ?, ?, 'm', ?, ?, 'valid', ?, ?)`, newID(prefixExtraction), id, p.PromptRevID, value, value, now, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatalf("seed: %v", err)
	}
	return s
}

// BenchmarkSchemaRows is the data view's query at 10,000 extractions: a
// sort on a field, text filters (matching a sixth or a twelfth of the
// rows), the first page of 100. docs/benchmarks.md has the figures.
func BenchmarkSchemaRows(b *testing.B) {
	db := mustOpen(b)
	s := seedExtractions(b, db, 10_000)
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		q    SchemaRowsQuery
		want int
	}{
		{"first page by name", SchemaRowsQuery{Limit: 100}, 10_000},
		{"sort by total", SchemaRowsQuery{Sort: "total", Desc: true, Limit: 100}, 10_000},
		{"sort by seller, filter seller", SchemaRowsQuery{Sort: "seller", Filters: []RowFilter{{"seller", "müller"}}, Limit: 100}, 1666},
		{"sort by total, filter seller and date", SchemaRowsQuery{Sort: "total", Filters: []RowFilter{{"seller", "acme"}, {"date", "-07-"}}, Limit: 100}, 833},
	} {
		bc.q.SchemaID = s.SchemaID
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				rows, total, err := db.SchemaRows(ctx, bc.q)
				if err != nil || total != bc.want || len(rows) != min(100, bc.want) {
					b.Fatalf("%d rows of %d, %v; want %d", len(rows), total, err, bc.want)
				}
			}
		})
	}
}

func TestSeedExtractionsIsWhatTheBenchmarkReads(t *testing.T) {
	db := mustOpen(t)
	s := seedExtractions(t, db, 60)
	rows, total, err := db.SchemaRows(context.Background(), SchemaRowsQuery{SchemaID: s.SchemaID, Sort: "total", Desc: true, Limit: 3})
	if err != nil || total != 60 || len(rows) != 3 {
		t.Fatalf("%d rows of %d: %v", len(rows), total, err)
	}
	var first, second struct{ Total float64 }
	json.Unmarshal(rows[0].Extraction.Value, &first)
	json.Unmarshal(rows[1].Extraction.Value, &second)
	if first.Total < second.Total || !reflect.DeepEqual(rows[0].Extraction.Value, rows[0].Extraction.OriginalValue) {
		t.Errorf("not descending by total: %s, %s", rows[0].Extraction.Value, rows[1].Extraction.Value)
	}
}

// BenchmarkListDocumentsSorted is the documents list's first page sorted
// by what it shows beside each document, at 10,000 extracted documents.
func BenchmarkListDocumentsSorted(b *testing.B) {
	db := mustOpen(b)
	seedExtractions(b, db, 10_000)
	ctx := context.Background()
	for _, sort := range []DocumentSort{SortCreatedAt, SortName, SortKind, SortExtractionStatus} {
		b.Run(string(sort), func(b *testing.B) {
			for b.Loop() {
				docs, total, err := db.ListDocumentsWithKinds(ctx, DocumentFilter{Sort: sort})
				if err != nil || total != 10_000 || len(docs) != DefaultListLimit {
					b.Fatalf("%d of %d: %v", len(docs), total, err)
				}
			}
		})
	}
}

// SortKey runs in SQLite's docent_sortkey on every connection at once: two
// data views sorted at the same time must each get their own keys.
func TestSortKeyConcurrently(t *testing.T) {
	words := map[string]string{"Ärger": "arger", "Éclair": "eclair", "Øre": "øre", "Müller": "muller"}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				for in, want := range words {
					if got := SortKey(in); got != want {
						t.Errorf("SortKey(%q) = %q, want %q", in, got, want)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}
