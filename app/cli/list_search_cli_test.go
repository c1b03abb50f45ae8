package cli

import (
	"strings"
	"testing"
)

// `docent documents --search` with text longer than the search limit
// (2,000 characters) fails saying the limit, not with an internal error;
// at the limit it lists as usual.
func TestDocumentsSearchIsHeldToTheSearchLimit(t *testing.T) {
	data := importNote(t)
	if code, out, errOut := docent(t, data, "documents", "--search", strings.Repeat("a", 2000)); code != ExitOK {
		t.Fatalf("documents --search of 2,000 characters: %d %s %s", code, out, errOut)
	}
	code, _, errOut := docent(t, data, "documents", "--search", strings.Repeat("a", 50000))
	if code != ExitFailure || errOut != "docent: search text is 50000 characters long; at most 2000: search with a few words of the name\n" {
		t.Fatalf("documents --search of 50,000 characters: exit %d, stderr %q", code, errOut)
	}
}
