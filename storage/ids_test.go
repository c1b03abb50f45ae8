package storage

import (
	"sort"
	"strings"
	"testing"
	"time"
)

func TestNewIDIsPrefixedSortableCrockford(t *testing.T) {
	var got []string
	seen := map[string]bool{}
	for range 10000 {
		id := newID(prefixDocument)
		if !strings.HasPrefix(id, "doc_") || len(id) != 30 {
			t.Fatalf("id %q: want doc_ + 26 characters", id)
		}
		for _, r := range id[4:] {
			if !strings.ContainsRune(crockford, r) {
				t.Fatalf("id %q has %q, not Crockford base32", id, r)
			}
		}
		if seen[id] {
			t.Fatalf("id %q made twice", id)
		}
		seen[id] = true
		got = append(got, id)
	}
	if !sort.StringsAreSorted(got) {
		t.Error("ids do not sort in the order they were made")
	}
}

func TestULIDEncodesTime(t *testing.T) {
	var g ulids
	at := time.UnixMilli(1469918176385) // the ULID spec's example: 01ARYZ6S41
	if id := g.next(at); id[:10] != "01ARYZ6S41" {
		t.Errorf("time part %q, want 01ARYZ6S41", id[:10])
	}
	// A clock that steps back does not make ids go backwards.
	a := g.next(at)
	b := g.next(at.Add(-time.Hour))
	if b <= a {
		t.Errorf("id after a clock step back %s <= %s", b, a)
	}
}

func TestEncodeCrockford(t *testing.T) {
	var max [16]byte
	for i := range max {
		max[i] = 0xff
	}
	if got := encodeCrockford(max); got != "7ZZZZZZZZZZZZZZZZZZZZZZZZZ" {
		t.Errorf("max = %s", got)
	}
	if got := encodeCrockford([16]byte{15: 1}); got != "00000000000000000000000001" {
		t.Errorf("one = %s", got)
	}
}
