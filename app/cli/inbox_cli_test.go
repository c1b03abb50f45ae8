package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

func copyCorpusFile(t *testing.T, name, dest string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dest, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInboxOnceJSONReportsStoredDuplicateTaggedAndNothingTwice(t *testing.T) {
	data, folder := t.TempDir(), t.TempDir()
	copyCorpusFile(t, "invoice2data/AmazonWebServices.pdf", filepath.Join(folder, "a.pdf"))
	copyCorpusFile(t, "invoice2data/AmazonWebServices.pdf", filepath.Join(folder, "b-copy.pdf"))
	copyCorpusFile(t, "invoice2data/FlipkartInvoice.pdf", filepath.Join(folder, "travel", "c.pdf"))
	copyCorpusFile(t, "invoice2data/oyo.pdf", filepath.Join(folder, "d.pdf.crdownload"))

	code, out, errOut := docent(t, data, "inbox", folder, "--once", "--json")
	if code != ExitOK {
		t.Fatalf("inbox --once: exit %d, stderr %s", code, errOut)
	}
	var rep inboxReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("inbox --once --json printed %q: %v", out, err)
	}
	byRel := map[string]storage.InboxFile{}
	for _, f := range rep.Files {
		byRel[f.Rel] = f
	}
	abs, _ := filepath.Abs(folder)
	if rep.Folder != abs || len(rep.Files) != 3 {
		t.Fatalf("report = %+v; want the folder %s and three files (the partial download left alone)", rep, abs)
	}
	a, dup, c := byRel["a.pdf"], byRel["b-copy.pdf"], byRel["travel/c.pdf"]
	if a.Status != storage.InboxStored || a.Stage != storage.StageExtracting || a.SHA256 == "" {
		t.Errorf("a.pdf = %+v; want stored, queued for auto-create (stage extracting), with its sha256", a)
	}
	if dup.Status != storage.InboxDuplicate || dup.DuplicateOf != a.DocumentID {
		t.Errorf("b-copy.pdf = %+v; want a duplicate of %s", dup, a.DocumentID)
	}
	if c.Status != storage.InboxStored || !slices.Equal(c.Tags, []string{"travel"}) {
		t.Errorf("travel/c.pdf = %+v; want stored, tagged travel", c)
	}
	if !strings.Contains(errOut, "a.pdf: stored as "+a.DocumentID) || !strings.Contains(errOut, "b-copy.pdf: already imported as") {
		t.Errorf("stderr %q does not say what became of each file", errOut)
	}
	if code, out, _ := docent(t, data, "documents", "--tag", "travel", "--json"); code != ExitOK || !strings.Contains(out, c.DocumentID) {
		t.Errorf("documents --tag travel: exit %d, %s; want %s", code, out, c.DocumentID)
	}

	// Run again: nothing is read, and the report is the same.
	code, out2, errOut2 := docent(t, data, "inbox", folder, "--once", "--json")
	if code != ExitOK || strings.Contains(errOut2, "stored as") || strings.Contains(errOut2, "already imported") {
		t.Errorf("second --once: exit %d, stderr %q; want nothing taken again", code, errOut2)
	}
	var rep2 inboxReport
	if err := json.Unmarshal([]byte(out2), &rep2); err != nil || len(rep2.Files) != 3 {
		t.Errorf("second report %q: %v", out2, err)
	}
}

func TestInboxOnceFailsOnAFailedFileAndABadFolder(t *testing.T) {
	data, folder := t.TempDir(), t.TempDir()
	copyCorpusFile(t, "pypdf-sample-files/005_libreoffice-writer-password.pdf", filepath.Join(folder, "locked.pdf"))
	code, _, errOut := docent(t, data, "inbox", folder, "--once")
	if code != ExitFailure || !strings.Contains(errOut, "locked.pdf: failed:") || !strings.Contains(errOut, "password") {
		t.Errorf("inbox --once over an encrypted PDF: exit %d, stderr %q; want 1 and the file's failure", code, errOut)
	}
	code, _, errOut = docent(t, data, "inbox", filepath.Join(folder, "missing"))
	if code != ExitUsage || !strings.Contains(errOut, "does not exist") {
		t.Errorf("inbox on a missing folder: exit %d, %q; want 2, saying it does not exist", code, errOut)
	}
	if code, _, errOut = docent(t, data, "inbox"); code != ExitUsage || !strings.Contains(errOut, "inbox needs one folder") {
		t.Errorf("inbox without a folder: exit %d, %q", code, errOut)
	}
}
