package storage

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// unit is a vector along the axes given, for hand-made embeddings.
func unit(dim int, axes ...int) []float32 {
	v := make([]float32, dim)
	for _, a := range axes {
		v[a] = 1
	}
	return v
}

func chunkIDs(t *testing.T, db *DB, model string) []int64 {
	t.Helper()
	todo, err := db.ChunksToEmbed(context.Background(), model, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(todo))
	for i, c := range todo {
		ids[i] = c.ID
	}
	return ids
}

// An embedding run that stops part way starts again with what is missing,
// and the progress counts what is done.
func TestChunksToEmbedGivesOnlyWhatIsMissing(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"Rechnung eins", "Rechnung zwei", "Rechnung drei"}})
	ids := chunkIDs(t, db, "m")
	if len(ids) != 3 {
		t.Fatalf("%d chunks to embed, want 3", len(ids))
	}
	if err := db.StoreVectors(ctx, "m", []ChunkVector{{ids[0], unit(4, 0)}, {ids[1], unit(4, 1)}}); err != nil {
		t.Fatal(err)
	}
	if left := chunkIDs(t, db, "m"); len(left) != 1 || left[0] != ids[2] {
		t.Errorf("left to embed %v, want only chunk %d", left, ids[2])
	}
	if other := chunkIDs(t, db, "other-model"); len(other) != 3 {
		t.Errorf("another model has %d to embed, want all 3", len(other))
	}
	if after, _ := db.ChunksToEmbed(ctx, "other-model", ids[1], 10); len(after) != 1 || after[0].ID != ids[2] {
		t.Errorf("after chunk %d: %+v", ids[1], after)
	}
	p, err := db.EmbedProgress(ctx, "m", "")
	if err != nil || p.Chunks != 3 || p.Embedded != 2 || p.Dimensions != 4 {
		t.Errorf("progress %+v %v, want 2 of 3 chunks with 4 dimensions", p, err)
	}
	if p, _ := db.EmbedProgress(ctx, "m", doc.ID); p.Chunks != 3 || p.Embedded != 2 {
		t.Errorf("the document's progress %+v", p)
	}
}

// A batch with a bad vector, or of another dimension than the model's
// stored vectors, writes nothing.
func TestStoreVectorsRefusesBadVectorsAndWritesNothing(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"eins", "zwei"}})
	ids := chunkIDs(t, db, "m")
	nan := unit(4, 0)
	nan[1] = float32(math.NaN())
	wantWord := map[string]string{"NaN": "NaN", "zero": "zero vector", "empty": "0 dimensions", "mixed lengths": "4 and 5 dimensions"}
	for name, batch := range map[string][]ChunkVector{
		"NaN":           {{ids[0], unit(4, 0)}, {ids[1], nan}},
		"zero":          {{ids[0], unit(4, 0)}, {ids[1], make([]float32, 4)}},
		"empty":         {{ids[0], unit(4, 0)}, {ids[1], nil}},
		"mixed lengths": {{ids[0], unit(4, 0)}, {ids[1], unit(5, 0)}},
	} {
		err := db.StoreVectors(ctx, "m", batch)
		wantCode(t, err, ErrInvalid, "")
		if !strings.Contains(err.Error(), wantWord[name]) {
			t.Errorf("%s: message %q does not say %q", name, err, wantWord[name])
		}
		if n := count(t, db, "chunk_vectors", "1"); n != 0 {
			t.Fatalf("%s: %d vectors stored", name, n)
		}
	}
	if err := db.StoreVectors(ctx, "m", []ChunkVector{{ids[0], unit(4, 0)}}); err != nil {
		t.Fatal(err)
	}
	err := db.StoreVectors(ctx, "m", []ChunkVector{{ids[1], unit(8, 0)}})
	wantCode(t, err, ErrConflict, "")
	if !strings.Contains(err.Error(), "8 dimensions, but the ones stored have 4") {
		t.Errorf("message %q does not say which dimensions", err)
	}
	if n := count(t, db, "chunk_vectors", "1"); n != 1 {
		t.Fatalf("%d vectors after the refused batch, want the first one kept", n)
	}
	_, err = db.SearchBy(ctx, SearchQuery{Text: "eins", By: ByMeaning, Model: "m", Vector: unit(8, 0)})
	wantCode(t, err, ErrConflict, "")
}

// Reading a document again (OCR) replaces its chunks: their vectors go
// with them and the new chunks wait to be embedded; deleting the document
// takes its vectors too.
func TestVectorsGoWithTheirChunks(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateScan(t, db, "scan.png", 1)
	read := func(text string) {
		t.Helper()
		job, err := db.ClaimOCR(ctx, doc.ID, true, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.FinishOCR(ctx, &job, []OCRPage{{Page: 1, Text: text, Source: SourceOCR, Engine: "tesseract"}}, StatusReady, ""); err != nil {
			t.Fatal(err)
		}
	}
	read("alter Text")
	ids := chunkIDs(t, db, "m")
	if err := db.StoreVectors(ctx, "m", []ChunkVector{{ids[0], unit(4, 0)}}); err != nil {
		t.Fatal(err)
	}
	if hits, err := db.SearchBy(ctx, SearchQuery{Text: "x", By: ByMeaning, Model: "m", Vector: unit(4, 0)}); err != nil || len(hits) != 1 {
		t.Fatalf("before OCR: %+v %v", hits, err)
	}
	read("neuer Text")
	if n := count(t, db, "chunk_vectors", "1"); n != 0 {
		t.Errorf("%d vectors left of the replaced chunk", n)
	}
	again := chunkIDs(t, db, "m")
	if len(again) != 1 || again[0] == ids[0] {
		t.Fatalf("to embed after OCR: %v (old chunk %d)", again, ids[0])
	}
	// The index in memory had the old chunk: a search gives no hit of it.
	if hits, err := db.SearchBy(ctx, SearchQuery{Text: "x", By: ByMeaning, Model: "m", Vector: unit(4, 0)}); err != nil || len(hits) != 0 {
		t.Fatalf("after OCR, before embedding: %+v %v", hits, err)
	}
	if err := db.StoreVectors(ctx, "m", []ChunkVector{{again[0], unit(4, 1)}}); err != nil {
		t.Fatal(err)
	}
	if hits, _ := db.SearchBy(ctx, SearchQuery{Text: "x", By: ByMeaning, Model: "m", Vector: unit(4, 1)}); len(hits) != 1 || hits[0].ChunkID != again[0] || hits[0].Snippet != "neuer Text" {
		t.Fatalf("after embedding again: %+v", hits)
	}
	if err := db.DeleteDocument(ctx, doc.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "chunk_vectors", "1"); n != 0 {
		t.Errorf("%d vectors left of a deleted document", n)
	}
}

// Words, meaning and both: each hit says how it matched, the fused list
// puts a chunk found both ways first, and tags and kinds filter both.
func TestSearchByMeaningAndBothSayHowEachHitMatched(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	taxi := mustCreateDocument(t, db, NewDocument{Name: "taxi.pdf", Pages: []string{"Taxifahrt vom 29.10.2018, Gesamtbetrag 16,90"}})
	hire := mustCreateDocument(t, db, NewDocument{Name: "hire.pdf", Pages: []string{"Car hire invoice, rental car for two days"}})
	other := mustCreateDocument(t, db, NewDocument{Name: "other.txt", Pages: []string{"A car park ticket"}})
	byDoc := map[string][]float32{taxi.ID: unit(4, 0), hire.ID: unit(4, 1), other.ID: unit(4, 2)}
	var batch []ChunkVector
	todo, _ := db.ChunksToEmbed(ctx, "m", 0, 10)
	for _, c := range todo {
		var doc string
		if err := db.sql.QueryRow(`SELECT document_id FROM chunks WHERE id = ?`, c.ID).Scan(&doc); err != nil {
			t.Fatal(err)
		}
		batch = append(batch, ChunkVector{c.ID, byDoc[doc]})
	}
	if err := db.StoreVectors(ctx, "m", batch); err != nil {
		t.Fatal(err)
	}
	// "cab ride" shares no word with the taxi receipt; its vector is the
	// taxi's, a little towards the car hire.
	q := []float32{1, 0.3, 0, 0}
	words, err := db.SearchBy(ctx, SearchQuery{Text: "cab ride", By: ByWords})
	if err != nil || len(words) != 0 {
		t.Fatalf("by words: %+v %v", words, err)
	}
	meaning, err := db.SearchBy(ctx, SearchQuery{Text: "cab ride", By: ByMeaning, Model: "m", Vector: q, Limit: 2})
	if err != nil || len(meaning) != 2 || meaning[0].DocumentID != taxi.ID || meaning[0].Matched != ByMeaning || meaning[1].DocumentID != hire.ID {
		t.Fatalf("by meaning: %+v %v", meaning, err)
	}
	if want := 1 / math.Sqrt(1.09); math.Abs(meaning[0].Score-want) > 1e-4 || meaning[0].Snippet != "Taxifahrt vom 29.10.2018, Gesamtbetrag 16,90" {
		t.Errorf("first hit %+v: want the cosine %v and the chunk's start", meaning[0], want)
	}
	// At equal fused scores, the hit by words comes first.
	both, err := db.SearchBy(ctx, SearchQuery{Text: "car", By: ByBoth, Model: "m", Vector: []float32{0.2, 1, 0, 0}})
	if err != nil || len(both) != 3 {
		t.Fatalf("both: %+v %v", both, err)
	}
	if both[0].DocumentID != hire.ID || both[0].Matched != ByBoth || both[1].Matched != ByWords || both[1].DocumentID != other.ID || both[2].Matched != ByMeaning {
		t.Errorf("both: %+v; want hire.pdf by both, other.txt by words, then one by meaning", both)
	}
	// Filters: by tag, and by kind.
	tag := mustCreateTag(t, db, "travel")
	if _, err := db.UpdateDocument(ctx, taxi.ID, DocumentPatch{TagIDs: &[]string{tag.ID}}); err != nil {
		t.Fatal(err)
	}
	tagged, err := db.SearchBy(ctx, SearchQuery{Text: "car", By: ByBoth, Model: "m", Vector: []float32{0.2, 1, 0, 0}, TagIDs: []string{tag.ID}})
	if err != nil || len(tagged) != 1 || tagged[0].DocumentID != taxi.ID || tagged[0].Matched != ByMeaning {
		t.Errorf("tagged travel: %+v %v; want only taxi.pdf, by meaning", tagged, err)
	}
	schema, err := db.CreateSchema(ctx, "receipt", json.RawMessage(acSchema))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SetDocumentKind(ctx, other.ID, schema.SchemaID); err != nil {
		t.Fatal(err)
	}
	kind, err := db.SearchBy(ctx, SearchQuery{Text: "car", By: ByBoth, Model: "m", Vector: []float32{0.2, 1, 0, 0}, KindID: schema.SchemaID})
	if err != nil || len(kind) != 1 || kind[0].DocumentID != other.ID || kind[0].Matched != ByWords {
		t.Errorf("kind receipt: %+v %v; want only other.txt, by words", kind, err)
	}
}

// Bad input: an empty or a 1 MB query, an unknown way, meaning without a
// vector.
func TestSearchByRefusesBadQueries(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	long := make([]byte, 1<<20)
	for i := range long {
		long[i] = 'a' + byte(i%7)
		if i%8 == 7 {
			long[i] = ' '
		}
	}
	for name, q := range map[string]SearchQuery{
		"empty":              {Text: "  "},
		"1 MB":               {Text: string(long), By: ByBoth, Model: "m", Vector: unit(4, 0)},
		"unknown way":        {Text: "x", By: "sound"},
		"meaning, no vector": {Text: "x", By: ByMeaning, Model: "m"},
		"zero vector":        {Text: "x", By: ByMeaning, Model: "m", Vector: make([]float32, 4)},
	} {
		if _, err := db.SearchBy(ctx, q); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want invalid", name, err)
		}
	}
}

// A search that finds nothing gives an empty list, never nil, however it
// searched: callers encode it as JSON, where nil is null.
func TestSearchThatFindsNothingGivesAnEmptyList(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	for _, q := range []SearchQuery{
		{Text: "zeppelin", By: ByWords},
		{Text: "zeppelin", By: ByMeaning, Model: "m", Vector: unit(4, 0)},
		{Text: "zeppelin", By: ByBoth, Model: "m", Vector: unit(4, 0)},
	} {
		hits, err := db.SearchBy(ctx, q)
		if err != nil || hits == nil || len(hits) != 0 {
			t.Errorf("by %s: %#v, %v; want an empty list", q.By, hits, err)
		}
	}
}
