package storage

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SearchHit is one chunk that matches a search.
type SearchHit struct {
	DocumentID   string `json:"document_id"`
	DocumentName string `json:"document_name"`
	ChunkID      int64  `json:"chunk_id"`
	Page         int    `json:"page"`
	// Snippet is a short excerpt, with the matching words between « and »
	// when the chunk matched by words; the chunk's start when it matched by
	// meaning alone.
	Snippet string `json:"snippet"`
	// Score is the relevance, higher is better: the negated BM25 rank of a
	// search by words, the cosine similarity of one by meaning, and the
	// reciprocal rank fusion of both (fuse).
	Score float64 `json:"score"`
	// Matched says how the chunk was found: "words" (it has every word of
	// the query), "meaning" (its vector is among the nearest to the
	// query's) or "both".
	Matched string `json:"matched"`
}

// Chunk is a piece of a page's text, as a search hit or citation names it.
type Chunk struct {
	ID         int64  `json:"chunk_id"`
	DocumentID string `json:"document_id"`
	Page       int    `json:"page"`
	Text       string `json:"text"`
}

// Search limits.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 100
	// MaxSearchQueryChars is the longest query: a question or a few
	// words, not a document (an embedding model would cut it anyway).
	MaxSearchQueryChars = 2000
)

// The ways to search (SearchQuery.By).
const (
	ByWords   = "words"
	ByMeaning = "meaning"
	ByBoth    = "both"
)

// SearchQuery is a search by words, by meaning or both.
type SearchQuery struct {
	// Text is plain user text (see Search).
	Text string
	// Limit is how many hits, DefaultSearchLimit when 0, at most
	// MaxSearchLimit.
	Limit int
	// TagIDs: a hit's document has all of them. KindID: its kind (schema).
	TagIDs []string
	KindID string
	// By is ByWords, ByMeaning or ByBoth ("" is ByWords).
	By string
	// Model and Vector are the embedding model and the query's vector by
	// it, for ByMeaning and ByBoth: chunks are compared with their vectors
	// by the same model.
	Model  string
	Vector []float32
}

// CheckSearchQuery refuses a query that is empty or longer than
// MaxSearchQueryChars, before anything (an embedding model) is asked.
func CheckSearchQuery(text string) error {
	if strings.TrimSpace(text) == "" {
		return Errorf(ErrInvalid, "search query is empty")
	}
	if n := utf8.RuneCountInString(text); n > MaxSearchQueryChars {
		return Errorf(ErrInvalid, "search query is %d characters long; at most %d: search with a question or a few words", n, MaxSearchQueryChars)
	}
	return nil
}

// checkListSearch refuses a list's search text (a document, schema or
// prompt name to look for) longer than MaxSearchQueryChars, as a search
// is refused: a few words of a name, not a document. SQLite itself
// fails on a LIKE pattern over 50,000 bytes, and that failure is nothing a
// person can act on.
func checkListSearch(text string) error {
	if n := utf8.RuneCountInString(text); n > MaxSearchQueryChars {
		return Errorf(ErrInvalid, "search text is %d characters long; at most %d: search with a few words of the name", n, MaxSearchQueryChars)
	}
	return nil
}

// Search finds the chunks that contain every word of query, best first.
// query is plain user text: words, not FTS5 syntax; a word ending in * also
// matches words that start with it. A query without words is invalid.
func (db *DB) Search(ctx context.Context, query string, limit int) ([]SearchHit, error) {
	return db.SearchBy(ctx, SearchQuery{Text: query, Limit: limit, By: ByWords})
}

// fusionK is reciprocal rank fusion's constant: a hit's fused score is the
// sum of 1/(fusionK + rank) over the lists it is in (rank 1 the best).
// 60 is the value of Cormack, Clarke and Büttcher (SIGIR 2009), which the
// hybrid searches Docent is compared with use too; it needs no calibration
// of BM25 against cosine scores, which have no common scale.
const fusionK = 60

// SearchBy searches by words, by meaning or both (fused by reciprocal
// rank), best first, within the documents of the tags and kind given. It
// finds nothing as an empty list, never nil, so that every answer that
// encodes the hits as JSON says [] rather than null.
func (db *DB) SearchBy(ctx context.Context, q SearchQuery) ([]SearchHit, error) {
	if err := CheckSearchQuery(q.Text); err != nil {
		return nil, err
	}
	by := q.By
	if by == "" {
		by = ByWords
	}
	if by != ByWords && by != ByMeaning && by != ByBoth {
		return nil, Errorf(ErrInvalid, "search by %q: want words, meaning or both", q.By)
	}
	if by != ByWords && (q.Model == "" || len(q.Vector) == 0) {
		return nil, Errorf(ErrInvalid, "search by %s needs an embedding model and the query's vector", by)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	match := ftsQuery(q.Text)
	if match == "" && by == ByWords {
		return nil, Errorf(ErrInvalid, "search query %q has no words to look for", q.Text)
	}
	filter, args := documentFilter(q.TagIDs, q.KindID)

	if by == ByWords {
		hits, err := db.wordHits(ctx, match, filter, args, limit)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		return hits, nil
	}
	// Each list brings more candidates than asked for, so that a chunk
	// ranked lower in both can still rise above one found by one alone.
	pool := max(3*limit, 30)
	var words []SearchHit
	if by == ByBoth && match != "" {
		var err error
		if words, err = db.wordHits(ctx, match, filter, args, pool); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
	}
	meaning, err := db.meaningHits(ctx, q.Model, q.Vector, filter, args, pool)
	if err != nil {
		return nil, err
	}
	if by == ByMeaning {
		return append([]SearchHit{}, meaning[:min(limit, len(meaning))]...), nil
	}
	return fuse(words, meaning, limit), nil
}

// documentFilter is the condition on documents d for the tags (all of
// them) and the kind, with its arguments; "" for none.
func documentFilter(tagIDs []string, kindID string) (string, []any) {
	var conds []string
	var args []any
	for _, id := range uniqueStrings(tagIDs) {
		conds = append(conds, `EXISTS (SELECT 1 FROM document_tags dt WHERE dt.document_id = d.id AND dt.tag_id = ?)`)
		args = append(args, id)
	}
	if kindID != "" {
		conds = append(conds, `d.schema_id = ?`)
		args = append(args, kindID)
	}
	return strings.Join(conds, " AND "), args
}

// wordHits is the full-text search, best first.
func (db *DB) wordHits(ctx context.Context, match, filter string, filterArgs []any, limit int) ([]SearchHit, error) {
	// The FTS table must drive the inner query for bm25() and snippet() to
	// work; the joins for page and document name come after the limit.
	where := ""
	args := []any{match}
	if filter != "" {
		where = ` AND rowid IN (SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE ` + filter + `)`
		args = append(args, filterArgs...)
	}
	args = append(args, limit)
	return queryRows(ctx, db.sql, func(s scanner) (SearchHit, error) {
		h := SearchHit{Matched: ByWords}
		err := s.Scan(&h.DocumentID, &h.DocumentName, &h.ChunkID, &h.Page, &h.Snippet, &h.Score)
		return h, err
	}, `
		WITH hits AS (
			SELECT rowid AS id,
			       snippet(chunks_fts, 0, '«', '»', '…', 16) AS snippet,
			       bm25(chunks_fts) AS rank
			  FROM chunks_fts
			 WHERE chunks_fts MATCH ?`+where+`
			 ORDER BY rank
			 LIMIT ?)
		SELECT c.document_id, d.name, c.id, c.page, h.snippet, -h.rank
		  FROM hits h
		  JOIN chunks c ON c.id = h.id
		  JOIN documents d ON d.id = c.document_id
		 ORDER BY h.rank, c.id`, args...)
}

// maxGoneRounds is how many times a search by meaning searches again
// after meeting vectors of deleted chunks (meaningHits).
const maxGoneRounds = 4

// meaningHits are the chunks whose vectors by model are nearest to vec,
// best first, scored by their exact cosine similarity.
func (db *DB) meaningHits(ctx context.Context, model string, vec []float32, filter string, filterArgs []any, limit int) ([]SearchHit, error) {
	qb, err := vectorBlob(vec)
	if err != nil {
		return nil, Errorf(ErrInvalid, "the query's vector: %v", err)
	}
	q := blobVector(qb)
	var ok map[string]bool // the documents the filter keeps
	if filter != "" {
		ok = map[string]bool{}
		err := queryEach(ctx, db.sql, func(s scanner) error {
			var id string
			err := s.Scan(&id)
			ok[id] = true
			return err
		}, `SELECT d.id FROM documents d WHERE `+filter, filterArgs...)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
	}
	var hits []SearchHit
	// A search that meets vectors of chunks deleted since the index was
	// loaded has them marked dead and searches again, so that it returns
	// as many hits as asked for; each round marks at least the documents
	// it met, and a few rounds are enough unless documents are being
	// deleted all along.
	for round := 0; ; round++ {
		x, err := db.vectorIndex(ctx, model)
		if err != nil {
			return nil, err
		}
		if x.dim == 0 {
			return nil, nil // nothing embedded with this model yet
		}
		if x.dim != len(q) {
			return nil, Errorf(ErrConflict, "%s gave the query a vector of %d dimensions, but the chunks' have %d: the model changed under its name; search by words, or choose the model again under another name", model, len(q), x.dim)
		}
		var allowed []bool
		if ok != nil {
			allowed = make([]bool, len(x.docIDs))
			for i, id := range x.docIDs {
				allowed[i] = ok[id]
			}
		}
		// The int8 scan finds twice the candidates asked for; their
		// float32 vectors then order them exactly.
		cands := x.nearest(q, 2*limit, allowed)
		if len(cands) == 0 {
			return nil, nil
		}
		ids := make([]any, 0, len(cands)+1)
		ids = append(ids, model)
		for _, c := range cands {
			ids = append(ids, x.chunkIDs[c.pos])
		}
		hits, err = queryRows(ctx, db.sql, func(s scanner) (SearchHit, error) {
			h := SearchHit{Matched: ByMeaning}
			var blob []byte
			err := s.Scan(&h.DocumentID, &h.DocumentName, &h.ChunkID, &h.Page, &h.Snippet, &blob)
			if err == nil {
				h.Score = cosine(q, blobVector(blob))
				h.Snippet = leadSnippet(h.Snippet)
			}
			return h, err
		}, `SELECT c.document_id, d.name, c.id, c.page, c.text, v.vec
		      FROM chunk_vectors v
		      JOIN chunks c ON c.id = v.chunk_id
		      JOIN documents d ON d.id = c.document_id
		     WHERE v.model = ? AND v.chunk_id IN (`+placeholders(len(cands))+`)`, ids...)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		if len(hits) == len(cands) || round == maxGoneRounds {
			break
		}
		found := make(map[int64]bool, len(hits))
		for _, h := range hits {
			found[h.ChunkID] = true
		}
		var gone []string
		for _, c := range cands {
			if doc := x.docIDs[x.docs[c.pos]]; !found[x.chunkIDs[c.pos]] && !slices.Contains(gone, doc) {
				gone = append(gone, doc)
			}
		}
		if err := db.dropGone(ctx, model, gone); err != nil {
			return nil, err
		}
	}
	// A chunk at a right angle to the query, or further, has nothing of
	// its meaning: it is no hit, however few chunks there are.
	hits = slices.DeleteFunc(hits, func(h SearchHit) bool { return h.Score <= 0 })
	slices.SortFunc(hits, func(a, b SearchHit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ChunkID, b.ChunkID)
	})
	return hits[:min(limit, len(hits))], nil
}

func cosine(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot // both have length 1
}

// leadSnippetRunes is the length of a meaning hit's snippet.
const leadSnippetRunes = 160

// leadSnippet is the start of a chunk's text on one line, for a hit that
// has no matched words to show.
func leadSnippet(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	r := []rune(text)
	if len(r) <= leadSnippetRunes {
		return text
	}
	cut := leadSnippetRunes
	for i := cut; i > cut*3/4; i-- {
		if r[i] == ' ' {
			cut = i
			break
		}
	}
	return string(r[:cut]) + "…"
}

// fuse merges the hits by words and by meaning by reciprocal rank: the
// best limit, each marked with how it matched, with the snippet by words
// where there is one. At equal scores the hit by words comes first: its
// snippet shows why it is there.
func fuse(words, meaning []SearchHit, limit int) []SearchHit {
	byChunk := map[int64]*SearchHit{}
	var order []*SearchHit
	add := func(list []SearchHit) {
		for rank, h := range list {
			score := 1 / float64(fusionK+rank+1)
			if f, ok := byChunk[h.ChunkID]; ok {
				f.Score += score
				f.Matched = ByBoth
				continue
			}
			h.Score = score
			f := &h
			byChunk[h.ChunkID] = f
			order = append(order, f)
		}
	}
	add(words)
	add(meaning)
	slices.SortStableFunc(order, func(a, b *SearchHit) int { return cmp.Compare(b.Score, a.Score) })
	out := make([]SearchHit, 0, min(limit, len(order)))
	for _, h := range order[:min(limit, len(order))] {
		out = append(out, *h)
	}
	return out
}

// ftsQuery turns user text into an FTS5 query that cannot be a syntax error:
// each whitespace-separated word becomes a quoted string (quotes inside
// doubled), so AND, OR, NOT, NEAR, -, ^, :, ( and stray quotes are just
// text; the words are ANDed. A trailing * is kept as a prefix search. Words
// without a letter or digit are dropped, since the tokenizer would find
// nothing in them, and control characters separate words (FTS5 reads its
// query as a C string: a NUL would end it inside a quoted string). It returns
// "" when no word is left.
func ftsQuery(text string) string {
	text = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, text)
	var terms []string
	for _, field := range strings.Fields(text) {
		word := strings.TrimRight(field, "*")
		if !strings.ContainsFunc(word, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) {
			continue
		}
		term := `"` + strings.ReplaceAll(word, `"`, `""`) + `"`
		if len(word) < len(field) {
			term += "*"
		}
		terms = append(terms, term)
	}
	return strings.Join(terms, " ")
}

// GetChunk returns a chunk of a document. A chunk id of another document is
// not found, so a citation cannot reach outside the document it names.
func (db *DB) GetChunk(ctx context.Context, documentID string, chunkID int64) (Chunk, error) {
	var c Chunk
	err := db.sql.QueryRowContext(ctx, `SELECT id, document_id, page, text FROM chunks WHERE id = ? AND document_id = ?`,
		chunkID, documentID).Scan(&c.ID, &c.DocumentID, &c.Page, &c.Text)
	if errors.Is(err, sql.ErrNoRows) {
		return Chunk{}, Errorf(ErrNotFound, "chunk %d not found in document %s", chunkID, documentID)
	}
	if err != nil {
		return Chunk{}, fmt.Errorf("get chunk: %w", err)
	}
	return c, nil
}
