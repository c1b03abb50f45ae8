package server

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync"

	"github.com/docent/docent/app/inbox"
	"github.com/docent/docent/app/ingest"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// The inbox folder (package inbox): Start starts its watcher on the folder
// of `docent --serve --inbox DIR` (Config.InboxFolder, which wins) or of
// the saved setting, PUT /api/settings/inbox restarts it on the new
// settings, and Close stops it. GET /api/inbox shows its activity; each
// file's change is an `inbox` event on the library's stream.

// inboxRun is the watcher running, if any.
type inboxRun struct {
	mu      sync.Mutex
	base    context.Context // Start's; nil before Start
	stop    context.CancelFunc
	done    chan struct{}
	watcher *inbox.Watcher
}

// inboxSettings are the settings in effect: the saved ones, with the
// flag's folder when there is one.
func (s *Server) inboxSettings(ctx context.Context) (inbox.Settings, error) {
	set, err := inbox.LoadSettings(ctx, s.cfg.DB)
	if err != nil {
		return inbox.Settings{}, err
	}
	if s.cfg.InboxFolder != "" {
		set.Folder, set.Source = s.cfg.InboxFolder, inbox.SourceFlag
	}
	return set, nil
}

// startInbox (re)starts the watcher on the settings in effect, once Start
// has run; with no folder it only stops the one running.
func (s *Server) startInbox() {
	r := &s.inbox
	r.mu.Lock()
	defer r.mu.Unlock()
	s.stopInboxLocked()
	if r.base == nil || r.base.Err() != nil {
		return
	}
	set, err := s.inboxSettings(r.base)
	if err != nil {
		s.cfg.Logger.Warn("inbox: read the settings", "err", err)
		return
	}
	if set.Folder == "" {
		return
	}
	w := &inbox.Watcher{DB: s.cfg.DB, Import: s.inboxImport, Config: set.Config(), Logger: s.cfg.Logger,
		OnChange: func(f storage.InboxFile) {
			if f.Status != storage.InboxWaiting {
				// The row with its document's stage, kind and name.
				if full, err := s.cfg.DB.GetInboxFile(context.Background(), f.Path); err == nil {
					f = full
				}
			}
			s.library.publish(eventInbox, f)
		}}
	ctx, cancel := context.WithCancel(r.base)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = w.Run(ctx)
	}()
	r.stop, r.done, r.watcher = cancel, done, w
}

// stopInbox stops the watcher and waits for it (Close).
func (s *Server) stopInbox() {
	s.inbox.mu.Lock()
	defer s.inbox.mu.Unlock()
	s.stopInboxLocked()
}

func (s *Server) stopInboxLocked() {
	r := &s.inbox
	if r.stop == nil {
		return
	}
	r.stop()
	<-r.done
	r.stop, r.done, r.watcher = nil, nil, nil
}

// inboxImport stores one inbox file with the server's importer, tagged
// with its subfolders, queues a new document for auto-create, and wakes
// what an upload wakes (OCR, embedding, the auto-create queue).
// app/pipeline replaces it, with the stages in their one order.
func (s *Server) inboxImport(ctx context.Context, f inbox.File) inbox.Outcome {
	file, err := os.Open(f.Path)
	if err != nil {
		return inbox.Outcome{Err: fmt.Errorf("open %s: %w", f.Rel, err)}
	}
	defer file.Close()
	var opts ingest.Options
	for _, name := range f.Tags {
		tag, err := s.cfg.DB.EnsureTag(ctx, name)
		if err != nil {
			return inbox.Outcome{Err: fmt.Errorf("tag %q: %w", name, err)}
		}
		opts.TagIDs = append(opts.TagIDs, tag.ID)
	}
	o := s.importer.ImportReader(ctx, f.Path, file, f.Size, opts)
	out := inbox.Outcome{Err: o.Err, Duplicate: o.Duplicate}
	if o.Document == nil {
		return out
	}
	doc := *o.Document
	out.DocumentID = doc.ID
	if o.Duplicate {
		out.DuplicateOf = doc.ID
		return out
	}
	if o.Err == nil {
		if queued, err := s.cfg.DB.QueueAutoCreate(ctx, "", doc.ID); err != nil {
			s.cfg.Logger.Warn("inbox: queue for auto-create", "file", f.Rel, "document", doc.ID, "err", err)
		} else if len(queued) == 1 {
			doc = queued[0]
		}
	}
	s.publishDocument(doc)
	if doc.Status == storage.StatusNeedsOCR {
		s.ocr.Wake()
	}
	s.wakeEmbedding()
	s.autoCreate.Wake()
	return out
}

// inboxActivity answers GET /api/inbox.
type inboxActivity struct {
	inbox.Status
	Files []storage.InboxFile `json:"files"`
}

func (s *Server) getInbox(w http.ResponseWriter, r *http.Request) {
	limit, err := queryInt(r, "limit")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if limit == 0 {
		limit = 200
	}
	s.inbox.mu.Lock()
	watcher := s.inbox.watcher
	s.inbox.mu.Unlock()
	var out inboxActivity
	if watcher != nil {
		out.Status = watcher.Status()
		out.Folder = watcher.Config.Folder
	} else {
		set, err := s.inboxSettings(r.Context())
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		out.Folder = set.Folder
	}
	out.Files = []storage.InboxFile{}
	if out.Folder != "" {
		if out.Files, err = s.cfg.DB.ListInboxFiles(r.Context(), out.Folder, limit); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getInboxSettings(w http.ResponseWriter, r *http.Request) {
	set, err := s.inboxSettings(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, set)
}

// inboxSettingsBody is the body of PUT /api/settings/inbox: a field left
// out keeps its value. Source is read only; it is accepted so that a
// client may send back what it read.
type inboxSettingsBody struct {
	Folder           *string   `json:"folder"`
	After            *string   `json:"after"`
	DoneFolder       *string   `json:"done_folder"`
	TagSubfolders    *bool     `json:"tag_subfolders"`
	Ignore           *[]string `json:"ignore"`
	StabilitySeconds *float64  `json:"stability_seconds"`
	Poll             *string   `json:"poll"`
	Source           *string   `json:"source"`
}

// putInboxSettings checks and saves the settings, then restarts the
// watcher on them. A wrong value is a 400 naming its field, and nothing
// is saved; the folder of --inbox cannot be changed here.
func (s *Server) putInboxSettings(w http.ResponseWriter, r *http.Request) {
	var body inboxSettingsBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	ctx := r.Context()
	set, err := inbox.LoadSettings(ctx, s.cfg.DB)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if body.Folder != nil && s.cfg.InboxFolder != "" && *body.Folder != s.cfg.InboxFolder {
		s.writeError(w, r, fault.Errorf(fault.Invalid, "folder: set by docent --serve --inbox %s; start the server without --inbox to choose it here", s.cfg.InboxFolder).On("folder"))
		return
	}
	if body.Folder != nil && s.cfg.InboxFolder == "" {
		set.Folder = *body.Folder
	}
	for dst, src := range map[*string]*string{&set.After: body.After, &set.DoneFolder: body.DoneFolder, &set.Poll: body.Poll} {
		if src != nil {
			*dst = *src
		}
	}
	if body.TagSubfolders != nil {
		set.TagSubfolders = *body.TagSubfolders
	}
	if body.Ignore != nil {
		set.Ignore = *body.Ignore
	}
	if body.StabilitySeconds != nil {
		set.StabilitySeconds = *body.StabilitySeconds
	}
	if _, err := inbox.SaveSettings(ctx, s.cfg.DB, set); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.startInbox()
	s.getInboxSettings(w, r)
}
