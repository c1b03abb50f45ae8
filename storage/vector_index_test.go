package storage

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// embedAll stores, for every chunk without a vector by model, the vector
// vec gives its document.
func embedAll(t *testing.T, db *DB, model string, vec func(doc string) []float32) {
	t.Helper()
	ctx := context.Background()
	todo, err := db.ChunksToEmbed(ctx, model, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var batch []ChunkVector
	for _, c := range todo {
		var doc string
		if err := db.sql.QueryRowContext(ctx, `SELECT document_id FROM chunks WHERE id = ?`, c.ID).Scan(&doc); err != nil {
			t.Fatal(err)
		}
		batch = append(batch, ChunkVector{c.ID, vec(doc)})
	}
	if err := db.StoreVectors(ctx, model, batch); err != nil {
		t.Fatal(err)
	}
}

// loads is how many indexes db loaded from the table from scratch.
func loads(db *DB) int {
	db.vectors.mu.Lock()
	defer db.vectors.mu.Unlock()
	return db.vectors.loads
}

// liveInIndex is the chunks of the cached index that searches still see.
func liveInIndex(db *DB) []int64 {
	db.vectors.mu.Lock()
	defer db.vectors.mu.Unlock()
	x := db.vectors.index
	if x == nil {
		return nil
	}
	var out []int64
	for i, id := range x.chunkIDs {
		if x.dead == nil || !x.dead[i] {
			out = append(out, id)
		}
	}
	return out
}

func meaning(t *testing.T, db *DB, model string, vec []float32, limit int) []SearchHit {
	t.Helper()
	hits, err := db.SearchBy(context.Background(), SearchQuery{Text: "x", By: ByMeaning, Model: model, Vector: vec, Limit: limit})
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// Deleting a document, or reading a page again, changes the index in
// memory without loading it again from the table: the first search
// after gives as many hits as asked for, none of the deleted chunks, and
// the index is never loaded a second time.
func TestDeletionsAndAdditionsKeepTheIndexWithoutLoadingItAgain(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	// near has 70 pages, all nearest the query: more than the 60
	// candidates a search for one hit takes (SearchBy asks meaningHits for
	// 30, and it the scan for twice that); far and farther less so.
	pages := make([]string, 70)
	for i := range pages {
		pages[i] = "Seite"
	}
	near := mustCreateDocument(t, db, NewDocument{Name: "near.txt", Pages: pages})
	far := mustCreateDocument(t, db, NewDocument{Name: "far.txt", Pages: []string{"f"}})
	farther := mustCreateDocument(t, db, NewDocument{Name: "farther.txt", Pages: []string{"g"}})
	scan := mustCreateScan(t, db, "scan.png", 1)
	read := func(text string) {
		t.Helper()
		job, err := db.ClaimOCR(ctx, scan.ID, true, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.FinishOCR(ctx, &job, []OCRPage{{Page: 1, Text: text, Source: SourceOCR, Engine: "tesseract"}}, StatusReady, ""); err != nil {
			t.Fatal(err)
		}
	}
	read("alter Text")
	vecs := map[string][]float32{
		near.ID:    {1, 0.1, 0, 0},
		far.ID:     {1, 1, 0, 0},
		farther.ID: {1, 2, 0, 0},
		scan.ID:    {0, 0, 1, 0},
	}
	embedAll(t, db, "m", func(doc string) []float32 { return vecs[doc] })
	q := []float32{1, 0, 0, 0}

	if hits := meaning(t, db, "m", q, 1); len(hits) != 1 || hits[0].DocumentID != near.ID {
		t.Fatalf("before the deletion: %+v, want a chunk of near.txt", hits)
	}
	if n := loads(db); n != 1 {
		t.Fatalf("%d loads after the first search, want 1", n)
	}
	if err := db.DeleteDocument(ctx, near.ID); err != nil {
		t.Fatal(err)
	}
	// The deleted vectors fill the candidates the scan finds: the search
	// must look again past them.
	hits := meaning(t, db, "m", q, 1)
	if len(hits) != 1 || hits[0].DocumentID != far.ID {
		t.Fatalf("after deleting near.txt: %+v, want far.txt's chunk", hits)
	}
	for range 2 {
		for _, h := range meaning(t, db, "m", q, 10) {
			if h.DocumentID == near.ID {
				t.Fatalf("a hit of the deleted document: %+v", h)
			}
		}
	}
	if n := loads(db); n != 1 {
		t.Errorf("%d loads after deleting a document, want still 1: the index was loaded again", n)
	}
	if live := liveInIndex(db); len(live) != 3 {
		t.Errorf("the index keeps chunks %v live, want the 3 of far.txt, farther.txt and scan.png", live)
	}

	// OCR again replaces the scan's chunk: the old one's vector is found
	// gone, the new one's appended when stored.
	old := meaning(t, db, "m", []float32{0, 0, 1, 0}, 1)
	if len(old) != 1 || old[0].DocumentID != scan.ID {
		t.Fatalf("the scan before OCR again: %+v", old)
	}
	read("neuer Text")
	if hits := meaning(t, db, "m", []float32{0, 0, 1, 0}, 10); len(hits) != 0 {
		t.Errorf("after OCR again, before embedding: %+v, want none: only the old text was near", hits)
	}
	embedAll(t, db, "m", func(string) []float32 { return []float32{0, 0, 0, 1} })
	hits = meaning(t, db, "m", []float32{0, 0, 0, 1}, 1)
	if len(hits) != 1 || hits[0].ChunkID == old[0].ChunkID || hits[0].Snippet != "neuer Text" {
		t.Errorf("after embedding the new text: %+v, want the new chunk", hits)
	}
	if n := loads(db); n != 1 {
		t.Errorf("%d loads after OCR again, want still 1", n)
	}
	if live := liveInIndex(db); len(live) != 3 {
		t.Errorf("the index keeps chunks %v live, want far.txt's, farther.txt's and the scan's new one", live)
	}
}

// Only the model searched last keeps an index in memory: a change of
// embedding model drops the old one's, and going back loads it again.
func TestAChangeOfModelDropsTheOldIndex(t *testing.T) {
	db := mustOpen(t)
	mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"eins", "zwei"}})
	embedAll(t, db, "old-model", func(string) []float32 { return unit(4, 0) })
	embedAll(t, db, "new-model", func(string) []float32 { return unit(8, 1) })
	if hits := meaning(t, db, "old-model", unit(4, 0), 10); len(hits) != 2 {
		t.Fatalf("old model: %+v", hits)
	}
	if hits := meaning(t, db, "new-model", unit(8, 1), 10); len(hits) != 2 {
		t.Fatalf("new model: %+v", hits)
	}
	db.vectors.mu.Lock()
	model, x := db.vectors.model, db.vectors.index
	db.vectors.mu.Unlock()
	if model != "new-model" || x == nil || x.dim != 8 {
		t.Errorf("the cache holds %q's index (%v), want only new-model's", model, x != nil)
	}
	if n := loads(db); n != 2 {
		t.Errorf("%d loads, want 2", n)
	}
	meaning(t, db, "old-model", unit(4, 0), 10)
	if n := loads(db); n != 3 {
		t.Errorf("%d loads after going back to the old model, want 3: its index should have been dropped", n)
	}
}

// Searches that run while documents are deleted and new vectors stored
// see a consistent index (go test -race checks the copies they work on),
// and once the deletions are done no search returns a deleted document.
func TestSearchesDuringDeletionsAndAdditions(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	var docs []Document
	for i := range 12 {
		docs = append(docs, mustCreateDocument(t, db, NewDocument{Name: fmt.Sprintf("d%d.txt", i), Pages: []string{"eins", "zwei", "drei"}}))
	}
	embedAll(t, db, "m", func(string) []float32 { return unit(4, 0) })
	meaning(t, db, "m", unit(4, 0), 5)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	stop := make(chan struct{})
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := db.SearchBy(ctx, SearchQuery{Text: "x", By: ByMeaning, Model: "m", Vector: []float32{1, 0.1, 0, 0}, Limit: 5}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	deleted := map[string]bool{}
	for i, d := range docs[:8] {
		if err := db.DeleteDocument(ctx, d.ID); err != nil {
			t.Fatal(err)
		}
		deleted[d.ID] = true
		mustCreateDocument(t, db, NewDocument{Name: fmt.Sprintf("new%d.txt", i), Pages: []string{"vier"}})
		embedAll(t, db, "m", func(string) []float32 { return unit(4, 1) })
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a search during the changes: %v", err)
	}
	hits := meaning(t, db, "m", []float32{1, 0.1, 0, 0}, 100)
	if len(hits) != 4*3+8 {
		t.Errorf("%d hits, want the 12 chunks left and the 8 new ones", len(hits))
	}
	for _, h := range hits {
		if deleted[h.DocumentID] {
			t.Errorf("a hit of a deleted document: %+v", h)
		}
	}
	if n := loads(db); n != 1 {
		t.Errorf("%d loads, want 1", n)
	}
}
