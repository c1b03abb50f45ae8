package desktop

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// windowStateFile is the file in the data directory that remembers the
// window's size and place between runs.
const windowStateFile = "window.json"

// The window's size: what a first run opens with, the least it may be (the
// UI's layout needs that much), and a bound no screen reaches, beyond which
// a number in window.json is damage.
const (
	defaultWidth  = 1280
	defaultHeight = 800
	minWidth      = 720
	minHeight     = 480
	maxSide       = 16384
)

// windowState is the window's size and place as window.json keeps them.
// Width and Height are the window's normal (not maximised) size; X and Y
// its top left corner as Wails reports it, meaningful only when Placed.
type windowState struct {
	Width, Height int
	X, Y          int
	// Placed: X and Y are known. A window that is not opens centred.
	Placed bool
	// Maximised: the window opens maximised, and un-maximises to
	// Width×Height.
	Maximised bool
}

// windowStateJSON is window.json. x and y are absent until the window has
// been placed.
type windowStateJSON struct {
	Width     int  `json:"width"`
	Height    int  `json:"height"`
	X         *int `json:"x,omitempty"`
	Y         *int `json:"y,omitempty"`
	Maximised bool `json:"maximised"`
}

func defaultWindowState() windowState {
	return windowState{Width: defaultWidth, Height: defaultHeight}
}

// loadWindowState reads window.json at path. A missing file gives the
// defaults and no error; a damaged one gives the defaults and says why
// (the caller logs it: the next save replaces the file). What it returns
// is clamped to sane bounds, not yet to a screen.
func loadWindowState(path string) (windowState, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return defaultWindowState(), nil
	}
	if err != nil {
		return defaultWindowState(), fmt.Errorf("read the window's size and place: %w", err)
	}
	var f windowStateJSON
	if err := json.Unmarshal(b, &f); err != nil {
		return defaultWindowState(), fmt.Errorf("%s is damaged, the window opens at its default size: %w", path, err)
	}
	s := windowState{Width: f.Width, Height: f.Height, Maximised: f.Maximised}
	if f.X != nil && f.Y != nil {
		s.X, s.Y, s.Placed = *f.X, *f.Y, true
	}
	return clampWindowState(s, nil), nil
}

// saveWindowState writes s to path atomically: a reader, or a crash in the
// middle, sees the old file or the new one, never half of one.
func saveWindowState(path string, s windowState) error {
	f := windowStateJSON{Width: s.Width, Height: s.Height, Maximised: s.Maximised}
	if s.Placed {
		f.X, f.Y = &s.X, &s.Y
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err // unreachable: ints and a bool
	}
	b = append(b, '\n')
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("save the window's size and place: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing to remove
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("save the window's size and place: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save the window's size and place: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save the window's size and place: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save the window's size and place: %w", err)
	}
	return nil
}

// screen is one monitor as Wails reports it: its size in the logical
// pixels window sizes are set in, and whether the window is on it.
type screen struct {
	Width, Height int
	Current       bool
	Primary       bool
}

// clampWindowState fits s to the screens: no smaller than the window's
// least size, no larger than the screen it opens on, and placed so that
// all of it is on the screens. Without screens (before the window exists)
// it only bounds the numbers. A size that is missing or not positive is
// the default. Screens of no size are taken for no screens.
//
// Wails reports each screen's size but not where it stands among the
// others. With one screen the window is kept wholly on it; with several it
// is kept within their widths and heights added up, which holds a window
// on any of them however they are arranged, and pulls back one left on a
// screen that is gone.
func clampWindowState(s windowState, screens []screen) windowState {
	if s.Width <= 0 || s.Height <= 0 {
		s.Width, s.Height = defaultWidth, defaultHeight
	}
	screens = slices.DeleteFunc(slices.Clone(screens), func(sc screen) bool { return sc.Width <= 0 || sc.Height <= 0 })
	maxW, maxH := maxSide, maxSide
	if sc, ok := openingScreen(screens); ok {
		maxW, maxH = sc.Width, sc.Height
	}
	s.Width = max(minWidth, min(s.Width, maxW, maxSide))
	s.Height = max(minHeight, min(s.Height, maxH, maxSide))
	if !s.Placed {
		s.X, s.Y = 0, 0
		return s
	}
	if len(screens) == 0 {
		s.X = max(-maxSide, min(s.X, maxSide))
		s.Y = max(-maxSide, min(s.Y, maxSide))
		return s
	}
	areaW, areaH := 0, 0
	for _, sc := range screens {
		areaW += sc.Width
		areaH += sc.Height
	}
	s.X = max(0, min(s.X, areaW-s.Width))
	s.Y = max(0, min(s.Y, areaH-s.Height))
	return s
}

// openingScreen is the screen the window opens on: the current one, else
// the primary, else the first. Screens of no size do not count.
func openingScreen(screens []screen) (screen, bool) {
	var found []screen
	for _, sc := range screens {
		if sc.Width > 0 && sc.Height > 0 {
			found = append(found, sc)
		}
	}
	for _, sc := range found {
		if sc.Current {
			return sc, true
		}
	}
	for _, sc := range found {
		if sc.Primary {
			return sc, true
		}
	}
	if len(found) > 0 {
		return found[0], true
	}
	return screen{}, false
}

// windowGeometry is what the window reports of itself at one moment.
type windowGeometry struct {
	Width, Height int
	X, Y          int
	Maximised     bool
	Minimised     bool
	Fullscreen    bool
}

// observeWindow is the state to remember after the window reported g,
// given what was remembered before. A maximised window keeps the normal
// size and place it had, so that it un-maximises there next time; a
// minimised or full-screen one, or one that reports no size (not shown
// yet), changes nothing.
func observeWindow(prev windowState, g windowGeometry) windowState {
	switch {
	case g.Minimised, g.Fullscreen:
		return prev
	case g.Maximised:
		prev.Maximised = true
		return prev
	case g.Width <= 0 || g.Height <= 0:
		return prev
	}
	return windowState{Width: g.Width, Height: g.Height, X: g.X, Y: g.Y, Placed: true}
}

// windowKeeper remembers the window's state in window.json, writing the
// file only when the state changed.
type windowKeeper struct {
	path string // "" keeps nothing

	mu    sync.Mutex
	state windowState // the latest
	saved windowState // what the file holds
}

// newWindowKeeper loads window.json from dataDir ("" keeps nothing). err
// says why a file that was there could not be read; the keeper then
// starts from the defaults.
func newWindowKeeper(dataDir string) (*windowKeeper, error) {
	k := &windowKeeper{state: defaultWindowState()}
	if dataDir == "" {
		k.saved = k.state
		return k, nil
	}
	k.path = filepath.Join(dataDir, windowStateFile)
	s, err := loadWindowState(k.path)
	k.state = s
	if err == nil {
		k.saved = s
	} // else the next observation rewrites the damaged file
	return k, err
}

// current is the state as last observed (or loaded).
func (k *windowKeeper) current() windowState {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.state
}

// observe records what the window reported and saves the state when it
// changed.
func (k *windowKeeper) observe(g windowGeometry) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.state = observeWindow(k.state, g)
	if k.path == "" || k.state == k.saved {
		return nil
	}
	if err := saveWindowState(k.path, k.state); err != nil {
		return err
	}
	k.saved = k.state
	return nil
}
