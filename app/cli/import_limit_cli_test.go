package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/testcorpus"
)

// TestImportAtTheSpendingLimitLeavesTheChunksWaiting: a spending limit
// pauses an import's model calls, not the import. The model calls `docent import` makes are the
// embedding of its chunks. At a spending limit they are not made, the
// import still succeeds (its documents are stored and searchable by
// words), the note says why the chunks wait, and once the limit is raised
// the next run embeds them.
func TestImportAtTheSpendingLimitLeavesTheChunksWaiting(t *testing.T) {
	corpus := testcorpus.Dir(t)
	srv := modeltest.New(t, modeltest.DefaultModel, modeltest.EmbedModel)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("DOCENT_MODEL", "")
	t.Setenv("DOCENT_EMBED_MODEL", embedModel)
	data := t.TempDir()
	mustDocent(t, data, "usage", "limit", "--daily", "0", "--all-models")

	file := filepath.Join(corpus, "zugferd", germanInvoices[0])
	code, _, errOut := docent(t, data, "import", "--no-ocr", file)
	if code != ExitOK || !strings.Contains(errOut, "imported 1") || !strings.Contains(errOut, "wait to be embedded") ||
		!strings.Contains(errOut, "limit") {
		t.Fatalf("import at the limit: exit %d\n%s", code, errOut)
	}
	if n := len(srv.EmbedRequests()); n != 0 {
		t.Fatalf("%d embedding requests went out over a limit of 0", n)
	}

	mustDocent(t, data, "usage", "limit", "--off")
	code, _, errOut = docent(t, data, "import", "--no-ocr", file)
	if code != ExitOK || !strings.Contains(errOut, "embedded") || strings.Contains(errOut, "wait to be embedded") {
		t.Fatalf("import once the limit is off: exit %d\n%s", code, errOut)
	}
	if len(srv.EmbedRequests()) == 0 {
		t.Fatalf("the chunks that waited were not embedded once the limit was off")
	}
}
