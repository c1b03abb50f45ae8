package inbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// SettingKey is the store's settings key of the inbox (one JSON object).
const SettingKey = "inbox"

// What becomes of a file once stored (Settings.After).
const (
	AfterKeep   = "keep"
	AfterMove   = "move"
	AfterDelete = "delete"
)

// How the folder is watched (Settings.Poll).
const (
	PollAuto   = "auto"   // notification, polling on network filesystems or when notification fails
	PollAlways = "always" // polling only
	PollNever  = "never"  // notification only; its failure is the inbox's error
)

// Where the folder setting in effect comes from (Settings.Source).
const (
	SourceFlag     = "flag"
	SourceSettings = "settings"
	SourceNone     = "none"
)

// DefaultStability is how long a file's size and mtime must stay the same
// before it is read.
const DefaultStability = 5 * time.Second

// DoneFolderName is where "move" puts files when no done folder is set:
// inside the inbox, hidden, so the watcher never reads them again.
const DoneFolderName = ".docent-done"

// Settings are the inbox's settings, as GET and PUT /api/settings/inbox
// send them and the store keeps them (docs/configuration.md).
type Settings struct {
	// Folder is the watched folder; "" for no inbox.
	Folder string `json:"folder"`
	// After is keep, move or delete: what becomes of a file once stored.
	After string `json:"after" ts:"'keep' | 'move' | 'delete'"`
	// DoneFolder is where move puts files; "" is <folder>/.docent-done.
	DoneFolder string `json:"done_folder"`
	// TagSubfolders tags a file with the names of its subfolders.
	TagSubfolders bool `json:"tag_subfolders"`
	// Ignore are glob patterns of names (or paths under the folder) the
	// inbox leaves alone, besides the built-in ones.
	Ignore []string `json:"ignore"`
	// StabilitySeconds is how long a file's size and mtime must not change
	// before it is read.
	StabilitySeconds float64 `json:"stability_seconds"`
	// Poll is auto, always or never.
	Poll string `json:"poll" ts:"'auto' | 'always' | 'never'"`
	// Source says where Folder comes from: flag (docent --serve --inbox,
	// not editable), settings, or none. Read only.
	Source string `json:"source" ts:"'flag' | 'settings' | 'none'"`
}

// DefaultSettings are the settings before anything is saved.
func DefaultSettings() Settings {
	return Settings{After: AfterKeep, TagSubfolders: true, Ignore: []string{},
		StabilitySeconds: DefaultStability.Seconds(), Poll: PollAuto, Source: SourceNone}
}

// LoadSettings reads the saved settings, over the defaults.
func LoadSettings(ctx context.Context, db *storage.DB) (Settings, error) {
	s := DefaultSettings()
	if _, err := db.GetSetting(ctx, SettingKey, &s); err != nil {
		return Settings{}, fmt.Errorf("inbox settings: %w", err)
	}
	s.Source = SourceNone
	if s.Folder != "" {
		s.Source = SourceSettings
	}
	if s.Ignore == nil {
		s.Ignore = []string{}
	}
	return s, nil
}

// SaveSettings checks s and saves it; nothing is saved when it is wrong.
func SaveSettings(ctx context.Context, db *storage.DB, s Settings) (Settings, error) {
	s, err := s.Check()
	if err != nil {
		return Settings{}, err
	}
	saved := s
	saved.Source = ""
	if err := db.SetSetting(ctx, SettingKey, saved); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// Check returns s with its folders made absolute and cleaned, or an
// invalid error naming the field that is wrong: a folder that does not
// exist, an unknown after or poll, a bad pattern, a delay out of range.
func (s Settings) Check() (Settings, error) {
	bad := func(field, format string, args ...any) (Settings, error) {
		return Settings{}, fault.Errorf(fault.Invalid, field+": "+format, args...).On(field)
	}
	if !slices.Contains([]string{AfterKeep, AfterMove, AfterDelete}, s.After) {
		return bad("after", "%q is not keep, move or delete", s.After)
	}
	if !slices.Contains([]string{PollAuto, PollAlways, PollNever}, s.Poll) {
		return bad("poll", "%q is not auto, always or never", s.Poll)
	}
	if s.StabilitySeconds < 0.1 || s.StabilitySeconds > 3600 {
		return bad("stability_seconds", "%v is not between 0.1 and 3600 seconds", s.StabilitySeconds)
	}
	for _, p := range s.Ignore {
		if _, err := filepath.Match(p, ""); err != nil || strings.TrimSpace(p) == "" {
			return bad("ignore", "%q is not a glob pattern", p)
		}
	}
	if s.Ignore == nil {
		s.Ignore = []string{}
	}
	if s.Folder != "" {
		abs, err := ExistingFolder(s.Folder)
		if err != nil {
			return bad("folder", "%v", err)
		}
		s.Folder = abs
	}
	if s.DoneFolder != "" {
		abs, err := filepath.Abs(s.DoneFolder)
		if err != nil {
			return bad("done_folder", "%v", err)
		}
		s.DoneFolder = abs
	}
	return s, nil
}

// ExistingFolder is dir made absolute, or why it is not a folder.
func ExistingFolder(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil && os.IsNotExist(err):
		return "", fmt.Errorf("folder %s does not exist", abs)
	case err != nil:
		return "", fmt.Errorf("folder %s: %w", abs, err)
	case !fi.IsDir():
		return "", fmt.Errorf("%s is not a folder", abs)
	}
	return abs, nil
}

// Config is the watcher's configuration from the settings.
func (s Settings) Config() Config {
	return Config{
		Folder: s.Folder, After: s.After, DoneFolder: s.DoneFolder, TagSubfolders: s.TagSubfolders,
		Ignore: s.Ignore, Stability: time.Duration(s.StabilitySeconds * float64(time.Second)), Poll: s.Poll,
	}
}
