package inbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docent/docent/app/inbox"
	"github.com/docent/docent/app/ingest"
	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/storage"
)

// Corpus files the tests drop in the inbox.
var (
	invoiceA  = "invoice2data/AmazonWebServices.pdf"
	invoiceB  = "invoice2data/FlipkartInvoice.pdf"
	invoiceC  = "invoice2data/oyo.pdf"
	encrypted = "pypdf-sample-files/005_libreoffice-writer-password.pdf"
)

func openDB(t *testing.T, dir string) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(dir, "docent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// importer is the adapter the edges give the watcher, over the real
// importer: it counts the files it is handed and what each is.
type importer struct {
	db    *storage.DB
	im    *ingest.Importer
	mu    sync.Mutex
	calls []string // the files handed, by Rel
	sizes map[string]int64
}

func newImporter(db *storage.DB) *importer {
	return &importer{db: db, im: &ingest.Importer{DB: db}, sizes: map[string]int64{}}
}

func (m *importer) Import(ctx context.Context, f inbox.File) inbox.Outcome {
	m.mu.Lock()
	m.calls = append(m.calls, f.Rel)
	m.mu.Unlock()
	file, err := os.Open(f.Path)
	if err != nil {
		return inbox.Outcome{Err: err}
	}
	defer file.Close()
	var opts ingest.Options
	for _, name := range f.Tags {
		tag, err := m.db.EnsureTag(ctx, name)
		if err != nil {
			return inbox.Outcome{Err: err}
		}
		opts.TagIDs = append(opts.TagIDs, tag.ID)
	}
	o := m.im.ImportReader(ctx, f.Path, file, f.Size, opts)
	out := inbox.Outcome{Err: o.Err, Duplicate: o.Duplicate}
	if o.Document != nil {
		out.DocumentID = o.Document.ID
		if o.Duplicate {
			out.DuplicateOf = o.Document.ID
		}
		m.mu.Lock()
		m.sizes[f.Rel] = o.Document.Size
		m.mu.Unlock()
	}
	return out
}

func (m *importer) handed() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.calls)
}

func copyCorpus(t *testing.T, name, dest string) int64 {
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
	return int64(len(data))
}

// rows are the inbox's rows by Rel.
func rows(t *testing.T, db *storage.DB, folder string) map[string]storage.InboxFile {
	t.Helper()
	files, err := db.ListInboxFiles(context.Background(), folder, 1000)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]storage.InboxFile{}
	for _, f := range files {
		out[f.Rel] = f
	}
	return out
}

func describe(rs map[string]storage.InboxFile) string {
	var lines []string
	for rel, f := range rs {
		lines = append(lines, fmt.Sprintf("%s: %s %s %s", rel, f.Status, f.ErrorCode, f.Error))
	}
	sort.Strings(lines)
	return strings.Join(lines, "; ")
}

// waitFor polls cond until it holds or the deadline passes, then fails
// saying what was seen.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, seen := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for %s; saw %s", what, seen)
		}
		time.Sleep(20 * time.Millisecond) // polling for state, not waiting for it
	}
}

func TestOnceImportsTheFolderOnceWithTagsDuplicatesAndIgnoredNames(t *testing.T) {
	ctx := context.Background()
	folder, data := t.TempDir(), t.TempDir()
	db := openDB(t, data)
	copyCorpus(t, invoiceA, filepath.Join(folder, "a.pdf"))
	copyCorpus(t, invoiceB, filepath.Join(folder, "travel", "2024", "b.pdf"))
	copyCorpus(t, invoiceA, filepath.Join(folder, "copy of a.pdf"))
	copyCorpus(t, invoiceC, filepath.Join(folder, ".hidden.pdf"))
	copyCorpus(t, invoiceC, filepath.Join(folder, ".hidden", "c.pdf"))
	copyCorpus(t, invoiceC, filepath.Join(folder, "c.pdf.part"))
	copyCorpus(t, invoiceC, filepath.Join(folder, "c.bak"))

	imp := newImporter(db)
	w := &inbox.Watcher{DB: db, Import: imp.Import,
		Config: inbox.Config{Folder: folder, TagSubfolders: true, Ignore: []string{"*.bak"}, Stability: 50 * time.Millisecond}}
	if err := w.Once(ctx); err != nil {
		t.Fatal(err)
	}
	got := rows(t, db, folder)
	if len(got) != 3 {
		t.Fatalf("rows = %s; want a.pdf, travel/2024/b.pdf and copy of a.pdf only (hidden, .part and ignored left alone)", describe(got))
	}
	a, b, dup := got["a.pdf"], got["travel/2024/b.pdf"], got["copy of a.pdf"]
	first, second := a, dup
	if a.Status == storage.InboxDuplicate { // taken in name order: "a.pdf" < "copy of a.pdf"
		first, second = dup, a
	}
	if first.Status != storage.InboxStored || first.DocumentID == "" || second.Status != storage.InboxDuplicate || second.DuplicateOf != first.DocumentID {
		t.Errorf("a.pdf and its copy = %+v / %+v; want one stored, the other a duplicate of it", first, second)
	}
	if b.Status != storage.InboxStored || !slices.Equal(b.Tags, []string{"travel", "2024"}) {
		t.Errorf("travel/2024/b.pdf = %+v; want stored with tags travel, 2024", b)
	}
	doc, err := db.GetDocument(ctx, b.DocumentID)
	if err != nil || len(doc.TagIDs) != 2 {
		t.Errorf("b's document = %+v, %v; want it tagged twice", doc, err)
	}

	// A second start reads nothing again: size and mtime match the rows.
	again := newImporter(db)
	w2 := &inbox.Watcher{DB: db, Import: again.Import, Config: w.Config}
	if err := w2.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if h := again.handed(); len(h) != 0 {
		t.Errorf("a second start handed %v to the pipeline again", h)
	}
	// A file that changes is taken again.
	copyCorpus(t, invoiceC, filepath.Join(folder, "a.pdf"))
	if err := w2.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if h := again.handed(); !slices.Equal(h, []string{"a.pdf"}) {
		t.Errorf("after a.pdf changed the pipeline got %v, want a.pdf", h)
	}
}

func TestOnceRecordsFailuresAndTriesThemAgainOnlyWhenChanged(t *testing.T) {
	ctx := context.Background()
	folder, data := t.TempDir(), t.TempDir()
	db := openDB(t, data)
	copyCorpus(t, encrypted, filepath.Join(folder, "locked.pdf"))
	if err := os.Symlink("loop.pdf", filepath.Join(folder, "loop.pdf")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "notes.docx"), []byte("PK\x03\x04 not a document Docent reads"), 0o644); err != nil {
		t.Fatal(err)
	}
	imp := newImporter(db)
	w := &inbox.Watcher{DB: db, Import: imp.Import, Config: inbox.Config{Folder: folder, Stability: 50 * time.Millisecond}}
	if err := w.Once(ctx); err != nil {
		t.Fatal(err)
	}
	got := rows(t, db, folder)
	locked, loop, docx := got["locked.pdf"], got["loop.pdf"], got["notes.docx"]
	if locked.Status != storage.InboxFailed || locked.ErrorCode != storage.ErrorCodePasswordRequired ||
		locked.Stage != storage.StageNeedsPassword || locked.DocumentID == "" {
		t.Errorf("locked.pdf = %+v; want failed, password_required, its document stored waiting for the password", locked)
	}
	if loop.Status != storage.InboxFailed || loop.ErrorCode != inbox.CodeSymlinkLoop {
		t.Errorf("loop.pdf = %+v; want failed with symlink_loop", loop)
	}
	if docx.Status != storage.InboxFailed || docx.ErrorCode != inbox.CodeUnsupported || !strings.Contains(docx.Error, "unsupported") {
		t.Errorf("notes.docx = %+v; want failed, unsupported", docx)
	}
	handed := len(imp.handed())
	if err := w.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(imp.handed()); n != handed {
		t.Errorf("failed files unchanged were handed again: %v", imp.handed()[handed:])
	}
}

func TestAfterMoveAndDelete(t *testing.T) {
	ctx := context.Background()
	for _, after := range []string{inbox.AfterMove, inbox.AfterDelete} {
		t.Run(after, func(t *testing.T) {
			folder, data := t.TempDir(), t.TempDir()
			db := openDB(t, data)
			copyCorpus(t, invoiceA, filepath.Join(folder, "sub", "a.pdf"))
			copyCorpus(t, invoiceA, filepath.Join(folder, "z-copy.pdf"))
			copyCorpus(t, encrypted, filepath.Join(folder, "locked.pdf"))
			w := &inbox.Watcher{DB: db, Import: newImporter(db).Import,
				Config: inbox.Config{Folder: folder, After: after, Stability: 50 * time.Millisecond}}
			if err := w.Once(ctx); err != nil {
				t.Fatal(err)
			}
			exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
			done := filepath.Join(folder, inbox.DoneFolderName)
			if exists(filepath.Join(folder, "sub", "a.pdf")) {
				t.Errorf("%s: the stored file is still in the inbox", after)
			}
			if !exists(filepath.Join(folder, "locked.pdf")) || exists(filepath.Join(done, "locked.pdf")) {
				t.Errorf("%s: the failed file was moved or deleted; it must stay where it is", after)
			}
			switch after {
			case inbox.AfterMove:
				if !exists(filepath.Join(done, "sub", "a.pdf")) || !exists(filepath.Join(done, "z-copy.pdf")) {
					t.Errorf("move: the stored file and the duplicate are not under %s", done)
				}
			case inbox.AfterDelete:
				if !exists(filepath.Join(folder, "z-copy.pdf")) {
					t.Errorf("delete: the duplicate was deleted; only a stored file is")
				}
			}
			// The done folder is never read as new files.
			if got := rows(t, db, folder); len(got) != 3 {
				t.Errorf("%s: rows = %s; want the three files only", after, describe(got))
			}
		})
	}
}

func TestAStartTakesUpAFileLeftWaiting(t *testing.T) {
	ctx := context.Background()
	folder, data := t.TempDir(), t.TempDir()
	db := openDB(t, data)
	path := filepath.Join(folder, "a.pdf")
	size := copyCorpus(t, invoiceA, path)
	fi, _ := os.Stat(path)
	// A process noted the file and stopped before it stored it.
	if err := db.NoteInboxWaiting(ctx, storage.InboxObservation{Path: path, Rel: "a.pdf", Size: size, ModTime: fi.ModTime()}); err != nil {
		t.Fatal(err)
	}
	imp := newImporter(db)
	w := &inbox.Watcher{DB: db, Import: imp.Import, Config: inbox.Config{Folder: folder, Stability: 50 * time.Millisecond}}
	if err := w.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rows(t, db, folder)["a.pdf"]; got.Status != storage.InboxStored {
		t.Errorf("a.pdf = %+v after a start; want stored", got)
	}
}

// slowWrite writes src to dest in pieces, a piece every interval, as a
// scanner does; it returns when the file is complete.
func slowWrite(t *testing.T, src, dest string, pieces int, interval time.Duration) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Error(err)
		return
	}
	f, err := os.Create(dest)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	step := len(data)/pieces + 1
	for off := 0; off < len(data); off += step {
		if _, err := f.Write(data[off:min(off+step, len(data))]); err != nil {
			t.Error(err)
			return
		}
		time.Sleep(interval) // the writer's pace, not a wait for state
	}
}

func TestRunTakesDroppedFilesOnceCompleteAndWatchesNewSubfolders(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	folder, data := t.TempDir(), t.TempDir()
	db := openDB(t, data)
	imp := newImporter(db)
	var changes atomic.Int32
	w := &inbox.Watcher{DB: db, Import: imp.Import, OnChange: func(storage.InboxFile) { changes.Add(1) },
		Config: inbox.Config{Folder: folder, TagSubfolders: true, Stability: 400 * time.Millisecond, Poll: inbox.PollNever}}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	waitFor(t, "the watcher to watch", func() (bool, string) {
		st := w.Status()
		return st.Watching && !st.Polling, fmt.Sprintf("%+v", st)
	})

	// Written over ~1.6 s in 8 pieces, with the delay at 0.4 s: it must be
	// read once, whole.
	slow := filepath.Join(testcorpus.Dir(t), invoiceB)
	slowWrite(t, slow, filepath.Join(folder, "slow.pdf"), 8, 200*time.Millisecond)
	if err := os.MkdirAll(filepath.Join(folder, "travel"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyCorpus(t, invoiceA, filepath.Join(folder, "travel", "a.pdf"))
	waitFor(t, "both files stored", func() (bool, string) {
		got := rows(t, db, folder)
		return got["slow.pdf"].Status == storage.InboxStored && got["travel/a.pdf"].Status == storage.InboxStored, describe(got)
	})
	fi, _ := os.Stat(slow)
	imp.mu.Lock()
	defer imp.mu.Unlock()
	if n := slices.Index(imp.calls, "slow.pdf"); n < 0 || slices.Index(imp.calls[n+1:], "slow.pdf") >= 0 || imp.sizes["slow.pdf"] != fi.Size() {
		t.Errorf("slow.pdf handed %v with %d of %d bytes; want once, complete", imp.calls, imp.sizes["slow.pdf"], fi.Size())
	}
	if got := rows(t, db, folder)["travel/a.pdf"]; !slices.Equal(got.Tags, []string{"travel"}) {
		t.Errorf("travel/a.pdf tags = %v, want travel", got.Tags)
	}
	if changes.Load() < 4 {
		t.Errorf("OnChange heard %d changes, want waiting and stored for each file", changes.Load())
	}
}

func TestRunPollsWhenAskedAndWaitsForAFolderThatWent(t *testing.T) {
	defer inbox.SetGoneRecheck(50 * time.Millisecond)()
	ctx, cancel := context.WithCancel(context.Background())
	parent, data := t.TempDir(), t.TempDir()
	folder := filepath.Join(parent, "usb")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	db := openDB(t, data)
	w := &inbox.Watcher{DB: db, Import: newImporter(db).Import,
		Config: inbox.Config{Folder: folder, Stability: 100 * time.Millisecond, Poll: inbox.PollAlways, PollInterval: 100 * time.Millisecond}}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	waitFor(t, "the watcher to poll", func() (bool, string) {
		st := w.Status()
		return st.Watching && st.Polling, fmt.Sprintf("%+v", st)
	})
	copyCorpus(t, invoiceA, filepath.Join(folder, "a.pdf"))
	waitFor(t, "a.pdf stored by polling", func() (bool, string) {
		got := rows(t, db, folder)
		return got["a.pdf"].Status == storage.InboxStored, describe(got)
	})

	if err := os.RemoveAll(folder); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the watcher to say the folder is gone", func() (bool, string) {
		st := w.Status()
		return strings.Contains(st.Error, "is gone") && !st.Watching, fmt.Sprintf("%+v", st)
	})
	// The stick comes back, with the old file and a new one.
	copyCorpus(t, invoiceA, filepath.Join(folder, "a.pdf"))
	copyCorpus(t, invoiceB, filepath.Join(folder, "b.pdf"))
	waitFor(t, "b.pdf stored after the folder came back", func() (bool, string) {
		got := rows(t, db, folder)
		st := w.Status()
		return got["b.pdf"].Status == storage.InboxStored && st.Error == "" && st.Watching, describe(got) + fmt.Sprintf(" status %+v", st)
	})
	if got := rows(t, db, folder)["a.pdf"]; got.Status != storage.InboxDuplicate && got.Status != storage.InboxStored {
		t.Errorf("a.pdf, copied back = %+v", got)
	}
}

func TestOnceOnAMissingFolderSaysSo(t *testing.T) {
	db := openDB(t, t.TempDir())
	missing := filepath.Join(t.TempDir(), "nope")
	w := &inbox.Watcher{DB: db, Import: newImporter(db).Import, Config: inbox.Config{Folder: missing}}
	err := w.Once(context.Background())
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Once on a missing folder: %v, want it to say the folder does not exist", err)
	}
}
