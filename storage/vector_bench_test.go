package storage

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The figures of docs/benchmarks.md ("Search by meaning"): the time of one
// query over 100,000 chunks of 768 dimensions (nomic-embed-text's and
// embeddinggemma's size) on one core (go test -bench VectorScan -cpu 1),
// and the recall of the int8 scan against an exact float32 one.

const benchDim = 768

// clustered returns n vectors of length 1 around a few hundred topics, as
// embeddings of documents are (random vectors in 768 dimensions would all
// be about equally far apart, and any ranking of them noise).
func clustered(r *rand.Rand, n, dim int) [][]float32 {
	centres := make([][]float32, 300)
	for i := range centres {
		centres[i] = gaussian(r, dim, 1)
	}
	out := make([][]float32, n)
	for i := range out {
		c := centres[r.IntN(len(centres))]
		v := gaussian(r, dim, 0.6)
		for j := range v {
			v[j] += c[j]
		}
		out[i] = normalised(v)
	}
	return out
}

func gaussian(r *rand.Rand, dim int, sd float64) []float32 {
	v := make([]float32, dim)
	for j := range v {
		v[j] = float32(r.NormFloat64() * sd)
	}
	return v
}

func normalised(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	n = math.Sqrt(n)
	for j := range v {
		v[j] = float32(float64(v[j]) / n)
	}
	return v
}

func BenchmarkVectorScan100k(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	x := newVectorIndex()
	for i, v := range clustered(r, 100_000, benchDim) {
		x.add(int64(i+1), "doc", v)
	}
	queries := clustered(r, 64, benchDim)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if got := x.nearest(queries[i%len(queries)], 60, nil); len(got) != 60 {
			b.Fatalf("%d candidates", len(got))
		}
	}
}

// TestVectorScanRecall measures what the sign and int8 steps lose: of the
// exact top 10 by float32 cosine over 50,000 vectors, how many the search
// returns, which asks them for twice the hits wanted and orders those
// exactly (meaningHits). It must stay above 0.95; the figure is logged for
// docs/benchmarks.md.
func TestVectorScanRecall(t *testing.T) {
	if testing.Short() {
		t.Skip("a 50,000-vector scan")
	}
	r := rand.New(rand.NewPCG(3, 4))
	data := clustered(r, 50_000, benchDim)
	x := newVectorIndex()
	for i, v := range data {
		x.add(int64(i), "doc", v)
	}
	const k, queries = 10, 50
	found := 0
	score := make([]float64, len(data))
	for _, q := range clustered(r, queries, benchDim) {
		exact := make([]int, len(data))
		for i := range exact {
			exact[i] = i
			score[i] = cosine(q, data[i])
		}
		slices.SortFunc(exact, func(a, b int) int { return -cmpFloat(score[a], score[b]) })
		cands := x.nearest(q, 2*k, nil)
		slices.SortFunc(cands, func(a, b candidate) int { return -cmpFloat(score[a.pos], score[b.pos]) })
		top := map[int]bool{}
		for _, c := range cands[:k] {
			top[c.pos] = true
		}
		for _, i := range exact[:k] {
			if top[i] {
				found++
			}
		}
	}
	recall := float64(found) / float64(k*queries)
	t.Logf("recall@%d over %d vectors, %d candidates re-ranked exactly: %.4f", k, len(data), 2*k, recall)
	if recall < 0.95 {
		t.Errorf("recall %.4f, want at least 0.95", recall)
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// benchSQLite100k builds a database of 100,000 chunks (100 documents of
// 1,000 pages of a dozen words each) with a 768-dimension vector for
// each, clustered as clustered's are, and returns its path, the model and
// queries drawn from the same topics. It takes a minute or so; the
// benchmarks that use it share one.
func benchSQLite100k(b *testing.B) (path, model string, queries [][]float32) {
	b.Helper()
	ctx := context.Background()
	path = filepath.Join(b.TempDir(), "docent.db")
	db, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(5, 6))
	vocab := strings.Fields("rechnung invoice betrag total steuer taxi auto miete hotel reise flug zahlung konto kunde lieferung rabatt preis menge ware datum versicherung bahn ticket kosten spesen")
	const docs, pages = 100, 1000
	for d := range docs {
		nd := NewDocument{Name: fmt.Sprintf("doc%03d.txt", d), MediaType: "text/plain", Pages: make([]string, pages)}
		for p := range nd.Pages {
			words := make([]string, 12)
			for i := range words {
				words[i] = vocab[r.IntN(len(vocab))]
			}
			nd.Pages[p] = strings.Join(words, " ")
		}
		nd.Data = []byte(nd.Name)
		if _, err := db.CreateDocument(ctx, nd); err != nil {
			b.Fatal(err)
		}
	}
	model = "bench-model"
	centres := clustered(r, 300, benchDim)
	near := func() []float32 {
		c := centres[r.IntN(len(centres))]
		v := gaussian(r, benchDim, 0.6/math.Sqrt(benchDim))
		for j := range v {
			v[j] += c[j]
		}
		return normalised(v)
	}
	for {
		todo, err := db.ChunksToEmbed(ctx, model, 0, 2000)
		if err != nil {
			b.Fatal(err)
		}
		if len(todo) == 0 {
			break
		}
		batch := make([]ChunkVector, len(todo))
		for i, c := range todo {
			batch[i] = ChunkVector{c.ID, near()}
		}
		if err := db.StoreVectors(ctx, model, batch); err != nil {
			b.Fatal(err)
		}
	}
	if p, err := db.EmbedProgress(ctx, model, ""); err != nil || p.Embedded != docs*pages {
		b.Fatalf("built %+v %v, want %d chunks embedded", p, err, docs*pages)
	}
	for range 64 {
		queries = append(queries, near())
	}
	return path, model, queries
}

// BenchmarkSearchByMeaningSQLite100k is a search by meaning through
// SQLite at 100,000 chunks (go test -bench SearchByMeaningSQLite100k
// -cpu 1 -run '^$' ./storage/): the first query after the database is
// opened, which loads the index from the table, and the queries after it,
// by meaning and by both (with the full-text search and the fusion).
func BenchmarkSearchByMeaningSQLite100k(b *testing.B) {
	path, model, queries := benchSQLite100k(b)
	ctx := context.Background()
	search := func(b *testing.B, db *DB, i int, by string) {
		hits, err := db.SearchBy(ctx, SearchQuery{Text: "taxi rechnung", By: by, Model: model, Vector: queries[i%len(queries)], Limit: 10})
		if err != nil || len(hits) != 10 {
			b.Fatalf("%d hits, %v", len(hits), err)
		}
	}
	b.Run("first-query-after-open", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			db, err := Open(ctx, path)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			search(b, db, i, ByMeaning)
			b.StopTimer()
			if err := db.Close(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
	for _, by := range []string{ByMeaning, ByBoth} {
		b.Run("warm-by-"+by, func(b *testing.B) {
			db, err := Open(ctx, path)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			search(b, db, 0, by) // the load
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				search(b, db, i, by)
			}
		})
	}
}

// The branch-free quantise and appendSigns agree with the plain
// definitions: codes round(v/scale) half away from zero, signs v > 0.
func TestQuantiseAndSignsMatchTheirDefinitions(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, v := range append(clustered(r, 20, 100),
		[]float32{0, float32(math.Copysign(0, -1)), 0.5, -0.5, 1, -1, 1e-30, -1e-30},
		[]float32{0, 0, 0}) {
		var codes []int8
		scale := quantise(v, &codes)
		var m float64
		for _, f := range v {
			m = max(m, math.Abs(float64(f)))
		}
		if m == 0 {
			m = 1
		}
		if want := float32(m / 127); math.Abs(float64(scale-want)) > 1e-6*float64(want) {
			t.Fatalf("scale %v, want %v", scale, want)
		}
		signs := appendSigns(nil, v)
		for j, f := range v {
			want := math.Round(float64(f) * 127 / m)
			if d := math.Abs(float64(codes[j]) - want); d > 1 || d == 1 && math.Abs(math.Abs(float64(f)*127/m-math.Trunc(float64(f)*127/m))-0.5) > 1e-4 {
				t.Errorf("%v: code %d, want %v", f, codes[j], want)
			}
			if got := signs[j/64]>>(j%64)&1 == 1; got != (f > 0) {
				t.Errorf("%v: sign bit %v, want %v", f, got, f > 0)
			}
		}
	}
}
