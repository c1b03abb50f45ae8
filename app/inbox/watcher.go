package inbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/docent/docent/app/ingest"
	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// Error codes of failed files (storage.InboxFile.ErrorCode), besides the
// store's password_required.
const (
	CodeTooLarge    = "too_large"
	CodePermission  = "permission"
	CodeUnreadable  = "unreadable"
	CodeGone        = "gone"
	CodeSymlinkLoop = "symlink_loop"
	CodeUnsupported = "unsupported"
)

// Status is what the watcher is doing, for GET /api/inbox.
type Status struct {
	Folder   string `json:"folder"`
	Watching bool   `json:"watching"`
	Polling  bool   `json:"polling"`
	// Error says why the inbox cannot watch now (the folder is gone, say);
	// "" when all is well.
	Error string `json:"error,omitempty"`
}

// Watcher watches Config.Folder (Run) or takes what is in it once (Once).
type Watcher struct {
	DB     *storage.DB
	Import ImportFunc
	Config Config
	Logger *slog.Logger
	// OnChange hears of each file's row as it changes (waiting, then
	// stored, duplicate or failed), in the watcher's goroutine.
	OnChange func(storage.InboxFile)

	mu     sync.Mutex
	status Status

	// One session's state, touched by the watcher's goroutine alone.
	cfg    Config
	marks  map[string]storage.InboxMark
	stable *stability
	fsw    *fsnotify.Watcher
	notes  []storage.InboxObservation
}

// errFolderGone ends a session whose folder disappeared.
var errFolderGone = errors.New("the inbox folder is gone")

// errTooLarge is a file over the importer's limit (ingest.MaxFileSize).
var errTooLarge = errors.New("file too large")

// errNotify is notification that cannot watch the folder (the inotify
// watch limit, say).
var errNotify = errors.New("file notification failed")

// Status returns what the watcher is doing.
func (w *Watcher) Status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status
}

func (w *Watcher) setStatus(s Status) {
	w.mu.Lock()
	w.status = s
	w.mu.Unlock()
}

func (w *Watcher) logger() *slog.Logger { return cmp.Or(w.Logger, slog.Default()) }

// Run watches the folder until ctx ends. A folder that disappears (a USB
// stick pulled) is waited for, and watched again when it comes back;
// Status says so meanwhile.
func (w *Watcher) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		err := w.session(ctx, false)
		if ctx.Err() != nil {
			break
		}
		st := Status{Folder: w.Config.Folder}
		switch {
		case errors.Is(err, errFolderGone):
			st.Error = fmt.Sprintf("folder %s is gone (USB stick removed?); waiting for it to come back", w.Config.Folder)
		default:
			st.Error = fault.ErrorMessage(err)
		}
		w.logger().Warn("inbox", "folder", w.Config.Folder, "err", st.Error)
		w.setStatus(st)
		w.waitForFolder(ctx)
	}
	w.setStatus(Status{Folder: w.Config.Folder})
	return nil
}

// waitForFolder returns once the folder is there again (looked for every
// goneRecheck), or ctx ends.
func (w *Watcher) waitForFolder(ctx context.Context) {
	t := time.NewTicker(goneRecheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if fi, err := os.Stat(w.Config.Folder); err == nil && fi.IsDir() {
				return
			}
		}
	}
}

// Once takes every file in the folder, waiting for those still written to
// become stable, and returns.
func (w *Watcher) Once(ctx context.Context) error {
	err := w.session(ctx, true)
	if errors.Is(err, errFolderGone) {
		return fault.Errorf(fault.NotFound, "folder %s does not exist", w.Config.Folder)
	}
	return err
}

// session watches (or, once, takes) the folder until ctx ends, the folder
// goes, or once has nothing left to wait for.
func (w *Watcher) session(ctx context.Context, once bool) error {
	w.cfg = w.Config
	w.cfg.Stability = cmp.Or(w.cfg.Stability, DefaultStability)
	w.cfg.Rescan = cmp.Or(w.cfg.Rescan, DefaultRescan)
	w.cfg.PollInterval = cmp.Or(w.cfg.PollInterval, DefaultPollInterval)
	w.cfg.Poll = cmp.Or(w.cfg.Poll, PollAuto)
	folder := w.cfg.Folder
	if fi, err := os.Stat(folder); err != nil || !fi.IsDir() {
		return errFolderGone
	}
	marks, err := w.DB.InboxMarks(ctx, folder)
	if err != nil {
		return err
	}
	w.marks, w.stable, w.notes = marks, newStability(w.cfg.Stability), nil
	polling := once || w.cfg.Poll == PollAlways || (w.cfg.Poll == PollAuto && networkFS(folder))
	if !polling {
		if w.fsw, err = fsnotify.NewWatcher(); err != nil {
			if w.cfg.Poll == PollNever {
				return fmt.Errorf("%w: %v", errNotify, err)
			}
			w.logger().Warn("inbox: file notification is not available; polling", "folder", folder, "err", err)
			polling = true
		}
	}
	defer w.closeNotify()
	w.setStatus(Status{Folder: folder, Watching: !once, Polling: polling})
	err = w.scan(ctx, folder)
	if errors.Is(err, errNotify) {
		if w.cfg.Poll == PollNever {
			return err
		}
		// The inotify watch limit, most often: polling still sees every file.
		w.logger().Warn("inbox: file notification cannot watch the whole folder; polling", "folder", folder, "err", err)
		w.closeNotify()
		polling = true
		w.setStatus(Status{Folder: folder, Watching: true, Polling: true})
		err = w.scan(ctx, folder)
	}
	if err != nil {
		return err
	}
	var rescan <-chan time.Time
	if !once {
		every := w.cfg.Rescan
		if polling {
			every = w.cfg.PollInterval
		}
		t := time.NewTicker(every)
		defer t.Stop()
		rescan = t.C
	}
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w.fsw != nil {
		events, errs = w.fsw.Events, w.fsw.Errors
	}
	due := time.NewTimer(0)
	defer due.Stop()
	for {
		next := w.takeDue(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if once && w.stable.waiting() == 0 {
			return nil
		}
		var dueC <-chan time.Time
		if !next.IsZero() {
			due.Reset(time.Until(next))
			dueC = due.C
		}
		select {
		case <-ctx.Done():
			return nil
		case ev := <-events:
			if err := w.event(ctx, ev); err != nil {
				return err
			}
		case err := <-errs:
			// The kernel's queue overflowed: some events are lost; a walk
			// finds what they were about.
			w.logger().Warn("inbox: file notification", "err", err)
			if err := w.scan(ctx, folder); err != nil {
				return err
			}
		case <-dueC:
		case <-rescan:
			if err := w.scan(ctx, folder); err != nil {
				return err
			}
		}
		if !due.Stop() {
			select { // drain a fire not received, so Reset starts clean
			case <-due.C:
			default:
			}
		}
	}
}

func (w *Watcher) closeNotify() {
	if w.fsw != nil {
		_ = w.fsw.Close()
		w.fsw = nil
	}
}

// rel is path under the folder, slash-separated; false when it is not
// under it.
func (w *Watcher) rel(path string) (string, bool) {
	r, err := filepath.Rel(w.cfg.Folder, path)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// skipped reports whether the inbox leaves this path alone: ignored by
// name or pattern, or the done folder.
func (w *Watcher) skipped(path, rel string) bool {
	done := w.cfg.doneFolder()
	if path == done || strings.HasPrefix(path, done+string(filepath.Separator)) {
		return true
	}
	return w.cfg.ignored(filepath.Base(path), rel)
}

// scan walks dir (the folder or a new subfolder): every folder is watched
// and every file considered. Folders behind symbolic links are not
// followed, so a link loop cannot make the walk endless.
func (w *Watcher) scan(ctx context.Context, dir string) error {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if path == w.cfg.Folder {
				return errFolderGone
			}
			w.logger().Warn("inbox: cannot read", "path", path, "err", err)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		rel, ok := w.rel(path)
		if path != w.cfg.Folder && (!ok || w.skipped(path, rel)) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if w.fsw != nil {
				if err := w.fsw.Add(path); err != nil {
					if path == w.cfg.Folder || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
						return fmt.Errorf("%w: watch %s: %v", errNotify, path, err)
					}
					w.logger().Warn("inbox: cannot watch", "path", path, "err", err)
				}
			}
			return nil
		}
		w.consider(ctx, path, rel)
		return nil
	})
	if ctx.Err() != nil {
		return nil
	}
	if err == nil {
		w.flushNotes(ctx)
	}
	return err
}

// event handles one notification.
func (w *Watcher) event(ctx context.Context, ev fsnotify.Event) error {
	path := filepath.Clean(ev.Name)
	if path == w.cfg.Folder {
		if _, err := os.Stat(path); err != nil {
			return errFolderGone
		}
		return nil
	}
	rel, ok := w.rel(path)
	if !ok || w.skipped(path, rel) {
		return nil
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if w.stable.tracked(path) {
			w.stable.forget(path)
			w.gone(ctx, path, rel)
		}
		return nil
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return nil // gone again already; its Remove follows
	}
	if fi.IsDir() {
		// Files may have been made in it before its watch was added.
		return w.scan(ctx, path)
	}
	w.consider(ctx, path, rel)
	return nil
}

// consider compares a file on disk with its row: a settled file (stored,
// duplicate or failed at this size and mtime) is not read again; any other
// waits to become stable.
func (w *Watcher) consider(ctx context.Context, path, rel string) {
	fi, err := os.Stat(path)
	if err != nil {
		li, lerr := os.Lstat(path)
		if lerr != nil {
			w.stable.forget(path) // removed meanwhile
			return
		}
		// A link loop, a dangling link, a file that cannot be looked at:
		// failed, as the link is, until it changes.
		st := stat{Size: li.Size(), ModTime: li.ModTime()}
		if m, ok := w.marks[path]; ok && m.Matches(st.Size, st.ModTime) && m.Status == storage.InboxFailed {
			return
		}
		w.fail(ctx, path, rel, st, err)
		return
	}
	if !fi.Mode().IsRegular() {
		return // a folder behind a link, a device, a socket
	}
	st := stat{Size: fi.Size(), ModTime: fi.ModTime()}
	if m, ok := w.marks[path]; ok && m.Matches(st.Size, st.ModTime) && m.Status != storage.InboxWaiting {
		w.after(path, rel, m.Status) // again, should a stop have come between
		return
	}
	if m, ok := w.marks[path]; !ok || m.Status != storage.InboxWaiting {
		w.notes = append(w.notes, storage.InboxObservation{Path: path, Rel: rel, Size: st.Size, ModTime: st.ModTime, Tags: w.cfg.tags(rel)})
	}
	w.stable.observe(path, st, time.Now())
}

// flushNotes records the files seen since the last flush as waiting, in
// one transaction.
func (w *Watcher) flushNotes(ctx context.Context) {
	if len(w.notes) == 0 {
		return
	}
	notes := w.notes
	w.notes = nil
	if err := w.DB.NoteInboxWaiting(ctx, notes...); err != nil {
		w.logger().Warn("inbox: record waiting files", "err", err)
		return
	}
	for _, n := range notes {
		w.marks[n.Path] = storage.InboxMark{Size: n.Size, ModTime: n.ModTime, Status: storage.InboxWaiting}
		w.changed(storage.InboxFile{Path: n.Path, Rel: n.Rel, Size: n.Size, Modified: n.ModTime.UTC(),
			Status: storage.InboxWaiting, Tags: nonNil(n.Tags), UpdatedAt: time.Now().UTC()})
	}
}

func (w *Watcher) changed(f storage.InboxFile) {
	if w.OnChange != nil {
		w.OnChange(f)
	}
}

// takeDue takes the files that have become stable and returns when the
// next one will.
func (w *Watcher) takeDue(ctx context.Context) time.Time {
	w.flushNotes(ctx)
	ready, _ := w.stable.due(time.Now())
	for _, path := range slices.Sorted(maps.Keys(ready)) {
		if ctx.Err() != nil {
			return time.Time{}
		}
		rel, _ := w.rel(path)
		fi, err := os.Stat(path)
		if err != nil {
			w.stable.forget(path)
			if errors.Is(err, fs.ErrNotExist) {
				w.gone(ctx, path, rel)
			} else {
				w.consider(ctx, path, rel)
			}
			continue
		}
		now := stat{Size: fi.Size(), ModTime: fi.ModTime()}
		if !now.same(ready[path]) {
			w.stable.observe(path, now, time.Now())
			continue
		}
		w.stable.forget(path)
		w.take(ctx, path, rel, now)
	}
	w.flushNotes(ctx)
	now := time.Now()
	ready, next := w.stable.due(now)
	if len(ready) > 0 {
		return now // became stable while the others were taken
	}
	return next
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// take hands a stable file to the pipeline and records what it made.
func (w *Watcher) take(ctx context.Context, path, rel string, st stat) {
	if st.Size > ingest.MaxFileSize {
		w.fail(ctx, path, rel, st, fault.Errorf(fault.Invalid, "%w: %d MiB, the limit is %d MiB", errTooLarge, st.Size>>20, ingest.MaxFileSize>>20))
		return
	}
	o := w.Import(ctx, File{Path: path, Rel: rel, Tags: w.cfg.tags(rel), Size: st.Size, ModTime: st.ModTime})
	if ctx.Err() != nil {
		return // interrupted: the row stays waiting, and the next start takes the file
	}
	res := storage.InboxResult{Path: path, Size: st.Size, ModTime: st.ModTime, DocumentID: o.DocumentID, Duplicate: o.Duplicate}
	if o.Duplicate && o.DuplicateOf != "" {
		res.DocumentID = o.DuplicateOf
	}
	if o.Err != nil {
		res.Error, res.ErrorCode = fault.ErrorMessage(o.Err), errorCode(o.Err)
	}
	w.finish(ctx, res)
}

// fail records a file that cannot be taken, with why.
func (w *Watcher) fail(ctx context.Context, path, rel string, st stat, err error) {
	if m, ok := w.marks[path]; !ok || m.Status != storage.InboxWaiting {
		if nerr := w.DB.NoteInboxWaiting(ctx, storage.InboxObservation{Path: path, Rel: rel, Size: st.Size, ModTime: st.ModTime, Tags: w.cfg.tags(rel)}); nerr != nil {
			w.logger().Warn("inbox: record a failed file", "path", path, "err", nerr)
			return
		}
	}
	w.stable.forget(path)
	w.finish(ctx, storage.InboxResult{Path: path, Size: st.Size, ModTime: st.ModTime, Error: fault.ErrorMessage(err), ErrorCode: errorCode(err)})
}

// gone records a waiting file removed before it was taken.
func (w *Watcher) gone(ctx context.Context, path, rel string) {
	m, ok := w.marks[path]
	if !ok || m.Status != storage.InboxWaiting {
		return
	}
	w.finish(ctx, storage.InboxResult{Path: path, Size: m.Size, ModTime: m.ModTime,
		Error: "the file was removed before it was complete", ErrorCode: CodeGone})
}

func (w *Watcher) finish(ctx context.Context, res storage.InboxResult) {
	row, err := w.DB.FinishInboxFile(ctx, res)
	if err != nil {
		if ctx.Err() == nil {
			w.logger().Warn("inbox: record a file", "path", res.Path, "err", err)
		}
		return
	}
	w.marks[row.Path] = storage.InboxMark{Size: res.Size, ModTime: res.ModTime, Status: row.Status}
	w.changed(row)
	w.after(row.Path, row.Rel, row.Status)
}

// after does what the settings say with a file once its bytes are in the
// store: keep it, move it into the done folder (stored or duplicate), or
// delete it (stored only: a duplicate stays for the person to look at,
// and a failure is never touched, so nothing is lost).
func (w *Watcher) after(path, rel, status string) {
	switch {
	case w.cfg.After == AfterMove && (status == storage.InboxStored || status == storage.InboxDuplicate):
		dest, err := moveInto(path, filepath.Join(w.cfg.doneFolder(), filepath.FromSlash(rel)))
		if err != nil {
			w.logger().Warn("inbox: move into the done folder", "path", path, "err", err)
			return
		}
		w.logger().Debug("inbox: moved", "path", path, "to", dest)
	case w.cfg.After == AfterDelete && status == storage.InboxStored:
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			w.logger().Warn("inbox: delete a stored file", "path", path, "err", err)
		}
	}
}

// moveInto moves the file at src to dest, or beside it under a free name
// ("x (2).pdf") when dest exists, and returns where it went. Across
// filesystems it copies, then removes src.
func moveInto(src, dest string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", err
	}
	ext := filepath.Ext(dest)
	base := strings.TrimSuffix(dest, ext)
	for n := 2; ; n++ {
		if _, err := os.Lstat(dest); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dest = fmt.Sprintf("%s (%d)%s", base, n, ext)
	}
	err := os.Rename(src, dest)
	if err == nil || !errors.Is(err, syscall.EXDEV) {
		return dest, err
	}
	if err := copyFile(src, dest); err != nil {
		_ = os.Remove(dest)
		return "", err
	}
	return dest, os.Remove(src)
}

func copyFile(src, dest string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// errorCode classifies why a file failed, for clients to branch on.
func errorCode(err error) string {
	switch {
	case errors.Is(err, pdftext.ErrPasswordRequired):
		return storage.ErrorCodePasswordRequired
	case errors.Is(err, syscall.ELOOP):
		return CodeSymlinkLoop
	case errors.Is(err, fs.ErrPermission):
		return CodePermission
	case errors.Is(err, fs.ErrNotExist):
		return CodeGone
	case errors.Is(err, ingest.ErrUnsupported):
		return CodeUnsupported
	case errors.Is(err, errTooLarge):
		return CodeTooLarge
	}
	return CodeUnreadable
}
