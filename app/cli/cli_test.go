package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docent/docent/app"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// docent runs the command line in-process, as main does, against a data
// directory of the test's own, and returns the exit status and both streams.
func docent(t *testing.T, dataDir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	ios := &IOStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}
	code := Run(context.Background(), append([]string{"--data-dir", dataDir}, args...), ios)
	return code, out.String(), errOut.String()
}

// importNote imports a one-line note.txt into a new data directory, for the
// chat tests, and returns that directory.
func importNote(t *testing.T) string {
	t.Helper()
	data := t.TempDir()
	doc := filepath.Join(t.TempDir(), "note.txt")
	if err := os.WriteFile(doc, []byte("A short note."), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := docent(t, data, "import", doc); code != ExitOK {
		t.Fatalf("import: %d\n%s\n%s", code, out, errOut)
	}
	return data
}

func TestImportListShowTextRemoveEndToEnd(t *testing.T) {
	corpus := testcorpus.Dir(t)
	data := t.TempDir()

	code, out, errOut := docent(t, data, "import", "--tag", "invoices", filepath.Join(corpus, "invoice2data"), "--json")
	if code != ExitOK {
		t.Fatalf("import exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var report importReport
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("import --json printed something else than JSON: %v\n%s", err, out)
	}
	if len(report.Documents) < 10 || len(report.Errors) != 0 {
		t.Fatalf("imported %d with errors %v, want the invoices folder", len(report.Documents), report.Errors)
	}
	if !strings.Contains(errOut, "imported ") {
		t.Errorf("stderr has no summary: %s", errOut)
	}

	code, out, _ = docent(t, data, "documents", "--json", "--limit", "3", "--tag", "invoices")
	var list documentList
	if code != ExitOK || json.Unmarshal([]byte(out), &list) != nil {
		t.Fatalf("documents exit %d: %s", code, out)
	}
	if list.Total != len(report.Documents) || len(list.Documents) != 3 {
		t.Fatalf("documents: total %d, %d listed; want %d total, 3 listed", list.Total, len(list.Documents), len(report.Documents))
	}
	for _, field := range []string{`"id"`, `"media_type"`, `"sha256"`, `"pages"`, `"status"`, `"tag_ids"`, `"metadata"`, `"created_at"`, `"auto_create_status"`} {
		if !strings.Contains(out, field) {
			t.Errorf("documents --json lacks %s: %s", field, out)
		}
	}

	code, out, errOut = docent(t, data, "text", "AmazonWebServices.pdf", "--page", "1")
	if code != ExitOK || !strings.Contains(out, "Amazon Web Services") {
		t.Fatalf("text exit %d: %q %s", code, out, errOut)
	}
	code, _, errOut = docent(t, data, "text", "AmazonWebServices.pdf", "--page", "7")
	if code != ExitFailure || !strings.Contains(errOut, "out of range") {
		t.Errorf("text --page 7 of a 1-page document: exit %d, %q", code, errOut)
	}

	code, out, _ = docent(t, data, "show", "AmazonWebServices.pdf", "--json")
	var doc storage.Document
	if code != ExitOK || json.Unmarshal([]byte(out), &doc) != nil || doc.Pages != 1 || doc.Status != storage.StatusReady {
		t.Fatalf("show: exit %d, %s", code, out)
	}
	code, out, _ = docent(t, data, "show", doc.ID)
	if code != ExitOK || !strings.Contains(out, "invoices") || !strings.Contains(out, doc.SHA256) {
		t.Errorf("show by id: exit %d, %s; want tags and sha256", code, out)
	}

	// The same folder again: everything is already there, nothing new.
	code, _, errOut = docent(t, data, "import", filepath.Join(corpus, "invoice2data"))
	if code != ExitOK || !strings.Contains(errOut, "imported 0") {
		t.Errorf("re-import: exit %d, %s", code, errOut)
	}

	code, out, _ = docent(t, data, "rm", doc.ID, "no-such-document")
	if code != ExitFailure || !strings.Contains(out, "removed "+doc.ID) {
		t.Errorf("rm with one unknown: exit %d, %q; want the known one removed and exit 1", code, out)
	}
	if code, _, _ := docent(t, data, "show", doc.ID); code != ExitFailure {
		t.Errorf("show after rm: exit %d, want 1", code)
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	data := t.TempDir()
	for _, args := range [][]string{
		{"frobnicate"},
		{"import"},
		{"text"},
		{"documents", "--limit", "x"},
		{"show", "a", "b"},
		{"--listen", "127.0.0.1:0"},
		{"--data-dir"},
	} {
		code, _, errOut := docent(t, data, args...)
		if code != ExitUsage || errOut == "" {
			t.Errorf("docent %v: exit %d, stderr %q; want 2 with a message", args, code, errOut)
		}
	}
}

func TestGlobalFlagsAfterTheCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "note.md")
	if err := os.WriteFile(file, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"import", file, "--data-dir", data}, &IOStreams{Out: &out, Err: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if _, err := os.Stat(filepath.Join(data, app.DatabaseFile)); err != nil {
		t.Errorf("--data-dir after the command was not used: %v", err)
	}
}

func TestUnsupportedFileNamedDirectlyFailsTheBatch(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "a.txt")
	bad := filepath.Join(dir, "b.json")
	os.WriteFile(good, []byte("a"), 0o644)
	os.WriteFile(bad, []byte("{}"), 0o644)
	code, _, errOut := docent(t, t.TempDir(), "import", good, bad)
	if code != ExitFailure || !strings.Contains(errOut, "unsupported type .json") || !strings.Contains(errOut, "imported 1") {
		t.Errorf("exit %d, stderr %q; want 1, the good file imported and the bad one named", code, errOut)
	}
}

func TestUntaggedBuildPointsAtServe(t *testing.T) {
	code, _, errOut := docent(t, t.TempDir())
	if code == ExitOK || !strings.Contains(errOut, "--serve") {
		t.Errorf("docent without a command: exit %d, %q; want non-zero and a pointer to --serve", code, errOut)
	}
}

// syncBuffer lets the test read what the server prints while it runs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestServeAnswersHealthAndTheUIThenStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan int)
	go func() {
		done <- Run(ctx, []string{"--data-dir", t.TempDir(), "--serve", "--listen", "127.0.0.1:0"}, &IOStreams{Out: out, Err: io.Discard})
	}()
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); {
		sc := bufio.NewScanner(strings.NewReader(out.String()))
		for sc.Scan() {
			if _, after, ok := strings.Cut(sc.Text(), "serving on "); ok {
				url = after
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if url == "" {
		cancel()
		t.Fatalf("no URL printed: %q", out.String())
	}

	// The printed URL carries the access token: http://HOST:PORT/?token=T.
	base, token, ok := strings.Cut(url, "?token=")
	if !ok || len(token) != 64 {
		cancel()
		t.Fatalf("printed URL %q has no access token", url)
	}
	url = base

	res, err := http.Get(url + "api/health")
	if err != nil {
		t.Fatal(err)
	}
	var health struct {
		OK      bool   `json:"ok"`
		Version string `json:"version"`
	}
	json.NewDecoder(res.Body).Decode(&health)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !health.OK || health.Version != app.Build().Version {
		t.Errorf("health: %d %+v", res.StatusCode, health)
	}

	res, err = http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(page), "<title>Docent</title>") {
		t.Errorf("GET /: %d %.200s", res.StatusCode, page)
	}

	res, err = http.Get(url + "api/documents")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("API without the token: %d, want 401", res.StatusCode)
	}

	req, _ := http.NewRequest("GET", url+"api/nothing-here", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound || res.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("unknown API route: %d %s, want a JSON 404", res.StatusCode, res.Header.Get("Content-Type"))
	}

	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("serve exit %d after Ctrl-C, want 0", code)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop after its context was cancelled")
	}
}

// /dev/null is a character device, not a terminal: nothing may prompt
// into it.
func TestDevNullIsNotATerminal(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Errorf("%s counts as a terminal", os.DevNull)
	}
}

func TestVersionFlagPrintsTheBuildStamp(t *testing.T) {
	code, out, errOut := docent(t, t.TempDir(), "--version")
	if code != ExitOK || out != app.VersionText() || !strings.Contains(out, "\ncommit ") || !strings.Contains(out, "\nbuilt ") {
		t.Errorf("--version: %d %q (stderr %q), want %q", code, out, errOut, app.VersionText())
	}
}
