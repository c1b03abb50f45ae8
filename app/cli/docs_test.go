package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/cli.md's synopsis holds each command's usage line exactly as
// `docent help` prints it, and no line for a command that does not exist.
func TestCLIDocHasEveryUsageLine(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatalf("read docs/cli.md: %v", err)
	}
	_, rest, ok := strings.Cut(string(data), "\n```\n")
	synopsis, _, ok2 := strings.Cut(rest, "\n```\n")
	if !ok || !ok2 {
		t.Fatal("docs/cli.md has no synopsis block (``` ... ```)")
	}
	lines := strings.Split(synopsis, "\n")
	known := map[string]bool{"help": true} // printed by run itself
	for _, c := range commands() {
		known[c.name] = true
		want := "docent " + c.usage
		found := false
		for _, l := range lines {
			found = found || l == want
		}
		if !found {
			t.Errorf("docs/cli.md's synopsis has no line\n  %s", want)
		}
	}
	for _, l := range lines {
		name, _, _ := strings.Cut(strings.TrimPrefix(l, "docent "), " ")
		if strings.HasPrefix(l, "docent ") && name != "" && !strings.HasPrefix(name, "-") && !known[name] {
			t.Errorf("docs/cli.md's synopsis names a command docent does not have: %s", l)
		}
	}
}
