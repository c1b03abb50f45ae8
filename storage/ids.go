package storage

import (
	"crypto/rand"
	"sync"
	"time"
)

// ID prefixes say what an id names, so that "doc_01J…" in a log line, a tool
// argument or a resource link needs no further context.
const (
	prefixDocument       = "doc"
	prefixTag            = "tag"
	prefixSchema         = "sch"
	prefixSchemaRevision = "srv"
	prefixPrompt         = "prm"
	prefixPromptRevision = "prv"
	prefixExtraction     = "ext"
	prefixThread         = "thr"
	prefixTurn           = "turn"
	prefixEvaluation     = "evl"
)

// crockford is the Crockford base32 alphabet used by ULIDs: no I, L, O or U,
// so ids survive being read aloud or retyped.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// ulids makes ULID-style identifiers: 48 bits of milliseconds since the Unix
// epoch followed by 80 random bits, 26 characters in all. Ids made later sort
// after ids made earlier; within one millisecond the random part is
// incremented rather than drawn again (the ULID "monotonic" rule), so ids made
// by this process always sort in the order they were made, which listing
// relies on to break ties between equal timestamps.
type ulids struct {
	mu   sync.Mutex
	ms   uint64
	rand [10]byte
}

var idSource ulids

// newID returns prefix + "_" + a new ULID.
func newID(prefix string) string {
	return prefix + "_" + idSource.next(time.Now())
}

func (g *ulids) next(now time.Time) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	ms := uint64(now.UnixMilli())
	if ms <= g.ms && g.ms != 0 {
		// Same millisecond, or the clock stepped back: keep the last time and
		// count up from the last random value so the order still holds.
		ms = g.ms
		if !increment(g.rand[:]) {
			// 2^80 ids in one millisecond: move on to the next one.
			ms++
			fillRandom(g.rand[:])
		}
	} else {
		fillRandom(g.rand[:])
	}
	g.ms = ms

	var b [16]byte
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (40 - 8*i))
	}
	copy(b[6:], g.rand[:])
	return encodeCrockford(b)
}

func fillRandom(b []byte) {
	// crypto/rand.Read never returns an error on supported platforms; it
	// crashes the program instead if the system's source is broken.
	_, _ = rand.Read(b)
}

// increment adds one to the big-endian number in b, reporting false when it
// wrapped around to zero.
func increment(b []byte) bool {
	for i := len(b) - 1; i >= 0; i-- {
		b[i]++
		if b[i] != 0 {
			return true
		}
	}
	return false
}

// encodeCrockford writes 128 bits as 26 base32 digits, most significant
// first (the first digit carries only 3 bits), as the ULID spec does.
func encodeCrockford(b [16]byte) string {
	var out [26]byte
	// Take the 128 bits as two 64-bit halves and emit 5 bits at a time from
	// the least significant end.
	hi := uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
	lo := uint64(b[8])<<56 | uint64(b[9])<<48 | uint64(b[10])<<40 | uint64(b[11])<<32 |
		uint64(b[12])<<24 | uint64(b[13])<<16 | uint64(b[14])<<8 | uint64(b[15])
	for i := 25; i >= 0; i-- {
		out[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}
