package agent

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docs/tools.md lists every tool of the registry under its access class,
// in the registry's order, and no tool that does not exist.
func TestToolsDocListsEveryTool(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "tools.md"))
	if err != nil {
		t.Fatalf("read docs/tools.md: %v", err)
	}
	_, rest, ok := strings.Cut(string(data), "\n## Read-only")
	readOnly, readWrite, ok2 := strings.Cut(rest, "\n## Read-write")
	if !ok || !ok2 {
		t.Fatal(`docs/tools.md has no "## Read-only" and "## Read-write" sections`)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|")
	names := func(section string) []string {
		var out []string
		for _, m := range row.FindAllStringSubmatch(section, -1) {
			out = append(out, m[1])
		}
		return out
	}
	for _, c := range []struct {
		access Access
		got    []string
		want   []string
	}{
		{ReadOnly, names(readOnly), ReadOnlyToolNames()},
		{ReadWrite, names(readWrite), ReadWriteToolNames()},
	} {
		if strings.Join(c.got, " ") != strings.Join(c.want, " ") {
			t.Errorf("docs/tools.md lists the %s tools\n  %v\nthe registry has\n  %v", c.access, c.got, c.want)
		}
	}
}
