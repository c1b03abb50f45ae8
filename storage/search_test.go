package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/docent/docent/storage/fault"
)

func TestSearchRanksBestMatchFirstWithSnippets(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	once := mustCreateDocument(t, db, NewDocument{Name: "once.txt", Pages: []string{"A letter that mentions an invoice in passing, among many other words about the weather."}})
	often := mustCreateDocument(t, db, NewDocument{Name: "often.txt", Pages: []string{"", "Invoice 42. Invoice total due. Pay this invoice."}})
	mustCreateDocument(t, db, NewDocument{Name: "none.txt", Pages: []string{"nothing relevant"}})

	hits, err := db.Search(ctx, "invoice", 10)
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	if len(hits) != 2 || hits[0].DocumentID != often.ID || hits[1].DocumentID != once.ID {
		t.Fatalf("hits = %+v; want often.txt then once.txt", hits)
	}
	h := hits[0]
	if h.DocumentName != "often.txt" || h.Page != 2 || h.ChunkID == 0 {
		t.Errorf("hit = %+v; want often.txt page 2 with a chunk id", h)
	}
	if !strings.Contains(h.Snippet, "«Invoice»") {
		t.Errorf("snippet %q does not mark the match with «»", h.Snippet)
	}
	if !(hits[0].Score > hits[1].Score) || hits[1].Score <= 0 {
		t.Errorf("scores %v, %v; want positive, higher first", hits[0].Score, hits[1].Score)
	}
	if hits, _ := db.Search(ctx, "invoice", 1); len(hits) != 1 || hits[0].DocumentID != often.ID {
		t.Errorf("limit 1 = %+v", hits)
	}
}

func TestSearchMatchesPrefixesAndIgnoresDiacritics(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "cv", Pages: []string{"Mon résumé, Straße und Überweisungen"}})
	for _, q := range []string{"resume", "RÉSUMÉ", "uberweis*", "überweisungen", "straße"} {
		hits, err := db.Search(ctx, q, 5)
		if err != nil || len(hits) != 1 || hits[0].DocumentID != doc.ID {
			t.Errorf("Search(%q) = %+v, %v; want the document", q, hits, err)
		}
	}
	if hits, err := db.Search(ctx, "uberweis", 5); err != nil || len(hits) != 0 {
		t.Errorf("a word without * matched as a prefix: %+v, %v", hits, err)
	}
}

// User text is never FTS5 syntax: operators, quotes and brackets are words
// or nothing, and never a syntax error.
func TestSearchQueryCannotBreakFTSSyntax(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	mustCreateDocument(t, db, NewDocument{Name: "ops", Pages: []string{"foo and bar or baz, not x near y; column:value ^start"}})
	for _, q := range []string{
		`"`, `""`, `"foo`, `foo"bar`, `AND OR`, `AND`, `OR`, `NOT foo`, `foo*`, `*`, `**foo`, `-x`, `+x`,
		`NEAR(`, `NEAR(foo bar)`, `(`, `)`, `foo)`, `column:value`, `text:foo`, `^start`, `{foo}`, `foo AND`,
		`'`, `\`, "foo\x00bar", `a"b"c`, `% _`,
	} {
		hits, err := db.Search(ctx, q, 5)
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("Search(%q): %v", q, err)
		}
		if err != nil && fault.ErrorCode(err) == fault.Internal {
			t.Errorf("Search(%q) gave an internal error", q)
		}
		_ = hits
	}
	for q, want := range map[string]int{`AND OR`: 1, `NOT foo`: 1, `foo*`: 1, `-x`: 1, `NEAR(`: 1, `column:value`: 1, `"foo`: 1, `zzz`: 0} {
		hits, err := db.Search(ctx, q, 5)
		if err != nil || len(hits) != want {
			t.Errorf("Search(%q) = %d hits, %v; want %d", q, len(hits), err, want)
		}
	}
}

func TestSearchWithoutWordsIsInvalid(t *testing.T) {
	db := mustOpen(t)
	for _, q := range []string{"", "   ", `"`, "*", "--"} {
		_, err := db.Search(context.Background(), q, 5)
		wantCode(t, err, ErrInvalid, "")
	}
	_, err := db.Search(context.Background(), " ", 5)
	wantCode(t, err, ErrInvalid, "search query is empty")
}

func TestSearchFindsPhraseAcrossChunkBoundary(t *testing.T) {
	db := mustOpen(t)
	// Put "purple elephant" exactly where the first chunk would end without
	// overlap.
	text := strings.Repeat("lorem ipsum dolor sit amet ", 40)[:chunkSize-8] + " purple elephant " + strings.Repeat("consectetur adipiscing ", 60)
	doc := mustCreateDocument(t, db, NewDocument{Name: "long", Pages: []string{text}})
	if n := count(t, db, "chunks", "document_id = ?", doc.ID); n < 2 {
		t.Fatalf("test setup: %d chunks, want several", n)
	}
	hits, err := db.Search(context.Background(), "purple elephant", 5)
	if err != nil || len(hits) == 0 {
		t.Fatalf("Search = %+v, %v; want the straddling phrase found", hits, err)
	}
}

func TestGetChunkOnlyWithinItsDocument(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	a := mustCreateDocument(t, db, NewDocument{Name: "a", Pages: []string{"alpha text"}})
	b := mustCreateDocument(t, db, NewDocument{Name: "b", Pages: []string{"beta text"}})
	hits, err := db.Search(ctx, "alpha", 1)
	if err != nil || len(hits) != 1 {
		t.Fatalf("Search: %+v, %v", hits, err)
	}
	c, err := db.GetChunk(ctx, a.ID, hits[0].ChunkID)
	if err != nil || c.Text != "alpha text" || c.Page != 1 || c.DocumentID != a.ID || c.ID != hits[0].ChunkID {
		t.Errorf("GetChunk = %+v, %v", c, err)
	}
	_, err = db.GetChunk(ctx, b.ID, hits[0].ChunkID)
	wantCode(t, err, ErrNotFound, fmt.Sprintf("chunk %d not found in document %s", hits[0].ChunkID, b.ID))
}

// Chunk ids are citations: a chunk id once given out must never name other
// text, even after its document is deleted.
func TestChunkIDsAreNeverReused(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	old := mustCreateDocument(t, db, NewDocument{Name: "old", Pages: []string{"first"}})
	var oldID int64
	if err := db.sql.QueryRow(`SELECT max(id) FROM chunks`).Scan(&oldID); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteDocument(ctx, old.ID); err != nil {
		t.Fatal(err)
	}
	mustCreateDocument(t, db, NewDocument{Name: "new", Pages: []string{"second"}})
	var newID int64
	if err := db.sql.QueryRow(`SELECT min(id) FROM chunks`).Scan(&newID); err != nil {
		t.Fatal(err)
	}
	if newID <= oldID {
		t.Errorf("new chunk id %d reuses or precedes deleted id %d", newID, oldID)
	}
}

func TestFTSQuery(t *testing.T) {
	for in, want := range map[string]string{
		`invoice total`: `"invoice" "total"`,
		`foo*`:          `"foo"*`,
		`"foo`:          `"""foo"`,
		`AND OR`:        `"AND" "OR"`,
		`NEAR(`:         `"NEAR("`,
		`-x`:            `"-x"`,
		`" * -- ()`:     ``,
	} {
		if got := ftsQuery(in); got != want {
			t.Errorf("ftsQuery(%q) = %s, want %s", in, got, want)
		}
	}
}
