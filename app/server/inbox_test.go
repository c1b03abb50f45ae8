package server_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docent/docent/app/internal/testcorpus"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage"
)

// inboxSettings and inboxActivity are the wire shapes of
// docs/protocol.md, decoded as a client would.
type inboxSettings struct {
	Folder           string   `json:"folder"`
	After            string   `json:"after"`
	DoneFolder       string   `json:"done_folder"`
	TagSubfolders    bool     `json:"tag_subfolders"`
	Ignore           []string `json:"ignore"`
	StabilitySeconds float64  `json:"stability_seconds"`
	Poll             string   `json:"poll"`
	Source           string   `json:"source"`
}

type inboxActivity struct {
	Folder   string              `json:"folder"`
	Watching bool                `json:"watching"`
	Polling  bool                `json:"polling"`
	Error    string              `json:"error"`
	Files    []storage.InboxFile `json:"files"`
}

// libraryStream reads GET /api/documents/events into (event, data) pairs.
type libraryStream struct {
	mu     sync.Mutex
	events []string // "name data"
}

func (f *fixture) libraryStream(ctx context.Context) *libraryStream {
	f.t.Helper()
	res, err := f.ts.Client().Do(f.request(ctx, http.MethodGet, "/api/documents/events", nil))
	if err != nil {
		f.t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		f.t.Fatalf("library events: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	ls := &libraryStream{}
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		name := ""
		for sc.Scan() {
			line := sc.Text()
			if n, ok := strings.CutPrefix(line, "event: "); ok {
				name = n
			}
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				ls.mu.Lock()
				ls.events = append(ls.events, name+" "+d)
				ls.mu.Unlock()
			}
		}
	}()
	return ls
}

func (ls *libraryStream) seen() []string {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return slices.Clone(ls.events)
}

func poll(t *testing.T, what string, cond func() (bool, string)) {
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
		time.Sleep(20 * time.Millisecond) // polling for state
	}
}

func copyInto(t *testing.T, corpusFile, dest string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), corpusFile))
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

func TestInboxSettingsStartTheWatcherAndTheLibraryStreamTellsOfIt(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream := f.libraryStream(ctx)

	var set inboxSettings
	f.call("GET", "/api/settings/inbox", nil, http.StatusOK, &set)
	if set.Folder != "" || set.Source != "none" || set.After != "keep" || !set.TagSubfolders || set.StabilitySeconds != 5 || set.Poll != "auto" {
		t.Errorf("default settings = %+v", set)
	}
	// Bad values: 400 naming the field, nothing saved.
	for _, body := range []string{`{"after":"burn"}`, `{"poll":"sometimes"}`, `{"stability_seconds":0}`, `{"ignore":["[x"]}`,
		`{"folder":"` + filepath.Join(t.TempDir(), "missing") + `"}`} {
		msg := f.wantError("PUT", "/api/settings/inbox", body, http.StatusBadRequest, "invalid")
		var field string
		for _, name := range []string{"after", "poll", "stability_seconds", "ignore", "folder"} {
			if strings.Contains(body, `"`+name+`"`) {
				field = name
			}
		}
		if !strings.HasPrefix(msg, field+":") {
			t.Errorf("PUT %s: message %q does not name %s", body, msg, field)
		}
	}
	var after inboxSettings
	f.call("GET", "/api/settings/inbox", nil, http.StatusOK, &after)
	if after.After != "keep" || after.Folder != "" {
		t.Errorf("after refused PUTs the settings are %+v", after)
	}

	folder := t.TempDir()
	f.call("PUT", "/api/settings/inbox", map[string]any{"folder": folder, "stability_seconds": 0.2}, http.StatusOK, &set)
	if set.Folder != folder || set.Source != "settings" || set.StabilitySeconds != 0.2 || set.After != "keep" {
		t.Errorf("saved settings = %+v", set)
	}
	copyInto(t, "invoice2data/AmazonWebServices.pdf", filepath.Join(folder, "travel", "a.pdf"))
	var act inboxActivity
	poll(t, "travel/a.pdf stored", func() (bool, string) {
		f.call("GET", "/api/inbox", nil, http.StatusOK, &act)
		return len(act.Files) == 1 && act.Files[0].Status == storage.InboxStored, fmt.Sprintf("%+v", act)
	})
	file := act.Files[0]
	if !act.Watching || act.Folder != folder || file.Rel != "travel/a.pdf" || !slices.Equal(file.Tags, []string{"travel"}) ||
		file.DocumentName != "a.pdf" || file.Stage == "" {
		t.Errorf("GET /api/inbox = %+v", act)
	}
	var doc storage.Document
	f.call("GET", "/api/documents/"+file.DocumentID, nil, http.StatusOK, &doc)
	if len(doc.TagIDs) != 1 {
		t.Errorf("the document's tags = %v, want travel", doc.TagIDs)
	}
	poll(t, "inbox and document events", func() (bool, string) {
		evs := stream.seen()
		inboxStored, docEvent := false, false
		for _, e := range evs {
			inboxStored = inboxStored || (strings.HasPrefix(e, "inbox ") && strings.Contains(e, `"status":"stored"`) && strings.Contains(e, file.DocumentID))
			docEvent = docEvent || (strings.HasPrefix(e, "document ") && strings.Contains(e, `"id":"`+file.DocumentID+`"`))
		}
		return inboxStored && docEvent, strings.Join(evs, "\n")
	})

	// Another folder: the watcher moves there.
	other := t.TempDir()
	f.call("PUT", "/api/settings/inbox", map[string]any{"folder": other}, http.StatusOK, &set)
	copyInto(t, "invoice2data/FlipkartInvoice.pdf", filepath.Join(other, "b.pdf"))
	poll(t, "b.pdf stored from the new folder", func() (bool, string) {
		f.call("GET", "/api/inbox", nil, http.StatusOK, &act)
		return act.Folder == other && len(act.Files) == 1 && act.Files[0].Status == storage.InboxStored, fmt.Sprintf("%+v", act)
	})
}

func TestInboxFlagWinsOverTheSetting(t *testing.T) {
	folder := t.TempDir()
	f := newFixture(t, func(cfg *server.Config) { cfg.InboxFolder = folder })
	var set inboxSettings
	f.call("GET", "/api/settings/inbox", nil, http.StatusOK, &set)
	if set.Folder != folder || set.Source != "flag" {
		t.Errorf("settings with --inbox = %+v, want the flag's folder, source flag", set)
	}
	msg := f.wantError("PUT", "/api/settings/inbox", map[string]any{"folder": t.TempDir()}, http.StatusBadRequest, "invalid")
	if !strings.Contains(msg, "--inbox") {
		t.Errorf("changing the flag's folder: %q, want it to name --inbox", msg)
	}
	f.call("PUT", "/api/settings/inbox", map[string]any{"folder": folder, "after": "move"}, http.StatusOK, &set)
	if set.After != "move" || set.Source != "flag" {
		t.Errorf("other fields stay editable: %+v", set)
	}
	var act inboxActivity
	poll(t, "the watcher on the flag's folder", func() (bool, string) {
		f.call("GET", "/api/inbox", nil, http.StatusOK, &act)
		return act.Watching && act.Folder == folder, fmt.Sprintf("%+v", act)
	})
}
