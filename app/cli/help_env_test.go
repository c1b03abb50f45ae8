package cli

import (
	"strings"
	"testing"

	"github.com/docent/docent/storage/envvar"
)

// `docent help env` prints every row of the one table of environment
// variables: the name, its flag and its default.
func TestHelpEnvPrintsTheTable(t *testing.T) {
	code, out, errOut := docent(t, t.TempDir(), "help", "env")
	if code != ExitOK {
		t.Fatalf("docent help env: exit %d, stderr %q", code, errOut)
	}
	rows := envvar.Table()
	if len(rows) < 10 {
		t.Fatalf("the table has %d rows", len(rows))
	}
	for _, v := range rows {
		line := "\n  " + string(v.Name)
		if v.Flag != "" {
			line += "  (flag " + v.Flag + ")"
		}
		if !strings.Contains(out, line+"\n") {
			t.Errorf("docent help env has no line %q:\n%s", strings.TrimSpace(line), out)
		}
		if !strings.Contains(out, "default: "+v.Default+"\n") {
			t.Errorf("docent help env does not give %s's default %q", v.Name, v.Default)
		}
	}
	if !strings.Contains(out, "Docent's own:") || !strings.Contains(out, "The platform's") {
		t.Errorf("docent help env does not separate Docent's variables from the platform's:\n%s", out)
	}

	if code, _, errOut := docent(t, t.TempDir(), "help", "nonsense"); code != ExitUsage || !strings.Contains(errOut, "help env") {
		t.Errorf("docent help nonsense: exit %d, stderr %q; want 2 naming the topics", code, errOut)
	}
	if _, out, _ := docent(t, t.TempDir(), "help"); !strings.Contains(out, "docent help env") {
		t.Errorf("docent help does not point at docent help env:\n%s", out)
	}
}
