package storage

import (
	"math"
	"math/rand/v2"
	"slices"
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
