package e2e

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// The inbox folder as a person uses it, end to end: the real
// docent binary, a real inbox folder, corpus invoices, and the scripted
// model driving auto-create to a row in the kind's table.

// inboxStability is the stability delay the tests set (seconds): longer
// than the slow writer's pauses (slowPause), so that its file is taken
// only once whole, whatever the machine's speed.
const inboxStability = 3

// slowPause is the slow writer's pause between two chunks.
const slowPause = time.Second

// inboxBatch names five corpus invoices: the first is written slowly, the
// last into travel/, and a copy of the second under another name is the
// duplicate.
var inboxBatch = []string{"AmazonWebServices.pdf", "AzureInterior.pdf", "FlipkartInvoice.pdf", "NetpresseInvoice.pdf", "QualityHosting.pdf"}

const (
	slowRel      = "scanner/slow.pdf"
	travelRel    = "travel/QualityHosting.pdf"
	duplicateRel = "copy of AzureInterior.pdf"
	originalRel  = "AzureInterior.pdf"
)

var kindIDLine = regexp.MustCompile(`- id (\S+): `)

// invoiceModel scripts the model for any number of invoices, telling
// requests apart by their shape: the kind choice (its system message)
// answers the first kind in use; an extraction (a format, no tools) is
// answered from the document's text, so each row has its own values; the
// first round of an auto-create run makes the Invoice kind and runs its
// extraction, and the round after the tool results closes the turn.
func invoiceModel(r modeltest.Request) modeltest.Reply {
	msgs, err := r.ChatMessages()
	if err != nil || len(msgs) == 0 {
		return modeltest.Reply{Fault: modeltest.Fault{Status: 400, Message: "unreadable request"}}
	}
	last := msgs[len(msgs)-1]
	switch {
	case len(r.Tools) == 0 && strings.Contains(msgs[0].Content, "You sort documents by kind"):
		m := kindIDLine.FindStringSubmatch(last.Content)
		if m == nil {
			return modeltest.Reply{Text: `{"kind":"new","reason":"no kind listed"}`}
		}
		return modeltest.Reply{Text: fmt.Sprintf(`{"kind":%q,"reason":"an invoice"}`, m[1])}
	case len(r.Tools) == 0:
		sum := sha256.Sum256([]byte(last.Content))
		return modeltest.Reply{Text: fmt.Sprintf(`{"invoice_number":"INV-%X","total":%d.25}`, sum[:4], len(last.Content)%10000)}
	case last.Role == "tool":
		return modeltest.Reply{Text: "The Invoice kind, its prompt and the extraction are ready."}
	}
	return modeltest.Reply{ToolCalls: []modeltest.ToolCall{
		{ID: "c1", Name: "create_schema", Arguments: `{"name":"Invoice","response_format":` + invoiceSchema + `}`},
		{ID: "c2", Name: "create_prompt", Arguments: `{"name":"Invoice prompt","content":"Extract the invoice number and the total.","schema_id":"Invoice"}`},
		{ID: "c3", Name: "run_extraction", Arguments: `{"prompt_revid":"Invoice prompt"}`},
	}}
}

// modelEnv points docent at the scripted model, without embeddings.
func modelEnv(model *modeltest.Server) []string {
	return []string{"OLLAMA_HOST=" + model.OllamaURL(), "DOCENT_MODEL=ollama/qwen3:8b", "DOCENT_EMBED_MODEL="}
}

func corpusInvoice(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), "invoice2data", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// slowWrite writes data to path in chunks, pausing slowPause between them
// (over about span in all), and closes done with the writer's error. The
// first chunk is on disk when it returns.
func slowWrite(t *testing.T, path string, data []byte, span time.Duration) <-chan error {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	chunks := int(span / slowPause)
	size := (len(data) + chunks - 1) / chunks
	if _, err := f.Write(data[:size]); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		defer close(done)
		for off := size; off < len(data); off += size {
			time.Sleep(slowPause) // the writer's pace: input, not waiting
			if _, err := f.Write(data[off:min(off+size, len(data))]); err != nil {
				done <- err
				return
			}
		}
		done <- f.Close()
	}()
	return done
}

// fillInbox puts the batch into folder: the slow file's writing starts,
// the others are copied, and the returned channel says when the slow one
// is whole. want maps each path under the folder to its bytes' SHA-256.
func fillInbox(t *testing.T, folder string) (slowDone <-chan error, want map[string]string) {
	t.Helper()
	want = map[string]string{}
	slow := corpusInvoice(t, inboxBatch[0])
	want[slowRel] = sha(slow)
	slowDone = slowWrite(t, filepath.Join(folder, filepath.FromSlash(slowRel)), slow, 10*time.Second)
	for _, name := range inboxBatch[1:] {
		rel := name
		if name == filepath.Base(travelRel) {
			rel = travelRel
		}
		data := corpusInvoice(t, name)
		writeFile(t, filepath.Join(folder, filepath.FromSlash(rel)), data)
		want[rel] = sha(data)
	}
	dup := corpusInvoice(t, filepath.Base(originalRel))
	writeFile(t, filepath.Join(folder, filepath.FromSlash(duplicateRel)), dup)
	want[duplicateRel] = sha(dup)
	return slowDone, want
}

func waitWriter(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the slow writer: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the slow writer did not finish in a minute")
	}
}

// inboxActivityAnswer is GET /api/inbox's answer.
type inboxActivityAnswer struct {
	Folder   string              `json:"folder"`
	Watching bool                `json:"watching"`
	Error    string              `json:"error"`
	Files    []storage.InboxFile `json:"files"`
}

func byRel(files []storage.InboxFile) map[string]storage.InboxFile {
	out := map[string]storage.InboxFile{}
	for _, f := range files {
		out[f.Rel] = f
	}
	return out
}

func describeFiles(files []storage.InboxFile) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "\n  %s: %s stage=%s doc=%s dup_of=%s err=%q", f.Rel, f.Status, f.Stage, f.DocumentID, f.DuplicateOf, f.Error)
	}
	return b.String()
}

// settled reports whether every file of want has a row that is not waiting.
func settled(files []storage.InboxFile, want map[string]string) bool {
	rows := byRel(files)
	for rel := range want {
		if f, ok := rows[rel]; !ok || f.Status == storage.InboxWaiting {
			return false
		}
	}
	return true
}

// waitInboxSettled polls GET /api/inbox until every file of want is
// stored, duplicate or failed, and returns the rows.
func waitInboxSettled(t *testing.T, srv *serveProcess, want map[string]string) []storage.InboxFile {
	t.Helper()
	var files []storage.InboxFile
	waitAPI(t, srv, "every file taken", func() (bool, string) {
		a := apiGet[inboxActivityAnswer](t, srv, "/api/inbox")
		files = a.Files
		return settled(files, want), fmt.Sprintf("watching=%v error=%q files:%s", a.Watching, a.Error, describeFiles(files))
	})
	return files
}

// checkInboxRows checks what the inbox made of the batch: each file
// stored once as its own document with its bytes (the slow one whole),
// the copy reported a duplicate of the original's document, and the file
// in travel/ tagged travel.
func checkInboxRows(t *testing.T, files []storage.InboxFile, want map[string]string) {
	t.Helper()
	rows := byRel(files)
	if len(rows) != len(want) {
		t.Errorf("%d inbox rows, want %d:%s", len(rows), len(want), describeFiles(files))
	}
	for rel, sum := range want {
		f := rows[rel]
		switch {
		case rel == duplicateRel:
			orig := rows[originalRel]
			if f.Status != storage.InboxDuplicate || f.DuplicateOf == "" || f.DuplicateOf != orig.DocumentID || f.DocumentID != "" {
				t.Errorf("%s = %s (duplicate of %q, document %q); want a duplicate of %s's document %s, not imported", rel, f.Status, f.DuplicateOf, f.DocumentID, originalRel, orig.DocumentID)
			}
		case f.Status != storage.InboxStored || f.DocumentID == "":
			t.Errorf("%s = %s (%s); want stored", rel, f.Status, f.Error)
		}
		if f.SHA256 != sum {
			t.Errorf("%s: the inbox row's sha256 is %q; the whole file's is %s", rel, f.SHA256, sum)
		}
		wantTags := []string{}
		if rel == travelRel {
			wantTags = []string{"travel"}
		} else if rel == slowRel {
			wantTags = []string{"scanner"}
		}
		if !slices.Equal(f.Tags, wantTags) {
			t.Errorf("%s: tags %q, want %q", rel, f.Tags, wantTags)
		}
	}
}

type documentsAnswer struct {
	Documents []storage.ListedDocument `json:"documents"`
	Total     int                      `json:"total"`
}

type rowsAnswer struct {
	Rows []struct {
		DocumentID string         `json:"document_id"`
		Values     map[string]any `json:"values"`
	} `json:"rows"`
	Total int `json:"total"`
}

type schemasAnswer struct {
	Schemas []struct {
		SchemaID string `json:"schema_id"`
		Name     string `json:"name"`
	} `json:"schemas"`
}

// checkLibrary checks the server's library against the inbox's rows: one
// document per stored file, with that file's bytes, each with a row in the
// Invoice kind's table (polled: the rows come after storing), and the
// travel tag on the file from travel/.
func checkLibrary(t *testing.T, srv *serveProcess, files []storage.InboxFile, want map[string]string) {
	t.Helper()
	rows := byRel(files)
	docs := apiGet[documentsAnswer](t, srv, "/api/documents?limit=100")
	byID := map[string]storage.ListedDocument{}
	for _, d := range docs.Documents {
		byID[d.ID] = d
	}
	stored := len(want) - 1 // all but the duplicate
	if docs.Total != stored {
		t.Errorf("%d documents, want %d (one per file, none for the duplicate)", docs.Total, stored)
	}
	tags := apiGet[struct {
		Tags []storage.Tag `json:"tags"`
	}](t, srv, "/api/tags")
	travel := ""
	for _, tag := range tags.Tags {
		if tag.Name == "travel" {
			travel = tag.ID
		}
	}
	for rel, sum := range want {
		if rel == duplicateRel {
			continue
		}
		d, ok := byID[rows[rel].DocumentID]
		if !ok {
			t.Errorf("%s: its document %q is not in the library", rel, rows[rel].DocumentID)
			continue
		}
		if d.SHA256 != sum {
			t.Errorf("%s: its document's sha256 is %s; the whole file's is %s (read before it was complete?)", rel, d.SHA256, sum)
		}
		if hasTravel := travel != "" && slices.Contains(d.TagIDs, travel); hasTravel != (rel == travelRel) {
			t.Errorf("%s: document tags %v, the travel tag is %q", rel, d.TagIDs, travel)
		}
	}

	var kind string
	waitAPI(t, srv, "the Invoice kind", func() (bool, string) {
		s := apiGet[schemasAnswer](t, srv, "/api/schemas")
		for _, sc := range s.Schemas {
			if sc.Name == "Invoice" {
				kind = sc.SchemaID
			}
		}
		return kind != "" && len(s.Schemas) == 1, fmt.Sprintf("schemas %+v", s.Schemas)
	})
	waitAPI(t, srv, "a row per document in the Invoice table", func() (bool, string) {
		r := apiGet[rowsAnswer](t, srv, "/api/schemas/"+kind+"/rows?limit=100")
		got := map[string]bool{}
		for _, row := range r.Rows {
			if n, _ := row.Values["invoice_number"].(string); strings.HasPrefix(n, "INV-") {
				got[row.DocumentID] = true
			}
		}
		for rel := range want {
			if rel != duplicateRel && !got[rows[rel].DocumentID] {
				return false, fmt.Sprintf("%d rows %+v; none yet for %s (%s)", r.Total, r.Rows, rel, rows[rel].DocumentID)
			}
		}
		return r.Total == stored, fmt.Sprintf("%d rows, want %d: %+v", r.Total, stored, r.Rows)
	})
}

// startInboxServe starts docent --serve --inbox folder and sets the
// stability delay (the flag's folder stays).
func startInboxServe(t *testing.T, data, folder string, model *modeltest.Server) *serveProcess {
	t.Helper()
	srv := startServeArgs(t, data, []string{"--inbox", folder}, modelEnv(model)...)
	var set inboxSettings
	apiSend(t, srv, http.MethodPut, "/api/settings/inbox", map[string]any{"stability_seconds": inboxStability}, &set)
	if set.Folder != folder || set.Source != "flag" || set.StabilitySeconds != inboxStability {
		t.Fatalf("PUT /api/settings/inbox answered %+v; want the flag's folder %s and a delay of %d s", set, folder, inboxStability)
	}
	return srv
}

// TestInboxServeDoneWhen: with --serve --inbox DIR and the scripted model,
// five corpus invoices (one written slowly over 10 s, one in travel/)
// become five documents with rows in the Invoice table, the slow one read
// once and whole; a copy of one under another name is a duplicate, not
// imported; the file in travel/ is tagged travel. After a restart nothing
// is imported again, while a new file is.
func TestInboxServeDoneWhen(t *testing.T) {
	model := modeltest.New(t)
	model.Handle(invoiceModel)
	data, folder := t.TempDir(), t.TempDir()
	srv := startInboxServe(t, data, folder, model)
	taken := recordInboxEvents(t, srv)

	slowDone, want := fillInbox(t, folder)
	waitWriter(t, slowDone)
	files := waitInboxSettled(t, srv, want)
	checkInboxRows(t, files, want)
	// Read once: the slow file was taken once, whole. A read before it
	// was complete would show as a failure (a truncated PDF) or another
	// document before the stored one.
	waitAPI(t, srv, "the slow file's events on the library stream", func() (bool, string) {
		got := taken()[slowRel]
		return len(got) > 0 && got[len(got)-1] == storage.InboxStored, fmt.Sprintf("%s: %v", slowRel, got)
	})
	for rel, statuses := range taken() {
		if n := len(statuses); n == 0 || slices.Index(statuses, statuses[n-1]) != n-1 || slices.ContainsFunc(statuses[:n-1], func(s string) bool { return s != storage.InboxWaiting }) {
			t.Errorf("%s was taken more than once, or before it was whole: its rows went %v", rel, statuses)
		}
	}
	checkLibrary(t, srv, files, want)
	if t.Failed() {
		t.Fatalf("server log:\n%s", clip(srv.Log(), 4000))
	}

	// Restart: the files are not read again. A file dropped after the
	// restart is taken after the start's walk of the folder, so once it
	// is stored any import of the old files would have happened too.
	before := byRel(files)
	srv.Stop(t)
	srv = startInboxServe(t, data, folder, model)
	next := corpusInvoice(t, "coolblue1.pdf")
	writeFile(t, filepath.Join(folder, "after-restart.pdf"), next)
	want2 := map[string]string{"after-restart.pdf": sha(next)}
	after := byRel(waitInboxSettled(t, srv, want2))
	if f := after["after-restart.pdf"]; f.Status != storage.InboxStored || f.SHA256 != want2["after-restart.pdf"] {
		t.Errorf("the file dropped after the restart: %s %q (%s)", f.Status, f.SHA256, f.Error)
	}
	for rel, f := range before {
		g := after[rel]
		if g.Status != f.Status || g.DocumentID != f.DocumentID || !g.UpdatedAt.Equal(f.UpdatedAt) {
			t.Errorf("%s after the restart: %s %s updated %s; before: %s %s updated %s", rel, g.Status, g.DocumentID, g.UpdatedAt, f.Status, f.DocumentID, f.UpdatedAt)
		}
	}
	if docs := apiGet[documentsAnswer](t, srv, "/api/documents?limit=100"); docs.Total != len(want) {
		t.Errorf("%d documents after the restart and one new file, want %d", docs.Total, len(want))
	}
}

// TestInboxOnceDoneWhen: docent inbox DIR --once --json on a fresh data
// directory, over the same batch (the slow file still being written when
// it starts), gives the same results: the report lists each file stored
// with its bytes' SHA-256 and tags, the copy as a duplicate, and the rows
// are in the Invoice table when it exits.
func TestInboxOnceDoneWhen(t *testing.T) {
	model := modeltest.New(t)
	model.Handle(invoiceModel)
	data, folder := t.TempDir(), t.TempDir()
	slowDone, want := fillInbox(t, folder)

	// A deadline, so that an inbox that never finishes fails with what it said.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, docentBin, "--data-dir", data, "inbox", folder, "--once", "--json")
	cmd.Env = append(os.Environ(), modelEnv(model)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	waitWriter(t, slowDone)
	if err != nil {
		t.Fatalf("docent inbox --once --json: %v\nstderr:\n%s", err, clip(stderr.String(), 4000))
	}
	var rep struct {
		Folder string              `json:"folder"`
		Files  []storage.InboxFile `json:"files"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &rep); err != nil {
		t.Fatalf("the report %q: %v", stdout.String(), err)
	}
	if rep.Folder != folder {
		t.Errorf("the report's folder is %q, want %s", rep.Folder, folder)
	}
	checkInboxRows(t, rep.Files, want)
	for _, f := range rep.Files {
		if f.Status == storage.InboxStored && f.Stage != storage.StageDone {
			t.Errorf("%s: stage %q when --once exits, want %q (its row extracted)", f.Rel, f.Stage, storage.StageDone)
		}
	}

	srv := startServe(t, data, modelEnv(model)...)
	checkLibrary(t, srv, rep.Files, want)
	if t.Failed() {
		t.Logf("stderr:\n%s", clip(stderr.String(), 4000))
	}
}

// TestInboxKilledMidBatchImportsEachFileOnce: the server is killed
// (SIGKILL) the moment a document of the batch is stored, while others
// are still to come (two are still being written), and started again, a
// few times over; it ends with every file imported exactly once: one
// document per file's bytes, each file stored as its own document (not a
// duplicate of it), none missing, each queued for its row.
func TestInboxKilledMidBatchImportsEachFileOnce(t *testing.T) {
	model := modeltest.New(t)
	model.Handle(invoiceModel)
	data, folder := t.TempDir(), t.TempDir()
	srv := startInboxServe(t, data, folder, model)

	names := []string{"AmazonWebServices.pdf", "AzureInterior.pdf", "FlipkartInvoice.pdf", "NetpresseInvoice.pdf",
		"QualityHosting.pdf", "coolblue1.pdf", "coolblue2.pdf", "SammyMaystoneLinesTest.pdf"}
	want := map[string]string{}
	var writers []<-chan error
	const kills = 4
	for round := 1; round <= kills; round++ {
		// Kill the moment the library's stream announces a document: its
		// inbox row is recorded just after (a kill there is a crash
		// mid-file), and the files are taken one after the other, so
		// more are to come.
		killed := killOnDocumentEvent(t, srv)
		if round == 1 {
			for i, name := range names {
				b := corpusInvoice(t, name)
				want[name] = sha(b)
				if i < 2 { // still written when the server dies
					writers = append(writers, slowWrite(t, filepath.Join(folder, name), b, 8*time.Second))
					continue
				}
				writeFile(t, filepath.Join(folder, name), b)
			}
		}
		if !waitKilledOrSettled(t, srv, killed, want) {
			break // nothing left to kill in the middle of
		}
		srv.Kill(t)
		rows, docs, err := readStore(data, folder)
		if err != nil {
			t.Fatal(err)
		}
		if round == 1 && settled(rows, want) {
			t.Fatalf("every file was taken before the first kill; the test did not kill mid-batch:%s", describeFiles(rows))
		}
		stored := 0
		for _, f := range rows {
			if f.Status == storage.InboxStored {
				stored++
			}
		}
		t.Logf("kill %d: %d documents, %d files stored%s:%s", round, docs, stored,
			map[bool]string{true: " (mid-file: a document whose file's row still waits)"}[docs > stored], describeFiles(rows))
		srv = startInboxServe(t, data, folder, model)
	}
	for _, w := range writers {
		waitWriter(t, w)
	}

	files := waitInboxSettled(t, srv, want)
	rows := byRel(files)
	docs := apiGet[documentsAnswer](t, srv, "/api/documents?limit=100")
	bySHA := map[string][]string{}
	docByID := map[string]storage.ListedDocument{}
	for _, d := range docs.Documents {
		docByID[d.ID] = d
		bySHA[d.SHA256] = append(bySHA[d.SHA256], d.ID)
	}
	for rel, sum := range want {
		f := rows[rel]
		if f.Status != storage.InboxStored || f.SHA256 != sum {
			t.Errorf("%s: %s (dup of %q, %s) sha %q; want stored with its bytes' sha %s", rel, f.Status, f.DuplicateOf, f.Error, f.SHA256, sum)
		}
		if ids := bySHA[sum]; len(ids) != 1 || ids[0] != f.DocumentID {
			t.Errorf("%s: documents with its bytes %v, want exactly its own %s", rel, ids, f.DocumentID)
		}
		// Nothing lost between the stages: a document stored just before
		// the kill still went on to the auto-create queue (or beyond).
		if d := docByID[f.DocumentID]; d.AutoCreateStatus == storage.AutoCreateNone {
			t.Errorf("%s: its document %s is not queued for auto-create (status %q)", rel, d.ID, d.AutoCreateStatus)
		}
	}
	if docs.Total != len(want) {
		t.Errorf("%d documents, want %d", docs.Total, len(want))
	}
	if t.Failed() {
		t.Logf("rows:%s\nserver log:\n%s", describeFiles(files), clip(srv.Log(), 4000))
	}
}

// readStore reads, with no server running, what a killed server left:
// the inbox's rows and how many documents there are.
func readStore(data, folder string) ([]storage.InboxFile, int, error) {
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(data, app.DatabaseFile))
	if err != nil {
		return nil, 0, err
	}
	defer db.Close()
	rows, err := db.ListInboxFiles(ctx, folder, 100)
	if err != nil {
		return nil, 0, err
	}
	_, total, err := db.ListDocuments(ctx, storage.DocumentFilter{Limit: 1})
	return rows, total, err
}

// killOnDocumentEvent SIGKILLs the server when its library stream next
// announces a document; the channel says whether it did.
func killOnDocumentEvent(t *testing.T, srv *serveProcess) <-chan bool {
	t.Helper()
	stream := openStream(t, srv, "/api/documents/events")
	killed := make(chan bool, 1)
	go func() {
		defer stream.Close()
		sc := bufio.NewScanner(stream)
		for sc.Scan() {
			if sc.Text() == "event: document" {
				_ = srv.cmd.Process.Kill()
				killed <- true
				return
			}
		}
		killed <- false
	}()
	return killed
}

// waitKilledOrSettled waits until the server is killed (true) or every
// file of want is settled without a new document (false: a file stored
// before a kill is taken again as its own document, which announces
// nothing).
func waitKilledOrSettled(t *testing.T, srv *serveProcess, killed <-chan bool, want map[string]string) bool {
	t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		select {
		case ok := <-killed:
			if !ok {
				t.Fatalf("the library's stream ended before any document\n%s", clip(srv.Log(), 3000))
			}
			return true
		default:
		}
		var a inboxActivityAnswer
		if err := tryGet(srv, "/api/inbox", &a); err != nil {
			// Killed between the look at the channel and the request.
			select {
			case ok := <-killed:
				if ok {
					return true
				}
			case <-time.After(stepTimeout):
			}
			t.Fatalf("GET /api/inbox: %v\n%s", err, clip(srv.Log(), 3000))
		}
		if settled(a.Files, want) {
			return false
		}
		if time.Now().After(deadline) {
			t.Fatalf("no document and files still waiting after %s:%s\n%s", stepTimeout, describeFiles(a.Files), clip(srv.Log(), 3000))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// openStream opens an event stream of the server with the access token and
// returns its body once the server said it is connected (":ok").
func openStream(t *testing.T, srv *serveProcess, path string) io.ReadCloser {
	t.Helper()
	base, _, _ := strings.Cut(srv.URL, "/?token=")
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+srv.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	first := make([]byte, len(":ok\n\n"))
	if _, err := io.ReadFull(resp.Body, first); err != nil || string(first) != ":ok\n\n" {
		resp.Body.Close()
		t.Fatalf("GET %s began with %q: %v", path, first, err)
	}
	return resp.Body
}

// tryGet reads a route into out, returning what went wrong instead of
// failing the test: the server may be gone.
func tryGet(srv *serveProcess, path string, out any) error {
	base, _, _ := strings.Cut(srv.URL, "/?token=")
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+srv.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// recordInboxEvents follows the library's stream and returns what it has
// heard so far: each file's statuses in the order its inbox events came.
func recordInboxEvents(t *testing.T, srv *serveProcess) func() map[string][]string {
	t.Helper()
	stream := openStream(t, srv, "/api/documents/events")
	t.Cleanup(func() { stream.Close() })
	var mu sync.Mutex
	seen := map[string][]string{}
	go func() {
		sc := bufio.NewScanner(stream)
		sc.Buffer(nil, 1<<20)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			if name, ok := strings.CutPrefix(line, "event: "); ok {
				event = name
				continue
			}
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok || event != "inbox" {
				continue
			}
			var f storage.InboxFile
			if json.Unmarshal([]byte(data), &f) == nil {
				mu.Lock()
				seen[f.Rel] = append(seen[f.Rel], f.Status)
				mu.Unlock()
			}
		}
	}()
	return func() map[string][]string {
		mu.Lock()
		defer mu.Unlock()
		out := map[string][]string{}
		for rel, s := range seen {
			out[rel] = slices.Clone(s)
		}
		return out
	}
}
