// Package inbox watches a folder and hands each new file, once it has
// stopped changing, to the pipeline that stores it (an ImportFunc): the
// scanner's output folder, Downloads, a synced attachments folder.
//
// The inbox orders no stage of a document itself. It decides which file to
// take and when, remembers in the store what became of each
// (storage.InboxFile), and does what the settings say with the file
// afterwards (keep, move or delete). Files are taken once their size and
// mtime have not changed for the stability delay (stable.go), so a
// half-written file is never read; a file whose size and mtime match its
// row is never read again, across restarts.
package inbox

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// File is one stable file the inbox hands on.
type File struct {
	// Path is the file's absolute path; Rel its path under the folder.
	Path, Rel string
	// Tags are the names of its subfolders (when the setting says so).
	Tags    []string
	Size    int64
	ModTime time.Time
}

// Outcome is what the pipeline made of a file.
type Outcome struct {
	// DocumentID is the document stored; with Duplicate, DuplicateOf is
	// the one that had the same bytes already (DocumentID is it too). A
	// failed file may have a document as well: a PDF waiting for its
	// password is stored.
	DocumentID  string
	Duplicate   bool
	DuplicateOf string
	Err         error
}

// ImportFunc stores one stable file and hands it on to the pipeline's next
// stages.
type ImportFunc func(ctx context.Context, f File) Outcome

// Config is what the watcher watches and how (Settings.Config).
type Config struct {
	Folder        string
	After         string
	DoneFolder    string
	TagSubfolders bool
	Ignore        []string
	// Stability is the delay a file's size and mtime must stay the same;
	// 0 is DefaultStability.
	Stability time.Duration
	Poll      string
	// Rescan is how often the whole folder is walked again, as a safety
	// net under notification (DefaultRescan); PollInterval how often it is
	// walked when polling (DefaultPollInterval).
	Rescan, PollInterval time.Duration
}

// Defaults of Config.
const (
	DefaultRescan       = 3 * time.Minute
	DefaultPollInterval = 2 * time.Second
)

// goneRecheck is how often a folder that disappeared is looked for; a
// variable for tests.
var goneRecheck = 5 * time.Second

// builtinIgnore are names never taken: partial downloads, temporary files,
// Office's lock files, and what file managers leave in folders. Hidden
// names (".x") are ignored too.
var builtinIgnore = []string{"*.part", "*.crdownload", "*.tmp", "~$*", "Thumbs.db", "desktop.ini"}

// ignored reports whether the inbox leaves a file or folder alone by its
// name or its path under the folder.
func (c Config) ignored(name, rel string) bool {
	if strings.HasPrefix(name, ".") {
		return true
	}
	for _, p := range slices.Concat(builtinIgnore, c.Ignore) {
		if ok, _ := filepath.Match(p, name); ok {
			return true
		}
		if ok, _ := filepath.Match(p, rel); ok {
			return true
		}
	}
	return false
}

// doneFolder is where "move" puts files.
func (c Config) doneFolder() string {
	if c.DoneFolder != "" {
		return c.DoneFolder
	}
	return filepath.Join(c.Folder, DoneFolderName)
}

// tags are the subfolder names of rel, when the setting says so.
func (c Config) tags(rel string) []string {
	if !c.TagSubfolders {
		return nil
	}
	dir := filepath.Dir(filepath.FromSlash(rel))
	if dir == "." {
		return nil
	}
	return strings.Split(filepath.ToSlash(dir), "/")
}
