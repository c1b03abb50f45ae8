package storage

import "unicode"

// Chunks are the unit of full-text search and of citations. About 1,000
// characters keeps a hit's context readable and a citation short enough to
// quote; the overlap makes a phrase that straddles a boundary appear whole
// in one chunk or the next.
const (
	chunkSize    = 1000
	chunkOverlap = 100
)

// chunkText splits text into pieces of at most size characters (runes, so
// multi-byte text is never cut inside a character). A piece ends at the last
// paragraph break in its second half, else the last line break, else the last
// space, else at size characters; the next piece starts about overlap
// characters earlier, at the start of a word. Pieces are trimmed of
// surrounding space; text with no visible characters gives none.
func chunkText(text string, size, overlap int) []string {
	if size < 2 {
		size = 2
	}
	overlap = max(0, min(overlap, size/2-1))
	r := []rune(text)
	var chunks []string
	start := skipSpace(r, 0)
	for start < len(r) {
		if len(r)-start <= size {
			chunks = appendTrimmed(chunks, r[start:])
			break
		}
		cut := breakPoint(r, start+size/2, start+size)
		chunks = appendTrimmed(chunks, r[start:cut])
		next := wordStart(r, cut-overlap, cut)
		if next <= start { // cannot happen while overlap < size/2; keep it certain
			next = cut
		}
		start = skipSpace(r, next)
	}
	return chunks
}

// breakPoint returns where a chunk that may end anywhere in r[lo:hi] should
// end (exclusive): just after the last paragraph break, else line break,
// else space, in that window; else at hi.
func breakPoint(r []rune, lo, hi int) int {
	for i := hi - 1; i > lo; i-- {
		if r[i] == '\n' && r[i-1] == '\n' {
			return i + 1
		}
	}
	for i := hi - 1; i >= lo; i-- {
		if r[i] == '\n' {
			return i + 1
		}
	}
	for i := hi - 1; i >= lo; i-- {
		if unicode.IsSpace(r[i]) {
			return i + 1
		}
	}
	return hi
}

// wordStart returns from when a word starts there, else the start of the
// next word before limit, else from (the text has no space to break at).
func wordStart(r []rune, from, limit int) int {
	if from <= 0 {
		return 0
	}
	if unicode.IsSpace(r[from-1]) {
		return from
	}
	for i := from; i < limit; i++ {
		if unicode.IsSpace(r[i]) {
			return i + 1
		}
	}
	return from
}

func skipSpace(r []rune, i int) int {
	for i < len(r) && unicode.IsSpace(r[i]) {
		i++
	}
	return i
}

func appendTrimmed(chunks []string, r []rune) []string {
	end := len(r)
	for end > 0 && unicode.IsSpace(r[end-1]) {
		end--
	}
	if end == 0 {
		return chunks
	}
	return append(chunks, string(r[:end]))
}
