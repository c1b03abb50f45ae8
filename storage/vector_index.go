package storage

import (
	"container/heap"
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
)

// Search by meaning compares the query's vector with every chunk's: brute
// force, which needs no index structure to keep in step with the table.
// To stay fast at 100,000 chunks it runs in three steps, each on fewer
// vectors and more exact than the one before:
//
//  1. every vector's signs (768 bits in 12 words) against the query's
//     values: the dot product of the query with the signs, by table
//     look-up a byte of signs at a time, keeps the best tenth
//     (shortlistSize);
//  2. those vectors as int8, each with its own scale, keep the k best by
//     their dot product with the query;
//  3. those are scored exactly with their float32 vectors from the table
//     (meaningHits).
//
// Only the bits and the int8 codes are in memory (about 78 MB for 100,000
// vectors of 768 dimensions). docs/benchmarks.md has the figures: time
// per query and the recall against an exact float32 scan.

// vectorCache holds the index of the embedding model searched last,
// loaded on first use and then kept in step with the table without
// loading it again: vectors stored since are appended (chunk_vectors.id
// only grows), and vectors of chunks deleted since (a document deleted,
// a page read again by OCR) are marked dead when a search meets them
// (dropGone). Only one model's index is kept: the app searches with the
// one embedding model of its settings, and an index of 100,000 vectors
// is about 78 MB, which a model no longer used should not hold for the
// process's life.
type vectorCache struct {
	mu    sync.Mutex
	model string
	index *vectorIndex
	// loads counts the indexes loaded from the table from scratch, for
	// the tests that check a deletion or a change of model costs none.
	loads int
}

// vectorIndex is one model's vectors, quantised. Its slices only grow,
// or are replaced whole (dead, compact); a search works on a copy of the
// struct, whose elements are never changed.
type vectorIndex struct {
	dim      int
	lastID   int64   // the largest chunk_vectors.id loaded
	chunkIDs []int64 // per vector
	docs     []int32 // per vector, an index into docIDs
	docIDs   []string
	docIndex map[string]int32
	codes    []int8    // len(chunkIDs)*dim
	scales   []float32 // per vector: value = code * scale
	words    int       // uint64s of signs per vector
	signs    []uint64  // len(chunkIDs)*words: bit j set when value j > 0
	// dead, when not nil, marks the vectors (by position) whose chunks
	// have been deleted since they were loaded: searches skip them. It is
	// copied before a change, as searches may hold the old one; ndead
	// counts the marks.
	dead  []bool
	ndead int
}

func newVectorIndex() *vectorIndex { return &vectorIndex{docIndex: map[string]int32{}} }

// add appends one vector (of length 1) of a chunk of document doc.
func (x *vectorIndex) add(chunkID int64, doc string, v []float32) {
	if x.dim == 0 {
		x.dim = len(v)
		x.words = (len(v) + 63) / 64
		x.grow(cap(x.chunkIDs) - len(x.chunkIDs)) // the room grow left for them
	}
	scale := quantise(v, &x.codes)
	x.signs = appendSigns(x.signs, v)
	x.chunkIDs = append(x.chunkIDs, chunkID)
	x.docs = append(x.docs, x.docOf(doc))
	x.scales = append(x.scales, scale)
	if x.dead != nil {
		x.dead = append(x.dead, false)
	}
}

// docOf is doc's index in docIDs, added when it is new.
func (x *vectorIndex) docOf(doc string) int32 {
	d, ok := x.docIndex[doc]
	if !ok {
		d = int32(len(x.docIDs))
		x.docIDs = append(x.docIDs, doc)
		x.docIndex[doc] = d
	}
	return d
}

// grow makes room for n more vectors, once their size is known.
func (x *vectorIndex) grow(n int) {
	if n <= 0 {
		return
	}
	x.chunkIDs = slices.Grow(x.chunkIDs, n)
	x.docs = slices.Grow(x.docs, n)
	x.scales = slices.Grow(x.scales, n)
	if x.dim > 0 {
		x.codes = slices.Grow(x.codes, n*x.dim)
		x.signs = slices.Grow(x.signs, n*x.words)
	}
}

// quantise appends v as int8 codes to codes and returns their scale: the
// largest magnitude maps to 127. It and appendSigns run on every vector
// when an index is loaded, so both avoid branches on the values (random
// signs defeat the branch predictor) and float64 conversions: they were
// half the first search's time after opening the database.
func quantise(v []float32, codes *[]int8) float32 {
	// The largest magnitude by its bits: non-negative floats order as
	// their bits do, and an integer max has no NaN case to branch on.
	var mb uint32
	for _, f := range v {
		mb = max(mb, math.Float32bits(f)&^signBit)
	}
	m := math.Float32frombits(mb)
	if m == 0 {
		m = 1
	}
	scale := m / 127
	inv := 127 / m
	out := slices.Grow(*codes, len(v))
	for _, f := range v {
		// Round half away from zero, as math.Round: add ±0.5, truncate.
		r := f * inv
		half := math.Float32frombits(0x3f000000 | math.Float32bits(r)&signBit)
		out = append(out, int8(int32(r+half)))
	}
	*codes = out
	return scale
}

const signBit = 1 << 31

// appendSigns appends v's signs, 64 to a word: bit j set when v[j] > 0.
func appendSigns(signs []uint64, v []float32) []uint64 {
	for i := 0; i < len(v); i += 64 {
		var w uint64
		for j := i; j < min(i+64, len(v)); j++ {
			b := math.Float32bits(v[j])
			// 1 when the sign is + and the magnitude not 0 (-m is
			// negative as an int32 for every m > 0).
			pos := (^b >> 31) & (uint32(-int32(b&^signBit)) >> 31)
			w |= uint64(pos) << (j - i)
		}
		signs = append(signs, w)
	}
	return signs
}

// shortlistSize is how many vectors the sign scan passes to the int8
// one: a tenth, at least 2,000 and 20 per hit asked for. A twentieth lost
// 4% of the exact top 10 (TestVectorScanRecall), a tenth under 1%; the
// int8 step then costs about what the sign scan does.
func shortlistSize(n, k int) int { return min(n, max(2000, 20*k, n/10)) }

// dotInt8 is the dot product of two code vectors of equal length, four
// sums side by side so the CPU overlaps them.
func dotInt8(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	for len(a) >= 8 && len(b) >= 8 {
		s0 += int32(a[0])*int32(b[0]) + int32(a[4])*int32(b[4])
		s1 += int32(a[1])*int32(b[1]) + int32(a[5])*int32(b[5])
		s2 += int32(a[2])*int32(b[2]) + int32(a[6])*int32(b[6])
		s3 += int32(a[3])*int32(b[3]) + int32(a[7])*int32(b[7])
		a, b = a[8:], b[8:]
	}
	for i := range a {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// candidate is a vector's position in the index with its score.
type candidate struct {
	pos   int
	score float32
}

// minHeap keeps the k best candidates, the worst on top.
type minHeap []candidate

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i].score < h[j].score }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(candidate)) }
func (h *minHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// nearest returns the positions of the k vectors most similar to q (of
// length 1), best first, by their int8 codes among the shortlist of the
// best by signs; allowed, when not nil, says which documents may be
// returned. Dead vectors are never returned.
func (x *vectorIndex) nearest(q []float32, k int, allowed []bool) []candidate {
	if k <= 0 || x.dim == 0 || len(q) != x.dim {
		return nil
	}
	n := len(x.chunkIDs)
	// Step 1: each vector's signs against the query's values: the sum of
	// q[j] where the sign is +, which orders vectors as the dot product of
	// q with their signs does. A table per byte of signs (the sum for each
	// of its 256 values) makes it 96 look-ups a vector at 768 dimensions.
	bytesPer := x.words * 8
	table := make([]float32, bytesPer*256)
	for b := range bytesPer {
		t := table[b*256 : (b+1)*256]
		for v := 1; v < 256; v++ {
			low := v & -v // the lowest bit set: t[v] = t[v without it] + q[that dim]
			j := b*8 + bits.TrailingZeros(uint(low))
			var qj float32
			if j < len(q) {
				qj = q[j]
			}
			t[v] = t[v^low] + qj
		}
	}
	score := make([]float32, n)
	for i := range n {
		if allowed != nil && !allowed[x.docs[i]] || x.dead != nil && x.dead[i] {
			score[i] = float32(math.Inf(-1))
			continue
		}
		var s float32
		t := table
		for _, w := range x.signs[i*x.words : (i+1)*x.words] {
			s += t[w&0xff] + t[256+(w>>8&0xff)] + t[512+(w>>16&0xff)] + t[768+(w>>24&0xff)] +
				t[1024+(w>>32&0xff)] + t[1280+(w>>40&0xff)] + t[1536+(w>>48&0xff)] + t[1792+(w>>56)]
			t = t[2048:]
		}
		score[i] = s
	}
	short := shortlist(score, shortlistSize(n, k))
	// Step 2: the int8 dot product over the shortlist.
	codes := make([]int8, 0, x.dim)
	qs := quantise(q, &codes)
	h := make(minHeap, 0, k+1)
	dim := x.dim
	for _, i := range short {
		s := float32(dotInt8(codes, x.codes[i*dim:(i+1)*dim])) * x.scales[i]
		if len(h) < k {
			heap.Push(&h, candidate{i, s})
		} else if s > h[0].score {
			h[0] = candidate{i, s}
			heap.Fix(&h, 0)
		}
	}
	out := make([]candidate, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(candidate)
	}
	for i := range out {
		out[i].score *= qs
	}
	return out
}

// shortlist returns the positions of the m highest scores (ties may add a
// few), skipping -Inf, in position order.
func shortlist(score []float32, m int) []int {
	if m >= len(score) {
		out := make([]int, 0, len(score))
		for i, s := range score {
			if !math.IsInf(float64(s), -1) {
				out = append(out, i)
			}
		}
		return out
	}
	// The m-th highest score, found on a sample-free copy: quickselect.
	c := slices.Clone(score)
	cut := quickselect(c, m)
	out := make([]int, 0, m+16)
	for i, s := range score {
		if s >= cut && !math.IsInf(float64(s), -1) {
			out = append(out, i)
		}
	}
	return out
}

// quickselect returns the m-th highest value of a (reordering it).
func quickselect(a []float32, m int) float32 {
	lo, hi, want := 0, len(a)-1, m-1
	for lo < hi {
		p := a[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for a[i] > p {
				i++
			}
			for a[j] < p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case want <= j:
			hi = j
		case want >= i:
			lo = i
		default:
			return a[want]
		}
	}
	return a[want]
}

// vectorIndex returns model's index brought up to date with the vectors
// stored since it was loaded. The index of another model, searched
// before, is dropped.
func (db *DB) vectorIndex(ctx context.Context, model string) (vectorIndex, error) {
	c := &db.vectors
	c.mu.Lock()
	defer c.mu.Unlock()
	x := c.index
	if x == nil || c.model != model {
		// Drop the old model's index before loading the new one, so the
		// two are never in memory at once.
		c.index, c.model = nil, ""
		x = newVectorIndex()
		c.loads++
	}
	var last int64
	if err := db.sql.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM chunk_vectors`).Scan(&last); err != nil {
		return vectorIndex{}, fmt.Errorf("vector index: %w", err)
	}
	if last > x.lastID {
		// Room for the new vectors at once: growing 77 MB of codes by
		// doubling cost a fifth of a load.
		var n int
		if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM chunk_vectors WHERE model = ? AND id > ? AND id <= ?`, model, x.lastID, last).Scan(&n); err != nil {
			return vectorIndex{}, fmt.Errorf("vector index: %w", err)
		}
		x.grow(n)
		var v []float32 // one buffer for every row: add copies what it keeps
		// No ORDER BY: the vectors' order in the index does not matter,
		// and sorting 300 MB of rows by id (the planner takes the model's
		// index, in chunk order) made the first search after opening take
		// seconds. The ids up to last only: a vector stored meanwhile is
		// for the next search, which would otherwise add it twice.
		err := queryEach(ctx, db.sql, func(s scanner) error {
			var chunk int64
			var doc string
			var blob sql.RawBytes // SQLite's own bytes, decoded at once: no copy
			if err := s.Scan(&chunk, &doc, &blob); err != nil {
				return err
			}
			v = blobVectorInto(v, blob)
			if x.dim != 0 && len(v) != x.dim {
				return fmt.Errorf("chunk %d: a vector of %d dimensions among %d", chunk, len(v), x.dim)
			}
			x.add(chunk, doc, v)
			return nil
		}, `SELECT v.chunk_id, c.document_id, v.vec FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id
		     WHERE v.model = ? AND v.id > ? AND v.id <= ?`, model, x.lastID, last)
		if err != nil {
			// Vectors appended before the error are kept, but lastID is
			// not moved: drop the index so that the next search loads
			// it whole rather than append them twice.
			if c.index == x {
				c.index, c.model = nil, ""
			}
			return vectorIndex{}, fmt.Errorf("vector index: %w", err)
		}
		x.lastID = last
	}
	c.index, c.model = x, model
	return *x, nil
}

// dropGone marks dead, in model's index, the vectors of the documents
// given whose chunks are no longer in the table with a vector by model:
// a search met some of them (their chunks deleted since the index was
// loaded), and what deletes chunks deletes them by document or page, so
// the document's others are likely gone too. A document deleted whole
// has no chunk left and all its vectors go at once.
func (db *DB) dropGone(ctx context.Context, model string, docs []string) error {
	live := map[int64]bool{}
	args := make([]any, 0, len(docs)+1)
	args = append(args, model)
	for _, doc := range docs {
		args = append(args, doc)
	}
	err := queryEach(ctx, db.sql, func(s scanner) error {
		var id int64
		err := s.Scan(&id)
		live[id] = true
		return err
	}, `SELECT v.chunk_id FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id
	     WHERE v.model = ? AND c.document_id IN (`+placeholders(len(docs))+`)`, args...)
	if err != nil {
		return fmt.Errorf("vector index: %w", err)
	}
	c := &db.vectors
	c.mu.Lock()
	defer c.mu.Unlock()
	x := c.index
	if x == nil || c.model != model {
		return nil
	}
	var dead []bool
	for _, doc := range docs {
		d, ok := x.docIndex[doc]
		if !ok {
			continue
		}
		for i, di := range x.docs {
			if di != d || live[x.chunkIDs[i]] || x.dead != nil && x.dead[i] {
				continue
			}
			if dead == nil {
				dead = make([]bool, len(x.chunkIDs))
				copy(dead, x.dead)
			}
			dead[i] = true
			x.ndead++
		}
	}
	if dead != nil {
		x.dead = dead
	}
	if x.ndead > 0 && x.ndead >= len(x.chunkIDs)/4 {
		c.index = x.compact()
	}
	return nil
}

// compact is x without its dead vectors, in new slices: once a quarter
// of an index is dead, the memory and the time its scans take are worth
// a copy (still no load from the table).
func (x *vectorIndex) compact() *vectorIndex {
	n := len(x.chunkIDs) - x.ndead
	y := &vectorIndex{
		dim: x.dim, lastID: x.lastID, words: x.words, docIndex: map[string]int32{},
		chunkIDs: make([]int64, 0, n), docs: make([]int32, 0, n), scales: make([]float32, 0, n),
		codes: make([]int8, 0, n*x.dim), signs: make([]uint64, 0, n*x.words),
	}
	for i := range x.chunkIDs {
		if x.dead != nil && x.dead[i] {
			continue
		}
		y.chunkIDs = append(y.chunkIDs, x.chunkIDs[i])
		y.docs = append(y.docs, y.docOf(x.docIDs[x.docs[i]]))
		y.scales = append(y.scales, x.scales[i])
		y.codes = append(y.codes, x.codes[i*x.dim:(i+1)*x.dim]...)
		y.signs = append(y.signs, x.signs[i*x.words:(i+1)*x.words]...)
	}
	return y
}
