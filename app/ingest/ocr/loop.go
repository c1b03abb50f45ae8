package ocr

import (
	"strings"
	"unicode/utf8"
)

// A vision model that loses its place repeats itself: the same line, the
// same few lines, or the same word or number, over and over until the
// output cap (peers' issue trackers are full of receipts that end in a
// thousand "0.00"). findLoop sees that in the text streamed so far: its
// end repeats one unit, back to back, at least loopMinRepeats times and
// over at least loopMinBytes bytes. Both bounds keep real text: a rule of
// dashes, leader dots or a row of an empty table is under loopMinBytes;
// eight identical lines in a row are not on a printed page.
const (
	loopMinRepeats = 8
	loopMinBytes   = 256
	// loopMaxUnit is the longest unit looked for: a few lines.
	loopMaxUnit = 1024
	// loopCheckEvery is how much new text (or a line break) makes the
	// stream look for a loop again.
	loopCheckEvery = 32
)

// findLoop reports whether s ends in a loop and, if so, how much of s to
// keep: the text before the loop and one copy of its unit (up to the end
// of its line or word).
func findLoop(s string) (keep int, ok bool) {
	n := len(s)
	for p := 1; p <= loopMaxUnit && max(p*loopMinRepeats, loopMinBytes) <= n; p++ {
		need := max(p*loopMinRepeats, loopMinBytes)
		// The last need bytes repeat with period p.
		if s[n-1] != s[n-1-p] || s[n-need:n-p] != s[n-need+p:] {
			continue
		}
		start := n - need
		for start > 0 && s[start-1] == s[start-1+p] {
			start--
		}
		// One copy of the unit, which may begin mid-line or mid-word
		// (the loop's first copy is where the repetition starts): up to
		// the end of its line, or of its word.
		keep = start + p
		unit := s[start:keep]
		for _, sep := range []byte{'\n', ' '} {
			if strings.IndexByte(unit, sep) < 0 {
				continue
			}
			if s[keep-1] != sep {
				if i := strings.IndexByte(s[keep:], sep); i >= 0 {
					keep += i + 1
				}
			}
			break
		}
		for keep < n && !utf8.RuneStart(s[keep]) {
			keep++
		}
		return keep, true
	}
	return 0, false
}
